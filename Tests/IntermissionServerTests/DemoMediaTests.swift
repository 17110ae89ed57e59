import Foundation
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The bundled demo media (`Sources/IntermissionServer/Demo`, made by its `make.sh`) start audio and
/// video together in every segment, read with ffprobe: players that date the timeline from the
/// earliest PTS (hls.js) then place breaks at the same point on every reload.
///
/// Needs ffprobe; skipped without it unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite struct DemoMediaTests {
    static let folder = Fixture.repository.appendingPathComponent("Sources/IntermissionServer/Demo")
    static let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    /// The first (lowest) PTS of each kind of stream in a transport stream file, in 90 kHz ticks.
    static func firstPTS(_ file: URL, ffprobe: String) async throws -> [String: Int64] {
        let result = try await runProcess(
            URL(fileURLWithPath: ffprobe),
            ["-v", "error", "-show_entries", "packet=codec_type,pts", "-of", "csv=p=0", file.path]
        )
        let data = result.stdout
        var first: [String: Int64] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Int64(fields[1]) else { continue }
            let kind = String(fields[0])
            first[kind] = min(first[kind] ?? pts, pts)
        }
        return first
    }

    @Test(.enabled(if: DemoMediaTests.ffprobe != nil || DemoMediaTests.required), .timeLimit(.minutes(1)))
    func everySegmentStartsAudioAndVideoTogetherOnTheSegmentGrid() async throws {
        let ffprobe = try #require(Self.ffprobe, "ffprobe is required (apt-get install ffmpeg)")
        var checked = 0
        for stream in ["primary", "ad-red", "ad-green", "ad-blue"] {
            let folder = Self.folder.appendingPathComponent(stream)
            let playlist = try MediaPlaylist(
                bytes: Array(try Data(contentsOf: folder.appendingPathComponent("prog.m3u8")))
            )
            var expectedOffset: Int64 = 0  // 90 kHz ticks from the first segment's start
            var firstStart: Int64?
            for segment in playlist.segments {
                let pts = try await Self.firstPTS(folder.appendingPathComponent(segment.uri), ffprobe: ffprobe)
                let video = try #require(pts["video"], "\(stream)/\(segment.uri): no video")
                let audio = try #require(pts["audio"], "\(stream)/\(segment.uri): no audio")
                // Within one AAC frame: |audio - video| ≤ 1024 / 22050 s, in whole ticks.
                #expect(abs(audio - video) * 22_050 <= 1024 * 90_000, "\(stream)/\(segment.uri): \(audio) \(video)")
                // The earliest PTS sits on the playlist's grid (within 1 ms), so the timeline a
                // player builds from it does not move from one segment to the next.
                let start = min(audio, video)
                let origin = firstStart ?? start
                firstStart = origin
                #expect(abs(start - origin - expectedOffset) <= 90, "\(stream)/\(segment.uri): \(start - origin)")
                expectedOffset += segment.duration.nanoseconds * 9 / 100_000
                checked += 1
            }
        }
        #expect(checked == 45)
    }

    /// The podcast's streams are audio only and every segment starts on the 4 s grid (AAC frames of
    /// 32 ms at 32 kHz), so the cue points on segment boundaries are where the audio is cut.
    @Test(.enabled(if: DemoMediaTests.ffprobe != nil || DemoMediaTests.required), .timeLimit(.minutes(1)))
    func theAudioOnlyStreamsAreCutOnTheFourSecondGrid() async throws {
        let ffprobe = try #require(Self.ffprobe, "ffprobe is required (apt-get install ffmpeg)")
        var checked = 0
        for stream in ["podcast", "ad-audio-one", "ad-audio-two"] {
            let folder = Self.folder.appendingPathComponent(stream)
            let playlist = try MediaPlaylist(
                bytes: Array(try Data(contentsOf: folder.appendingPathComponent("prog.m3u8")))
            )
            var origin: Int64?
            for (k, segment) in playlist.segments.enumerated() {
                #expect(segment.duration == MediaTime(seconds: 4), "\(stream)/\(segment.uri)")
                let pts = try await Self.firstPTS(folder.appendingPathComponent(segment.uri), ffprobe: ffprobe)
                #expect(Set(pts.keys) == ["audio"], "\(stream)/\(segment.uri): \(pts)")
                let audio = try #require(pts["audio"])
                let first = origin ?? audio
                origin = first
                // 4 s is 360,000 ticks of 90 kHz; within 1 ms (90 ticks).
                #expect(abs(audio - first - Int64(k) * 360_000) <= 90, "\(stream)/\(segment.uri): \(audio - first)")
                checked += 1
            }
        }
        #expect(checked == 15 + 3 + 3)
    }
}
