import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Preload date ranges (spec Appendix F): the model, the schedule's view of them, the load span.
@Suite struct PreloadRangeTests {
    static func date(_ text: String) -> DateTime { DateTime(iso8601: text)! }

    @Test func readsEveryAttributeOfTheFixture() throws {
        let playlist = try ScheduleFixture.playlist("interstitial-preload-with-target")
        let ranges = PreloadRange.ranges(in: playlist)
        #expect(ranges.count == 1)
        let range = try #require(ranges.first)
        #expect(range.identifier == "preload-break-510")
        #expect(range.uri == "https://ads.example.com/list.json?_HLS_interstitial_id=break-510&ch=4")
        #expect(range.targetID == "break-510")
        #expect(range.targetClass == "com.apple.hls.interstitial")
        #expect(range.start == Self.date("2024-10-04T21:00:24.000Z"))
        #expect(range.end == Self.date("2024-10-04T21:00:40.000Z"))
        #expect(range.durationAtJoin == .s(6))
        #expect(range.isUsable)
    }

    @Test func endDateGivesTheEndAndTheTargetMayBeMissing() throws {
        let playlist = try ScheduleFixture.playlist("interstitial-preload-before-target")
        let range = try #require(PreloadRange.ranges(in: playlist).first)
        #expect(range.end == Self.date("2024-10-04T21:10:36.000Z"))
        #expect(range.durationAtJoin == nil)
        let schedule = Schedule(primary: playlist)
        let placed = try #require(schedule.preloads.first)
        // First segment at 21:10:00 is primary time 0.
        #expect(placed.start == .s(20))
        #expect(placed.end == .s(36))
        #expect(placed.targetStart == nil)
        #expect(schedule.preloads(forEvent: "break-7731").count == 1)
        #expect(schedule.preloads(forEvent: "other").isEmpty)
    }

    @Test func scheduleKnowsTheTargetStart() throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist("interstitial-preload-with-target"))
        let placed = try #require(schedule.preloads(forEvent: "break-510").first)
        #expect(placed.start == .s(24))
        #expect(placed.end == .s(40))
        #expect(placed.targetStart == .s(40))
    }

    @Test(arguments: ["0", "0.0", "-3", "abc", "1e3", "\"5\""])
    func durationAtJoinMustBePositiveDecimal(_ raw: String) throws {
        let range = try DateRange(
            parsing:
                "#EXT-X-DATERANGE:ID=\"p\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2024-01-01T00:00:00.000Z\",DURATION=4,X-URI=\"a.json\",X-TARGET-ID=\"t\",X-TARGET-CLASS=\"c\",X-DURATION-AT-JOIN=\(raw)"
        )
        let preload = try #require(PreloadRange(dateRange: range))
        #expect(preload.durationAtJoin == nil)
    }

    @Test func otherClassesAreNotPreloads() throws {
        let range = try DateRange(
            parsing:
                "#EXT-X-DATERANGE:ID=\"p\",CLASS=\"com.example\",START-DATE=\"2024-01-01T00:00:00.000Z\",X-URI=\"a\""
        )
        #expect(PreloadRange(dateRange: range) == nil)
    }

    @Test func endListHidesPreloads() throws {
        var text = Fixture.text("playlists/interstitial-preload-with-target.m3u8")
        text += "#EXT-X-ENDLIST\n"
        let playlist = try MediaPlaylist(parsing: text)
        #expect(PreloadRange.ranges(in: playlist).isEmpty)
        #expect(Schedule(primary: playlist).preloads.isEmpty)
    }

    @Test func trackerAndScheduleFromEvents() throws {
        let playlist = try ScheduleFixture.playlist("interstitial-preload-with-target")
        let tracker = DateRangeTracker(playlist: playlist)
        var schedule = Schedule(primary: playlist, events: tracker.interstitialEvents)
        #expect(schedule.preloads.isEmpty)
        schedule.setPreloadRanges(tracker.preloadRanges)
        #expect(schedule.preloads.map(\.range.identifier) == ["preload-break-510"])
    }

    // MARK: Matching the target

    static func target(class name: String = "com.apple.hls.interstitial", list: String) throws -> DateRange {
        try DateRange(
            parsing:
                "#EXT-X-DATERANGE:ID=\"t\",CLASS=\"\(name)\",START-DATE=\"2024-01-01T00:00:10.000Z\",X-ASSET-LIST=\"\(list)\""
        )
    }

    static func preload(uri: String, targetClass: String = "com.apple.hls.interstitial") -> PreloadRange {
        PreloadRange(
            identifier: "p",
            start: DateTime(iso8601: "2024-01-01T00:00:00.000Z")!,
            end: DateTime(iso8601: "2024-01-01T00:00:10.000Z")!,
            uri: uri,
            targetID: "t",
            targetClass: targetClass
        )
    }

    @Test func matchingTargets() throws {
        let target = try Self.target(list: "https://x.example/l.json?a=1&b=2")
        #expect(Self.preload(uri: "https://x.example/l.json?b=2&a=1").mismatch(with: target) == nil)
        #expect(Self.preload(uri: "https://x.example/l.json?a=1&b=2&c=3").mismatch(with: target) == nil)
        #expect(Self.preload(uri: "https://x.example/l.json?a=1").mismatch(with: target) != nil)
        #expect(Self.preload(uri: "https://x.example/l.json?a=1&b=3").mismatch(with: target) != nil)
        let other = try Self.target(class: "com.example.other", list: "https://x.example/l.json?a=1&b=2")
        #expect(Self.preload(uri: "https://x.example/l.json?a=1&b=2").mismatch(with: other) != nil)
        #expect(
            Self.preload(uri: "https://x.example/l.json?a=1&b=2", targetClass: "com.example.other").mismatch(
                with: other
            ) == nil
        )
    }

    // MARK: The load span

    @Test func spanClampsToPlayheadAndNormalLoad() {
        let range = Self.preload(uri: "a")
        // Window 20…36, playhead before it, the normal load at 30: 20…30.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(5), normalLoad: .s(30), joined: false)
                == .s(20)...(.s(30))
        )
        // Playhead inside the window: from the playhead.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(25), normalLoad: .s(40), joined: false)
                == .s(25)...(.s(36))
        )
        // The normal load comes before the window: load now (an empty span), never later.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(5), normalLoad: .s(10), joined: false)
                == .s(20)...(.s(20))
        )
        // The window is over.
        #expect(range.loadSpan(start: .s(20), end: .s(36), playhead: .s(37), normalLoad: .s(40), joined: false) == nil)
    }

    @Test func durationAtJoinSpreadsLateJoiners() {
        var range = Self.preload(uri: "a")
        range.durationAtJoin = .s(6)
        // Joined at 34 inside 20…36: the rest would be 34…36; X-DURATION-AT-JOIN=6 gives 34…40.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(34), normalLoad: .s(60), joined: true)
                == .s(34)...(.s(40))
        )
        // Never later than the normal load.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(34), normalLoad: .s(38), joined: true)
                == .s(34)...(.s(38))
        )
        // Not joined inside the window: the attribute does not apply.
        #expect(
            range.loadSpan(start: .s(20), end: .s(36), playhead: .s(5), normalLoad: .s(60), joined: false)
                == .s(20)...(.s(36))
        )
        #expect(
            range.loadSpan(
                start: .s(20),
                end: .s(36),
                playhead: .s(34),
                normalLoad: .s(60),
                joined: true,
                reading: .ignored
            ) == .s(34)...(.s(36))
        )
        #expect(PreloadRange.durationAtJoinReading == .windowFromJoin)
    }

    // MARK: Validation

    @Test func liveTargetMayComeLater() throws {
        let diagnostics = InterstitialValidator().validate(
            playlist: Fixture.bytes("playlists/interstitial-preload-before-target.m3u8"),
            file: nil
        )
        #expect(!diagnostics.contains { $0.rule.rawValue.hasPrefix("INT-PRELOAD") })
    }

    @Test func withTargetFixtureIsClean() throws {
        let diagnostics = InterstitialValidator().validate(
            playlist: Fixture.bytes("playlists/interstitial-preload-with-target.m3u8"),
            file: nil
        )
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
    }
}
