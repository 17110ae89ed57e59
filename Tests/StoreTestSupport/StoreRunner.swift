import IntermissionStore
import Testing

/// Where the tests run the background work of the stores they open (a PostgreSQL store's
/// connection pool): the task group that ``RunningStores`` puts around each test.
public struct StoreRunner: Sendable {
    /// The runner of the test running now (set by ``RunningStores``).
    @TaskLocal public static var current: StoreRunner?

    fileprivate let runs: AsyncStream<@Sendable () async -> Void>.Continuation
}

/// `store`, its background work started in the current test's task group (nothing to start for
/// SQLite or memory).
///
/// A test that opens a PostgreSQL store itself has the trait `.runningStores`.
@discardableResult
public func running<Store: ServerStore>(_ store: Store) -> Store {
    guard let run = store.capabilities.run else { return store }
    guard let runner = StoreRunner.current else {
        Issue.record("a store with background work was opened outside a test with the trait .runningStores")
        return store
    }
    runner.runs.yield(run)
    return store
}

/// Runs each test case inside a task group that runs the background work of the stores it opens
/// (``running(_:)``), cancelled when the test case returns or throws, after the test closed them.
public struct RunningStores: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Creates the trait (see ``runningStores``).
    public init() {}

    /// Runs the test case in a task group that runs the stores' background work.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // Once per test case (a suite, or a test function as a whole, passes through).
        guard testCase != nil, StoreRunner.current == nil else { return try await function() }
        let (runs, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withDiscardingTaskGroup { running in
                    for await run in runs { running.addTask { await run() } }
                }
            }
            defer {
                continuation.finish()
                group.cancelAll()
            }
            try await StoreRunner.$current.withValue(StoreRunner(runs: continuation)) { try await function() }
        }
    }
}

extension Trait where Self == RunningStores {
    /// Runs the background work of the stores a test opens in a task group around each test case.
    public static var runningStores: Self { RunningStores() }
}
