import GroupCoordination
import IntermissionTestSupport
import Testing

@testable import IntermissionCLI

/// `download`'s watchdog on a manual clock: a body that stalls fails when the clock passes the
/// idle timeout and not a moment before, each chunk moves that moment, and a body that trickles
/// under `--min-rate` fails at the end of its window.
@Suite struct TransferWatchdogClockTests {
    /// Runs the watchdog over a body that `read` delivers on `clock`; the task, to await.
    func watch(
        _ limits: TransferLimits,
        on clock: ManualClock,
        _ read: @escaping @Sendable (TransferMeter) async throws -> Void
    ) -> Task<Int, any Error> {
        Task {
            try await TransferWatchdog.guarded(
                url: "http://origin.test/a.ts",
                limits: limits,
                clock: ElapsedClock(clock)
            ) {
                meter in
                try await read(meter)
                return 1
            }
        }
    }

    /// What the guarded read threw (`nil` when it returned).
    func failure(of task: Task<Int, any Error>) async -> String? {
        do {
            _ = try await task.value
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aStalledBodyFailsWhenTheClockPassesTheTimeoutAndNotBefore() async throws {
        let clock = ManualClock()
        let task = self.watch(TransferLimits(idleTimeout: .seconds(30), minimumRate: 0), on: clock) { meter in
            meter.received(100)
            // Then nothing more: the body hangs far past the timeout.
            try await clock.sleep(for: .seconds(3600))
        }
        // The read waits at +3600 s, the watchdog at +30 s (the first chunk came at +0).
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(30), .seconds(3600)] })
        clock.advance(by: .seconds(29))
        // One second short: both still wait, nothing failed.
        #expect(clock.deadlines.map(\.offset) == [.seconds(30), .seconds(3600)])
        clock.advance(by: .seconds(1))
        let message = await self.failure(of: task)
        #expect(message == "http://origin.test/a.ts: stalled: no data for 30 s after 100 bytes of the body (--timeout)")
    }

    @Test func eachChunkMovesTheStallDeadline() async throws {
        let clock = ManualClock()
        let task = self.watch(TransferLimits(idleTimeout: .seconds(30), minimumRate: 0), on: clock) { meter in
            meter.received(100)
            try await clock.sleep(for: .seconds(20))
            meter.received(50)
            try await clock.sleep(for: .seconds(3600))
        }
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(20), .seconds(30)] })
        clock.advance(by: .seconds(20))
        // The second chunk came at +20 s; at +30 s the watchdog finds it and waits until +50 s.
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(30), .seconds(3620)] })
        clock.advance(by: .seconds(10))
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(50), .seconds(3620)] })
        clock.advance(by: .seconds(20))
        let message = await self.failure(of: task)
        #expect(message == "http://origin.test/a.ts: stalled: no data for 30 s after 150 bytes of the body (--timeout)")
    }

    @Test func aBodyUnderTheMinimumRateFailsAtTheEndOfItsWindow() async throws {
        let clock = ManualClock()
        // 1,000 bytes a second over a 10 s window: 10,000 bytes needed, 7,000 come.
        let task = self.watch(TransferLimits(idleTimeout: .seconds(10), minimumRate: 1000), on: clock) { meter in
            meter.received(5000)
            try await clock.sleep(for: .seconds(5))
            meter.received(2000)
            try await clock.sleep(for: .seconds(3600))
        }
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(5), .seconds(10)] })
        clock.advance(by: .seconds(5))
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(10), .seconds(3605)] })
        clock.advance(by: .seconds(5))
        let message = await self.failure(of: task)
        #expect(
            message
                == "http://origin.test/a.ts: too slow: 7000 bytes in 10 s, under the minimum of 1000 bytes a second (--min-rate)"
        )
    }

    @Test func aBodyThatKeepsUpEndsWithItsValue() async throws {
        let clock = ManualClock()
        let task = self.watch(TransferLimits(idleTimeout: .seconds(10), minimumRate: 1000), on: clock) { meter in
            meter.received(20_000)
            try await clock.sleep(for: .seconds(9))
            meter.received(1)
        }
        #expect(await waitUntil { clock.deadlines.map(\.offset) == [.seconds(9), .seconds(10)] })
        clock.advance(by: .seconds(9))
        #expect(await self.failure(of: task) == nil)
        #expect(try await task.value == 1)
    }
}
