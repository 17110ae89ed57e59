import AdInsertion
import CompressNIO
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import NIOCore
import Synchronization
import Testing

@testable import IntermissionServer

/// The demo's live media playlist at `t0 + 100 s`: the loop's 2 s segments, so segment 49 is the last
/// complete one and the window changes at `t0 + 102 s`.
private let liveMedia = "/live/demo/prog.m3u8"

extension TestClientProtocol {
    func head(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await self.execute(uri: uri, method: .head, headers: headers, body: nil) { $0 }
    }
}

/// The HTTP-date of a second since 1970, worked out here with Foundation.
private func httpDate(_ seconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
}

@Suite(.realTime) struct CacheHeaderTests {
    /// Every route with the `Cache-Control` and content type it must carry.
    @Test(.timeLimit(.minutes(1))) func everyRouteCarriesItsCacheControl() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            // The demo primary's target duration is 2 s (Demo/primary/prog.m3u8): half is 1 s.
            let table: [(path: String, cacheControl: String, type: String)] = [
                ("/vod/demo/main.m3u8", "max-age=3600", "application/vnd.apple.mpegurl"),
                ("/vod/demo/prog.m3u8", "max-age=3600", "application/vnd.apple.mpegurl"),
                ("/live/demo/main.m3u8", "max-age=60", "application/vnd.apple.mpegurl"),
                (liveMedia, "max-age=1", "application/vnd.apple.mpegurl"),
                (
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=v",
                    "private, no-store", "application/json"
                ),
                ("/media/demo/ad-red/main.m3u8", "max-age=300", "application/vnd.apple.mpegurl"),
                ("/media/demo/ad-red/prog.m3u8", "max-age=300", "application/vnd.apple.mpegurl"),
                ("/media/demo/primary/seg-000.ts", "max-age=31536000, immutable", "video/mp2t"),
                ("/health", "no-store", "application/json"),
            ]
            for row in table {
                for method in [HTTPRequest.Method.get, .head] {
                    let response = try await client.execute(uri: row.path, method: method, headers: [:], body: nil) {
                        $0
                    }
                    #expect(response.status == .ok, "\(method) \(row.path)")
                    #expect(response.headers[.cacheControl] == row.cacheControl, "\(method) \(row.path)")
                    #expect(response.headers[.contentType]?.hasPrefix(row.type) == true, "\(method) \(row.path)")
                    if method == .head { #expect(response.body.readableBytes == 0, "\(row.path)") }
                }
            }
        }
    }

    /// A live playlist with a 6 s target duration gets `max-age=3`; 1 s gets the floor of 1 s; an
    /// upstream's absurd target durations are kept to 1 s through 30 min.
    @Test func liveMaxAgeIsHalfTheTargetDuration() {
        #expect(PlaylistKind.liveMedia(targetDuration: 6).cacheControl == "max-age=3")
        #expect(PlaylistKind.liveMedia(targetDuration: 7).cacheControl == "max-age=3")
        #expect(PlaylistKind.liveMedia(targetDuration: 1).cacheControl == "max-age=1")
        #expect(PlaylistKind.liveMedia(targetDuration: 3600).cacheControl == "max-age=1800")
        #expect(PlaylistKind.liveMedia(targetDuration: Int.max).cacheControl == "max-age=1800")
        #expect(PlaylistKind.liveMedia(targetDuration: Int.min).cacheControl == "max-age=1")
    }

    /// Playlists carry a strong ETag, Last-Modified and Vary; the conditional requests get 304.
    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func conditionalRequestsGet304() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            for path in ["/vod/demo/prog.m3u8", liveMedia, "/live/demo/main.m3u8"] {
                let first = try await client.get(path)
                let etag = try #require(first.headers[.eTag], "\(path)")
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "strong: \(etag)")
                #expect(first.headers[.vary] == "Accept-Encoding")
                // Rendered at t0 + 100 s (the server's clock).
                #expect(
                    first.headers[.lastModified] == httpDate(t0.nanosecondsSince1970 / 1_000_000_000 + 100),
                    "\(path)"
                )
                let modified = try #require(first.headers[.lastModified])

                let same = try await client.get(path, headers: [.ifNoneMatch: etag])
                #expect(same.status == .notModified, "\(path)")
                #expect(same.body.readableBytes == 0)
                #expect(same.headers[.eTag] == etag)
                #expect(same.headers[.cacheControl] == first.headers[.cacheControl])
                #expect(try await client.get(path, headers: [.ifNoneMatch: "W/" + etag]).status == .notModified)
                #expect(
                    try await client.get(path, headers: [.ifNoneMatch: "\"other\", " + etag]).status == .notModified
                )
                #expect(try await client.get(path, headers: [.ifNoneMatch: "*"]).status == .notModified)
                #expect(try await client.get(path, headers: [.ifNoneMatch: "\"other\""]).status == .ok)
                #expect(try await client.head(path, headers: [.ifNoneMatch: etag]).status == .notModified)

                #expect(try await client.get(path, headers: [.ifModifiedSince: modified]).status == .notModified)
                let later = httpDate(t0.nanosecondsSince1970 / 1_000_000_000 + 101)
                #expect(try await client.get(path, headers: [.ifModifiedSince: later]).status == .notModified)
                let earlier = httpDate(t0.nanosecondsSince1970 / 1_000_000_000 + 99)
                #expect(try await client.get(path, headers: [.ifModifiedSince: earlier]).status == .ok)
                // If-None-Match decides when both are there.
                let both: HTTPFields = [.ifNoneMatch: "\"other\"", .ifModifiedSince: modified]
                #expect(try await client.get(path, headers: both).status == .ok)
                // Malformed dates are ignored.
                for bad in [
                    "yesterday", "Wed, 01 Jan 2025 00:01:40 UTC", String(repeating: "9", count: 40), "", "\u{0}",
                ] {
                    #expect(try await client.get(path, headers: [.ifModifiedSince: bad]).status == .ok, "\(bad)")
                }
            }
        }
    }

    /// `Accept-Encoding: gzip` gets the gzip copy, which inflates to the same bytes, with its own
    /// ETag; HEAD gets the same headers; a refused gzip gets the plain bytes.
    @Test(.timeLimit(.minutes(1))) func gzipCopyIsServedToThoseWhoAcceptIt() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            for path in ["/vod/demo/prog.m3u8", liveMedia] {
                let plain = try await client.get(path)
                #expect(plain.headers[.contentEncoding] == nil)
                let zipped = try await client.get(path, headers: [.acceptEncoding: "gzip, deflate, br"])
                #expect(zipped.status == .ok)
                #expect(zipped.headers[.contentEncoding] == "gzip")
                #expect(zipped.headers[.vary] == "Accept-Encoding")
                #expect(zipped.headers[.contentLength] == String(zipped.body.readableBytes))
                #expect(zipped.body.readableBytes < plain.body.readableBytes)
                var compressed = zipped.body
                let inflated = try compressed.decompress(with: .gzip())
                #expect(Array(inflated.readableBytesView) == plain.bytes)
                let zippedTag = try #require(zipped.headers[.eTag])
                #expect(zippedTag != plain.headers[.eTag])
                #expect(
                    try await client.get(path, headers: [.acceptEncoding: "gzip", .ifNoneMatch: zippedTag]).status
                        == .notModified
                )
                // The plain tag does not validate the gzip copy.
                #expect(
                    try await client.get(path, headers: [.acceptEncoding: "gzip", .ifNoneMatch: plain.headers[.eTag]!])
                        .status == .ok
                )

                let head = try await client.head(path, headers: [.acceptEncoding: "gzip"])
                #expect(head.body.readableBytes == 0)
                for field in [
                    HTTPField.Name.contentEncoding, .contentLength, .eTag, .vary, .cacheControl, .contentType,
                    .lastModified,
                ] {
                    #expect(head.headers[field] == zipped.headers[field], "\(field)")
                }
                for refused in [
                    "gzip;q=0", "identity", "gzip;q=0.000, identity", "*;q=0", "br", "gzip;q=nan", "gzip;q=1e308",
                    "*, gzip;q=0",
                ] {
                    let answer = try await client.get(path, headers: [.acceptEncoding: refused])
                    #expect(answer.headers[.contentEncoding] == nil, "\(refused)")
                    #expect(answer.bytes == plain.bytes, "\(refused)")
                }
                for accepted in ["GZIP", "x-gzip", "*", "gzip;q=0.001", "deflate;q=1, gzip ; q=0.5", "*;q=0.5"] {
                    #expect(
                        try await client.get(path, headers: [.acceptEncoding: accepted]).headers[.contentEncoding]
                            == "gzip",
                        "\(accepted)"
                    )
                }
            }
        }
    }
}

@Suite(.realTime) struct CacheLifetimeTests {
    /// An entry is served until the channel's next segment boundary, then rendered again.
    @Test(.timeLimit(.minutes(1))) func liveEntriesLiveUntilTheNextSegmentBoundary() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let first = try await client.get(liveMedia)
            #expect(try MediaPlaylist(bytes: first.bytes).mediaSequence == 44)  // 50 complete, 6 shown
            // 1.5 s later, in another second: the same entry (a new render would say t0 + 101).
            clock.advance(by: MediaTime(milliseconds: 1500))
            let cached = try await client.get(liveMedia)
            #expect(cached.headers[.lastModified] == first.headers[.lastModified])
            #expect(cached.bytes == first.bytes)
            // t0 + 102 s: segment 50 is complete.
            clock.advance(by: MediaTime(milliseconds: 500))
            let next = try await client.get(liveMedia)
            #expect(try MediaPlaylist(bytes: next.bytes).mediaSequence == 45)
            #expect(next.headers[.eTag] != first.headers[.eTag])
            #expect(next.headers[.lastModified] == httpDate(t0.nanosecondsSince1970 / 1_000_000_000 + 102))
            #expect(try await client.get(liveMedia, headers: [.ifNoneMatch: first.headers[.eTag]!]).status == .ok)
        }
    }

    /// An admin break shows in the next request at once, without waiting for the boundary.
    @Test(.timeLimit(.minutes(1))) func anAdminBreakReplacesTheEntryAtOnce() async throws {
        let clock = ManualWallClock(t0 + 30)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let before = try await client.get(liveMedia)
            #expect(!before.text.contains("ID=\"flash\""))
            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "flash", "startIn": 4, "duration": 10}"#
            )
            #expect(created.status == .created)
            let after = try await client.get(liveMedia)
            #expect(after.text.contains("ID=\"flash\""))
            #expect(try await client.get(liveMedia, headers: [.ifNoneMatch: before.headers[.eTag]!]).status == .ok)
            // An early return changes the tag at once too.
            let early = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks/flash/early-return",
                json: #"{"after": 5}"#
            )
            #expect(early.status == .ok)
            let shortened = try await client.get(liveMedia)
            #expect(
                dateRangeLines(shortened.text).first { $0.contains("ID=\"flash\"") }?.contains("X-PLAYOUT-LIMIT=5")
                    == true
            )
        }
    }

    /// Other spellings of a playlist path are answered the same, and not kept (one entry per playlist).
    @Test(.timeLimit(.minutes(1))) func onlyCanonicalPathsAreKept() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let canonical = try await client.get("/vod/demo/prog.m3u8")
            let spelled = try await client.get("/vod/demo/pr%6Fg.m3u8")
            #expect(spelled.status == .ok && spelled.bytes == canonical.bytes)
            #expect(spelled.headers[.eTag] == canonical.headers[.eTag])
            // Refused spellings stay refused after the canonical one is cached.
            #expect(try await client.get("/vod/demo/%2e%2e/demo/prog.m3u8").status == .badRequest)
            #expect(try await client.get("/vod/demo/prog.m3u8%00").status == .badRequest)
            #expect(try await client.get("/vod/nope/prog.m3u8").status == .notFound)
            // A query does not change the answer.
            #expect(try await client.get("/vod/demo/prog.m3u8?x=1").bytes == canonical.bytes)
        }
    }
}

@Suite(.realTime) struct SingleFlightTests {
    /// Twenty requests for a missing entry while the upstream holds its answer (until all twenty
    /// connections are open): the upstream is asked once, and every request gets the same answer.
    @Test(.timeLimit(.minutes(1))) func concurrentMissesRenderOnce() async throws {
        let origin = try #require(
            await PageServer(
                handler: """
                    if self.path == "/count":
                        body = str(getattr(type(self), "hits", 0)).encode()
                    else:
                        type(self).hits = getattr(type(self), "hits", 0) + 1
                        gate.wait()
                        body = b"#EXTM3U\\n#EXT-X-TARGETDURATION:20\\n#EXT-X-MEDIA-SEQUENCE:7\\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\\n#EXTINF:2.0,\\ns7.ts\\n"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    """
            )
        )
        defer { origin.stop() }
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 1))
        configuration.adInsertion.channels.append(
            LiveChannel(id: "slow", source: .upstream("http://127.0.0.1:\(origin.port)/live.m3u8"))
        )
        // The upstream holds its answer until the test lets it go: the fetch must outlast that.
        configuration.upstreamTimeout = .seconds(40)
        let port = origin.port
        try await withServer(configuration) { client in
            let server = try #require(client.port)
            let before = try #require(try await ConnectionLimitTests.openConnections(port: server))
            // Twenty connections at once (the test client sends its requests one after another).
            let answers = try await withThrowingTaskGroup(of: RawResponse.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await rawExchange(
                            port: server,
                            "GET /live/slow/live.m3u8 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                        )
                    }
                }
                // The upstream answers once the server holds all twenty connections (the first
                // request waits for the upstream, the others for that request).
                await waitUntil(within: .seconds(20)) {
                    (try? await ConnectionLimitTests.openConnections(port: server)).flatMap { $0 } ?? 0 >= before + 20
                }
                origin.openGate()
                var all: [RawResponse] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(Set(answers.map(\.body)).count == 1)
            #expect(
                answers.first.map { String(decoding: $0.body, as: UTF8.self) }?.contains(
                    "http://127.0.0.1:\(port)/s7.ts"
                ) == true
            )
            let count = try await rawExchange(
                port: port,
                "GET /count HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            #expect(String(decoding: count.body, as: UTF8.self) == "1")
        }
    }
}

@Suite(.realTime) struct HTTPDateTests {
    /// IMF-fixdate both ways, against dates worked out by Foundation, and the edges of the range.
    @Test func formatsAndParsesIMFFixdates() {
        for seconds: Int64 in [
            0, 1, 86_399, 86_400, 951_782_400, 1_735_689_600, 4_107_542_399, -1, -86_401, 253_402_300_799,
        ] {
            let text = HTTPDate.format(secondsSince1970: seconds)
            #expect(text == httpDate(seconds), "\(seconds)")
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
        }
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // Out of range: clamped to the years 0000 ... 9999, never a trap.
        #expect(HTTPDate.format(secondsSince1970: .max) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(secondsSince1970: .min).hasSuffix(" 0000 00:00:00 GMT"))
        for bad in [
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT ", "Sun, 06 Nov 1994 08:49:3x GMT",
            "Sun, 06 Nov -994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
            String(repeating: "1", count: 100_000),
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad.prefix(40))")
        }
    }
}

@Suite(.realTime) struct ChannelIsolationTests {
    /// `count` requests for the demo channel's media playlist, one after another, with the clock
    /// moved half a second before each (so a new window is rendered every fourth), and more while
    /// `done` says so (up to 20 times `count`).
    static func sample(
        _ client: any TestClientProtocol,
        clock: ManualWallClock,
        count: Int,
        until done: @Sendable () async throws -> Bool = { true }
    ) async throws {
        var made = 0
        // One request every 2 ms or so, at most `20 * count` of them: through the shared helper,
        // whose deadline only matters if the server stops answering.
        await waitUntil(within: .seconds(300), checkingEvery: .milliseconds(2)) {
            if made >= 20 * count { return true }
            if made >= count, (try? await done()) == true { return true }
            clock.advance(by: MediaTime(milliseconds: 500))
            let response = try? await client.get(liveMedia)
            #expect(response?.status == .ok)
            made += 1
            return false
        }
    }

    /// The server's histogram of `/live/{channel}/**` answer times: the count at or under each
    /// bucket bound (seconds; `+Inf` last).
    static func histogram(_ client: any TestClientProtocol) async throws -> [(bound: Double, count: Int)] {
        try await client.get("/metrics").text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("intermission_http_request_duration_seconds_bucket{"),
                line.contains(#"route="/live/{channel}/**""#),
                let le = line.split(separator: "le=\"").last?.split(separator: "\"").first,
                let count = line.split(separator: " ").last.flatMap({ Int($0) })
            else { return nil }
            return (le == "+Inf" ? .infinity : Double(le) ?? .nan, count)
        }
        .sorted { $0.bound < $1.bound }
    }

    /// The 99th percentile of the answers counted between two histograms: the first bucket bound
    /// that holds 99% of them.
    static func p99(from before: [(bound: Double, count: Int)], to after: [(bound: Double, count: Int)]) -> Double {
        let counts = zip(before, after).map { (bound: $1.bound, count: $1.count - $0.count) }
        guard let total = counts.last?.count, total > 0 else { return .nan }
        return counts.first { $0.count * 100 >= total * 99 }?.bound ?? .infinity
    }

    /// A 24-hour upstream (43,200 segments) whose window moves on every read, read and decorated in
    /// the background every second beside the small demo channel: the demo channel's p99, from the
    /// server's own histogram, stays within twice its p99 alone (measured first, in the same run).
    ///
    /// The heavy channel is a feed of its own (an actor), decorated on NIO's thread pool, and the
    /// demo channel renders on the playlist service, which the feed does not hold. Bound: twice the
    /// p99 alone, with a floor of 50 ms, the bucket a busy two-core machine puts an unlucky sample
    /// in; decorating the heavy channel on the shared actor (as before issue 16) held the demo
    /// channel's new windows for 0.5 to 1 s in a debug build. The buckets step by about 2×, so
    /// "within 2×" allows one bucket more than alone.
    @Test(.timeLimit(.minutes(2))) func aHeavyUpstreamDoesNotStallASmallChannel() async throws {
        // A sliding 24-hour window: every read is one segment further on, so every read is a change
        // to parse and decorate.
        let origin = try #require(
            await PageServer(
                handler: """
                    if self.path == "/count":
                        body = str(getattr(type(self), "reads", 0)).encode()
                    else:
                        n = getattr(type(self), "reads", 0) + 1
                        type(self).reads = n
                        head = "#EXTM3U\\n#EXT-X-VERSION:3\\n#EXT-X-TARGETDURATION:2\\n#EXT-X-MEDIA-SEQUENCE:%d\\n" % n
                        head += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:%02d.000Z\\n" % (2 * n % 60)
                        body = (head + "".join("#EXTINF:2.000,\\n1080p/seg-%d.ts\\n" % k for k in range(n, n + 43200))).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    """
            )
        )
        defer { origin.stop() }
        let clock = ManualWallClock(t0 + 100)
        var configuration = try demoConfiguration(clock: clock)
        configuration.maximumUpstreamBytes = 8 * 1024 * 1024
        configuration.adInsertion.channels.append(
            LiveChannel(id: "dvr", source: .upstream("http://127.0.0.1:\(origin.port)/dvr/live.m3u8"))
        )
        let port = origin.port
        @Sendable func upstreamReads() async throws -> Int {
            let answer = try await rawExchange(
                port: port,
                "GET /count HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            return Int(String(decoding: answer.body, as: UTF8.self)) ?? -1
        }
        try await withServer(configuration) { client in
            try await Self.sample(client, clock: clock, count: 20)  // warm
            let aloneBefore = try await Self.histogram(client)
            try await Self.sample(client, clock: clock, count: 200)
            let aloneAfter = try await Self.histogram(client)

            let first = try await client.get("/live/dvr/live.m3u8")
            #expect(first.status == .ok)
            #expect(first.text.contains("http://127.0.0.1:\(port)/dvr/1080p/seg-43200.ts"))
            // Over 1 MiB: its gzip copy (zlib's default level, made after the first answer went
            // out) inflates to the same bytes.
            #expect(first.body.readableBytes > 1_048_576)
            var zipped = try await client.get("/live/dvr/live.m3u8", headers: [.acceptEncoding: "gzip"])
            try await waitUntil(within: .seconds(20), checkingEvery: .milliseconds(20)) {
                if zipped.headers[.contentEncoding] == "gzip" { return true }
                zipped = try await client.get("/live/dvr/live.m3u8", headers: [.acceptEncoding: "gzip"])
                return zipped.headers[.contentEncoding] == "gzip"
            }
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.body.readableBytes < first.body.readableBytes / 4)
            var compressed = zipped.body
            #expect(Array(try compressed.decompress(with: .gzip()).readableBytesView) == first.bytes)

            // From here on only the demo channel is asked for; the heavy one is read and decorated
            // in the background (every second), at least three times over.
            let readsBefore = try await upstreamReads()
            let loadedBefore = try await Self.histogram(client)
            try await Self.sample(client, clock: clock, count: 200) { try await upstreamReads() >= readsBefore + 3 }
            let loadedAfter = try await Self.histogram(client)
            #expect(try await upstreamReads() >= readsBefore + 3)

            let alone = Self.p99(from: aloneBefore, to: aloneAfter)
            let loaded = Self.p99(from: loadedBefore, to: loadedAfter)
            #expect(loaded <= max(2 * alone, 0.05), "p99 alone \(alone) s, beside the heavy channel \(loaded) s")
        }
    }
}

/// A count shared by tasks.
final class ManagedCounter: Sendable {
    private let count = Mutex(0)
    func add() { self.count.withLock { $0 += 1 } }
    func raise(to value: Int) { self.count.withLock { $0 = max($0, value) } }
    var value: Int { self.count.withLock { $0 } }
}

@Suite(.realTime) struct UpstreamCacheTests {
    /// An upstream read again with the same bytes keeps its ETag and Last-Modified (so CDNs
    /// revalidate with 304); a change, picked up by the background loop (every half target
    /// duration, 2 s here), gets new ones.
    @Test(.timeLimit(.minutes(1))) func anUnchangedUpstreamKeepsItsValidators() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let live =
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:10\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
            + "#EXTINF:4.0,\ns10.ts\n"
        try write(live, to: folder + "/up/live.m3u8")
        let origin = try #require(await PageServer(directory: URL(fileURLWithPath: folder)))
        defer { origin.stop() }
        let clock = ManualWallClock(t0 + 4)
        var configuration = try demoConfiguration(clock: clock)
        configuration.adInsertion.channels.append(
            LiveChannel(id: "up", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"))
        )
        try await withServer(configuration) { client in
            let first = try await client.get("/live/up/live.m3u8")
            #expect(first.status == .ok)
            #expect(first.headers[.cacheControl] == "max-age=2")  // half of 4 s
            // Past the 4 s the entry lives and the 4 s it may stand in after that: read again by
            // this request, unchanged, made again with the same validators.
            clock.advance(by: 9)
            let again = try await client.get("/live/up/live.m3u8")
            #expect(again.headers[.eTag] == first.headers[.eTag])
            #expect(again.headers[.lastModified] == first.headers[.lastModified])
            #expect(
                try await client.get("/live/up/live.m3u8", headers: [.ifNoneMatch: first.headers[.eTag]!]).status
                    == .notModified
            )
            // A change: the loop reads it within 2 s (a loaded machine may take longer).
            try write(live + "#EXTINF:4.0,\ns11.ts\n", to: folder + "/up/live.m3u8")
            var changed = again
            try await waitUntil(within: .seconds(10), checkingEvery: .milliseconds(50)) {
                if changed.text.contains("s11.ts") { return true }
                changed = try await client.get("/live/up/live.m3u8")
                return changed.text.contains("s11.ts")
            }
            #expect(changed.text.contains("s11.ts"))
            #expect(changed.headers[.eTag] != first.headers[.eTag])
            #expect(changed.headers[.lastModified] == httpDate(t0.nanosecondsSince1970 / 1_000_000_000 + 13))
        }
    }
}

@Suite(.realTime) struct CachedMetricsTests {
    /// Answers from the cache are counted like the others: by route, method and status.
    @Test(.timeLimit(.minutes(1))) func cachedAnswersAreCounted() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let first = try await client.get(liveMedia)  // rendered (through the router)
            for _ in 0..<3 { _ = try await client.get(liveMedia) }  // cached
            _ = try await client.get(liveMedia, headers: [.ifNoneMatch: first.headers[.eTag]!])
            _ = try await client.head(liveMedia)
            _ = try await client.get("/vod/demo/prog.m3u8")
            _ = try await client.get("/vod/demo/prog.m3u8")
            let text = try await client.get("/metrics").text
            func count(_ labels: String) -> String? {
                text.split(separator: "\n").first { $0.hasPrefix("intermission_http_requests_total{\(labels)}") }
                    .flatMap { $0.split(separator: " ").last.map(String.init) }
            }
            #expect(count(#"route="/live/{channel}/**",method="GET",status="200""#) == "4", "\(text)")
            #expect(count(#"route="/live/{channel}/**",method="GET",status="304""#) == "1")
            #expect(count(#"route="/live/{channel}/**",method="HEAD",status="200""#) == "1")
            #expect(count(#"route="/vod/{asset}/**",method="GET",status="200""#) == "2")
            let histogram = text.split(separator: "\n").first {
                $0.hasPrefix(#"intermission_http_request_duration_seconds_count{route="/live/{channel}/**"}"#)
            }
            #expect(histogram?.hasSuffix(" 6") == true, "\(String(describing: histogram))")
        }
    }
}

/// A large playlist rendered on a request's path is answered before its gzip copy is made; the copy
/// joins the entry a moment later, and never replaces an entry that changed meanwhile.
@Suite(.realTime) struct DeferredGzipTests {
    /// A VOD playlist of `segments` segments: well over the deferral threshold at 20,000.
    static func playlist(segments: Int, prefix: String = "seg") -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        for index in 0..<segments { text += "#EXTINF:2.000,\n\(prefix)-\(index).ts\n" }
        return Array((text + "#EXT-X-ENDLIST\n").utf8)
    }

    @Test(.timeLimit(.minutes(1))) func theFirstAnswerDoesNotWaitForTheGzipCopy() async throws {
        let cache = ResponseCache(clock: ManualWallClock(t0))
        let bytes = Self.playlist(segments: 20_000)
        #expect(bytes.count > ResponseCache.gzipDeferralThreshold)
        let first = cache.store(
            RenderedPlaylist(bytes: bytes, kind: .vod, validUntil: nil, staleFor: nil),
            key: "/vod/big/prog.m3u8",
            scope: "vod:big",
            generation: 0,
            deferringGzip: true
        )
        #expect(first.gzipBody == nil)
        #expect(first.headers[.contentLength] == String(bytes.count))
        // The copy is made in the background: wait for it (generously: the machine is shared).
        var entry = try #require(cache.fresh("/vod/big/prog.m3u8"))
        try await waitUntil(within: .seconds(20), checkingEvery: .milliseconds(50)) {
            entry = try #require(cache.fresh("/vod/big/prog.m3u8"))
            return entry.gzipBody != nil
        }
        var zipped = try #require(entry.gzipBody)
        #expect(zipped.readableBytes < bytes.count / 4)
        #expect(Array(try zipped.decompress(with: .gzip()).readableBytesView) == bytes)
        #expect(entry.etag == first.etag)
        #expect(entry.lastModified == first.lastModified)
        #expect(entry.gzipHeaders[.contentEncoding] == "gzip")
        #expect(entry.headers[.cacheControl] == first.headers[.cacheControl])

        // A small playlist, or a render off the request path, gets its copy at once.
        let small = cache.store(
            RenderedPlaylist(bytes: Self.playlist(segments: 10), kind: .vod, validUntil: nil, staleFor: nil),
            key: "/vod/small/prog.m3u8",
            scope: "vod:small",
            generation: 0,
            deferringGzip: true
        )
        #expect(small.gzipBody != nil)
        let background = cache.store(
            RenderedPlaylist(bytes: bytes, kind: .vod, validUntil: nil, staleFor: nil),
            key: "/vod/other/prog.m3u8",
            scope: "vod:other",
            generation: 0
        )
        #expect(background.gzipBody != nil)
    }

    @Test func aLateCopyDoesNotReplaceAChangedEntry() throws {
        let clock = ManualWallClock(t0)
        let cache = ResponseCache(clock: clock)
        let old = RenderedPlaylist(bytes: Self.playlist(segments: 20_000), kind: .vod, validUntil: nil, staleFor: nil)
        let new = RenderedPlaylist(
            bytes: Self.playlist(segments: 20_000, prefix: "new"),
            kind: .vod,
            validUntil: nil,
            staleFor: nil
        )
        // The entry now holds `new` (stored without deferral, so it has its own copy).
        let stored = cache.store(new, key: "/vod/a/prog.m3u8", scope: "vod:a", generation: 0)
        // The copy of the old bytes arrives late: it is dropped.
        cache.addGzipCopy(old, tag: ContentDigest.hex(old.bytes), lastModified: 1, key: "/vod/a/prog.m3u8")
        let entry = try #require(cache.fresh("/vod/a/prog.m3u8"))
        #expect(entry.etag == stored.etag)
        var zipped = try #require(entry.gzipBody)
        #expect(Array(try zipped.decompress(with: .gzip()).readableBytesView) == new.bytes)
        // A copy for a key with no entry adds nothing.
        cache.addGzipCopy(old, tag: ContentDigest.hex(old.bytes), lastModified: 1, key: "/vod/none/prog.m3u8")
        #expect(cache.fresh("/vod/none/prog.m3u8") == nil)
    }
}
