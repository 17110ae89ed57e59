import Foundation
import IntermissionTestSupport
import Synchronization
import Testing

/// `download` and `play` against hostile loopback origins (raw servers that stall, trickle,
/// lie about sizes, list a million segments or name local files): each fails with a clear error,
/// within about its timeout, without writing or reading outside what it was given.
@Suite(.timeLimit(.minutes(1)), .realTime)
struct HostileOriginCommandTests {
    /// The request lines a raw server received, in order.
    final class RequestLog: Sendable {
        private let lines = Mutex<[String]>([])

        /// Records the request line of `head`.
        func add(_ head: String) {
            let line = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
            self.lines.withLock { $0.append(line) }
        }

        /// Every request line so far.
        var all: [String] { self.lines.withLock { $0 } }
    }

    /// A VOD media playlist of `count` one-second segments `s0.ts`, `s1.ts`, …, with `extra`
    /// lines after the header.
    static func playlist(segments count: Int, extra: [String] = []) -> [UInt8] {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"] + extra
        for index in 0..<count { lines += ["#EXTINF:1.000,", "s\(index).ts"] }
        lines.append("#EXT-X-ENDLIST")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// A raw origin: `/main.m3u8` answers `playlist` (or `main` when given), any other path
    /// `segment` (a complete 188-byte segment by default); every request is logged.
    static func origin(
        playlist: [UInt8],
        log: RequestLog = RequestLog(),
        main: [(pause: Int, bytes: [UInt8])]? = nil,
        segment: (@Sendable (String) -> [(pause: Int, bytes: [UInt8])])? = nil
    ) throws -> RawServer {
        try RawServer { head in
            log.add(head)
            if head.hasPrefix("GET /main.m3u8 ") {
                return main ?? [(0, RawServer.response("200 OK", playlist))]
            }
            return segment?(head) ?? [(0, RawServer.response("200 OK", [UInt8](repeating: 0x47, count: 188)))]
        }
    }

    /// A segment's head announcing `length` bytes, and nothing of the body yet.
    static func head(length: Int) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Runs `download` of the origin's `/main.m3u8` into `folder` (a fresh one, removed after,
    /// when `nil`) and expects it to fail (exit 1), saying each of `parts`, before `limit` passes.
    ///
    /// The limit is not a speed target, so it is never tight: by default the download's own default
    /// `--timeout` (30 s; failing before it, the failure came from the check, not from waiting), and
    /// for an origin that stalls or trickles, the time that origin takes to send its whole answer
    /// (failing before it, the command did not wait the origin out).
    static func expectFailure(
        _ server: RawServer,
        into folder: URL? = nil,
        _ options: [String] = [],
        saying parts: [String],
        before limit: Duration = .seconds(30)
    ) async throws {
        let target = try folder ?? ServeProcess.scratchFolder("hostile-download")
        defer { if folder == nil { try? FileManager.default.removeItem(at: target) } }
        let started = ContinuousClock.now
        let result = try await CLI.run(["download", server.base + "/main.m3u8", target.path] + options)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1, "\(result.stderr)")
        for part in parts { #expect(result.stderr.contains(part), "\(result.stderr)") }
        #expect(elapsed < limit, "\(elapsed)")
    }

    @Test func aStalledSegmentFailsWithinTheTimeout() async throws {
        // 100 bytes of 10,000, then two minutes of nothing (longer than the suite's time limit).
        let server = try Self.origin(playlist: Self.playlist(segments: 2)) { _ in
            [(0, Self.head(length: 10_000) + [UInt8](repeating: 0x47, count: 100)), (120_000, [0x47])]
        }
        defer { server.stop() }
        // The minimum rate off: --timeout alone bounds the pause.
        try await Self.expectFailure(
            server,
            ["--timeout", "1", "--min-rate", "0"],
            saying: ["\(server.base)/s0.ts: stalled: no data for 1", "after 100 bytes of the body (--timeout)"],
            before: .seconds(50)
        )
    }

    @Test func aTricklingSegmentFailsUnderTheMinimumRate() async throws {
        // About 1 KB a second: 256 bytes every 250 ms, never a pause as long as the timeout.
        let server = try Self.origin(playlist: Self.playlist(segments: 2)) { _ in
            [(0, Self.head(length: 100_000))]
                + Array(repeating: (250, [UInt8](repeating: 0x47, count: 256)), count: 200)
        }
        defer { server.stop() }
        try await Self.expectFailure(
            server,
            ["--timeout", "1"],
            saying: ["\(server.base)/s0.ts: too slow: ", "under the minimum of 4096 bytes a second (--min-rate)"],
            before: .seconds(50)
        )
    }

    @Test func theSegmentCapIsCheckedBeforeAnySegmentIsFetched() async throws {
        let log = RequestLog()
        let server = try Self.origin(playlist: Self.playlist(segments: 50), log: log)
        defer { server.stop() }
        try await Self.expectFailure(
            server,
            ["--max-segments", "10"],
            saying: [
                "\(server.base)/main.m3u8: 50 segments, maps and keys: more than the 10 a copy may fetch (--max-segments)"
            ]
        )
        #expect(log.all == ["GET /main.m3u8 HTTP/1.1"], "\(log.all)")
        // Out of its range, refused before anything is fetched.
        let folder = try ServeProcess.scratchFolder("hostile-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        for value in ["0", "10000001", "-1"] {
            let refused = try await CLI.run([
                "download", server.base + "/main.m3u8", folder.path, "--max-segments=\(value)",
            ])
            #expect(refused.status == 64, "\(value): \(refused.stderr)")
        }
        let rate = try await CLI.run(["download", server.base + "/main.m3u8", folder.path, "--min-rate=-1"])
        #expect(rate.status == 64, "\(rate.stderr)")
    }

    @Test func aPlaylistOverTheInputLimitIsRefusedFromItsLength() async throws {
        // 100 MB announced, a few bytes sent: refused from the head, nothing read into memory.
        let server = try Self.origin(
            playlist: [],
            main: [(0, Self.head(length: 100_000_000) + Array("#EXTM3U\n".utf8))]
        )
        defer { server.stop() }
        try await Self.expectFailure(
            server,
            saying: ["\(server.base)/main.m3u8: larger than 67108864 bytes (Content-Length 100000000)"]
        )
    }

    @Test func aSymbolicLinkInsideTheFolderIsNotWrittenThrough() async throws {
        let server = try Self.origin(playlist: Self.playlist(segments: 2))
        defer { server.stop() }
        let folder = try ServeProcess.scratchFolder("hostile-download")
        let outside = try ServeProcess.scratchFolder("hostile-outside")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        // `primary` (where the segments go) points outside the folder.
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("primary"),
            withDestinationURL: outside
        )
        try await Self.expectFailure(
            server,
            into: folder,
            saying: [
                "\(folder.appendingPathComponent("primary").path) is a symbolic link: refusing to write through it"
            ]
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }

    @Test func playOfARemoteStreamDoesNotReadTheLocalFilesItNames() async throws {
        let scratch = try ServeProcess.scratchFolder("hostile-play")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let secret = scratch.appendingPathComponent("secret.json")
        let marker = "SECRET-\(UUID().uuidString)"
        let playlist = Self.playlist(
            segments: 4,
            extra: [
                "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
                #"#EXT-X-DATERANGE:ID="local",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:01.000Z","#
                    + #"DURATION=1.0,X-ASSET-LIST="\#(secret.absoluteString)",X-RESUME-OFFSET=0"#,
            ]
        )
        let log = RequestLog()
        let origin = try Self.origin(playlist: playlist, log: log)
        defer { origin.stop() }
        // A real asset list on the disk, naming an asset on the origin: read, it would be loaded.
        try Data(
            #"{"ASSETS":[{"URI":"\#(origin.base)/ad.m3u8?\#(marker)","DURATION":1.0}],"X-NOTE":"\#(marker)"}"#.utf8
        )
        .write(to: secret)
        // --until 30, not 4: the clock runs from the process's start, and a loaded machine has
        // loaded the first playlist at 4.5 s of it (0.56 s of wall time at --speed 8), past the event.
        let result = try await CLI.run(["play", origin.base + "/main.m3u8", "--json", "--speed", "8", "--until", "30"])
        let output = String(decoding: result.stdout, as: UTF8.self) + result.stderr
        #expect(output.contains(#""assetListFailed""#), "\(output)")
        #expect(output.contains("a stream fetched over the network cannot name local files"), "\(output)")
        #expect(!output.contains(#""assetListLoaded""#), "\(output)")
        #expect(!output.contains(marker), "\(output)")
        #expect(!log.all.contains { $0.contains(marker) }, "\(log.all)")
    }

    @Test func scheduleOfARemotePlaylistDoesNotReadTheLocalFilesItNames() async throws {
        // A real schedule on the disk; the local copy of the playlist reads it (ad-1 to ad-3).
        let fixture = Fixture(name: "schedules/flat.m3u8")
        let local = Fixture(name: "schedules/flat.json").url.absoluteString
        let text = fixture.text.replacingOccurrences(of: #"X-URI="flat.json""#, with: #"X-URI="\#(local)""#)
        let origin = try Self.origin(playlist: Array(text.utf8))
        defer { origin.stop() }
        let result = try await CLI.run(["schedule", origin.base + "/main.m3u8", "--json"])
        let output = String(decoding: result.stdout, as: UTF8.self) + result.stderr
        #expect(output.contains("a playlist fetched over the network cannot name local files"), "\(output)")
        #expect(!output.contains("ad-1"), "\(output)")
    }
}
