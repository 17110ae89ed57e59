import Synchronization

/// A gate that tasks wait at until the test opens it: the stimulus of a slow peer (an origin, an ad
/// server) that is exactly as slow as the test needs, with no fixed pause.
///
/// Once open it stays open: every wait after returns at once. A waiting task that is cancelled stops
/// waiting (a server shutting down cancels its handlers).
public final class Gate: Sendable {
    private struct State {
        var open = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// Whether the gate has been opened.
    public var isOpen: Bool { self.state.withLock { $0.open } }

    /// Returns once the gate is open (at once if it is) or the task is cancelled.
    public func wait() async {
        let id = self.state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = self.state.withLock { state -> Bool in
                    guard !state.open, !Task.isCancelled else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !wait { continuation.resume() }
            }
        } onCancel: {
            self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Opens the gate: every waiting task goes on, and so will every later one.
    public func open() {
        let waiting = self.state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Runs `body` for at most `limit` of real time: a bound on how long a test waits for something
/// (a hang becomes a failure instead of a stuck run), never a pause that lets time pass.
///
/// When the limit passes first, `body`'s task is cancelled and `onTimeout` runs (to close what
/// `body` waits on, if cancellation alone does not end it); then `body` is awaited to its end.
///
/// - Returns: What `body` returned, or `nil` when the limit passed first.
public func withDeadline<Result: Sendable>(
    _ limit: Duration,
    onTimeout: @escaping @Sendable () async -> Void = {},
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result? {
    try await withThrowingTaskGroup(of: Result?.self) { race in
        race.addTask { try await body() }
        race.addTask {
            // The one real-time deadline of the tests: it ends a wait that never finishes.
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await race.next() ?? nil
        race.cancelAll()
        if first == nil { await onTimeout() }
        return first
    }
}
