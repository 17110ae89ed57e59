/// Waits `delay` before a fake server answers: the stimulus of a test about a slow peer (an ad
/// server or an origin that answers late), not a wait for something to happen.
///
/// Tests do not sleep to let time pass; they wait for a condition (`waitUntil`) or advance a
/// `ManualClock`. A fake server that must be late on purpose says so through this function, so that
/// the remaining real-time sleeps of the tests are these, counted apart.
public func respondLate(by delay: Duration) async throws {
    try await Task.sleep(for: delay)
}
