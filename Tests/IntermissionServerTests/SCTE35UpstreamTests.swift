import AdInsertion
import Foundation
import HLSPlaylist
import HTTPTypes
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// Issue 25, part 4, end to end: x9k3 (PyPI) writes HLS with SCTE-35 from an MPEG-TS made by
/// ffmpeg and cues made by threefive (a `splice_insert` out of the network at 20 s for 10 s, back in
/// at 30 s), in three of its marker styles; `serve` decorates the playlist as an upstream channel,
/// and the cue becomes an interstitial at the date of the segment that carries it, 10 s long.
@Suite(.serialized, .realTime) struct SCTE35UpstreamTests {
    /// Out of the network at PTS 20 s for 10 s (event 7), made with threefive.
    static let out = "/DAlAAAAAAAAAP/wFAUAAAAHf+/+ABt3QP4ADbugAAEAAAAAOk/ZgQ=="
    /// Back in at PTS 30 s (event 7).
    static let backIn = "/DAgAAAAAAAAAP/wDwUAAAAHf0/+ACky4AABAAAAAKgehUw="
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    /// The MPEG-TS, made by the first test that asks (the suite runs its tests one at a time).
    static let source = SourceMaker()

    /// The MPEG-TS: 30 s of test video and audio starting at PTS 10 s, a key frame every second.
    static func makeSource() async -> URL? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("x9k3-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("in.ts")
        let made = await Self.run([
            "ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000", "-t", "30", "-c:v", "libx264", "-g", "25", "-keyint_min", "25",
            "-sc_threshold", "0", "-c:a", "aac", "-muxdelay", "0", "-output_ts_offset", "10", file.path,
        ])
        return made ? file : nil
    }

    /// Runs a command to its end; whether it exited 0.
    ///
    /// Awaited, not `waitUntilExit()`: a thread of
    /// the concurrency pool (two on a two-core machine) blocked for ffmpeg's encode stalled every
    /// other test of the process (an unbounded run hit fourteen 60 s time limits at once).
    static func run(_ arguments: [String], in folder: URL? = nil) async -> Bool {
        let result = try? await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments,
            currentDirectory: folder,
            captureOutput: false
        )
        guard let result else { return false }
        return result.status == 0 && !result.signalled && !result.killed
    }

    /// Makes ``SCTE35UpstreamTests/makeSource()``'s file once and keeps the answer.
    actor SourceMaker {
        private var made: URL??

        /// The file (`nil` when ffmpeg could not make it).
        func url() async -> URL? {
            if let made { return made }
            let url = await SCTE35UpstreamTests.makeSource()
            self.made = .some(url)
            return url
        }
    }

    @Test(arguments: ["x_cue", "x_scte35", "x_splicepoint"])
    func x9k3CuesBecomeInterstitials(style: String) async throws {
        guard let source = await Self.source.url(), await Self.run(["x9k3", "--version"]) else {
            #expect(!Self.required, "ffmpeg and x9k3 are needed (apt-get install ffmpeg; pip install x9k3)")
            return
        }
        let folder = source.deletingLastPathComponent().appendingPathComponent(style)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // x9k3 empties its sidecar once read: one of its own per run.
        let sidecar = folder.appendingPathComponent("sidecar.txt")
        try Data("20.0,\(Self.out)\n30.0,\(Self.backIn)\n".utf8).write(to: sidecar)
        try #require(
            await Self.run([
                "x9k3", "-i", source.path, "-s", sidecar.path, "-N", "-T", style, "-o", folder.path, "-t", "2",
            ])
        )
        // Dated from t0 (x9k3 dates by the wall clock, or not at all), and live (no end).
        let written = try String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let dated = written.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
            .replacingOccurrences(
                of: "#EXT-X-X9K3-VERSION",
                with: "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n#EXT-X-X9K3-VERSION"
            )
        try Data(dated.utf8).write(to: folder.appendingPathComponent("live.m3u8"))
        let upstream = try MediaPlaylist(parsing: dated)
        // The segment the cue is written before, and its date.
        let marker = ["x_cue": "#EXT-X-CUE-OUT", "x_scte35": "#EXT-X-SCTE35", "x_splicepoint": "#EXT-X-SPLICEPOINT"][
            style
        ]!
        let cueLine = try #require(upstream.lines.firstIndex { $0.text.hasPrefix(marker) })
        let segment = try #require(upstream.segments.firstIndex { $0.uriLineIndex > cueLine })
        let start = try #require(upstream.segments[segment].date)

        let origin = try #require(await PageServer(directory: folder))
        defer { origin.stop() }
        var configuration = try demoConfiguration(clock: ManualWallClock(start + 5))
        configuration.adInsertion.channels.append(
            LiveChannel(id: "x9", source: .upstream("http://127.0.0.1:\(origin.port)/live.m3u8"))
        )
        try await withServer(configuration) { client in
            let answer = try await client.get("/live/x9/live.m3u8")
            #expect(answer.status == .ok)
            let ranges = dateRangeLines(answer.text).filter { $0.contains("com.apple.hls.interstitial") }
            let id = style == "x_cue" ? "scte-cue-\(start.millisecondsSince1970 / 1000)" : "scte-splice-7"
            let range = try #require(ranges.first { $0.contains("ID=\"\(id)\"") }, "\(style): \(answer.text)")
            #expect(range.contains("START-DATE=\"\(start.iso8601)\""), "\(range)")
            #expect(range.contains("DURATION=10"), "\(range)")
            #expect(errors(Array(answer.text.utf8)).isEmpty, "\(errors(Array(answer.text.utf8)))")
        }
    }
}
