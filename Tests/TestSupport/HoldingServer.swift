import Foundation

/// A loopback origin that reads each request and holds its answer until it is stopped: the
/// stimulus of a peer that never answers in time, for deadlines a test runs on a `ManualClock`.
///
/// Like every loopback server it needs a `.realTime` suite.
public final class HoldingServer: Sendable {
    private let server: RawServer
    private let released: DispatchSemaphore

    /// Starts listening on a free loopback port.
    public init() throws {
        let released = DispatchSemaphore(value: 0)
        self.released = released
        // A minute at the most, should a test forget to stop it. Once released, each request
        // passes the release on, so one after the stop is not held either.
        self.server = try RawServer { _, _ in
            _ = released.wait(timeout: .now() + 60)
            released.signal()
        }
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { self.server.base }

    /// Lets the request being held go unanswered (its connection closes) and stops listening.
    public func stop() {
        self.released.signal()
        self.server.stop()
    }
}
