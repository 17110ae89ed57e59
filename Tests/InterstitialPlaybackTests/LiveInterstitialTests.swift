import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// Live windows computed from the virtual clock.
///
/// `lead` shifts the window so the live edge is that
/// far ahead of the clock (the demo segments exist from the start).
func serveLive(
    _ site: FixtureSite,
    _ path: String,
    clock: VirtualPlaybackClock,
    lead: MediaTime = 60,
    dateRanges: @escaping @Sendable (MediaTime) -> [(start: Double, tag: String)]
) {
    site.serve(path) { _ in
        let now = clock.now
        return .text(Fixtures.live(now: now + lead, dateRanges: dateRanges(now)))
    }
}

/// The log entries a live break is checked with, in order.
func liveSummaries(_ log: [PlayerLogEntry]) -> [String] {
    let kept: Set<String> = [
        "currentEventDidChange", "interstitialAssetStarted", "interstitialAssetEnded", "eventDidFinish",
        "primaryResumed",
    ]
    return log.filter { kept.contains($0.event) }.map { entry in
        entry.event == "interstitialAssetEnded"
            ? "assetEnded:\(entry["eventID"]?.stringValue ?? "")#\(Int(entry["index"]?.doubleValue ?? -1))"
            : entry.summary
    }
}

@Suite(.timeLimit(.minutes(1)))
struct LiveInterstitialTests {
    /// WWDC21: a live break has no X-RESUME-OFFSET, so the primary rejoins at its start plus the
    /// time the break took: playback keeps its distance from the live edge.
    @Test func liveBreakRejoinsAfterItsDuration() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock()
            // Window at clock 0: wall 48…60 s; the player joins at wall 54 (stable 6). The break is
            // at wall 70 (stable 22), reached at clock 16.
            let tag = Fixtures.interstitial("ad", at: 70, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=10")
            serveLive(site, "/live/prog.m3u8", clock: clock) { _ in [(70, tag)] }
            site.serve("/lists/ad.json", .json(assetList(base, ["red"])))
            let player = Player(item: PlayerItem(url: base + "/live/prog.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 40)
            let log = await player.log
            #expect(
                liveSummaries(log) == [
                    "current:ad", "asset:ad#0", "assetEnded:ad#0", "finished:ad", "current:nil", "resumed@32.0",
                ]
            )
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            let primaryTime = try #require(resumed["primaryTime"]?.doubleValue)
            #expect(abs(primaryTime - 32) <= 0.1)
            #expect(abs(resumed.time.seconds - 26) <= 0.1)
            let started = try #require(
                log.first { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == "ad" }
            )
            #expect(abs(started.time.seconds - 16) <= 0.1)
            // Still 6 s behind the live edge at the end: primary = clock + 6.
            #expect(abs(await player.currentTime.seconds - 46) <= 0.1)
            // Late binding: the list only once the primary is buffered to the marker (stable 22 →
            // the segment covering wall 68…70 is seg-004, wall 70 starts seg-005).
            let requests = site.requests
            let listIndex = try #require(requests.firstIndex { $0.path == "/lists/ad.json" })
            let before = requests[..<listIndex].filter { $0.path.hasPrefix("/media/primary/") }.map(\.path)
            #expect(before.last == "/media/primary/seg-004.ts")
            #expect(!before.contains("/media/primary/seg-005.ts"))
            let session = player.sessionID
            #expect(requests[listIndex].parameter("_HLS_primary_id") == session)
            #expect(requests[listIndex].parameter("_HLS_start_offset") == nil)
            // While the ad plays, the primary buffers from where it rejoins (stable 32 = wall 80,
            // seg-010), and it does not stall when it does.
            let resumedAt = try #require(log.firstIndex { $0.event == "primaryResumed" })
            #expect(!log[resumedAt...].contains { $0.event == "stalled" })
            let afterList = requests[listIndex...].filter { $0.path.hasPrefix("/media/primary/seg-") }.map(\.path)
            #expect(afterList.first == "/media/primary/seg-010.ts")
        }
    }

    /// Early return: a reload during a 15 s break adds X-PLAYOUT-LIMIT=12 to the same ID; the break
    /// ends after 12 s of playout and the primary rejoins 12 s after the break's start.
    @Test func earlyReturnEndsTheBreakAtThePlayoutLimit() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock()
            let plain = Fixtures.interstitial("ad", at: 70, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=15")
            let limited = Fixtures.interstitial(
                "ad",
                at: 70,
                "X-ASSET-LIST=\"/lists/ad.json\",DURATION=15,X-PLAYOUT-LIMIT=12"
            )
            // The break starts at clock 16; from clock 20 the playlist carries the limit.
            serveLive(site, "/live/prog.m3u8", clock: clock) { now in [(70, now >= 20 ? limited : plain)] }
            site.serve("/lists/ad.json", .json(assetList(base, ["red", "green"])))
            let player = Player(item: PlayerItem(url: base + "/live/prog.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 40)
            let log = await player.log
            #expect(log.contains { $0.event == "currentEventUpdated" })
            #expect(
                liveSummaries(log) == [
                    "current:ad", "asset:ad#0", "assetEnded:ad#0", "asset:ad#1", "assetEnded:ad#1", "finished:ad",
                    "current:nil", "resumed@34.0",
                ]
            )
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            let playout = try #require(finished["playoutTime"]?.doubleValue)
            #expect(abs(playout - 12) <= 0.1)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            #expect(abs(finished.time.seconds - 28) <= 0.1)
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            #expect(abs((resumed["primaryTime"]?.doubleValue ?? 0) - 34) <= 0.1)
            // The primary was buffered from the new resume point once the limit was known.
            let resumedAt = try #require(log.firstIndex { $0.event == "primaryResumed" })
            #expect(!log[resumedAt...].contains { $0.event == "stalled" })
        }
    }

    /// An early return whose limit is already behind the playhead when the reload brings it ends
    /// the break at once; the primary rejoins at the break's start plus the playout limit (D.2:
    /// the limit is shorter than the duration), or by the time spent when the app follows the
    /// wall clock.
    @Test(arguments: [LiveResumption.eventDuration, .followsWallClock])
    func earlyReturnBehindThePlayheadEndsAtOnce(resumption: LiveResumption) async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock()
            let plain = Fixtures.interstitial("ad", at: 70, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=15")
            let limited = Fixtures.interstitial(
                "ad",
                at: 70,
                "X-ASSET-LIST=\"/lists/ad.json\",DURATION=15,X-PLAYOUT-LIMIT=2"
            )
            serveLive(site, "/live/prog.m3u8", clock: clock) { now in [(70, now >= 20 ? limited : plain)] }
            site.serve("/lists/ad.json", .json(assetList(base, ["red", "green"])))
            var configuration = Player.Configuration()
            configuration.liveResumption = resumption
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: clock,
                loader: fixtureLoader(),
                configuration: configuration
            )
            await player.play()
            try await player.run(until: 40)
            let log = await player.log
            let updated = try #require(log.first { $0.event == "currentEventUpdated" })
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished.time == updated.time)
            let playout = try #require(finished["playoutTime"]?.doubleValue)
            #expect(playout >= 4 && playout < 7)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            let expected = resumption == .eventDuration ? 22 + 2 : 22 + playout
            #expect(abs((resumed["primaryTime"]?.doubleValue ?? 0) - expected) <= 0.1)
            #expect(!log.contains { $0.event == "error" })
        }
    }

    /// WWDC22: joining a live stream inside a 15 s break that starts 5 s from the top of the
    /// window; three target durations from the end lands 10 s into it, which the asset-list
    /// request says with `_HLS_start_offset`.
    @Test func liveJoinInsideABreakSendsTheStartOffset() async throws {
        try await withFixtureSite { base, site in
            // Eight 3 s segments (24 s); the join point is 24 − 9 = 15 s, the break is at 5 s.
            var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:3", "#EXT-X-MEDIA-SEQUENCE:100"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Fixtures.date(0))")
            lines.append(Fixtures.interstitial("ad", at: 5, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=15"))
            for k in 0..<8 {
                lines.append("#EXTINF:3.000,")
                lines.append("/media/primary/seg-00\(k).ts")
            }
            site.serve("/live/prog.m3u8", .text(lines.joined(separator: "\n") + "\n"))
            // The pod is red then green; 10 s in skips red and starts green from its top.
            site.serve("/lists/ad.json", .json(assetList(base, ["red", "green"])))
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            let notes = await InterstitialEventMonitor(player: player).notifications()
            await player.play()
            try await player.run(until: 12)
            let requests = site.requests
            let list = try #require(requests.first { $0.path == "/lists/ad.json" })
            let session = player.sessionID
            #expect(list.parameter("_HLS_start_offset") == "10")
            #expect(list.parameter("_HLS_primary_id") == session)
            #expect(list.sessionID == session)
            let log = await player.log
            // Green plays whole (10 s); the live primary rejoins at 5 + 10 (joined) + 10 (played).
            #expect(
                liveSummaries(log) == [
                    "current:ad", "asset:ad#1", "assetEnded:ad#1", "finished:ad", "current:nil", "resumed@25.0",
                ]
            )
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            #expect(abs(resumed.time.seconds - 10) <= 0.1)
            #expect(!requests.contains { $0.path.hasPrefix("/media/ad-red/") })
            // The event reports the 10 s this viewer played, not the 10 s it joined past plus
            // those (AVFoundation's playout time), and that it did not play the whole event.
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 10)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            var reported: [(MediaTime, Bool)] = []
            for await note in notes {
                if case .eventDidFinish(let event, let playout, let entire) = note, event.identifier == "ad" {
                    reported.append((playout, entire))
                }
                if case .currentEventDidChange(.none) = note { break }
            }
            #expect(reported.map(\.0) == [10])
            #expect(reported.map(\.1) == [false])
        }
    }

    /// A live playlist of `count` 3 s segments (the demo primary's) with PDT and `tags`.
    static func liveWindow(count: Int, tags: [String]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:3", "#EXT-X-MEDIA-SEQUENCE:100"]
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Fixtures.date(0))")
        lines += tags
        for k in 0..<count {
            lines.append("#EXTINF:3.000,")
            lines.append("/media/primary/seg-\(String(format: "%03d", k)).ts")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A live join in a pod of two events (ad1 10 s, ad2 20 s, both at 4 s) three target durations
    /// from the end (21 s) lands 7 s into ad2: ad1 is passed over (its list never requested), ad2's
    /// list is asked for with `_HLS_start_offset=7`, its first asset starts 7 s in, and the primary
    /// rejoins at 4 + 10 + 7 + the 13 s played.
    @Test func liveJoinLandsInTheSecondEventOfAPod() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/live/prog.m3u8",
                .text(
                    Self.liveWindow(
                        count: 10,
                        tags: [
                            Fixtures.interstitial("ad1", at: 4, "X-ASSET-LIST=\"/lists/ad1.json\",DURATION=10"),
                            Fixtures.interstitial("ad2", at: 4, "X-ASSET-LIST=\"/lists/ad2.json\",DURATION=20"),
                        ]
                    )
                )
            )
            site.serve("/lists/ad1.json", .json(assetList(base, ["red"])))
            site.serve("/lists/ad2.json", .json(assetList(base, ["green", "blue"])))
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run(until: 14)
            let requests = site.requests
            #expect(!requests.contains { $0.path == "/lists/ad1.json" || $0.path.hasPrefix("/media/ad-red/") })
            let list = try #require(requests.first { $0.path == "/lists/ad2.json" })
            #expect(list.parameter("_HLS_start_offset") == "7")
            #expect(list.parameter("_HLS_primary_id") == player.sessionID)
            // Green from the segment holding 7 s (6–8 s: seg-003), then blue whole.
            let ads = requests.filter { $0.path.hasPrefix("/media/ad-") && $0.path.hasSuffix(".ts") }.map(\.path)
            #expect(
                ads == [
                    "/media/ad-green/seg-003.ts", "/media/ad-green/seg-004.ts",
                    "/media/ad-blue/seg-000.ts", "/media/ad-blue/seg-001.ts", "/media/ad-blue/seg-002.ts",
                    "/media/ad-blue/seg-003.ts", "/media/ad-blue/seg-004.ts",
                ]
            )
            let log = await player.log
            #expect(
                liveSummaries(log) == [
                    "current:ad2", "asset:ad2#0", "assetEnded:ad2#0", "asset:ad2#1", "assetEnded:ad2#1", "finished:ad2",
                    "current:nil", "resumed@34.0",
                ]
            )
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 13)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            #expect(resumed.time.seconds == 13)
        }
    }

    /// A live join 13 s into one event whose list has three 10 s assets starts the second asset
    /// 3 s in; the event reports the 17 s played.
    @Test func liveJoinLandsInsideTheRightAssetOfAList() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/live/prog.m3u8",
                .text(
                    Self.liveWindow(
                        count: 8,
                        tags: [
                            Fixtures.interstitial("ad", at: 2, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=30")
                        ]
                    )
                )
            )
            site.serve("/lists/ad.json", .json(assetList(base, ["red", "green", "blue"])))
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run(until: 18)
            let requests = site.requests
            let list = try #require(requests.first { $0.path == "/lists/ad.json" })
            #expect(list.parameter("_HLS_start_offset") == "13")
            #expect(!requests.contains { $0.path.hasPrefix("/media/ad-red/") })
            let green = requests.filter { $0.path.hasPrefix("/media/ad-green/") && $0.path.hasSuffix(".ts") }.map(
                \.path
            )
            #expect(green.first == "/media/ad-green/seg-001.ts")
            let log = await player.log
            #expect(
                liveSummaries(log) == [
                    "current:ad", "asset:ad#1", "assetEnded:ad#1", "asset:ad#2", "assetEnded:ad#2", "finished:ad",
                    "current:nil", "resumed@32.0",
                ]
            )
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 17)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
        }
    }
}
