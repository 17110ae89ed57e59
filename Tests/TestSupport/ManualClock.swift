import Synchronization

/// A `Clock` that moves only when a test advances it, for components that take
/// `some Clock<Duration>` (heartbeats, timeouts, probe intervals): a test advances it past a
/// deadline instead of sleeping until it.
///
/// A final class with a `Mutex`: the component under test sleeps on it from its own tasks while
/// the test advances it; the lock is held only to read or change the state, never across a
/// suspension.
public final class ManualClock: Clock, Sendable {
    /// An instant of a ``ManualClock``: the time since the clock started.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock started.
        public var offset: Duration

        /// Creates the instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: self.offset + duration) }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - self.offset }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// `+1.5 seconds`.
        public var description: String { "+\(self.offset)" }
    }

    /// A suspended `sleep`: its deadline and how to wake it.
    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, Never>
    }

    /// The clock's time, its sleepers by ID, and sleeps cancelled before they were stored.
    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        var cancelled: Set<Int> = []
        /// How many sleeps have begun since the clock was made.
        var sleepsBegun = 0
    }

    private let state = Mutex(State())

    /// Creates a clock that reads zero.
    public init() {}

    /// The clock's time.
    public var now: Instant { self.state.withLock { $0.now } }

    /// Zero: the clock moves in whatever steps a test advances it by.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are suspended now.
    public var sleeperCount: Int { self.state.withLock { $0.sleepers.count } }

    /// How many sleeps have begun since the clock was made (finished or not).
    public var sleepsBegun: Int { self.state.withLock { $0.sleepsBegun } }

    /// The deadlines of the sleeps suspended now, earliest first: a test waits until the component
    /// under test sleeps until the instant it means to pass, then advances the clock there.
    public var deadlines: [Instant] { self.state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Moves the clock forward to `instant` (an earlier instant is ignored) and wakes the sleeps
    /// that are due.
    public func advance(to instant: Instant) {
        self.advance(by: self.now.duration(to: instant))
    }

    /// Moves the clock forward by `duration` and wakes the sleeps that are due.
    public func advance(by duration: Duration) {
        let due = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.now = state.now.advanced(by: max(duration, .zero))
            let now = state.now
            let ready = state.sleepers.filter { $0.value.deadline <= now }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Suspends until the clock has been advanced to `deadline` (returns at once when it reads it
    /// already).
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            state.sleepsBegun += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.now >= deadline || state.cancelled.remove(id) != nil { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper.continuation
            }
            continuation?.resume()
        }
        self.state.withLock { _ = $0.cancelled.remove(id) }
        try Task.checkCancellation()
    }
}
