import AdInsertion
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Logging
import NIOCore
import Testing

/// The demo configuration on a virtual clock (or the given one), an in-memory store and a free port.
func demoConfiguration(clock: any WallClock, database: String = "memory:") throws -> ServerConfiguration {
    var configuration = try ServerConfiguration.demo(
        base: ServerConfiguration(
            hostname: "127.0.0.1",
            port: 0,
            database: database,
            adminToken: "secret",
            clock: clock,
            logLevel: .error
        )
    )
    configuration.defaultLiveStartDate = t0
    return configuration
}

/// Runs `body` against the application listening on loopback (real HTTP).
///
/// HummingbirdTesting's live client connects when the test starts, and a test may send its first
/// request long after (a player plays first): the request-head deadline, which counts from the
/// connection's start, would close that connection ("I/O on closed channel", seen under load). So
/// the default deadline is raised to the idle timeout here; a test of the deadline sets its own.
func withServer<T: Sendable>(
    _ configuration: ServerConfiguration,
    _ body: @escaping @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    RealTime.expectHeld("a server on loopback")
    var configuration = configuration
    if configuration.requestHeadTimeout == ServerConfiguration.defaultRequestHeadTimeout {
        configuration.requestHeadTimeout = configuration.idleTimeout
    }
    let app = try await buildApplication(configuration: configuration)
    return try await app.test(.live, body)
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await self.execute(uri: uri, method: .get, headers: headers, body: nil) { $0 }
    }

    func admin(
        _ method: HTTPRequest.Method,
        _ uri: String,
        json: String? = nil,
        token: String = "secret"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if json != nil { headers[.contentType] = "application/json" }
        return try await self.execute(
            uri: uri,
            method: method,
            headers: headers,
            body: json.map { ByteBuffer(string: $0) }
        ) { $0 }
    }
}

extension TestResponse {
    var text: String { String(buffer: self.body) }
    var bytes: [UInt8] { Array(self.body.readableBytesView) }
    var json: JSONValue? { try? JSONValue.parse(self.bytes) }
}

func errors(_ bytes: [UInt8]) -> [PlaylistDiagnostic] {
    InterstitialValidator().validate(playlist: bytes).filter { $0.severity == .error }
}

/// The `EXT-X-DATERANGE` lines other than preload ranges (Appendix F; ``preloadLines(_:)``).
func dateRangeLines(_ text: String) -> [String] {
    text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") && !$0.contains(preloadClassText) }.map(
        String.init
    )
}

/// The `EXT-X-DATERANGE` lines of `CLASS="com.apple.hls.preload"`.
func preloadLines(_ text: String) -> [String] {
    text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") && $0.contains(preloadClassText) }.map(
        String.init
    )
}

private let preloadClassText = "CLASS=\"com.apple.hls.preload\""

func write(_ text: String, to path: String) throws {
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// A write lock on an SQLite file, taken by another connection and kept until ``free()``.
struct HeldWriteLock {
    private let release: DispatchSemaphore
    private let holder: Task<Void, any Error>

    /// Opens a connection to `path` that waits up to 30 s for a write lock another connection
    /// holds (a server's start-up write, say), where GRDB's default gives up at once.
    static func connection(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Takes the write lock with `connection` (an immediate transaction) and returns once it is held.
    ///
    /// Throws what taking it threw (the lock stayed busy past the connection's timeout): the
    /// caller learns why, where it used to wait for a lock that would never be held.
    init(_ connection: DatabaseQueue) async throws {
        let (held, heldContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        self.release = release
        self.holder = Task {
            // The stream ends whichever way the transaction goes, so the wait below always ends.
            defer { heldContinuation.finish() }
            try await connection.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    heldContinuation.yield()
                    release.wait()
                    return .commit
                }
            }
        }
        var heldIterator = held.makeAsyncIterator()
        if await heldIterator.next() == nil {
            // Never held: the holder failed (or was cancelled); its error says why.
            try await self.holder.value
            throw CancellationError()
        }
    }

    /// Frees the lock and waits until the transaction that held it has ended.
    func free() async throws {
        self.release.signal()
        try await self.holder.value
    }
}

// The storage tests' helpers (IntermissionStoreTestSupport), named here so that every file of this
// target reaches them without importing that module.

/// The instant the tests decide at (`IntermissionStoreTestSupport.t0`).
let t0 = IntermissionStoreTestSupport.t0

/// A scratch folder, removed by the caller.
func makeScratchFolder() throws -> String { try IntermissionStoreTestSupport.makeScratchFolder() }

/// A stored decision of one creative for `key`, named by `creative`.
func decision(_ key: DecisionKey, creative: String) -> AdDecision {
    IntermissionStoreTestSupport.decision(key, creative: creative)
}
