import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// One row per item: `name primary playout integrated`, e.g.
///
/// `ad1 5–5 5–20 5–5`.
func rows(_ schedule: Schedule) -> [String] {
    schedule.items.map { "\($0.eventID ?? "primary") \($0.primary) \($0.playout) \($0.integrated)" }
}

/// The seed talks' VOD examples, each a fixture playlist and the timeline it must give.
@Suite struct ScheduleSeedTests {
    struct Case: CustomStringConvertible, Sendable {
        let fixture: String
        let rows: [String]
        var description: String { self.fixture }
    }

    static let vodCases: [Case] = [
        // WWDC22: "the first ad some 5 seconds into playback ... the second ad at 15 seconds".
        Case(
            fixture: "seed-wwdc22-ads-at-5s-and-15s",
            rows: [
                "primary 0–5 0–5 0–5",
                "ad1 5–5 5–20 5–5",
                "primary 5–15 20–30 5–15",
                "ad2 15–15 30–45 15–15",
                "primary 15–30 45–60 15–30",
            ]
        ),
        // WWDC21: the first ad at 5 seconds, the second at 10.
        Case(
            fixture: "seed-wwdc21-ads-at-5s-and-10s",
            rows: [
                "primary 0–5 0–5 0–5",
                "ad1 5–5 5–20 5–5",
                "primary 5–10 20–25 5–10",
                "ad2 10–10 25–55 10–10",
                "primary 10–30 55–75 10–30",
            ]
        ),
        // WWDC21: back-to-back ads share a START-DATE and play in playlist order; offsets 0 add up to 0.
        Case(
            fixture: "seed-wwdc21-back-to-back-same-start",
            rows: [
                "primary 0–5 0–5 0–5",
                "ad1 5–5 5–20 5–5",
                "ad2 5–5 20–30 5–5",
                "primary 5–30 30–55 5–30",
            ]
        ),
        // WWDC21: replace an in-stream ad: resume offset = the stitched ad's duration (10 s).
        Case(
            fixture: "seed-wwdc21-replace-stitched-ad",
            rows: [
                "primary 0–5 0–5 0–5",
                "replace-instream-ad 5–15 5–20 5–5",
                "primary 15–35 20–40 5–25",
            ]
        ),
        // WWDC22: replace a stitched-in ad with a resume offset equal to its duration (15.015 s).
        Case(
            fixture: "seed-wwdc22-replace-stitched-ad",
            rows: [
                "primary 0–10.01 0–10.01 0–10.01",
                "replace-stitched 10.01–25.025 10.01–25.01 10.01–10.01",
                "primary 25.025–45.045 25.01–45.03 10.01–30.03",
            ]
        ),
        // WWDC21: an asset list pod with resume offset 0.
        Case(
            fixture: "seed-wwdc21-asset-list",
            rows: [
                "primary 0–5 0–5 0–5",
                "pod1 5–5 5–35 5–5",
                "primary 5–30 35–60 5–30",
            ]
        ),
        // WWDC23: ten seconds of primary, two ten-second ads at 5 s.
        Case(
            fixture: "seed-wwdc23-plans-abc",
            rows: [
                "primary 0–5 0–5 0–5",
                "ad1 5–5 5–15 5–5",
                "ad2 5–5 15–25 5–5",
                "primary 5–10 25–30 5–10",
            ]
        ),
        // WWDC22: a once-only pre-roll, a rating card once at 10 s, a post-roll.
        Case(
            fixture: "seed-wwdc22-preroll-postroll-once",
            rows: [
                "preroll 0–0 0–10 0–0",
                "primary 0–10 10–20 0–10",
                "rating-once 10–10 20–25 10–10",
                "primary 10–30 25–45 10–30",
                "postroll 30–30 45–60 30–30",
            ]
        ),
    ]

    @Test(arguments: vodCases)
    func vodTimeline(_ c: Case) throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist(c.fixture))
        #expect(rows(schedule) == c.rows)
        #expect(!schedule.isLive)
        #expect(schedule.start == nil)
    }

    @Test func replacedAdResumesAfterTheStitchedSpan() throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc22-replace-stitched-ad"))
        let event = try #require(schedule.event("replace-stitched"))
        #expect(event.startTime == MediaTime("10.01"))
        #expect(event.resumeOffset == MediaTime("15.015"))
        #expect(event.resumeOffsetSource == .given)
        #expect(event.resumeTime == MediaTime("25.025"))
    }

    @Test func onceEventsAlreadyPlayedAreLeftOut() throws {
        var configuration = Schedule.Configuration()
        configuration.playedEventIDs = ["preroll", "rating-once", "postroll"]
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc22-preroll-postroll-once"),
            configuration: configuration
        )
        // The post-roll is not ONCE: it plays again.
        #expect(rows(schedule) == ["primary 0–30 0–30 0–30", "postroll 30–30 30–45 30–30"])
        #expect(schedule.event("preroll")?.status == .alreadyPlayed)
        #expect(schedule.event("rating-once")?.status == .alreadyPlayed)
        #expect(schedule.event("postroll")?.status == .scheduled)
    }

    @Test func preRollPlaysWhereverPlaybackStarts() throws {
        var configuration = Schedule.Configuration()
        configuration.start = .time(12)
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc22-preroll-postroll-once"),
            configuration: configuration
        )
        #expect(
            rows(schedule) == [
                "preroll 12–12 0–10 0–0",
                "primary 12–30 10–28 0–18",
                "postroll 30–30 28–43 18–18",
            ]
        )
        #expect(schedule.event("rating-once")?.status == .beforeStart)
        #expect(
            schedule.start == Schedule.StartPosition(requestedTime: 12, primaryTime: 12, prerollEventIDs: ["preroll"])
        )
    }

    @Test func postRollWaitsForTheEndOfALivePrimary() throws {
        var configuration = Schedule.Configuration()
        configuration.isLive = true
        configuration.start = .beginning
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc22-preroll-postroll-once"),
            configuration: configuration
        )
        #expect(schedule.event("postroll")?.status == .awaitingPrimaryEnd)
        #expect(schedule.items.last?.eventID == nil)
    }

    @Test func planBWithoutInterstitialsIsThePrimaryAlone() throws {
        var configuration = Schedule.Configuration()
        configuration.handlesInterstitialEvents = false
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc23-plans-abc"),
            configuration: configuration
        )
        #expect(rows(schedule) == ["primary 0–10 0–10 0–10"])
        #expect(schedule.events.allSatisfy { $0.status == .disabled })
    }

    @Test func planCClearsAd2sRestrictionByClientOverride() throws {
        let playlist = try ScheduleFixture.playlist("seed-wwdc23-plans-abc")
        var events = Schedule(primary: playlist).events.map(\.event)
        #expect(events.map(\.restrictions) == [[.skip], [.skip]])
        // Like AVFoundation: copy ad2's event, clear its restrictions, set the events again.
        events[1].restrictions = []
        let schedule = Schedule(primary: playlist, events: events)
        #expect(schedule.items.compactMap { $0.isInterstitial ? $0.restrictions : nil } == [[.skip], []])
    }
}

/// The seed talks' live examples.
@Suite struct ScheduleLiveSeedTests {
    @Test func liveJoinInsideAnAdAsksWithStartOffset10() throws {
        // WWDC22: a 15 s ad 5 s from the top of a live playlist; joining three target durations
        // from the end, the ad has played for 10 s: _HLS_start_offset=10.
        let schedule = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc22-live-join-start-offset"))
        #expect(schedule.isLive)
        let start = try #require(schedule.start)
        #expect(start.requestedTime == 15)
        #expect(start.primaryTime == 15)
        #expect(start.eventID == "live-pod-1201")
        #expect(start.offsetIntoEvent == 10)
        #expect(start.startOffset == 10)
        #expect(rows(schedule) == ["live-pod-1201 5–20 0–5 0–0", "primary 20–30 5–15 0–10"])
        #expect(schedule.items[0].startOffset == 10)
    }

    @Test func liveRejoinAfterTheBreakDuration() throws {
        // WWDC21 / SharePlay: no resume offset on live: the primary rejoins after the break's
        // duration, keeping pace with the live edge.
        var configuration = Schedule.Configuration()
        configuration.start = .beginning
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-shareplay-live-interstitial-no-resume-offset"),
            configuration: configuration
        )
        let event = try #require(schedule.event("sports-break-52195"))
        #expect(event.resumeOffsetSource == .elapsed)
        #expect(event.resumeOffset == 30)
        #expect(event.resumeTime == 50)
        #expect(rows(schedule) == ["primary 0–20 0–20 0–20", "sports-break-52195 20–50 20–50 20–20"])
    }

    @Test func earlyReturnAt12SecondsOfA15SecondBreak() throws {
        // WWDC21: the fifth reload adds X-PLAYOUT-LIMIT=12 to the 15 s break.
        var configuration = Schedule.Configuration()
        configuration.start = .beginning
        let before = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc21-early-return-reload-4"),
            configuration: configuration
        )
        #expect(before.event("break-1")?.playoutDuration == 15)
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc21-early-return-reload-5"),
            configuration: configuration
        )
        let event = try #require(schedule.event("break-1"))
        #expect(event.startTime == 12)
        #expect(event.duration == 15)
        #expect(event.playoutDuration == 12)
        #expect(event.resumeTime == 24)
        #expect(
            rows(schedule) == [
                "primary 0–12 0–12 0–12",
                "break-1 12–24 12–24 12–12",
                "primary 24–36 24–36 12–24",
            ]
        )
    }

    @Test func earlyReturnReloadsUpdateLikeAFreshBuild() throws {
        let first = try ScheduleFixture.playlist("seed-wwdc21-early-return-reload-1")
        var schedule = Schedule(primary: first)
        let date = try #require(first.date(at: schedule.start!.requestedTime))
        for k in 2...5 {
            let playlist = try ScheduleFixture.playlist("seed-wwdc21-early-return-reload-\(k)")
            schedule.update(primary: playlist, events: Schedule(primary: playlist).events.map(\.event))
            var configuration = Schedule.Configuration()
            configuration.start = .date(date)
            let fresh = Schedule(primary: playlist, configuration: configuration)
            #expect(schedule.items == fresh.items, "reload \(k)")
            #expect(schedule.events == fresh.events, "reload \(k)")
        }
        #expect(schedule.event("break-1")?.playoutDuration == 12)
    }

    @Test func clockDriftSnapsOutAndInToSegmentBoundaries() throws {
        // WWDC22: PROGRAM-DATE-TIME of segments 0 and 100 are 800 s apart, but the segments last
        // 7.96 s: START-DATE maps inside segment 101. SNAP OUT starts at its boundary; SNAP IN
        // resumes at the boundary nearest start + 16 s.
        var configuration = Schedule.Configuration()
        configuration.start = .beginning
        let playlist = try ScheduleFixture.playlist("seed-wwdc22-live-clock-drift-snap")
        let schedule = Schedule(primary: playlist, configuration: configuration)
        let event = try #require(schedule.event("drift-break-1"))
        #expect(event.scheduledTime == 804)
        #expect(event.startTime == MediaTime("803.96"))  // segment 101 starts at 101 × 7.96
        #expect(event.resumeTime == MediaTime("819.88"))  // segment 103 starts at 103 × 7.96
        let boundaries = Set(playlist.timings.map(\.start))
        #expect(boundaries.contains(event.startTime!))
        #expect(boundaries.contains(event.resumeTime!))
    }
}
