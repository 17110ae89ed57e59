import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import IntermissionTestSupport
import InterstitialPlayback
import Logging
import NIOCore
import Synchronization
import Testing

/// A request the fixture server received.
struct ServedRequest: Sendable, CustomStringConvertible {
    var path: String
    var query: String?
    var sessionID: String?
    var range: String?
    /// The path with its query, as requested.
    var target: String { self.query.map { self.path + "?" + $0 } ?? self.path }
    var description: String { self.target }

    /// The value of a query parameter.
    func parameter(_ name: String) -> String? {
        guard let query else { return nil }
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1)
            if parts.first.map(String.init) == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}

/// A reply of the fixture server.
struct Reply: Sendable {
    var status: Int
    var body: [UInt8]
    var contentType: String

    static func text(_ text: String, type: String = "application/vnd.apple.mpegurl") -> Reply {
        Reply(status: 200, body: Array(text.utf8), contentType: type)
    }
    static func json(_ text: String) -> Reply { .text(text, type: "application/json") }
    static func status(_ code: Int) -> Reply {
        Reply(status: code, body: Array("error \(code)".utf8), contentType: "text/plain")
    }
}

/// The streams a test serves: the demo media (primary 60 s, three 10 s ads) under `/media/…`,
/// plus playlists and asset lists the test writes, fixed or computed per request (live windows
/// from the virtual clock).
final class FixtureSite: Sendable {
    private let routes = Mutex<[String: @Sendable (ServedRequest) async -> Reply]>([:])
    private let received = Mutex<[ServedRequest]>([])
    private let media: [String: [UInt8]]

    /// The demo media directory (Sources/IntermissionServer/Demo), found from this file's path.
    static let demoDirectory: URL = Fixture.repository.appendingPathComponent("Sources/IntermissionServer/Demo")

    /// The demo files, read once.
    static let demoFiles: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for folder in ["primary", "ad-red", "ad-green", "ad-blue"] {
            let directory = demoDirectory.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names {
                if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) {
                    files["/media/\(folder)/\(name)"] = [UInt8](data)
                }
            }
        }
        return files
    }()

    init() {
        self.media = Self.demoFiles
    }

    /// Serves `path` with a fixed reply.
    func serve(_ path: String, _ reply: Reply) {
        self.routes.withLock { $0[path] = { _ in reply } }
    }

    /// Serves `path` with a reply computed per request.
    func serve(_ path: String, _ handler: @escaping @Sendable (ServedRequest) -> Reply) {
        self.routes.withLock { $0[path] = { request in handler(request) } }
    }

    /// Serves `path` with a reply that may wait before it is given (a blocking playlist reload
    /// waits on the virtual clock with `VirtualPlaybackClock.wait(until:)`).
    func serveWaiting(_ path: String, _ handler: @escaping @Sendable (ServedRequest) async -> Reply) {
        self.routes.withLock { $0[path] = handler }
    }

    /// Serves `path` with the bytes of a demo file (`/media/…`).
    func serveDemoFile(_ path: String, from demoPath: String) {
        let bytes = Self.demoFiles[demoPath] ?? []
        self.routes.withLock { $0[path] = { request in Self.reply(bytes, range: request.range) } }
    }

    /// The whole file, or the `Range` asked for (`bytes=first-last`) with status 206.
    static func reply(_ bytes: [UInt8], range: String?, type: String = "video/mp2t") -> Reply {
        if let range, range.hasPrefix("bytes="), let dash = range.firstIndex(of: "-") {
            let first = Int(range[range.index(range.startIndex, offsetBy: 6)..<dash]) ?? 0
            let last = Int(range[range.index(after: dash)...]) ?? (bytes.count - 1)
            let slice = Array(bytes[min(first, bytes.count)..<min(last + 1, bytes.count)])
            return Reply(status: 206, body: slice, contentType: type)
        }
        return Reply(status: 200, body: bytes, contentType: type)
    }

    /// The requests received so far, in order.
    var requests: [ServedRequest] { self.received.withLock { $0 } }

    func respond(_ request: ServedRequest) async -> Reply {
        self.received.withLock { $0.append(request) }
        if let handler = self.routes.withLock({ $0[request.path] }) { return await handler(request) }
        if let bytes = self.media[request.path] {
            let type = request.path.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t"
            return Self.reply(bytes, range: request.range, type: type)
        }
        return .status(404)
    }
}

/// Answers a player's requests from a ``FixtureSite`` in memory: the same routes and replies as
/// the loopback server, with no socket.
///
/// Tests whose point is not HTTP play through it.
struct SiteLoader: ResourceLoader {
    /// The site answering.
    let site: FixtureSite

    func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        guard request.url.hasPrefix(siteBase + "/") else {
            return .failure(PlaybackError(code: .transport, message: "not on the fixture site", url: request.url))
        }
        let target = request.url.dropFirst(siteBase.count)
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var range: String?
        if let bytes = request.byteRange {
            let first = max(0, bytes.offset ?? 0)
            range = "bytes=\(first)-\(first + max(1, bytes.length) - 1)"
        }
        let served = ServedRequest(
            path: String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : nil,
            sessionID: sessionID,
            range: range
        )
        let reply = await self.site.respond(served)
        // Bounded as the HTTP loader bounds it; answered at once (1 ms for the bandwidth estimate).
        if reply.body.count > request.maximumBodySize {
            let message = "the body is larger than \(request.maximumBodySize) bytes"
            return .failure(PlaybackError(code: .bodyTooLarge, message: message, url: request.url))
        }
        let kept = request.keepsBody ? reply.body : []
        return .success(
            LoadResponse(status: reply.status, body: kept, byteCount: reply.body.count, elapsed: .milliseconds(1))
        )
    }
}

/// The base URL of the in-memory fixture site (never resolved: ``SiteLoader`` answers it).
let siteBase = "http://fixture.invalid"

/// The in-memory site of the test running, inside ``withFixtureSite(_:)``.
enum InMemorySite {
    @TaskLocal static var current: FixtureSite?
}

/// The loader a test's player takes: the in-memory site's inside ``withFixtureSite(_:)``, HTTP
/// otherwise (inside ``withFixtureServer(_:)``).
func fixtureLoader() -> any ResourceLoader {
    if let site = InMemorySite.current { return SiteLoader(site: site) }
    return HTTPResourceLoader()
}

/// Runs `body` with a fresh ``FixtureSite`` answered in memory: no server, no network.
///
/// The
/// players the test makes take ``fixtureLoader()``, which answers from the site.
func withFixtureSite<T: Sendable>(_ body: @Sendable (String, FixtureSite) async throws -> T) async throws -> T {
    let site = FixtureSite()
    return try await InMemorySite.$current.withValue(site) { try await body(siteBase, site) }
}

/// Runs `body` with a loopback HTTP server serving a fresh ``FixtureSite``.
func withFixtureServer<T: Sendable>(_ body: @Sendable (String, FixtureSite) async throws -> T) async throws -> T {
    RealTime.expectHeld("a fixture server on loopback")
    let site = FixtureSite()
    let router = Router()
    router.get("**") { request, _ -> Response in
        let served = ServedRequest(
            path: request.uri.path,
            query: request.uri.query,
            sessionID: request.headers[HTTPField.Name("X-PLAYBACK-SESSION-ID")!],
            range: request.headers[.range]
        )
        let reply = await site.respond(served)
        var headers = HTTPFields()
        headers[.contentType] = reply.contentType
        return Response(
            status: .init(code: reply.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: reply.body))
        )
    }
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "fixture-server")
    logger.logLevel = .critical
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        },
        logger: logger
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do {
            let result = try await body("http://127.0.0.1:\(port)", site)
            group.cancelAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}

/// Playlists the tests write.
enum Fixtures {
    /// A VOD media playlist over the demo primary segments, with extra tags after the header.
    static func vodPrimary(seconds: Int = 60, dateRanges: [String] = [], base: String = "/media/primary/") -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        lines.append("#EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z")
        lines += dateRanges
        for k in 0..<(seconds / 2) {
            lines.append("#EXTINF:2.000,")
            lines.append("\(base)seg-\(String(format: "%03d", k % 30)).ts")
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The date `seconds` after 2021-01-04T05:00:00Z, as START-DATE text.
    static func date(_ seconds: Double) -> String {
        let base = DateTime(iso8601: "2021-01-04T05:00:00.000Z")!
        return (base + MediaTime(seconds: seconds)).iso8601
    }

    /// An interstitial DATERANGE.
    static func interstitial(_ id: String, at seconds: Double, _ attributes: String) -> String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date(seconds))\",\(attributes)"
    }

    /// A sliding-window live playlist at `now` (segment k covers 2k…2k+2 s and exists once the
    /// clock passes its end), `window` segments long, with PDT, plus the date ranges whose start
    /// lies inside the window.
    static func live(
        now: MediaTime,
        window: Int = 6,
        dateRanges: [(start: Double, tag: String)] = [],
        ended: Bool = false,
        serverControl: String? = nil,
        skip: Bool = false
    ) -> String {
        let available = max(window, Int(now.seconds / 2))
        let first = available - window
        var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        if let serverControl { lines.append("#EXT-X-SERVER-CONTROL:\(serverControl)") }
        var startIndex = first
        if skip, window > 4 {
            lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(window - 4)")
            startIndex = first + window - 4
        }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(Double(startIndex * 2)))")
        for range in dateRanges where range.start >= Double(first * 2) - 30 && range.start < Double(available * 2) + 30
        {
            lines.append(range.tag)
        }
        for k in startIndex..<available {
            lines.append("#EXTINF:2.000,")
            lines.append("/media/primary/seg-\(String(format: "%03d", k % 30)).ts")
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Serves `/vod/prog.m3u8` (a VOD primary of `seconds` with `dateRanges`) and returns a player
/// of it on a virtual clock, playing (rate set; ``Player/run(until:)`` drives it).
func vodPlayer(
    _ base: String,
    _ site: FixtureSite,
    seconds: Int,
    dateRanges: [String],
    configuration: Player.Configuration = .init()
) async -> Player {
    site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: seconds, dateRanges: dateRanges)))
    let player = Player(
        item: PlayerItem(url: base + "/vod/prog.m3u8"),
        clock: VirtualPlaybackClock(),
        loader: fixtureLoader(),
        configuration: configuration
    )
    await player.play()
    return player
}

extension Player {
    /// The log entries named `event`.
    func entries(_ event: String) -> [PlayerLogEntry] { self.log.filter { $0.event == event } }
}

extension PlayerLogEntry {
    /// A short form for order assertions: `currentEventDidChange:ad1`, `primaryResumed@5`.
    var summary: String {
        switch self.event {
        case "currentEventDidChange": "current:" + (self["eventID"]?.stringValue ?? "nil")
        case "primaryResumed": "resumed@\(self["primaryTime"]?.doubleValue ?? -1)"
        case "eventDidFinish": "finished:\(self["eventID"]?.stringValue ?? "")"
        case "interstitialAssetStarted":
            "asset:\(self["eventID"]?.stringValue ?? "")#\(Int(self["index"]?.doubleValue ?? -1))"
        case "assetListLoaded": "list:\(self["eventID"]?.stringValue ?? "")"
        case "assetListFailed": "listFailed:\(self["eventID"]?.stringValue ?? "")"
        default: self.event
        }
    }
}
