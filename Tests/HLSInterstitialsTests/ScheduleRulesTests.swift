import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The scheduling rules one by one, on small synthetic playlists.
@Suite struct ScheduleRulesTests {
    static func event(
        _ id: String,
        at time: MediaTime,
        duration: MediaTime? = 10,
        offset: MediaTime? = .zero
    ) -> InterstitialEvent {
        var event = InterstitialEvent(identifier: id, time: time)
        event.duration = duration
        event.resumptionOffset = offset
        return event
    }

    @Test func datesMapAcrossDiscontinuitiesAndGaps() throws {
        // Segment 1 is dated 4 s after segment 0 ends (a gap); segment 3 jumps back 1 s (overlap).
        let playlist = try MediaPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-TARGETDURATION:6
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
                #EXTINF:6,
                a.ts
                #EXT-X-DISCONTINUITY
                #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:10.000Z
                #EXTINF:6,
                b.ts
                #EXTINF:6,
                c.ts
                #EXT-X-DISCONTINUITY
                #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:21.000Z
                #EXTINF:6,
                d.ts
                #EXT-X-ENDLIST

                """
        )
        let cases: [(Double, Double)] = [(3, 3), (8, 6), (12, 8), (21.5, 18.5), (26, 23)]
        let events = cases.enumerated().map { k, c in
            var event = InterstitialEvent(identifier: "e\(k)", date: ScheduleFixture.date(c.0))
            event.duration = 1
            event.resumptionOffset = .zero
            return event
        }
        let schedule = Schedule(primary: playlist, events: events)
        for (k, c) in cases.enumerated() {
            #expect(schedule.event("e\(k)")?.startTime == .s(c.1), "date +\(c.0) s")
        }
        // Events given as a time need no mapping; a date without PROGRAM-DATE-TIME cannot be placed.
        let plain = try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n")
        let timed = Schedule(primary: plain, events: [Self.event("t", at: 4), events[0]])
        #expect(timed.event("t")?.startTime == 4)
        #expect(timed.event("e0")?.status == .unplaceable)
        #expect(timed.events.last?.identifier == "e0")
    }

    struct OffsetCase: CustomStringConvertible, Sendable {
        let name: String
        let live: Bool
        let offsets: [MediaTime?]
        let durations: [MediaTime?]
        let limits: [MediaTime?]
        let cumulative: [MediaTime]
        let sources: [ScheduledEvent.ResumeOffsetSource]
        var description: String { self.name }
    }

    static let offsetCases: [OffsetCase] = [
        OffsetCase(
            name: "VOD offsets add up",
            live: false,
            offsets: [5, 0, 3],
            durations: [10, 10, 10],
            limits: [nil, nil, nil],
            cumulative: [5, 5, 8],
            sources: [.given, .given, .given]
        ),
        OffsetCase(
            name: "one absent offset is that event's duration",
            live: false,
            offsets: [0, nil, 0],
            durations: [10, 15, 10],
            limits: [nil, nil, nil],
            cumulative: [0, 15, 15],
            sources: [.given, .duration, .given]
        ),
        OffsetCase(
            name: "the playout limit when shorter",
            live: false,
            offsets: [nil],
            durations: [15],
            limits: [12],
            cumulative: [12],
            sources: [.playoutLimit]
        ),
        OffsetCase(
            name: "a longer limit does not count",
            live: false,
            offsets: [nil],
            durations: [15],
            limits: [20],
            cumulative: [15],
            sources: [.duration]
        ),
        OffsetCase(
            name: "unknown duration and no offset is 0",
            live: false,
            offsets: [nil, 4],
            durations: [nil, 10],
            limits: [nil, nil],
            cumulative: [0, 4],
            sources: [.unknown, .given]
        ),
        OffsetCase(
            name: "negative offsets",
            live: false,
            offsets: [-3, 1],
            durations: [10, 10],
            limits: [nil, nil],
            cumulative: [-3, -2],
            sources: [.given, .given]
        ),
        OffsetCase(
            name: "live: absent is the time spent, given adds",
            live: true,
            offsets: [nil, 0, nil],
            durations: [15, 10, 20],
            limits: [nil, nil, 12],
            cumulative: [15, 15, 27],
            sources: [.elapsed, .given, .elapsed]
        ),
    ]

    @Test(arguments: offsetCases)
    func cumulativeResumeOffsets(_ c: OffsetCase) throws {
        let playlist = ScheduleFixture.uniform(count: 20, duration: 6, live: c.live)
        var events: [InterstitialEvent] = []
        for k in c.offsets.indices {
            var event = Self.event("e\(k)", at: 30, duration: c.durations[k], offset: c.offsets[k])
            event.playoutLimit = c.limits[k]
            events.append(event)
        }
        var configuration = Schedule.Configuration()
        configuration.start = .beginning
        let schedule = Schedule(primary: playlist, events: events, configuration: configuration)
        #expect(schedule.events.map(\.identifier) == events.map(\.identifier))
        #expect(schedule.events.map(\.cumulativeResumeOffset) == c.cumulative)
        #expect(schedule.events.map(\.resumeOffsetSource) == c.sources)
        #expect(schedule.events.map(\.podPosition) == Array(c.offsets.indices))
        #expect(schedule.events.allSatisfy { $0.podSize == c.offsets.count })
        // The primary resumes after the last event of the pod.
        let resume = 30 + c.cumulative.last!
        let next = schedule.items.first { !$0.isInterstitial && $0.primary.start > 0 }
        #expect(next?.primary.start == resume)
    }

    @Test func snapAcrossPlaylistsUsesEarliestOutAndLatestIn() throws {
        // Video: 6 s segments; audio: 5 s segments; both dated from the same instant.
        let video = ScheduleFixture.uniform(count: 10, duration: 6)
        let audio = ScheduleFixture.uniform(count: 12, duration: 5)
        var event = Self.event("ad", at: 16, duration: 11, offset: nil)
        event.alignsStartWithPrimarySegmentBoundary = true
        event.alignsResumptionWithPrimarySegmentBoundary = true
        let single = Schedule(primary: video, events: [event]).event("ad")
        #expect(single?.startTime == 18)  // nearest video boundary to 16
        #expect(single?.resumeTime == 30)  // 18 + 11 = 29 → 30
        let both = Schedule(primary: [video, audio], events: [event]).event("ad")
        #expect(both?.scheduledTime == 16)
        #expect(both?.startTime == 15)  // OUT: video 18, audio 15 → the earliest
        #expect(both?.resumeTime == 25)  // IN: 15 + 11 = 26 → video 24, audio 25 → the latest
    }

    @Test func playoutLimitCapsAndVODEndLeavesLateEventsOut() throws {
        let playlist = ScheduleFixture.uniform(count: 5, duration: 6)  // 30 s
        var capped = Self.event("capped", at: 6, duration: 20)
        capped.playoutLimit = 8
        let atEnd = Self.event("at-end", at: 30)
        let late = Self.event("late", at: 31)
        let schedule = Schedule(primary: playlist, events: [late, atEnd, capped])
        #expect(schedule.event("capped")?.playoutDuration == 8)
        #expect(schedule.event("at-end")?.status == .scheduled)
        #expect(schedule.event("late")?.status == .afterPrimaryEnd)
        #expect(
            rows(schedule) == [
                "primary 0–6 0–6 0–6",
                "capped 6–6 6–14 6–6",
                "primary 6–30 14–38 6–30",
                "at-end 30–30 38–48 30–30",
            ]
        )
    }

    @Test func pointAndRangeOccupancy() throws {
        let playlist = ScheduleFixture.uniform(count: 5, duration: 6)
        var range = Self.event("range", at: 12, duration: 10, offset: 10)
        range.timelineOccupancy = .range
        let point = Self.event("point", at: 3, duration: 4)
        let schedule = Schedule(primary: playlist, events: [range, point])
        #expect(
            rows(schedule) == [
                "primary 0–3 0–3 0–3",
                "point 3–3 3–7 3–3",
                "primary 3–12 7–16 3–12",
                "range 12–22 16–26 12–22",
                "primary 22–30 26–34 22–30",
            ]
        )
        #expect(schedule.integratedDuration == 30)
    }

    @Test func negativeOffsetReplaysWithoutReplayingTheEvent() throws {
        let playlist = ScheduleFixture.uniform(count: 5, duration: 6)
        let schedule = Schedule(primary: playlist, events: [Self.event("recap", at: 12, duration: 5, offset: -4)])
        #expect(
            rows(schedule) == [
                "primary 0–12 0–12 0–12",
                "recap 12–8 12–17 12–12",
                "primary 8–30 17–39 12–34",
            ]
        )
    }

    @Test func eventsInsideAReplacedSpanAreSkipped() throws {
        let playlist = ScheduleFixture.uniform(count: 5, duration: 6)
        let schedule = Schedule(
            primary: playlist,
            events: [
                Self.event("long", at: 5, duration: 10, offset: 15), Self.event("inside", at: 10),
            ]
        )
        #expect(schedule.event("inside")?.status == .skippedByResumption)
        #expect(rows(schedule) == ["primary 0–5 0–5 0–5", "long 5–20 5–15 5–5", "primary 20–30 15–25 5–15"])
    }

    @Test func livePreRollThenJoinKeepsPaceOrLandsInAMidroll() throws {
        let playlist = try ScheduleFixture.playlist("seed-wwdc22-live-join-start-offset")
        let midroll = Schedule(primary: playlist).events.map(\.event)
        var preroll = InterstitialEvent(identifier: "pre", date: ScheduleFixture.date(0))
        preroll.cue = .join
        preroll.duration = 10
        // Absent offset on live: the pre-roll's 10 s pass, the join point moves with the live edge.
        let keepsPace = Schedule(primary: playlist, events: [preroll] + midroll)
        #expect(keepsPace.start?.prerollEventIDs == ["pre"])
        #expect(keepsPace.start?.primaryTime == 25)
        #expect(keepsPace.start?.eventID == nil)
        #expect(rows(keepsPace) == ["pre 15–25 0–10 0–0", "primary 25–30 10–15 0–5"])
        // Offset 0: the primary starts at the join point, inside the mid-roll, 10 s in.
        preroll.resumptionOffset = .zero
        let lands = Schedule(primary: playlist, events: [preroll] + midroll)
        #expect(lands.start?.primaryTime == 15)
        #expect(lands.start?.eventID == "live-pod-1201")
        #expect(lands.start?.startOffset == 10)
        #expect(rows(lands) == ["pre 15–15 0–10 0–0", "live-pod-1201 5–20 10–15 0–0", "primary 20–30 15–25 0–10"])
    }

    @Test func vodStartInsideAReplacedSpanPlaysItFromTheBeginning() throws {
        var configuration = Schedule.Configuration()
        configuration.start = .time(10)
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc21-replace-stitched-ad"),
            configuration: configuration
        )
        #expect(schedule.start?.eventID == "replace-instream-ad")
        #expect(schedule.start?.offsetIntoEvent == 5)
        #expect(schedule.start?.startOffset == 0)
        #expect(schedule.items.first?.playout.duration == 15)
    }

    @Test func updatesRecomputeOnlyWhatChangedAndKeepIdentities() throws {
        let playlist = ScheduleFixture.uniform(count: 20, duration: 6)
        var events = (0..<5).map { Self.event("e\($0)", at: MediaTime(seconds: 10 + 20 * $0), duration: nil) }
        var schedule = Schedule(primary: playlist, events: events)
        let id = ScheduleItem.ID.primary(after: "e2")
        let before = try #require(schedule.index(of: id))
        // An asset list says e3 lasts 15 + 15 s.
        let update = schedule.setAssetDurations([15, 15], forEvent: "e3")
        #expect(update.isRebuilt == false)
        #expect(try #require(update.firstChangedItem) > 0)
        #expect(schedule.index(of: id) == before)
        #expect(schedule.event("e3")?.duration == 30)
        #expect(schedule.event("e3")?.durationSource == .assets)
        var configuration = Schedule.Configuration()
        configuration.assetDurations = ["e3": [15, 15]]
        #expect(schedule == Schedule(primary: playlist, events: events, configuration: configuration))
        // A same-ID update adds X-PLAYOUT-LIMIT to e1 (early return).
        events[1].playoutLimit = 4
        events[1].duration = 10
        schedule.update(events: events)
        #expect(schedule == Schedule(primary: playlist, events: events, configuration: configuration))
        #expect(schedule.event("e1")?.playoutDuration == 4)
    }
}
