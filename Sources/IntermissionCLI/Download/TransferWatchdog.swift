import Foundation
import GroupCoordination
import Synchronization

/// How slow the body of one download may be before it fails.
struct TransferLimits: Sendable {
    /// The longest pause between two chunks of a body (`--timeout`).
    var idleTimeout: Duration
    /// The fewest bytes a second a body must bring over each ``window`` (`--min-rate`); 0 turns
    /// the check off.
    var minimumRate: Int

    /// What the minimum rate is measured over: the idle timeout, at least a second.
    var window: Duration { max(self.idleTimeout, .seconds(1)) }
}

/// What the reader of a body tells its watchdog: the bytes so far and when the last ones came.
final class TransferMeter: Sendable {
    /// The clock the body's chunks are timed on.
    let clock: ElapsedClock
    /// The bytes received and when the last chunk came (time elapsed on ``clock``).
    private let state: Mutex<(bytes: Int64, last: Duration)>

    /// A meter whose body starts now on `clock`.
    init(clock: ElapsedClock) {
        self.clock = clock
        self.state = Mutex((0, clock.elapsed))
    }

    /// Counts a chunk of `count` bytes, arrived now.
    func received(_ count: Int) {
        let now = self.clock.elapsed
        self.state.withLock { $0 = ($0.bytes + Int64(count), now) }
    }

    /// The bytes so far and when the last chunk came.
    var snapshot: (bytes: Int64, last: Duration) {
        self.state.withLock { $0 }
    }
}

/// Fails the body of a download that stalls for longer than the timeout, or trickles in under
/// the minimum rate, so that a hostile or broken server cannot hang `download`.
enum TransferWatchdog {
    /// Runs `read` (which tells the meter of every chunk) and cancels it, throwing a
    /// ``DownloadError`` that names `url` and the reason, when the body breaks `limits` on `clock`.
    static func guarded<Value: Sendable>(
        url: String,
        limits: TransferLimits,
        clock: ElapsedClock,
        _ read: @escaping @Sendable (TransferMeter) async throws -> Value
    ) async throws -> Value {
        let meter = TransferMeter(clock: clock)
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await read(meter) }
            group.addTask {
                try await Self.watch(meter, url: url, limits: limits)
                return nil
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if let value = outcome { return value }
            }
            throw CancellationError()
        }
    }

    /// Waits on the meter's clock until the body breaks `limits` (then throws) or the task is
    /// cancelled.
    static func watch(_ meter: TransferMeter, url: String, limits: TransferLimits) async throws {
        let clock = meter.clock
        var window = (start: clock.elapsed, bytes: Int64(0))
        while true {
            let (bytes, last) = meter.snapshot
            let now = clock.elapsed
            if now - last >= limits.idleTimeout {
                throw DownloadError(
                    description: "\(url): stalled: no data for \(Self.seconds(now - last)) s after \(bytes) bytes"
                        + " of the body (--timeout)"
                )
            }
            var wake = last + limits.idleTimeout
            if limits.minimumRate > 0 {
                let elapsed = now - window.start
                if elapsed >= limits.window {
                    let got = bytes - window.bytes
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    if Double(got) < Double(limits.minimumRate) * seconds {
                        throw DownloadError(
                            description: "\(url): too slow: \(got) bytes in \(Self.seconds(elapsed)) s, under the"
                                + " minimum of \(limits.minimumRate) bytes a second (--min-rate)"
                        )
                    }
                    window = (now, bytes)
                }
                wake = min(wake, window.start + limits.window)
            }
            try await clock.sleep(for: wake - now)
        }
    }

    /// A duration in seconds, to the millisecond, without trailing zeros.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
