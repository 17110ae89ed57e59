import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// The behaviours of issue 15 ("What the engine must get right"), played from the fixture site in
/// memory (no network): each is also a row of the coordinator's tables (InterstitialCoordinatorTests).
@Suite(.timeLimit(.minutes(1)), .realTime)
struct EngineBehaviourTests {
    /// Replacing the events while a mid-roll pod plays does not change how it ends: a 20 s pod at
    /// 8 s with `X-RESUME-OFFSET=0` resumes the primary at 8, and the app's event then plays.
    @Test func setEventsDuringABreakKeepsHowItEnds() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("pod", at: 8, "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0")
            ]
            site.serve("/lists/pod.json", .json(assetList(base, ["red", "green"])))
            let player = await vodPlayer(base, site, seconds: 40, dateRanges: ranges)
            try await player.run(until: 12)
            #expect(await player.currentInterstitialEventID == "pod")
            var own = InterstitialEvent(identifier: "own", time: 20)
            own.assetURIs = [base + "/media/ad-blue/main.m3u8"]
            own.resumptionOffset = .zero
            await InterstitialEventController(player: player).setEvents([own])
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "list:pod", "current:pod", "asset:pod#0", "asset:pod#1", "finished:pod", "current:nil",
                    "resumed@8.0",
                    "current:own", "asset:own#0", "finished:own", "current:nil", "resumed@20.0", "ended",
                ]
            )
            // 8 s of primary, 20 s of pod, 12 s of primary, 10 s of the app's ad, 20 s of primary.
            let end = try #require(log.last).time.seconds
            #expect(end >= 70 && end < 71, "\(end)")
        }
    }

    /// The same during a pre-roll: replacing the events while it plays keeps its
    /// `X-RESUME-OFFSET=0`, so the app's override of the server's mid-roll at 4 s then plays
    /// (resuming at the pre-roll's duration instead would jump past it).
    @Test func setEventsDuringAPreRollKeepsHowItEndsAndTheOverridePlays() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "pre",
                    at: 0,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",CUE=\"PRE\",X-RESUME-OFFSET=0"
                ),
                Fixtures.interstitial(
                    "ad1",
                    at: 4,
                    "X-ASSET-URI=\"\(base)/media/ad-green/main.m3u8\",X-RESUME-OFFSET=0"
                ),
            ]
            let player = await vodPlayer(base, site, seconds: 20, dateRanges: ranges)
            try await player.run(until: 3)
            #expect(await player.currentInterstitialEventID == "pre")
            var override = InterstitialEvent(identifier: "ad1", time: 4)
            override.assetURIs = [base + "/media/ad-blue/main.m3u8"]
            override.resumptionOffset = .zero
            await InterstitialEventController(player: player).setEvents([override])
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "current:pre", "asset:pre#0", "finished:pre", "current:nil", "resumed@0.0",
                    "current:ad1", "asset:ad1#0", "finished:ad1", "current:nil", "resumed@4.0", "ended",
                ]
            )
            let urls = log.filter { $0.event == "interstitialAssetStarted" }.compactMap { $0["url"]?.stringValue }
            #expect(urls.count == 2 && urls[1].contains("ad-blue"), "\(urls)")
        }
    }

    /// Skip control gates skipping: before the window and after it the request is refused (and
    /// logged with the reason); the app's override skips anyway.
    @Test func skippingIsGatedBySkipControl() async throws {
        try await withFixtureSite { base, site in
            // ad1: window 5…10 s into a 20 s pod; ad2: X-RESTRICT=SKIP, no skip control.
            let ranges = [
                Fixtures.interstitial(
                    "ad1",
                    at: 4,
                    "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=5,X-SKIP-CONTROL-DURATION=5"
                ),
                Fixtures.interstitial(
                    "ad2",
                    at: 10,
                    "X-ASSET-URI=\"\(base)/media/ad-blue/main.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP\""
                ),
            ]
            site.serve("/lists/pod.json", .json(assetList(base, ["red", "green"])))
            let player = await vodPlayer(base, site, seconds: 20, dateRanges: ranges)
            await player.schedule(.skipCurrentEvent, at: 6)  // 2 s into ad1: not yet
            await player.schedule(.skipCurrentEvent, at: 16)  // 12 s into ad1: closed at 10
            // ad1 ends at clock 24, the primary plays 4…10 until clock 30, then ad2.
            await player.schedule(.skipCurrentEvent, at: 32)  // 2 s into ad2: restricted
            await player.schedule(.skipCurrentEvent(overridingPolicy: true), at: 33)  // the app's policy
            try await player.run()
            let log = await player.log
            let refused = log.filter { $0.event == "skipRefused" }
            #expect(refused.map { $0["eventID"]?.stringValue } == ["ad1", "ad1", "ad2"])
            #expect(refused.map(\.time.seconds) == [6, 16, 32])
            let finished = log.filter { $0.event == "eventDidFinish" }
            #expect(finished.map { $0["eventID"]?.stringValue } == ["ad1", "ad2"])
            #expect(finished.map { $0["didPlayEntireEvent"]?.boolValue } == [true, false])
            #expect(finished.map { $0["playoutTime"]?.doubleValue } == [20, 3])
            #expect(log.filter { $0.event == "currentEventSkipped" }.map { $0["eventID"]?.stringValue } == ["ad2"])
        }
    }

    /// The asset list's `SKIP-CONTROL` overrides the tag's label too; the monitor shows it.
    @Test func assetListSkipControlOverridesTheLabel() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad",
                    at: 4,
                    "X-ASSET-LIST=\"/lists/ad.json\",X-RESUME-OFFSET=0,X-SKIP-CONTROL-OFFSET=0,X-SKIP-CONTROL-LABEL-ID=\"Tag-Label\""
                )
            ]
            site.serve(
                "/lists/ad.json",
                .json(
                    #"{"ASSETS":[{"URI":"\#(base)/media/ad-red/main.m3u8","DURATION":10}],"SKIP-CONTROL":{"OFFSET":2,"LABEL-ID":"List-Label"}}"#
                )
            )
            let player = await vodPlayer(base, site, seconds: 20, dateRanges: ranges)
            let monitor = InterstitialEventMonitor(player: player)
            let notes = await monitor.notifications()
            try await player.run(until: 7)
            #expect(await monitor.currentEventSkippableState == .eligible)
            #expect(await monitor.currentEventSkipLabelID == "List-Label")
            try await player.run()
            var labels: [String?] = []
            for await note in notes {
                if case .currentEventSkippableStateDidChange(_, let state, let label) = note, state != .notSkippable {
                    labels.append(label)
                }
            }
            #expect(labels == ["List-Label", "List-Label"])
            let logged = await player.log.filter { $0.event == "skippableStateDidChange" }.map {
                $0["labelID"]?.stringValue
            }
            #expect(logged == ["List-Label", "List-Label", nil])
        }
    }

    /// `X-RESTRICT=SKIP` holds from the first frame: the rate 2 set before the break plays the
    /// 10 s ad at 1 (10 s of clock, not 5), and comes back after it.
    @Test func restrictedBreakPlaysAtRateOneAndTheRateReturns() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad",
                    at: 4,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP\""
                )
            ]
            let player = await vodPlayer(base, site, seconds: 30, dateRanges: ranges)
            await player.schedule(.rate(2), at: 1)
            try await player.run()
            let log = await player.log
            // Primary 0…1 at 1, 1…4 at 2 (clock 2.5); the ad 10 s at 1 (clock 12.5); 26 s at 2.
            let started = try #require(
                log.first { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == "ad" }
            )
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            #expect(abs(started.time.seconds - 2.5) <= 0.1)
            #expect(abs(resumed.time.seconds - 12.5) <= 0.1)
            let end = try #require(log.last)
            #expect(end.event == "ended")
            #expect(abs(end.time.seconds - 25.5) <= 0.2)
            #expect(log.filter { $0.event == "rateChanged" }.map { $0["rate"]?.doubleValue } == [1, 2])
        }
    }

    /// A primary showing no subtitles gives ads without subtitles, even when the ad offers
    /// subtitles in the primary's audio language.
    @Test func interstitialSubtitlesFollowThePrimarysChoice() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/multi.m3u8",
                .text(
                    """
                    #EXTM3U
                    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="/audio-en.m3u8"
                    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="/subs-en.m3u8"
                    #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="aud",SUBTITLES="subs"
                    /vod/prog.m3u8

                    """
                )
            )
            let ranges = [
                Fixtures.interstitial("ad", at: 4, "X-ASSET-URI=\"/ad/multi.m3u8\",X-RESUME-OFFSET=0")
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            site.serve(
                "/ad/multi.m3u8",
                .text(
                    """
                    #EXTM3U
                    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="/ad/audio-en.m3u8"
                    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="/ad/subs-en.m3u8"
                    #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="aud",SUBTITLES="subs"
                    /media/ad-red/prog.m3u8

                    """
                )
            )
            for path in ["/audio-en.m3u8", "/subs-en.m3u8"] {
                site.serve(path, .text(Fixtures.vodPrimary(seconds: 20)))
            }
            for path in ["/ad/audio-en.m3u8", "/ad/subs-en.m3u8"] {
                site.serve(path, .text(Fixtures.vodPrimary(seconds: 10)))
            }
            let player = try await play(base + "/multi.m3u8")
            let selected = await player.entries("variantSelected")
            #expect(selected.map { $0["audioLanguage"]?.stringValue } == ["en", "en"])
            #expect(selected.map { $0["subtitleLanguage"] } == [.null, .null])
            let paths = site.requests.map(\.path)
            #expect(!paths.contains("/subs-en.m3u8"))
            #expect(!paths.contains("/ad/subs-en.m3u8"))
            #expect(summaries(await player.log).contains("finished:ad"))
        }
    }

    /// Live, no `X-RESUME-OFFSET`: joining 10 s into a 20 s break whose asset list takes a while
    /// to answer resumes at the break's start + 20, not later by the answer time; following the
    /// wall clock (the explicit option) resumes later by it.
    @Test(arguments: [LiveResumption.eventDuration, .followsWallClock])
    func liveResumptionIsTheEventsDuration(resumption: LiveResumption) async throws {
        try await withFixtureSite { base, site in
            let tag = Fixtures.interstitial("ad", at: 5, "X-ASSET-LIST=\"/lists/ad.json\",DURATION=20")
            site.serve("/live/prog.m3u8", .text(LiveInterstitialTests.liveWindow(count: 8, tags: [tag])))
            site.serveWaiting("/lists/ad.json") { _ in
                // 0.2 s of real time: at least 4 s on a clock running 20 times faster.
                try? await respondLate(by: .milliseconds(200))
                return .json(assetList(base, ["red", "green"]))
            }
            var configuration = Player.Configuration()
            configuration.liveResumption = resumption
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: RealPlaybackClock(speed: 20),
                loader: fixtureLoader(),
                configuration: configuration
            )
            await player.play()
            // Normally over by clock 30 (1.5 s); a busy machine may stall the ads a while longer.
            var limit: MediaTime = 30
            while limit <= 300, await !player.log.contains(where: { $0.event == "primaryResumed" }) {
                try await player.run(until: limit)
                limit = limit + 10
            }
            let log = await player.log
            let resumed = try #require(log.first { $0.event == "primaryResumed" })
            let primaryTime = try #require(resumed["primaryTime"]?.doubleValue)
            if resumption == .eventDuration {
                #expect(primaryTime == 25)
            } else {
                // 15 (joined) + at least 4 (the answer) + 10 (played).
                #expect(primaryTime >= 29, "\(primaryTime)")
            }
        }
    }

    /// D.5: a failed asset list cancels its event with resume offset 0, and the schedule is placed
    /// again without it: an event starting inside the failed one's span (which it would have
    /// jumped over) plays.
    @Test func failedAssetListLetsAnEventInsideItsSpanPlay() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("bad", at: 10, "X-ASSET-LIST=\"/lists/missing.json\",DURATION=20"),
                Fixtures.interstitial(
                    "inner",
                    at: 20,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0"
                ),
            ]
            let player = await vodPlayer(base, site, seconds: 40, dateRanges: ranges)
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "listFailed:bad", "current:inner", "asset:inner#0", "finished:inner", "current:nil", "resumed@20.0",
                    "ended",
                ]
            )
            // 40 s of primary and the 10 s ad.
            let end = try #require(log.last).time.seconds
            #expect(end >= 50 && end < 51, "\(end)")
        }
    }

    /// Post-roll assets are buffered ahead, like a mid-roll's: the list is asked for and the ad
    /// buffered while the primary still plays, not when it ends.
    @Test func postRollsAreBufferedAhead() async throws {
        try await withFixtureSite { base, site in
            let ranges = [Fixtures.interstitial("post", at: 0, "X-ASSET-LIST=\"/lists/post.json\",CUE=\"POST\"")]
            site.serve("/lists/post.json", .json(assetList(base, ["red"])))
            let player = await vodPlayer(base, site, seconds: 10, dateRanges: ranges)
            try await player.run()
            let log = await player.log
            let loaded = try #require(log.first { $0.event == "assetListLoaded" })
            #expect(loaded.time.seconds < 9, "\(loaded)")
            let adBuffered = try #require(
                log.first { $0.event == "bufferedTo" && $0["presentation"]?.stringValue?.contains("post") == true }
            )
            #expect(adBuffered.time.seconds < 10, "\(adBuffered)")
            let started = try #require(
                log.first { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == "post" }
            )
            #expect(abs(started.time.seconds - 10) <= 0.1)
            #expect(log.last?.event == "ended")
            #expect(!log.contains { $0.event == "stalled" && $0.time.seconds >= 10 })
        }
    }

    /// Error codes say what happened: no item is `noItem` (not `invalidURL`).
    @Test func noItemIsReportedAsSuch() async throws {
        let player = Player(clock: VirtualPlaybackClock(), loader: fixtureLoader())
        await player.play()
        try await player.run()
        #expect(await player.error?.code == .noItem)
        #expect(await player.log.last?["code"]?.stringValue == "noItem")
    }

    /// What a live pre-roll resuming inside a mid-roll showed: the requests and the log.
    struct PrerollEntry: Sendable {
        var requests: [ServedRequest]
        var log: [PlayerLogEntry]

        /// The `_HLS_start_offset` of the asset-list request for `eventID`.
        func startOffset(of eventID: String) -> String? {
            self.requests.first { $0.path == "/lists/\(eventID).json" }?.parameter("_HLS_start_offset")
        }

        /// The `currentEventDidChange` line that entered `eventID`.
        func entered(_ eventID: String) -> PlayerLogEntry? {
            self.log.first { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == eventID }
        }
    }

    /// A live join at 15 (8 segments of 3 s) plays a blue pre-roll with `X-RESUME-OFFSET=resume`,
    /// then whatever `tags` place: each mid-roll's list is `/lists/<id>.json` with a red ad.
    func prerollThenEnter(resume: Int, tags: @Sendable (String) -> [String]) async throws -> PrerollEntry {
        try await withFixtureSite { base, site in
            let pre = Fixtures.interstitial(
                "pre",
                at: 0,
                "X-ASSET-URI=\"\(base)/media/ad-blue/main.m3u8\",CUE=\"PRE\",X-RESUME-OFFSET=\(resume)"
            )
            let mids = tags(base)
            site.serve("/live/prog.m3u8", .text(LiveInterstitialTests.liveWindow(count: 8, tags: [pre] + mids)))
            for id in ["mid", "m1", "m2"] { site.serve("/lists/\(id).json", .json(assetList(base, ["red"]))) }
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run(until: 25)
            return PrerollEntry(requests: site.requests, log: await player.log)
        }
    }

    /// A live pre-roll whose resume point (join 15 + X-RESUME-OFFSET 4 = 19) lands inside a
    /// mid-roll (17…27) enters the mid-roll 2 s in, asking its list with `_HLS_start_offset=2`,
    /// instead of playing the mid-roll's primary span.
    @Test func resumePointInsideAnInterstitialEntersIt() async throws {
        let run = try await self.prerollThenEnter(resume: 4) { _ in
            [Fixtures.interstitial("mid", at: 17, "X-ASSET-LIST=\"/lists/mid.json\",DURATION=10")]
        }
        #expect(run.startOffset(of: "mid") == "2")
        #expect(
            liveSummaries(run.log) == [
                "current:pre", "asset:pre#0", "assetEnded:pre#0", "finished:pre", "current:nil",
                "current:mid", "asset:mid#0", "assetEnded:mid#0", "finished:mid", "current:nil", "resumed@27.0",
            ]
        )
        let entered = try #require(run.entered("mid"))
        #expect(entered["primaryTime"]?.doubleValue == 19)
        #expect(entered["joinedAt"]?.doubleValue == 2)
    }

    /// A live pre-roll resuming at 23 (join 15 + X-RESUME-OFFSET 8) lands in a pod at 17 whose
    /// first event covers 17…21 and whose second covers 21…31: the second is entered 2 s in (its
    /// list asked with `_HLS_start_offset=2`), the first is never asked for.
    @Test func resumePointInAPodsSecondShareEntersTheSecondEvent() async throws {
        let run = try await self.prerollThenEnter(resume: 8) { _ in
            [
                Fixtures.interstitial("m1", at: 17, "X-ASSET-LIST=\"/lists/m1.json\",DURATION=4"),
                Fixtures.interstitial("m2", at: 17, "X-ASSET-LIST=\"/lists/m2.json\",DURATION=10"),
            ]
        }
        #expect(!run.requests.contains { $0.path == "/lists/m1.json" })
        #expect(run.startOffset(of: "m2") == "2")
        #expect(
            Array(liveSummaries(run.log).prefix(7)) == [
                "current:pre", "asset:pre#0", "assetEnded:pre#0", "finished:pre", "current:nil",
                "current:m2", "asset:m2#0",
            ]
        )
        let entered = try #require(run.entered("m2"))
        #expect(entered["primaryTime"]?.doubleValue == 23)
        #expect(entered["joinedAt"]?.doubleValue == 2)
    }

    /// `X-SNAP=OUT` takes the earliest boundary across the audio and video playlists: 9.5 is 10
    /// in the video's 2 s segments and 9 in the audio's 3 s ones, so the break starts at 9 (the
    /// main playlist alone said 10).
    @Test func snapOutUsesTheEarliestBoundaryAcrossAudioAndVideo() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad",
                    at: 9.5,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0,X-SNAP=\"OUT\""
                )
            ]
            serveVideoAndAudio(site, dateRanges: ranges)
            let player = try await play(base + "/multi.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == ["current:ad", "asset:ad#0", "finished:ad", "current:nil", "resumed@9.0", "ended"]
            )
            let began = try #require(
                log.first { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == "ad" }
            )
            #expect(began["primaryTime"]?.doubleValue == 9)
        }
    }

    /// `X-SNAP=IN` snaps the resume point to a segment boundary of every audio and video
    /// playlist, the latest of them: 10 + 4.6 = 14.6 is 14 in the video's 2 s segments and 15 in
    /// the audio's 3 s ones, so the primary resumes at 15 (the main playlist alone said 14).
    @Test func snapInUsesTheLatestBoundaryAcrossAudioAndVideo() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "ad",
                    at: 10,
                    "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=4.6,X-SNAP=\"IN\""
                )
            ]
            serveVideoAndAudio(site, dateRanges: ranges)
            let player = try await play(base + "/multi.m3u8")
            #expect(
                summaries(await player.log) == [
                    "current:ad", "asset:ad#0", "finished:ad", "current:nil", "resumed@15.0", "ended",
                ]
            )
        }
    }

    /// The app's events read back at once, before the playlist loads.
    @Test func controllerEventsReadBackAtOnce() async throws {
        let player = Player(
            item: PlayerItem(url: "http://127.0.0.1:1/never.m3u8"),
            clock: VirtualPlaybackClock(),
            loader: fixtureLoader()
        )
        let controller = InterstitialEventController(player: player)
        var own = InterstitialEvent(identifier: "own", time: 20)
        own.assetURIs = ["http://127.0.0.1:1/ad.m3u8"]
        await controller.setEvents([own])
        #expect(await controller.events.map(\.identifier) == ["own"])
    }

    /// No "asset list cleared" for an `X-ASSET-URI` event: it has no list.
    @Test func noListClearedForAssetURIEvents() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("uri", at: 14, "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0")
            ]
            let player = await vodPlayer(base, site, seconds: 30, dateRanges: ranges)
            let notes = await InterstitialEventMonitor(player: player).notifications()
            try await player.run(until: 10)
            var own = InterstitialEvent(identifier: "own", time: 20)
            own.assetURIs = [base + "/media/ad-blue/main.m3u8"]
            await InterstitialEventController(player: player).setEvents([own])
            try await player.run()
            let all = await collect(notes)
            #expect(listStatuses(all).isEmpty, "\(listStatuses(all))")
            #expect(
                all.contains {
                    if case .eventWasUnscheduled(let event, nil) = $0 { event.identifier == "uri" } else { false }
                }
            )
        }
    }

    /// A subscriber that never reads holds at most the configured number of notifications, the
    /// newest; the kept log stays within its bound too.
    @Test func notificationsAndLogAreBounded() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial("ad", at: 4, "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0")
            ]
            var configuration = Player.Configuration()
            configuration.notificationBufferLimit = 3
            configuration.maximumLogEntries = 16
            let player = await vodPlayer(base, site, seconds: 20, dateRanges: ranges, configuration: configuration)
            let stream = await player.notifications()
            try await player.run()
            let notes = await collect(stream)
            #expect(notes.count == 3)
            // The newest: the last is the player pausing at the end.
            guard case .timeControlStatusDidChange(let status, _)? = notes.last else {
                Issue.record("last notification: \(String(describing: notes.last))")
                return
            }
            #expect(status == .paused)
            let log = await player.log
            #expect(log.count <= 16 && log.count >= 14)
            #expect(log.last?.event == "ended")
        }
    }
}

/// Serves `/multi.m3u8`: the VOD primary `/vod/prog.m3u8` (30 s of 2 s segments, with
/// `dateRanges`) and an English audio rendition `/audio.m3u8` of 3 s segments, so their segment
/// boundaries differ.
func serveVideoAndAudio(_ site: FixtureSite, dateRanges: [String]) {
    site.serve(
        "/multi.m3u8",
        .text(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="/audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="aud"
            /vod/prog.m3u8

            """
        )
    )
    site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 30, dateRanges: dateRanges)))
    var audio = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:3", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for k in 0..<10 { audio += ["#EXTINF:3.000,", "/media/primary/seg-00\(k).ts"] }
    site.serve("/audio.m3u8", .text((audio + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"))
}
