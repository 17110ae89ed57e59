import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// An asset list over the demo ads.
func assetList(_ base: String, _ ads: [String]) -> String {
    let assets = ads.map { "{\"URI\":\"\(base)/media/ad-\($0)/main.m3u8\",\"DURATION\":10}" }
    return "{\"ASSETS\":[" + assets.joined(separator: ",") + "]}"
}

func summaries(_ log: [PlayerLogEntry]) -> [String] {
    let kept: Set<String> = [
        "currentEventDidChange", "primaryResumed", "eventDidFinish", "interstitialAssetStarted", "assetListLoaded",
        "assetListFailed", "ended",
    ]
    return log.filter { kept.contains($0.event) }.map(\.summary)
}

@Suite(.timeLimit(.minutes(1)))
struct InterstitialFlowTests {
    /// WWDC21: a pod of two ads at 10 s from one asset list, resume offset 0; buffering order
    /// primary → ad 1 → ad 2 → primary; the list is requested only once the primary is buffered
    /// to the marker.
    @Test func vodPodResumesWhereItLeftOff() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(dateRanges: [
                        Fixtures.interstitial(
                            "pod",
                            at: 10,
                            "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,DURATION=20"
                        )
                    ])
                )
            )
            site.serve("/lists/pod.json", .json(assetList(base, ["red", "green"])))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == [
                    "list:pod", "current:pod", "asset:pod#0", "asset:pod#1", "finished:pod", "current:nil",
                    "resumed@10.0", "ended",
                ]
            )
            let requests = site.requests
            #expect(
                runs(labels(requests)) == [
                    "playlist:/vod/prog.m3u8", "P", "list", "playlist:/media/ad-red/main.m3u8",
                    "playlist:/media/ad-red/prog.m3u8", "red", "playlist:/media/ad-green/main.m3u8",
                    "playlist:/media/ad-green/prog.m3u8", "green", "P",
                ]
            )
            // Late binding: the list comes after the segment holding the marker (8–10 s → seg 4) and
            // before any segment after it.
            let listIndex = try #require(requests.firstIndex { $0.path == "/lists/pod.json" })
            #expect(requests[..<listIndex].map(\.path).last == "/media/primary/seg-004.ts")
            // _HLS_primary_id on interstitial requests equals the session header everywhere.
            let session = player.sessionID
            #expect(requests[listIndex].parameter("_HLS_primary_id") == session)
            #expect(
                requests.filter { $0.path.hasPrefix("/media/ad-") && $0.path.hasSuffix("main.m3u8") }.allSatisfy {
                    $0.parameter("_HLS_primary_id") == session
                }
            )
            #expect(requests.allSatisfy { $0.sessionID == session })
            // 60 s of primary + 20 s of ads.
            #expect(log.last!.time >= 80 && log.last!.time < 81)
            let began = try #require(log.first { $0.event == "currentEventDidChange" })
            #expect(began["primaryTime"]?.doubleValue == 10)
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 20)
            #expect(finished["didPlayEntireEvent"]?.boolValue == true)
        }
    }

    @Test func waitingReasonIsInterstitialEventDuringBreak() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(dateRanges: [
                        Fixtures.interstitial(
                            "ad1",
                            at: 4,
                            "X-ASSET-URI=\"\(base)/media/ad-blue/main.m3u8\",X-RESUME-OFFSET=0"
                        )
                    ])
                )
            )
            let player = try await play(base + "/vod/prog.m3u8", until: 8)
            #expect(await player.timeControlStatus == .waitingToPlayAtSpecifiedRate)
            #expect(await player.reasonForWaitingToPlay == .interstitialEvent)
            #expect(await player.currentTime == 4)
            let monitor = InterstitialEventMonitor(player: player)
            #expect(await monitor.currentEvent?.identifier == "ad1")
            #expect(await monitor.events.map(\.identifier) == ["ad1"])
        }
    }

    @Test func failedAssetListCancelsWithResumeOffsetZero() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("ad1", at: 6, "X-ASSET-LIST=\"/lists/missing.json\",DURATION=10")
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(summaries(log) == ["listFailed:ad1", "ended"])
            #expect(log.contains { $0.event == "eventWasUnscheduled" })
            #expect(log.last!.time >= 20 && log.last!.time < 21)
        }
    }

    @Test func failedAssetIsSkippedAndNextPlays() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("pod", at: 6, "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0")
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            site.serve(
                "/lists/pod.json",
                .json(
                    "{\"ASSETS\":[{\"URI\":\"\(base)/media/ad-none/main.m3u8\",\"DURATION\":10},{\"URI\":\"\(base)/media/ad-red/main.m3u8\",\"DURATION\":10}]}"
                )
            )
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == [
                    "list:pod", "current:pod", "asset:pod#1", "finished:pod", "current:nil", "resumed@6.0", "ended",
                ]
            )
            #expect(log.contains { $0.event == "interstitialAssetFailed" })
            #expect(log.last!.time >= 30 && log.last!.time < 31)
        }
    }

    @Test func emptyAssetListAppliesResumeOffsetAtOnce() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("pod", at: 6, "X-ASSET-LIST=\"/lists/empty.json\",X-RESUME-OFFSET=4")
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            site.serve("/lists/empty.json", .json("{\"ASSETS\":[]}"))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == ["list:pod", "current:pod", "finished:pod", "current:nil", "resumed@10.0", "ended"]
            )
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            #expect(resumed.time == 6)
            #expect(log.last!.time >= 16 && log.last!.time < 17)
        }
    }

    @Test func preRollPostRollAndOnce() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "pre",
                    at: 0,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",CUE=\"PRE\",X-RESUME-OFFSET=0"
                ),
                Fixtures.interstitial(
                    "mid",
                    at: 8,
                    "X-ASSET-URI=\"\(base)/media/ad-green/main.m3u8\",CUE=\"ONCE\",X-RESUME-OFFSET=0"
                ),
                Fixtures.interstitial(
                    "post",
                    at: 0,
                    "X-ASSET-URI=\"\(base)/media/ad-blue/main.m3u8\",CUE=\"POST\""
                ),
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            // Seek back before the ONCE event after it played: it does not play again.
            await player.schedule(.seek(to: 2), at: 35)
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "current:pre", "asset:pre#0", "finished:pre", "current:nil", "resumed@0.0",
                    "current:mid", "asset:mid#0", "finished:mid", "current:nil", "resumed@8.0",
                    "current:post", "asset:post#0", "finished:post", "current:nil", "ended",
                ]
            )
            // 20 s primary + 3 ads + the 13 s replayed after the seek back from 15 s to 2 s.
            #expect(log.last!.time >= 63 && log.last!.time < 64)
        }
    }

    /// WWDC23 AirPlay: SKIP refuses rate 2 and a forward seek while ad1 plays.
    @Test func skipRestrictionRefusesRateAndForwardSeek() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad1",
                    at: 4,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""
                )
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            await player.schedule(.rate(2), at: 7)
            await player.schedule(.seek(to: 15), at: 8)
            try await player.run()
            let log = await player.log
            let refused = try #require(log.first { $0.event == "rateRefused" })
            #expect(refused.time == 7)
            #expect(refused["reason"]?.stringValue?.contains("SKIP") == true)
            let seek = try #require(log.first { $0.event == "seekResolved" })
            #expect(seek["allowed"]?.boolValue == false)
            // The ad played whole at rate 1: 20 s primary + 10 s ad.
            #expect(log.last!.time >= 30 && log.last!.time < 31)
        }
    }

    /// JUMP across two ads: the one nearest the target plays, then playback lands on the target.
    @Test func jumpRestrictionPlaysTheCrossedAdThenTheTarget() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad1",
                    at: 10,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""
                ),
                Fixtures.interstitial(
                    "ad2",
                    at: 30,
                    "X-ASSET-URI=\"\(base)/media/ad-green/main.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""
                ),
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 60, dateRanges: ranges)))
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            await player.schedule(.seek(to: 50), at: 2)
            try await player.run()
            let log = await player.log
            let seek = try #require(log.first { $0.event == "seekResolved" })
            #expect(seek["interstitials"] == .array(["ad2"]))
            #expect(seek["granted"]?.doubleValue == 50)
            #expect(
                summaries(log) == [
                    "current:ad2", "asset:ad2#0", "finished:ad2", "current:nil", "resumed@50.0", "ended",
                ]
            )
            #expect(log.last!.time >= 22 && log.last!.time < 23)
        }
    }

    @Test func skipControlAndSkipCurrentEvent() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad1",
                    at: 4,
                    "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=10"
                )
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 10, dateRanges: ranges)))
            site.serve("/lists/pod.json", .json(assetList(base, ["red", "green"])))
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            let notes = await InterstitialEventMonitor(player: player).notifications()
            await player.play()
            await player.schedule(.skipCurrentEvent, at: 12)
            try await player.run()
            let log = await player.log
            let states = log.filter { $0.event == "skippableStateDidChange" }.map {
                "\($0.time.seconds):\($0["state"]!.stringValue!)"
            }
            #expect(states == ["4.0:notYetEligible", "9.0:eligible", "12.0:notSkippable"])
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            #expect(finished["playoutTime"]?.doubleValue == 8)
            var skipped = false
            for await note in notes {
                if case .currentEventSkipped(let event) = note, event.identifier == "ad1" { skipped = true }
            }
            #expect(skipped)
        }
    }
}
