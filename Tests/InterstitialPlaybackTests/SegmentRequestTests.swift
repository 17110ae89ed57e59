import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// ffmpeg for the fMP4 test: skipped without it, unless `INTERMISSION_REQUIRE_REFEREES=1`.
enum FFmpeg {
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    /// Runs ffmpeg with `arguments` in `directory`; the exit status, or `nil` when it cannot start.
    static func run(_ arguments: [String], in directory: URL) async -> Int32? {
        try? await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error"] + arguments,
            currentDirectory: directory,
            captureOutput: false
        ).status
    }

    /// Whether ffmpeg runs here (probed once, off the pool's threads).
    static var isAvailable: Bool {
        get async { await availability.value }
    }

    private static let availability = Task {
        await run(["-version"], in: FileManager.default.temporaryDirectory) == 0
    }
}

/// `path range` for each media request (playlists left out), for order assertions.
func mediaRequests(_ requests: [ServedRequest]) -> [String] {
    requests.filter { !$0.path.hasSuffix(".m3u8") }.map { "\($0.path) \($0.range ?? "whole")" }
}

@Suite(.timeLimit(.minutes(1)), .realTime)
struct SegmentRequestTests {
    /// EXT-X-MAP and EXT-X-BYTERANGE over the demo's real MPEG-TS bytes: the initialization section
    /// (the PAT and PMT packets, 376 bytes) is requested once per change of map, before the first
    /// segment that needs it, and every sub-range goes out as a `Range` header, offsets implied by
    /// the previous sub-range included.
    @Test func mapsLoadOncePerChangeAndByteRangesAreRequested() async throws {
        try await withFixtureServer { base, site in
            let files = FixtureSite.demoFiles
            let primary = try #require(files["/media/primary/seg-000.ts"]).count
            let primary1 = try #require(files["/media/primary/seg-001.ts"]).count
            let red = try #require(files["/media/ad-red/seg-001.ts"]).count
            // Split at a packet boundary near the middle.
            let half = primary / 376 * 188
            let half1 = primary1 / 376 * 188
            let playlist = """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-MAP:URI="/media/primary/seg-000.ts",BYTERANGE="376@0"
                #EXTINF:1.000,
                #EXT-X-BYTERANGE:\(half)@0
                /media/primary/seg-000.ts
                #EXTINF:1.000,
                #EXT-X-BYTERANGE:\(primary - half)
                /media/primary/seg-000.ts
                #EXTINF:1.000,
                #EXT-X-BYTERANGE:\(half1)@0
                /media/primary/seg-001.ts
                #EXTINF:1.000,
                #EXT-X-BYTERANGE:\(primary1 - half1)
                /media/primary/seg-001.ts
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="/media/ad-red/seg-000.ts",BYTERANGE="376@0"
                #EXTINF:2.000,
                /media/ad-red/seg-000.ts
                #EXTINF:2.000,
                #EXT-X-BYTERANGE:\(red)@0
                /media/ad-red/seg-001.ts
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="/media/primary/seg-000.ts",BYTERANGE="376@0"
                #EXTINF:2.000,
                /media/primary/seg-002.ts
                #EXTINF:2.000,
                /media/primary/seg-003.ts
                #EXT-X-ENDLIST

                """
            site.serve("/ranges.m3u8", .text(playlist))
            let player = try await play(base + "/ranges.m3u8")
            #expect(await player.hasEnded)
            #expect(
                mediaRequests(site.requests) == [
                    "/media/primary/seg-000.ts bytes=0-375",
                    "/media/primary/seg-000.ts bytes=0-\(half - 1)",
                    "/media/primary/seg-000.ts bytes=\(half)-\(primary - 1)",
                    "/media/primary/seg-001.ts bytes=0-\(half1 - 1)",
                    "/media/primary/seg-001.ts bytes=\(half1)-\(primary1 - 1)",
                    "/media/ad-red/seg-000.ts bytes=0-375",
                    "/media/ad-red/seg-000.ts whole",
                    "/media/ad-red/seg-001.ts bytes=0-\(red - 1)",
                    "/media/primary/seg-000.ts bytes=0-375",
                    "/media/primary/seg-002.ts whole",
                    "/media/primary/seg-003.ts whole",
                ]
            )
            let maps = await player.entries("request").filter { $0["kind"]?.stringValue == "map" }
            #expect(maps.count == 3)
            #expect(maps.allSatisfy { $0["status"]?.doubleValue == 206 && $0["bytes"]?.doubleValue == 376 })
        }
    }

    /// A real fragmented-MP4 stream made by ffmpeg as one file (`-hls_flags single_file`): the
    /// `EXT-X-MAP` byte range first, once, then each fragment's byte range in order, covering the
    /// file without gaps.
    ///
    /// An interstitial asset in fMP4 loads its own map the same way.
    @Test(
        .enabled("needs ffmpeg (set INTERMISSION_REQUIRE_REFEREES=1 to require it)") {
            await FFmpeg.isAvailable || FFmpeg.required
        }
    )
    func fragmentedMP4FromFFmpegLoadsItsMapAndRanges() async throws {
        #expect(await FFmpeg.isAvailable, "ffmpeg is required but missing")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "intermission-fmp4-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = await FFmpeg.run(
            [
                "-f", "lavfi", "-i", "testsrc=size=160x90:rate=15:duration=6", "-c:v", "libx264", "-g", "30",
                "-keyint_min", "30", "-sc_threshold", "0", "-f", "hls", "-hls_time", "2", "-hls_segment_type", "fmp4",
                "-hls_flags", "single_file", "-hls_playlist_type", "vod", "ad.m3u8",
            ],
            in: directory
        )
        try #require(status == 0)
        let playlistText = try String(contentsOf: directory.appendingPathComponent("ad.m3u8"), encoding: .utf8)
        let playlist = try MediaPlaylist(parsing: playlistText)
        let map = try #require(playlist.segments.first?.map)
        let mapRange = try #require(map["BYTERANGE"]?.quotedString.flatMap { ByteRange($0) })
        // One media file (ffmpeg names it ad.m4s) holds the map and every fragment.
        let name = try #require(map["URI"]?.quotedString)
        #expect(playlist.segments.allSatisfy { $0.uri == name })
        let media = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
        try await withFixtureServer { base, site in
            site.serve("/fmp4/ad.m3u8", .text(playlistText))
            site.serve("/fmp4/" + name) { request in FixtureSite.reply(media, range: request.range, type: "video/mp4") }
            // The primary plays 4 s, then the fMP4 stream as an interstitial, then resumes.
            let dateRanges = [
                Fixtures.interstitial(
                    "fmp4",
                    at: 4,
                    "X-ASSET-URI=\"\(base)/fmp4/ad.m3u8\",X-RESUME-OFFSET=0"
                )
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 8, dateRanges: dateRanges)))
            for url in ["/fmp4/ad.m3u8", "/vod/prog.m3u8"] {
                let player = try await play(base + url)
                #expect(await player.hasEnded)
                #expect(!(await player.log).contains { $0.event == "error" || $0.event == "interstitialAssetFailed" })
            }
            // Alone, then as an interstitial: the same requests each time.
            let ranges = site.requests.filter { $0.path == "/fmp4/" + name }.map { $0.range ?? "whole" }
            let mapFirst = mapRange.offset ?? 0
            var expected = ["bytes=\(mapFirst)-\(mapFirst + mapRange.length - 1)"]
            var next = mapFirst + mapRange.length
            for segment in playlist.segments {
                let range = try #require(segment.byteRange)
                let first = range.offset ?? next
                #expect(first == next)
                expected.append("bytes=\(first)-\(first + range.length - 1)")
                next = first + range.length
            }
            #expect(next == media.count)
            #expect(ranges == expected + expected)
        }
    }
}
