import HLSPlaylist

/// Any `Clock<Duration>` (the continuous clock, or a test's manual clock), read as the time since
/// it was wrapped: how the group code reads its local instants and waits out its intervals and
/// timeouts.
///
/// Every component of the group code that waits or times out takes `some Clock<Duration>` in its
/// initializer (`ContinuousClock()` by default) and keeps it as one of these, so that tests can
/// advance a clock instead of sleeping.
public struct ElapsedClock: Sendable {
    /// The time elapsed on the clock since it was wrapped.
    private let reading: @Sendable () -> Duration
    /// Sleeps on the clock for a duration.
    private let sleeping: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`; its current instant becomes ``now()``'s zero.
    public init(_ clock: some Clock<Duration> = ContinuousClock()) {
        let origin = clock.now
        self.reading = { origin.duration(to: clock.now) }
        self.sleeping = { try await clock.sleep(for: $0) }
    }

    /// The time elapsed on the clock since it was wrapped.
    public var elapsed: Duration { self.reading() }

    /// The elapsed time as an instant (nanoseconds since the clock was wrapped, saturating).
    public func now() -> ClockInstant { ClockInstant(nanoseconds: MediaTime(self.reading()).nanoseconds) }

    /// Waits `duration` on the clock (returns at once for zero or less).
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        try await self.sleeping(duration)
    }

    /// Waits on the clock until it reads `instant` (an instant of ``now()``).
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until instant: ClockInstant) async throws {
        try await self.sleep(for: .nanoseconds(self.now().duration(to: instant).nanoseconds))
    }
}
