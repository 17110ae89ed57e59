import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// The player follows scheduled date ranges (Appendix H of Apple's preliminary WWDC26 draft) over
/// real HTTP on loopback, on the virtual clock: it requests a schedule's `X-URI` once buffering
/// reaches the schedule date range, posts `scheduleRequestCompleted`, requests the nested schedules
/// the document lists, and plays the interstitials with the rules of playlist events.
@Suite(.timeLimit(.minutes(1)))
struct DateRangeSchedulePlaybackTests {
    /// A schedule date range at `seconds` naming `uri`.
    static func scheduleTag(_ id: String, at seconds: Double, uri: String) -> String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.daterange-schedule\",START-DATE=\"\(Fixtures.date(seconds))\",X-URI=\"\(uri)\""
    }

    /// The schedule "brk" starts at 4 s: "ad-a" 4 s later (at 8 s, `X-RESTRICT` SKIP and JUMP, no
    /// skip control) and a nested schedule "inner" 12 s later (at 16 s) whose "ad-b" comes 2 s
    /// after its own start (at 18 s, skip control from 2 s for 5 s).
    ///
    /// Relative URIs resolve against
    /// each document.
    static let outer = """
        {"DATERANGES": [
          {"CLASS": "com.apple.hls.interstitial", "ID": "ad-a", "X-SCHEDULE-OFFSET": 4, "DURATION": 10,
           "X-ASSET-URI": "/media/ad-red/main.m3u8", "X-RESUME-OFFSET": 0, "X-RESTRICT": "SKIP,JUMP"},
          {"CLASS": "com.apple.hls.daterange-schedule", "ID": "inner", "X-SCHEDULE-OFFSET": 12, "X-URI": "inner.json"},
          {"CLASS": "com.example.chapter", "ID": "chapter", "X-SCHEDULE-OFFSET": 0, "X-TITLE": {"en": "Part one"}}
        ]}
        """

    static let inner = """
        {"DATERANGES": [
          {"CLASS": "com.apple.hls.interstitial", "ID": "ad-b", "X-SCHEDULE-OFFSET": 2, "DURATION": 10,
           "X-ASSET-LIST": "../lists/b.json", "X-RESUME-OFFSET": 0,
           "X-SKIP-CONTROL-OFFSET": 2, "X-SKIP-CONTROL-DURATION": 5, "X-SKIP-CONTROL-LABEL-ID": "SKIP_AD"}
        ]}
        """

    /// Both scheduled ads play at their times with their own rules: "ad-a" refuses a skip
    /// (`X-RESTRICT=SKIP`, no skip control); "ad-b" grants one inside its skip window.
    ///
    /// Each event
    /// carries the `ID` of the schedule that lists it; each document is requested once, with
    /// `_HLS_primary_id`, and reported with `scheduleRequestCompleted`.
    @Test func scheduledAdsPlayWithTheirOwnRules() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(
                        seconds: 30,
                        dateRanges: [Self.scheduleTag("brk", at: 4, uri: "/sched/brk.json")]
                    )
                )
            )
            site.serve("/sched/brk.json", .json(Self.outer))
            site.serve("/sched/inner.json", .json(Self.inner))
            site.serve("/lists/b.json", .json(assetList(base, ["green"])))
            let player = try await play(base + "/vod/prog.m3u8") { player in
                // Clock 9: 1 s into ad-a. Clock 31: 3 s into ad-b (primary 0–8, ad-a 10 s,
                // primary 8–18, then ad-b at clock 28).
                await player.schedule(.skipCurrentEvent(overridingPolicy: false), at: 9)
                await player.schedule(.skipCurrentEvent(overridingPolicy: false), at: 31)
            }
            let log = await player.log
            #expect(
                summaries(log) == [
                    "current:ad-a", "asset:ad-a#0", "finished:ad-a", "current:nil", "resumed@8.0", "list:ad-b",
                    "current:ad-b", "asset:ad-b#0", "finished:ad-b", "current:nil", "resumed@18.0", "ended",
                ]
            )
            let refused = await player.entries("skipRefused")
            #expect(refused.map { $0["eventID"]?.stringValue } == ["ad-a"])
            #expect(refused.first?["reason"]?.stringValue == "X-RESTRICT=SKIP and no skip control")
            let skipped = await player.entries("currentEventSkipped")
            #expect(skipped.map { $0["eventID"]?.stringValue } == ["ad-b"])
            // 30 s of primary, 10 s of ad-a, 3 s of ad-b.
            #expect(log.last!.time >= 43 && log.last!.time < 44)

            let completed = await player.entries("scheduleRequestCompleted")
            #expect(completed.map { $0["scheduleID"]?.stringValue } == ["brk", "inner"])
            #expect(completed.map { $0["url"]?.stringValue } == [base + "/sched/brk.json", base + "/sched/inner.json"])
            #expect(completed.allSatisfy { $0["error"] == .null })
            let documents = site.requests.filter { $0.path.hasPrefix("/sched/") }
            #expect(documents.map(\.path) == ["/sched/brk.json", "/sched/inner.json"])
            #expect(documents.allSatisfy { $0.parameter("_HLS_primary_id") == player.sessionID })
            #expect(!documents.contains { $0.parameter("_HLS_start_offset") != nil })

            let events = await InterstitialEventMonitor(player: player).events
            #expect(events.map(\.identifier) == ["ad-a", "ad-b"])
            #expect(events.map(\.scheduleIdentifier) == ["brk", "inner"])
            #expect(events.first?.restrictions == [.skip, .jump])
            #expect(events.last?.assetListURI == base + "/lists/b.json")
        }
    }

    /// The schedule is requested only once the primary's buffer reaches its date range (late
    /// binding): with the 30 s forward buffer, not before the primary segments up to 40 s are asked.
    @Test func scheduleIsRequestedWhenBufferingReachesIt() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(
                        seconds: 60,
                        dateRanges: [Self.scheduleTag("late", at: 40, uri: "/sched/late.json")]
                    )
                )
            )
            site.serve(
                "/sched/late.json",
                .json(
                    """
                    {"DATERANGES": [{"CLASS": "com.apple.hls.interstitial", "ID": "late-ad", "X-SCHEDULE-OFFSET": 2,
                      "X-ASSET-URI": "/media/ad-blue/main.m3u8", "X-RESUME-OFFSET": 0}]}
                    """
                )
            )
            let player = try await play(base + "/vod/prog.m3u8")
            let order = labels(site.requests)
            let primaryBefore = order.prefix { $0 != "list" }.filter { $0 == "P" }.count
            // Segment k covers 2k…2k+2: the buffer reaches 40 s once segments 0–19 are in.
            #expect(primaryBefore >= 20 && primaryBefore <= 22, "\(order)")
            #expect(summaries(await player.log).contains("resumed@42.0"))
        }
    }

    /// An unreadable schedule (HTTP 404, then a body that is not JSON) posts
    /// `scheduleRequestCompleted` with its error (and the body it got) to the monitor, schedules
    /// nothing, and playback goes on to the end.
    @Test(arguments: [404, 200])
    func unreadableScheduleIsReportedAndPlaybackGoesOn(status: Int) async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/sched/bad.json",
                status == 200 ? .json("<html>not json</html>") : .status(status)
            )
            let player = await vodPlayer(
                base,
                site,
                seconds: 12,
                dateRanges: [Self.scheduleTag("bad", at: 2, uri: "/sched/bad.json")]
            )
            let stream = await InterstitialEventMonitor(player: player).notifications()
            try await player.run()
            let all = await collect(stream)
            let log = await player.log
            #expect(log.last?.event == "ended")
            #expect(log.last!.time >= 12 && log.last!.time < 13)
            let completed = all.compactMap { note -> (String, [UInt8]?, PlaybackError?)? in
                guard case .scheduleRequestCompleted(let id, let response, let error) = note else { return nil }
                return (id, response, error)
            }
            try #require(completed.count == 1)
            #expect(completed[0].0 == "bad")
            #expect(completed[0].2?.url == base + "/sched/bad.json")
            if status == 200 {
                #expect(completed[0].2?.code == .invalidSchedule)
                #expect(completed[0].1 == Array("<html>not json</html>".utf8))
            } else {
                #expect(completed[0].2?.code == .httpStatus)
                #expect(completed[0].2?.status == 404)
            }
            #expect(await InterstitialEventMonitor(player: player).events.isEmpty)
            let issues = await player.entries("scheduleIssue")
            #expect(issues.map { $0["rule"]?.stringValue } == ["INT-SCHEDULE-UNREADABLE"])
        }
    }

    /// A schedule that lists itself is a cycle: requested once, reported, and its event plays once.
    @Test func cycleIsRequestedOnceAndReported() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(
                        seconds: 12,
                        dateRanges: [Self.scheduleTag("loop", at: 2, uri: "/sched/loop.json")]
                    )
                )
            )
            site.serve(
                "/sched/loop.json",
                .json(
                    """
                    {"DATERANGES": [
                      {"CLASS": "com.apple.hls.interstitial", "ID": "once", "X-SCHEDULE-OFFSET": 2,
                       "X-ASSET-URI": "/media/ad-green/main.m3u8", "X-RESUME-OFFSET": 0},
                      {"CLASS": "com.apple.hls.daterange-schedule", "ID": "again", "X-SCHEDULE-OFFSET": 1, "X-URI": "loop.json"}
                    ]}
                    """
                )
            )
            let player = try await play(base + "/vod/prog.m3u8")
            #expect(site.requests.filter { $0.path == "/sched/loop.json" }.count == 1)
            #expect(summaries(await player.log).filter { $0 == "current:once" }.count == 1)
            let issues = await player.entries("scheduleIssue")
            #expect(issues.map { $0["rule"]?.stringValue } == ["INT-SCHEDULE-CYCLE"])
        }
    }
}
