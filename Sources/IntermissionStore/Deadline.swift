import Synchronization

/// Runs work with a deadline that holds even when the work ignores cancellation.
///
/// A task group cannot give this: it returns only after every child has ended, and a PostgreSQL
/// query already sent waits for the server's answer whatever its task is told (postgres-nio
/// awaits a future that only the connection completes). So the work runs in a task of its own;
/// the caller is answered by whichever comes first, the work's result or the deadline, and on
/// the deadline the work is cancelled and left to end by itself.
package enum Deadline {
    /// What `run` answers when the deadline passes first.
    package struct Expired: Error {}

    /// The result of `body`, or ``Expired`` when `limit` passes first on `clock` (`CancellationError`
    /// when the caller's task is cancelled first).
    package static func run<T: Sendable>(
        _ limit: Duration,
        clock: any Clock<Duration> = ContinuousClock(),
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        // Both tasks are cancelled when `run` returns; the work is deliberately not awaited (a
        // database call that ignores cancellation must not hold the caller past its deadline).
        let work = Task {
            do {
                race.finish(.success(try await body()))
            } catch {
                race.finish(.failure(error))
            }
        }
        let timer = Task {
            try? await clock.sleep(for: limit)
            if !Task.isCancelled { race.finish(.failure(Expired())) }
        }
        defer {
            timer.cancel()
            work.cancel()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in race.wait(continuation) }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The first result wins; the waiting caller gets it once.
    private final class Race<T: Sendable>: Sendable {
        private enum State {
            case open
            case waiting(CheckedContinuation<T, any Error>)
            case finished(Result<T, any Error>)
            case answered
        }

        private let state = Mutex(State.open)

        /// The caller waits (or is answered at once when a result came first).
        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            let ready = self.state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .open:
                    state = .waiting(continuation)
                    return nil
                case .finished(let result):
                    state = .answered
                    return result
                case .waiting, .answered:
                    preconditionFailure("Deadline.run waits once")
                }
            }
            if let ready { continuation.resume(with: ready) }
        }

        /// A result: the first one is the answer, later ones are dropped.
        func finish(_ result: Result<T, any Error>) {
            let waiting = self.state.withLock { state -> CheckedContinuation<T, any Error>? in
                switch state {
                case .open:
                    state = .finished(result)
                    return nil
                case .waiting(let continuation):
                    state = .answered
                    return continuation
                case .finished, .answered:
                    return nil
                }
            }
            waiting?.resume(with: result)
        }
    }
}
