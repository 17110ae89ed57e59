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
        guard let wait = self.realNanoseconds(until: deadline) else { return }
        try await Task.sleep(for: .nanoseconds(wait))
    }

    /// The real nanoseconds until the clock reads `deadline` (rounded up, at most `Int64.max`: a
    /// deadline centuries away waits, it does not trap), or `nil` when it reads it already.
    ///
    /// `package`: `EventLoopPlaybackClock` (ViewerLoadSupport) waits the same time on its loop.
    package func realNanoseconds(until deadline: MediaTime) -> Int64? {
        let wait = (deadline - self.now).seconds / self.speed * 1e9
        guard wait > 0 else { return nil }
        return wait >= 9.2e18 ? Int64.max : Int64(wait.rounded(.up))
    }
}

/// A clock that moves only when its player advances it: deterministic, and as fast as the
/// machine can serve the requests.
///
/// A server simulated in the same virtual time (in tests, one answering blocking playlist
/// reloads, §6.2.5.2) waits with ``wait(until:)``. While a player has a blocking reload in flight,
/// it advances the clock no further than the earliest such wait, and then waits for the answer
/// rather than running ahead of it.
public final class VirtualPlaybackClock: PlaybackClock {
    private struct Waiter {
        var deadline: MediaTime
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var now: MediaTime
        var waiters: [Int: Waiter] = [:]
        /// Bumped whenever a wait begins, so a player can tell that a server started waiting.
        var generation = 0
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        /// Waits cancelled before they were stored.
        var cancelled: Set<Int> = []
    }

    // A Mutex because the player advances the clock while loaders, servers and observers read it
    // from other tasks; it is held only to read or update the state, never across a suspension.
    private let state: Mutex<State>

    /// Creates a clock that reads `start`.
    public init(start: MediaTime = .zero) {
        self.state = Mutex(State(now: start))
    }

    /// The current virtual time.
    public var now: MediaTime { self.state.withLock { $0.now } }

    /// `true`.
    public var isVirtual: Bool { true }

    /// Moves the clock forward to `time` (an earlier time is ignored) and releases the waits that
    /// are due.
    public func advance(to time: MediaTime) {
        let due = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard time > state.now else { return [] }
            state.now = time
            var due: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters where waiter.deadline <= time {
                if let continuation = waiter.continuation { due.append(continuation) }
                state.waiters[id] = nil
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns at once: the player advances this clock.
    public func sleep(until deadline: MediaTime) async throws {
        try Task.checkCancellation()
    }

    /// Suspends until the clock reads `deadline` or later: how a server living in this virtual
    /// time waits (for example before answering a blocking playlist reload).
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func wait(until deadline: MediaTime) async throws {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, watchers) = self.state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.now >= deadline || state.cancelled.remove(id) != nil { return (true, []) }
                    state.waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    state.generation += 1
                    let watchers = Array(state.watchers.values)
                    state.watchers.removeAll()
                    return (false, watchers)
                }
                if resumeNow { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return waiter.continuation
            }
            continuation?.resume()
        }
        self.state.withLock { _ = $0.cancelled.remove(id) }
        try Task.checkCancellation()
    }

    /// The earliest pending ``wait(until:)`` deadline, and a counter of the waits begun so far.
    var pendingWaits: (generation: Int, earliest: MediaTime?) {
        self.state.withLock { state in (state.generation, state.waiters.values.map(\.deadline).min()) }
    }

    /// Suspends until a wait begins after the one counted by `generation` (or the task is cancelled).
    func waitForNewWait(after generation: Int) async {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.generation > generation || state.cancelled.remove(id) != nil { return true }
                    state.watchers[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let watcher = state.watchers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return watcher
            }
            continuation?.resume()
        }
        self.state.withLock { _ = $0.cancelled.remove(id) }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = self.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
