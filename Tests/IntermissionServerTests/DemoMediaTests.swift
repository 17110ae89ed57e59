import Foundation
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The bundled demo media (`Sources/IntermissionServer/Demo`, made by its `make.sh`) start audio and
/// video at the same PTS in every segment and end them at the playlist's duration, read with
/// ffprobe: players that date the timeline from the earliest PTS (hls.js) then place breaks at the
/// same point on every reload, and an ad's media lasts what its playlist declares.
///
/// Needs ffprobe; skipped without it unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite(.realTime) struct DemoMediaTests {
    static let folder = Fixture.repository.appendingPathComponent("Sources/IntermissionServer/Demo")
    static let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    /// The first (lowest) PTS of each kind of stream in a transport stream file, in 90 kHz ticks.
    static func firstPTS(_ file: URL, ffprobe: String) async throws -> [String: Int64] {
        try await Self.span(file, ffprobe: ffprobe).mapValues(\.start)
    }

    /// Each kind of stream's span in a transport stream file, in 90 kHz ticks: its lowest PTS, and the
    /// highest PTS plus that packet's duration.
    static func span(_ file: URL, ffprobe: String) async throws -> [String: (start: Int64, end: Int64)] {
        let result = try await runProcess(
            URL(fileURLWithPath: ffprobe),
            ["-v", "error", "-show_entries", "packet=codec_type,pts,duration", "-of", "csv=p=0", file.path]
        )
        var spans: [String: (start: Int64, end: Int64)] = [:]
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3, let pts = Int64(fields[1]), let duration = Int64(fields[2]) else { continue }
            let kind = String(fields[0])
            let old = spans[kind] ?? (start: pts, end: pts + duration)
            spans[kind] = (start: min(old.start, pts), end: max(old.end, pts + duration))
        }
        return spans
    }

    /// Every segment of the audio-and-video streams starts audio and video at the same PTS, on the
    /// playlist's grid, and ends both at the next segment's start; the last ends both at the sum of
    /// the `EXTINF` durations. (On the media made with AAC at 22.05 kHz, audio started 0.2 to 43.5 ms
    /// after video in 15 of 16 segments, and an ad's audio ran 43 ms past its declared 10 s.)
    @Test(.enabled(if: DemoMediaTests.ffprobe != nil || DemoMediaTests.required), .timeLimit(.minutes(1)))
    func everySegmentStartsAndEndsAudioAndVideoTogetherOnTheSegmentGrid() async throws {
        let ffprobe = try #require(Self.ffprobe, "ffprobe is required (apt-get install ffmpeg)")
        var checked = 0
        for stream in ["primary", "ad-red", "ad-green", "ad-blue"] {
            let folder = Self.folder.appendingPathComponent(stream)
            let playlist = try MediaPlaylist(
                bytes: Array(try Data(contentsOf: folder.appendingPathComponent("prog.m3u8")))
            )
            var expectedOffset: Int64 = 0  // 90 kHz ticks from the first segment's start
            var origin: Int64?
            for segment in playlist.segments {
                let spans = try await Self.span(folder.appendingPathComponent(segment.uri), ffprobe: ffprobe)
                let video = try #require(spans["video"], "\(stream)/\(segment.uri): no video")
                let audio = try #require(spans["audio"], "\(stream)/\(segment.uri): no audio")
                #expect(audio.start == video.start, "\(stream)/\(segment.uri): audio \(audio) video \(video)")
                let first = origin ?? video.start
                origin = first
                // The start sits on the playlist's grid (to the tick) and both streams end where the
                // segment's EXTINF says the next begins.
                let duration = segment.duration.nanoseconds * 9 / 100_000
                #expect(video.start - first == expectedOffset, "\(stream)/\(segment.uri): \(video.start - first)")
                #expect(
                    video.end - first == expectedOffset + duration,
                    "\(stream)/\(segment.uri): video ends \(video.end - first)"
                )
                #expect(
                    audio.end - first == expectedOffset + duration,
                    "\(stream)/\(segment.uri): audio ends \(audio.end - first)"
                )
                expectedOffset += duration
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
