import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// hls.js 1.6 in headless Chromium (a real interstitials client) plays the demo VOD through the
/// server: the pre-roll and both mid-rolls start, their asset lists load, the primary resumes.
///
/// Needs chromium, Python's websocket-client and hls.js extracted to `.build-realclient/www/lib/hls.mjs`
/// (`.ci/run` sets this up). Skipped without them unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite(.serialized, .realTimeLong) struct HLSJSTests {
    static let repository = Fixture.repository
    static let hlsjs = repository.appendingPathComponent(".build-realclient/www/lib/hls.mjs")
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    static var available: Bool {
        FileManager.default.fileExists(atPath: hlsjs.path)
            && ["/usr/bin/chromium", "/usr/local/bin/chromium"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            }
    }

    /// Plays `src` with the probe page (`scripts/realclient/interstitials.html`) in headless
    /// Chromium, with `query` added to the page's parameters, for at most `timeout` seconds of the
    /// page; returns the page's log.
    static func probe(_ src: String, query: String, timeout: Int) async throws -> String {
        // The page and hls.js come from a static server; the stream from ours (CORS allows it).
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: www.appendingPathComponent("lib"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: www) }
        try FileManager.default.copyItem(at: Self.hlsjs, to: www.appendingPathComponent("lib/hls.mjs"))
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("scripts/realclient/interstitials.html"),
            to: www.appendingPathComponent("interstitials.html")
        )
        let page = try #require(await PageServer(directory: www))
        defer { page.stop() }
        let out = www.appendingPathComponent("out")
        let url = "http://127.0.0.1:\(page.port)/interstitials.html?src=\(src)&\(query)&timeout=\(timeout)"
        // 50 s more than the page's own limit, then SIGKILL.
        _ = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Self.repository.appendingPathComponent("scripts/realclient/cdp_run.py").path, url,
                "--timeout", "\(timeout + 10)", "--outdir", out.path,
            ],
            captureOutput: false,
            timeout: .seconds(timeout + 50)
        )
        return (try? String(contentsOf: out.appendingPathComponent("log.txt"), encoding: .utf8)) ?? ""
    }

    /// Whether the probe page's log has `event` (an hls.js event name) for the interstitial `id`.
    static func saw(_ event: String, _ id: String, in log: String) -> Bool {
        log.split(separator: "\n").contains { $0.contains("] \(event) ") && $0.contains("event=\(id) ") }
    }

    @Test(.enabled(if: HLSJSTests.available || HLSJSTests.required), .timeLimit(.minutes(3)))
    func hlsJSPlaysTheDemoPreRollAndMidRolls() async throws {
        try #require(Self.available, "chromium and hls.js are required (see .ci/run)")
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        // The virtual clock does not move: let every break have ads even for the same viewer.
        configuration.adInsertion.policy.repeatWindow = .zero
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            let src = "http://127.0.0.1:\(port)/vod/demo/main.m3u8"
            let log = try await Self.probe(src, query: "rate=4&until=45", timeout: 100)
            let lines = log.split(separator: "\n")
            func has(_ event: String, _ id: String) -> Bool { Self.saw(event, id, in: log) }
            #expect(log.contains("isSupported=true"), "\(log.prefix(2000))")
            for id in ["preroll", "midroll-1", "midroll-2"] {
                #expect(has("ASSET_LIST_LOADED", id), "no asset list for \(id)")
                #expect(has("INTERSTITIAL_ASSET_STARTED", id), "\(id) did not start")
                #expect(has("INTERSTITIAL_ENDED", id), "\(id) did not end")
            }
            let midroll1Assets = lines.filter {
                $0.contains("] INTERSTITIAL_ASSET_STARTED ") && $0.contains("event=midroll-1 ")
            }
            #expect(midroll1Assets.count == 2, "midroll-1 is a pod of two ads")
            #expect(lines.filter { $0.contains("] INTERSTITIALS_PRIMARY_RESUMED ") }.count >= 3)
            #expect(log.contains("DONE until reached"), "\(log.suffix(2000))")
        }
    }

    /// The README's advice for live channels, end to end: hls.js with
    /// `interstitialAppendInPlace: false` joins the demo live channel (real clock), a 10 s break
    /// announced a few seconds ahead of the live edge through the admin API plays whole, and the
    /// primary resumes and keeps playing.
    @Test(.enabled(if: HLSJSTests.available || HLSJSTests.required), .timeLimit(.minutes(2)))
    func hlsJSPlaysALiveBreakWholeAndResumes() async throws {
        try #require(Self.available, "chromium and hls.js are required (see .ci/run)")
        var configuration = try demoConfiguration(clock: SystemWallClock())
        configuration.adInsertion.policy.repeatWindow = .zero
        // Only the break this test starts: no planned break may fall inside the run.
        configuration.adInsertion.channels[0].breakPlan = nil
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            // After the last segment of every window hls.js sees first: the case it used to lose.
            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "hlsjs", "startIn": 6, "duration": 10}"#
            )
            #expect(created.status == .created, "\(created.text)")
            let src = "http://127.0.0.1:\(port)/live/demo/main.m3u8"
            let log = try await Self.probe(src, query: "appendInPlace=false&playOn=2", timeout: 50)
            let lines = log.split(separator: "\n")
            func wall(_ event: String) -> Double? {
                guard let line = lines.first(where: { $0.contains("] \(event) ") && $0.contains("event=hlsjs") }) else {
                    return nil
                }
                return Double(line.dropFirst().prefix { $0 != "]" })
            }
            #expect(log.contains("isSupported=true") && log.contains("interstitialAppendInPlace=false"))
            #expect(wall("ASSET_LIST_LOADED") != nil, "no asset list: \(log.suffix(3000))")
            let started = try #require(wall("INTERSTITIAL_ASSET_STARTED"), "the ad did not start: \(log.suffix(3000))")
            let ended = try #require(wall("INTERSTITIAL_ASSET_ENDED"), "the ad did not end: \(log.suffix(3000))")
            #expect(wall("INTERSTITIAL_ENDED") != nil)
            // The whole 10 s ad (lost breaks played 0.6 s or froze), within generous bounds.
            #expect(ended - started >= 9 && ended - started <= 20, "ad played \(ended - started) s")
            #expect(!log.contains("InvalidStateError") && !log.contains("fatal=true"), "\(log.suffix(3000))")
            // The page stops once the primary, from its first resumption after the break, has
            // played 2 s further (a media-time condition, not a wall-time wait: a busy machine
            // only makes it come later).
            #expect(log.contains("DONE primary played on"), "\(log.suffix(3000))")
            // The primary plays on after the break: its clock moves between the ticks after that.
            let resumed = try #require(
                lines.firstIndex { $0.contains("] watching the primary play on ") },
                "the primary did not resume after the break: \(log.suffix(3000))"
            )
            let times = lines[resumed...].filter { $0.contains("] tick ") && $0.contains("playing=primary") }.compactMap
            {
                line -> Double? in
                guard let range = line.range(of: "video.t=") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != " " })
            }
            #expect(times.count >= 2 && times.last! > times.first!, "\(times): \(log.suffix(3000))")
        }
    }
}
