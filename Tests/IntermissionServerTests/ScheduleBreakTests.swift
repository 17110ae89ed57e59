import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// A live channel with `breakFormat: schedule` publishes each break as a scheduled date range
/// (Appendix H) whose `X-URI` answers one interstitial per ad of the viewer's pod.
@Suite(.realTime) struct ScheduleBreakTests {
    static let scheduleURL = "/v1/schedules/live-demo-schedule/auto-0.json?_HLS_interstitial_id=auto-0"

    @Test func theConfigurationKeyIsCheckedAndDefaultsToAssetLists() throws {
        let yaml =
            "channels:\n  - id: c\n    loop: /media/a/\n    breakFormat: schedule\n"
            + "  - id: d\n    loop: /media/a/\n    breakFormat: assetList\n  - id: e\n    loop: /media/a/\n"
        let channels = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
            .adInsertion.channels
        #expect(channels.map(\.breakFormat) == [.schedule, .assetList, .assetList])
        #expect(throws: ConfigurationError.self) {
            _ = try ConfigurationFile.parse("channels:\n  - id: c\n    loop: /media/a/\n    breakFormat: vast\n")
                .apply(to: ServerConfiguration(), relativeTo: "/")
        }
    }

    @Test func thePlaylistCarriesAScheduleTagInsteadOfAnInterstitial() async throws {
        let clock = ManualWallClock(t0 + MediaTime(seconds: 110))
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let scheduled = try await client.get("/live/demo-schedule/prog.m3u8")
            #expect(scheduled.status == .ok)
            let lines = dateRangeLines(scheduled.text)
            try #require(lines.count == 1, "\(scheduled.text)")
            #expect(lines[0].contains("ID=\"auto-0\""))
            #expect(lines[0].contains("CLASS=\"com.apple.hls.daterange-schedule\""))
            #expect(lines[0].contains("START-DATE=\"2025-01-01T00:02:00"))
            #expect(lines[0].contains("X-URI=\"\(Self.scheduleURL)\""), "\(lines[0])")
            #expect(!scheduled.text.contains("X-ASSET-LIST"))
            #expect(preloadLines(scheduled.text).isEmpty)
            // The other demo channel is unchanged.
            let plain = try await client.get("/live/demo/prog.m3u8")
            #expect(dateRangeLines(plain.text).first?.contains("X-ASSET-LIST=") == true, "\(plain.text)")
        }
    }

    @Test func theRouteAnswersTheViewersPodOneInterstitialPerAd() async throws {
        let clock = ManualWallClock(t0 + MediaTime(seconds: 110))
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let response = try await client.get(Self.scheduleURL + "&_HLS_primary_id=viewer-1")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let decoded = try DateRangeSchedule.decode(response.bytes)
            #expect(decoded.diagnostics.filter { $0.severity == .error }.isEmpty, "\(decoded.diagnostics)")
            let ranges = decoded.schedule.dateRanges
            #expect(ranges.map(\.id) == ["auto-0-1", "auto-0-2"], "\(response.text)")
            let classes = Set(ranges.map(\.class))
            #expect(classes == [DateRange.interstitialClass])
            #expect(ranges.map(\.start) == [.offset(.zero), .offset(MediaTime(seconds: 10))])
            #expect(ranges.map { $0["X-RESUME-OFFSET"]?.numberValue?.doubleValue } == [10, 10])
            #expect(ranges.map { $0["DURATION"]?.numberValue?.doubleValue } == [10, 10])
            // The same decision as the asset-list route's for this viewer and break.
            let list = try await client.get(
                "/v1/asset-lists/live-demo-schedule/auto-0.json?_HLS_interstitial_id=auto-0&_HLS_primary_id=viewer-1"
            )
            let assets = try #require(list.json?["ASSETS"]?.arrayValue)
            #expect(ranges.map { $0["X-ASSET-URI"]?.stringValue } == assets.map { $0["URI"]?.stringValue })
            #expect(Set(ranges.compactMap { $0["X-ASSET-URI"]?.stringValue }).count == 2)
        }
    }

    /// A break that snaps out and in: `OUT` on the first ad, where the pod leaves the primary,
    /// `IN` on the last, where it returns; the ads between follow the schedule's offsets.
    @Test func theBreaksSnapGoesOnTheFirstAndLastAd() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + MediaTime(seconds: 110)))
        let index = try #require(configuration.adInsertion.channels.firstIndex { $0.id == "demo-schedule" })
        configuration.adInsertion.channels[index].breakPlan = LiveBreakPlan(
            interval: 120,
            duration: 30,
            snap: ["OUT", "IN"]
        )
        try await withServer(configuration) { client in
            let three = try await client.get(Self.scheduleURL + "&_HLS_primary_id=viewer-3")
            let ranges = try DateRangeSchedule.decode(three.bytes).schedule.dateRanges
            #expect(ranges.count == 3, "\(three.text)")
            #expect(ranges.map { $0["X-SNAP"]?.stringValue } == ["OUT", nil, "IN"], "\(three.text)")
        }
        // Without snap in the plan, no X-SNAP at all.
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + MediaTime(seconds: 110)))) { client in
            let plain = try await client.get(Self.scheduleURL + "&_HLS_primary_id=viewer-3")
            #expect(!plain.text.contains("X-SNAP"), "\(plain.text)")
        }
    }

    /// Plan C (skippable after the first ad) with beacons on: the first ad has no skip control, the
    /// second may be skipped at once, and each ad carries its own creative signaling.
    @Test func planCAndBeaconsArePerAd() async throws {
        let key = Array("schedule-test-key-0123456789abcdef".utf8)
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + MediaTime(seconds: 110)))
        configuration.tracking = TrackingConfiguration(key: key)
        configuration.tracking.beacons = true
        try await withServer(configuration) { client in
            let response = try await client.get(
                Self.scheduleURL + "&_HLS_primary_id=viewer-c&plan=" + PlanTokens.mint(.c, key: key)
            )
            #expect(response.status == .ok)
            let decoded = try DateRangeSchedule.decode(response.bytes)
            #expect(decoded.diagnostics.filter { $0.severity == .error }.isEmpty, "\(decoded.diagnostics)")
            let ranges = decoded.schedule.dateRanges
            try #require(ranges.count == 2, "\(response.text)")
            #expect(ranges[0]["X-SKIP-CONTROL-OFFSET"] == nil)
            #expect(ranges[1]["X-SKIP-CONTROL-OFFSET"]?.numberValue?.doubleValue == 0)
            let signaling = ranges.map { $0["X-AD-CREATIVE-SIGNALING"] }
            #expect(!signaling.contains(nil), "\(response.text)")
            // Each entry's beacons are its own ad's (different signed URLs).
            #expect(signaling[0].map { "\($0)" } != signaling[1].map { "\($0)" })
        }
    }

    /// Hostile or wrong requests get 4xx with a JSON error, never a 5xx.
    @Test(arguments: [
        "/v1/schedules/live-demo/auto-0.json",
        "/v1/schedules/vod-demo/preroll.json",
        "/v1/schedules/live-nope/auto-0.json",
        "/v1/schedules/live-demo-schedule/nope.json",
        "/v1/schedules/live-demo-schedule/auto-0.json?_HLS_start_offset=1e308",
        "/v1/schedules/live-demo-schedule/auto-0.json?_HLS_start_offset=NaN",
        "/v1/schedules/live-demo-schedule/auto-0.json?_HLS_interstitial_id=auto-1",
        "/v1/schedules/live-demo-schedule/%2e%2e.json",
        "/v1/schedules/live-demo-schedule/a%00b.json",
        "/v1/schedules/live-demo-schedule/" + String(repeating: "x", count: 300) + ".json",
        "/v1/schedules/live-demo-schedule/auto-0.json?_HLS_primary_id=" + String(repeating: "v", count: 100_000),
    ])
    func hostileRequestsGet4xxJSON(_ path: String) async throws {
        let clock = ManualWallClock(t0 + MediaTime(seconds: 110))
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let response = try await client.get(path)
            #expect((400..<500).contains(response.status.code), "\(response.status) \(response.text.prefix(200))")
            #expect(response.json?["error"]?["code"]?.stringValue != nil, "\(response.text.prefix(200))")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func thePlayerPlaysEachAdAsItsOwnEventThenResumes() async throws {
        let serverClock = ManualWallClock(t0)
        let configuration = try demoConfiguration(clock: serverClock)
        let (log, events) = try await withServer(configuration) { client in
            let port = try #require(client.port)
            let start = t0 + MediaTime(seconds: 100)
            serverClock.set(start)
            let player = PlayerEndToEndTests.player(
                "http://127.0.0.1:\(port)/live/demo-schedule/main.m3u8",
                sessionID: "schedule-viewer"
            )
            await player.play()
            try await PlayerEndToEndTests.playInLockstep([player], serverClock: serverClock, start: start, limit: 80)
            let error = await player.error
            #expect(error == nil, "\(String(describing: error))")
            return (await player.log, await InterstitialEventMonitor(player: player).events)
        }
        let text = log.map(\.description).joined(separator: "\n")
        let current = log.filter { $0.event == "currentEventDidChange" }.compactMap { $0["eventID"]?.stringValue }
        #expect(current == ["auto-0-1", "auto-0-2"], "\(text)")
        let scheduled = events.filter { $0.identifier.hasPrefix("auto-0-") }
        #expect(scheduled.map(\.identifier).sorted() == ["auto-0-1", "auto-0-2"])
        #expect(scheduled.map(\.scheduleIdentifier) == [String?](repeating: "auto-0", count: scheduled.count))
        let requests = log.filter { $0.event == "request" && $0["kind"]?.stringValue == "schedule" }
        #expect(requests.first?["url"]?.stringValue?.contains("_HLS_primary_id=schedule-viewer") == true, "\(text)")
        #expect(!log.contains { $0.event == "request" && $0["kind"]?.stringValue == "assetList" })
        // Each ad played, then the primary resumed once after the last one.
        for id in ["auto-0-1", "auto-0-2"] {
            #expect(
                log.contains { $0.event == "interstitialAssetEnded" && $0["eventID"]?.stringValue == id },
                "\(text)"
            )
        }
        let lastEnd = try #require(
            log.lastIndex { $0.event == "interstitialAssetEnded" && $0["eventID"]?.stringValue == "auto-0-2" }
        )
        #expect(log[lastEnd...].contains { $0.event == "primaryResumed" }, "\(text)")
    }
}
