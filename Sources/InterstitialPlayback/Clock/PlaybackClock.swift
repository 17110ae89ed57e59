import HLSPlaylist
import Synchronization

/// The clock that drives a ``Player``: playback time advances with it, reloads and timeouts are
/// measured on it, and every `"t"` of the event log is read from it.
///
/// Two clocks come with the module:
/// - ``RealPlaybackClock`` follows the machine's monotonic clock, optionally faster than real time
///   (`intermission play --speed`).
/// - ``VirtualPlaybackClock`` only moves when the player has nothing else to do: the player performs
///   every request for real, waits for the answers, and then jumps the clock to its next deadline.
///   A ten-minute stream plays in well under a second and every run gives the same event order.
public protocol PlaybackClock: Sendable {
    /// Seconds since the clock started.
    var now: MediaTime { get }
    /// Whether the player advances this clock itself (``advance(to:)``) once it is idle, instead of
    /// sleeping.
    var isVirtual: Bool { get }
    /// Moves a virtual clock forward to `time` (never backwards); real clocks ignore it.
    func advance(to time: MediaTime)
    /// Waits until the clock reads `deadline` or later; returns at once for a virtual clock.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: MediaTime) async throws
}

/// A clock that follows the machine's monotonic clock, `speed` times faster than real time.
public struct RealPlaybackClock: PlaybackClock {
    private let origin: ContinuousClock.Instant
    /// How many clock seconds pass per real second (1 = real time).
    public let speed: Double

    /// Creates a clock that reads 0 now.
    ///
    /// - Parameter speed: Clock seconds per real second; must be positive.
    public init(speed: Double = 1) {
        precondition(speed > 0, "the speed of a clock must be positive")
        self.origin = ContinuousClock.now
        self.speed = speed
    }

    /// Seconds since the clock was created, scaled by ``speed``.
    public var now: MediaTime {
        let elapsed = ContinuousClock.now - self.origin
        return MediaTime(seconds: elapsed.seconds * self.speed)
    }

    /// `false`: this clock moves by itself.
    public var isVirtual: Bool { false }

    /// Does nothing: real time cannot be advanced.
    public func advance(to time: MediaTime) {}

    /// Sleeps until the clock reads `deadline`.
    public func sleep(until deadline: MediaTime) async throws {
        let wait = (deadline - self.now).seconds / self.speed
        guard wait > 0 else { return }
        try await Task.sleep(for: .nanoseconds(Int64((wait * 1e9).rounded(.up))))
    }
}

/// A clock that moves only when its player advances it: deterministic, and as fast as the
/// machine can serve the requests.
public final class VirtualPlaybackClock: PlaybackClock {
    // A Mutex because the player advances the clock while loaders and observers read it from
    // other tasks; the value is a single integer, so the lock is never held for long.
    private let time: Mutex<MediaTime>

    /// Creates a clock that reads `start`.
    public init(start: MediaTime = .zero) {
        self.time = Mutex(start)
    }

    /// The current virtual time.
    public var now: MediaTime { self.time.withLock { $0 } }

    /// `true`.
    public var isVirtual: Bool { true }

    /// Moves the clock forward to `time`; an earlier time is ignored.
    public func advance(to time: MediaTime) {
        self.time.withLock { current in
            if time > current { current = time }
        }
    }

    /// Returns at once: the player advances this clock.
    public func sleep(until deadline: MediaTime) async throws {
        try Task.checkCancellation()
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = self.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
