/// Waits until `condition` holds, checking it every `interval`, for at most `limit` of real time.
///
/// For tests that wait for something to happen in another task or process: it returns as soon as
/// the condition holds, and a generous `limit` (30 s by default) only matters when the condition
/// never comes, so a slow, loaded machine does not fail the test and a broken one does not hang it.
///
/// - Returns: Whether the condition held (`false` when the time ran out or the task was
///   cancelled); tests `#expect` or `#require` it.
@discardableResult
public func waitUntil(
    within limit: Duration = .seconds(30),
    checkingEvery interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
        // The one sleep the tests keep: between checks of a condition, under a deadline.
        try? await Task.sleep(for: interval)
    }
}
