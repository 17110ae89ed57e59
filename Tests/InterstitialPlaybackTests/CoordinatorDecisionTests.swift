import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The decisions moved out of the player actor: which playlist events can play (and what is logged
/// of the others), what an asset list arriving mid-event changes, and when the primary moves to
/// the predicted resume point.
@Suite struct CoordinatorDecisionTests {
    let coordinator = InterstitialCoordinator()

    static func unusable(_ id: String, _ messages: [String]) -> InterstitialEvent {
        var event = InterstitialCoordinatorTests.event(id)
        event.defects = messages.map {
            InterstitialEvent.Defect(rule: .assetBoth, attribute: nil, message: $0, hint: "keep one")
        }
        return event
    }

    // MARK: Unusable playlist events

    struct UsableRow: Sendable, CustomTestStringConvertible {
        var name: String
        var events: [InterstitialEvent]
        var ignored: [String: [InterstitialEvent.Defect]] = [:]
        var usable: [String]
        var logged: [String]
        var testDescription: String { self.name }
    }

    static let usableRows: [UsableRow] = [
        UsableRow(
            name: "usable events pass, nothing logged",
            events: [InterstitialCoordinatorTests.event("a"), InterstitialCoordinatorTests.event("b")],
            usable: ["a", "b"],
            logged: []
        ),
        UsableRow(
            name: "an unusable event is left out and each defect logged",
            events: [InterstitialCoordinatorTests.event("a"), unusable("bad", ["one", "two"])],
            usable: ["a"],
            logged: ["bad:one", "bad:two"]
        ),
        UsableRow(
            name: "already logged with the same defects: not again",
            events: [unusable("bad", ["one"])],
            ignored: ["bad": unusable("bad", ["one"]).defects],
            usable: [],
            logged: []
        ),
        UsableRow(
            name: "the defects changed: logged again",
            events: [unusable("bad", ["two"])],
            ignored: ["bad": unusable("bad", ["one"]).defects],
            usable: [],
            logged: ["bad:two"]
        ),
        UsableRow(
            name: "another identifier with the same defects is its own",
            events: [unusable("other", ["one"])],
            ignored: ["bad": unusable("bad", ["one"]).defects],
            usable: [],
            logged: ["other:one"]
        ),
    ]

    @Test(arguments: usableRows)
    func unusableEventsAreLoggedOncePerDefectSet(_ row: UsableRow) {
        let split = self.coordinator.usableEvents(row.events, ignored: row.ignored)
        #expect(split.usable.map(\.identifier) == row.usable)
        let logged = split.actions.compactMap { action -> String? in
            guard case .emit(.eventIgnored(let id, let rule, let message)) = action else { return nil }
            #expect(rule == InterstitialRule.assetBoth.id.rawValue)
            return "\(id):\(message)"
        }
        #expect(logged == row.logged)
        #expect(split.actions.count == row.logged.count)
        for event in row.events where !event.isUsable {
            #expect(split.ignored[event.identifier] == event.defects)
        }
    }

    // MARK: An asset list arriving mid-event

    @Test func aListArrivingForTheEventPlayingUpdatesHowItEnds() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=15,X-RESUME-OFFSET=7")
        ])
        let scheduled = try #require(context.schedule.event("ad"))
        let run = EventRun(event: scheduled.event, startedAt: 3)
        let updated = try #require(self.coordinator.current(run, afterListOf: "ad", scheduled: scheduled))
        #expect(updated.duration == 15)
        #expect(updated.scheduledOffset == 7)
        #expect(updated.offsetSource == scheduled.resumeOffsetSource)
        #expect(updated.startedAt == 3)
        // Another event's list, no event playing, or an event the schedule no longer has: nothing.
        #expect(self.coordinator.current(run, afterListOf: "other", scheduled: scheduled) == nil)
        #expect(self.coordinator.current(nil, afterListOf: "ad", scheduled: scheduled) == nil)
        #expect(self.coordinator.current(run, afterListOf: "ad", scheduled: nil) == nil)
    }

    // MARK: Moving the primary once the break is buffered

    struct MoveRow: Sendable, CustomTestStringConvertible {
        var name: String
        var playing = false
        var next: [String]?
        var repositionedFor: String?
        var resume: MediaTime = 30
        var expectedMark: String?
        var expectedPosition: MediaTime?
        var testDescription: String { self.name }
    }

    static let moveRows: [MoveRow] = [
        MoveRow(
            name: "break at 20 buffered: remember it, move to 30",
            next: ["a", "b"],
            expectedMark: "a",
            expectedPosition: 30
        ),
        MoveRow(
            name: "resumes where it starts (X-RESUME-OFFSET=0): remember it, no move",
            next: ["a"],
            resume: 20,
            expectedMark: "a",
            expectedPosition: nil
        ),
        MoveRow(name: "already moved for this break: nothing", next: ["a"], repositionedFor: "a"),
        MoveRow(
            name: "moved for an earlier break: this one is due",
            next: ["b"],
            repositionedFor: "a",
            expectedMark: "b",
            expectedPosition: 30
        ),
        MoveRow(name: "an interstitial plays: nothing", playing: true, next: ["a"]),
        MoveRow(name: "no break ahead: nothing"),
    ]

    @Test(arguments: moveRows)
    func thePrimaryMovesToTheResumePointOncePerBreak(_ row: MoveRow) {
        let next = row.next.map { (start: 20 as MediaTime, ids: $0) }
        let move = self.coordinator.primaryMove(
            playing: row.playing,
            next: next,
            repositionedFor: row.repositionedFor,
            resume: { start, ids in
                #expect(start == 20 && ids == row.next)
                return row.resume
            }
        )
        guard let mark = row.expectedMark else {
            #expect(move == nil)
            return
        }
        #expect(move?.mark == mark)
        #expect(move?.position == row.expectedPosition)
    }

    // MARK: Beginning an event

    @Test func anEventBeginsWithACopyOfWhatTheScheduleSaysOfIt() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=15,X-RESUME-OFFSET=7")
        ])
        var coordinator = self.coordinator
        let result = coordinator.beginEvent("ad", events: [], schedule: context.schedule, in: nil, rate: 1, now: 4)
        let begun = try #require(result)
        #expect(begun.run.eventID == "ad" && begun.run.startedAt == 4)
        #expect(begun.run.scheduledOffset == 7 && begun.run.duration == 15)
        let announced = InterstitialCoordinator.Action.emit(
            .currentEventDidChange(begun.run.event, primaryTime: nil, joinedAt: nil)
        )
        #expect(begun.actions == [announced])
    }

    @Test func theCurrentEventsVersionWinsOverTheSchedules() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=15,X-RESUME-OFFSET=7")
        ])
        var app = InterstitialCoordinatorTests.event("ad", resume: 3, restrict: [.skip])
        app.assetListURI = "/lists/app.json"
        var coordinator = self.coordinator
        var brk = BreakRun(queue: [], start: 10, startedAt: 0)
        brk.joinOffset = 2
        let result = coordinator.beginEvent("ad", events: [app], schedule: context.schedule, in: brk, rate: 2, now: 4)
        let begun = try #require(result)
        #expect(begun.run.event.assetListURI == "/lists/app.json")
        // The schedule's numbers are still those it placed the event with.
        #expect(begun.run.scheduledOffset == 7)
        // Announced with the join point (10 + 2), then X-RESTRICT=SKIP lowers the rate 2 to 1.
        #expect(
            begun.actions.first == .emit(.currentEventDidChange(app, primaryTime: 12, joinedAt: 2))
        )
        #expect(begun.actions.dropFirst().first == .setRate(1))
        #expect(coordinator.rateBeforeRestriction == 2)
    }

    @Test func anEventNeitherCurrentNorScheduledDoesNotBegin() throws {
        let context = try CoordinatorBreakTests.context([CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=15")])
        var coordinator = self.coordinator
        let unknown = coordinator.beginEvent("gone", events: [], schedule: context.schedule, in: nil, rate: 1, now: 0)
        #expect(unknown == nil)
        let noSchedule = coordinator.beginEvent("gone", events: [], schedule: nil, in: nil, rate: 1, now: 0)
        #expect(noSchedule == nil)
    }

    // MARK: The schedule and X-SNAP

    @Test func aFirstScheduleStartsWhereTheItemAsks() throws {
        let vod = try CoordinatorBreakTests.playlist([CoordinatorBreakTests.daterange("ad", at: 10, "")])
        let events = Schedule(primary: vod).events.map(\.event)
        let built = self.coordinator.schedule(
            after: nil,
            rebuilding: false,
            primary: [vod],
            events: events,
            startTime: nil
        )
        #expect(built.configuration.start == .time(0))
        #expect(built.events.map(\.identifier) == ["ad"])
        let later = self.coordinator.schedule(
            after: nil,
            rebuilding: false,
            primary: [vod],
            events: events,
            startTime: 25
        )
        #expect(later.configuration.start == .time(25))
        // Live without a start time: the schedule picks the live join itself.
        let live = try CoordinatorBreakTests.playlist([], live: true)
        let joined = self.coordinator.schedule(
            after: nil,
            rebuilding: true,
            primary: [live],
            events: [],
            startTime: nil
        )
        #expect(joined.configuration.start == nil)
    }

    @Test(arguments: [false, true])
    func laterSchedulesKeepWhatPlayedAndTheStart(rebuilding: Bool) throws {
        let context = try CoordinatorBreakTests.context(
            [
                CoordinatorBreakTests.daterange("a", at: 10, "CUE=\"ONCE\""),
                CoordinatorBreakTests.daterange("b", at: 30, ""),
            ],
            start: .time(5),
            played: ["a"]
        )
        let primary = try CoordinatorBreakTests.playlist([])
        let only = context.schedule.events.map(\.event).filter { $0.identifier == "b" }
        let next = self.coordinator.schedule(
            after: context.schedule,
            rebuilding: rebuilding,
            primary: [primary],
            events: only,
            startTime: 50
        )
        #expect(next.events.map(\.identifier) == ["b"])
        #expect(next.configuration.playedEventIDs == ["a"])
        // The item's start time only sets a first schedule's start.
        #expect(next.configuration.start == .time(5))
    }

    @Test func xSnapCountsAudioAndVideoNotSubtitles() throws {
        let main = try CoordinatorBreakTests.playlist([])
        let audioPlaylist = try CoordinatorBreakTests.playlist([], live: true)
        var video = Track(kind: .main, playlistURL: "/v.m3u8")
        video.playlist = main
        video.segments = [SegmentReference(mediaSequenceNumber: 0, url: "v0.ts", start: 0, duration: 2)]
        var audio = Track(kind: .audio, playlistURL: "/a.m3u8", language: "en")
        audio.playlist = audioPlaylist
        audio.segments = [SegmentReference(mediaSequenceNumber: 0, url: "a0.ts", start: 0, duration: 3)]
        var subtitles = Track(kind: .subtitles, playlistURL: "/s.m3u8", language: "en")
        subtitles.playlist = main
        subtitles.segments = [SegmentReference(mediaSequenceNumber: 0, url: "s0.vtt", start: 0, duration: 5)]
        let unloaded = Track(kind: .audio, playlistURL: "/fr.m3u8", language: "fr")
        let tracks = [video, audio, subtitles, unloaded]
        // OUT: the main playlist, then each audio playlist loaded.
        #expect(self.coordinator.snapPlaylists(main: main, tracks: tracks) == [main, audioPlaylist])
        // IN: the boundaries of each audio and video track, after a break whose last event snaps.
        var snapping = InterstitialCoordinatorTests.event("ad")
        snapping.alignsResumptionWithPrimarySegmentBoundary = true
        var brk = BreakRun(queue: [], start: 10, startedAt: 0)
        brk.finished = [InterstitialCoordinatorTests.finished(snapping, playout: 5, elapsed: 5)]
        #expect(self.coordinator.resumeEdges(of: brk, tracks: tracks) == [[0, 2], [0, 3], []])
        brk.fixedResume = 10
        #expect(self.coordinator.resumeEdges(of: brk, tracks: tracks).isEmpty)
        brk.fixedResume = nil
        brk.finished = [
            InterstitialCoordinatorTests.finished(InterstitialCoordinatorTests.event("ad"), playout: 5, elapsed: 5)
        ]
        #expect(self.coordinator.resumeEdges(of: brk, tracks: tracks).isEmpty)
    }

    // MARK: Rate and skip state

    @Test func theRateIsFreeOnThePrimaryAndHeldToOneInARestrictedEvent() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=10,X-RESTRICT=\"SKIP\""),
            CoordinatorBreakTests.daterange("free", at: 30, "DURATION=10"),
        ])
        let inAd = Playhead.interstitial("ad", at: 2, primaryTime: 10)
        let onPrimary = self.coordinator.rateDecision(2, playing: false, schedule: context.schedule, at: .primary(5))
        #expect(onPrimary.isAllowed && onPrimary.rate == 2)
        let fast = self.coordinator.rateDecision(2, playing: true, schedule: context.schedule, at: inAd)
        #expect(!fast.isAllowed && fast.rate == 2)
        #expect(self.coordinator.rateDecision(1, playing: true, schedule: context.schedule, at: inAd).isAllowed)
        let inFree = Playhead.interstitial("free", at: 2, primaryTime: 30)
        #expect(self.coordinator.rateDecision(2, playing: true, schedule: context.schedule, at: inFree).isAllowed)
        // No schedule yet: nothing restricts the rate.
        #expect(self.coordinator.rateDecision(2, playing: true, schedule: nil, at: inAd).isAllowed)
    }

    @Test func theSkipStateUsesTheListsSkipControlOverTheTags() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=20,X-SKIP-CONTROL-OFFSET=8")
        ])
        let scheduled = try #require(context.schedule.event("ad"))
        var run = EventRun(event: scheduled.event, startedAt: 0)
        run.assetPosition = 3
        let at = Playhead.interstitial("ad", at: 3, primaryTime: 10)
        let slot = AssetSlot(url: "/ads/ad.m3u8", duration: 20)
        // The tag's window opens at 8: at 3 not yet.
        let tag = self.coordinator.skipReport(of: run, list: nil, schedule: context.schedule, at: at)
        #expect(tag?.state == .notYetEligible && tag?.eligibleFrom == 8)
        let listWithout = self.coordinator.skipReport(
            of: run,
            list: .loaded([slot], nil),
            schedule: context.schedule,
            at: at
        )
        #expect(listWithout?.state == .notYetEligible)
        // The list's SKIP-CONTROL opens at 1: at 3 eligible.
        let list = self.coordinator.skipReport(
            of: run,
            list: .loaded([slot], SkipControl(offset: 1, duration: nil, labelID: nil)),
            schedule: context.schedule,
            at: at
        )
        #expect(list?.state == .eligible && list?.eligibleFrom == 1)
        #expect(self.coordinator.skipReport(of: nil, list: nil, schedule: context.schedule, at: at) == nil)
        #expect(self.coordinator.skipReport(of: run, list: nil, schedule: nil, at: at) == nil)
    }

    // MARK: Leaving a break

    @Test func cancellingDropsTheRestOfTheBreakAndAnnouncesIt() {
        let ad = InterstitialCoordinatorTests.event("ad")
        let brk = BreakRun(queue: ["next"], start: 20, startedAt: 0)
        let cancelled = self.coordinator.cancelling(
            brk,
            playing: EventRun(event: ad, startedAt: 0),
            resumptionOffset: 4
        )
        #expect(cancelled.run.queue.isEmpty && cancelled.run.fixedResume == 24)
        #expect(cancelled.actions == [.emit(.eventCancelled(ad))])
        let byTime = self.coordinator.cancelling(brk, playing: EventRun(event: ad, startedAt: 0), resumptionOffset: nil)
        #expect(byTime.run.fixedResume == nil && byTime.run.resumeByElapsed)
    }

    struct FinishRow: Sendable, CustomTestStringConvertible {
        var name: String
        var joinedAt: MediaTime = .zero
        var position: MediaTime
        var entire: Bool
        var playout: MediaTime
        var reportedEntire: Bool
        var testDescription: String { self.name }
    }

    static let finishRows: [FinishRow] = [
        FinishRow(name: "played out from its start", position: 10, entire: true, playout: 10, reportedEntire: true),
        FinishRow(name: "skipped at 4", position: 4, entire: false, playout: 4, reportedEntire: false),
        FinishRow(
            name: "joined 6 s in, played out: 4 s played, not entire",
            joinedAt: 6,
            position: 10,
            entire: true,
            playout: 4,
            reportedEntire: false
        ),
    ]

    @Test(arguments: finishRows)
    func anEventsEndReportsWhatThisPlayerPlayed(_ row: FinishRow) {
        let ad = InterstitialCoordinatorTests.event("ad")
        var run = EventRun(event: ad, startedAt: 0)
        run.joinedAt = row.joinedAt
        run.assetPosition = row.position
        let action = self.coordinator.eventDidFinish(run, entire: row.entire)
        #expect(action == .emit(.eventDidFinish(ad, playoutTime: row.playout, didPlayEntireEvent: row.reportedEntire)))
    }

    @Test func leavingABreakAnnouncesThePrimaryAndGivesTheRateBack() {
        var coordinator = self.coordinator
        let restricted = InterstitialCoordinatorTests.event("ad", restrict: [.skip])
        _ = coordinator.eventWillStart(restricted, rate: 2)
        let primary = InterstitialCoordinator.Action.emit(.currentEventDidChange(nil, primaryTime: nil, joinedAt: nil))
        let left = coordinator.leaveBreak(rate: 1)
        #expect(left.first == primary)
        #expect(left.contains(.setRate(2)))
        // Nothing lowered the rate: only the announcement.
        #expect(coordinator.leaveBreak(rate: 1) == [primary])
    }

    // MARK: Assets of the event playing

    @Test func assetsStartEndAndMoveOnWithAnnouncements() {
        let ad = InterstitialCoordinatorTests.event("ad")
        var run = EventRun(event: ad, startedAt: 0)
        run.playedBefore = 5
        run.assetIndex = 1
        let started = self.coordinator.assetStarted(run, url: "/ads/b.m3u8")
        #expect(started.run.assetStarted)
        #expect(started.action == .emit(.interstitialAssetStarted(eventID: "ad", index: 1, url: "/ads/b.m3u8")))
        var playing = started.run
        playing.assetPosition = 7
        #expect(
            self.coordinator.assetEnded(playing)
                == .emit(.interstitialAssetEnded(eventID: "ad", index: 1, playoutTime: 7))
        )
        let next = self.coordinator.nextAsset(playing)
        #expect(next.action == .emit(.interstitialAssetEnded(eventID: "ad", index: 1, playoutTime: 7)))
        #expect(next.run.assetIndex == 2 && next.run.assetPosition == 0 && !next.run.assetStarted)
        // 5 s of the first asset and 7 s of the second.
        #expect(next.run.playedBefore == 12 && next.run.eventTime == 12)
        let skipped = self.coordinator.skippingFailedAsset(playing)
        #expect(skipped.assetIndex == 2 && skipped.assetPosition == 0 && !skipped.assetStarted)
        // A failed asset adds nothing to what was played.
        #expect(skipped.playedBefore == 5)
    }

    // MARK: Announcements of lists and updates

    @Test func aListArrivingIsAnnouncedAndUpdatesTheEventPlaying() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("ad", at: 10, "DURATION=15,X-RESUME-OFFSET=7")
        ])
        let scheduled = try #require(context.schedule.event("ad"))
        let json = #"{"ASSETS":[{"URI":"/a.m3u8","DURATION":10},{"URI":"/b.m3u8","DURATION":5.5}]}"#
        let list = try AssetList.decode(Array(json.utf8))
        let run = EventRun(event: scheduled.event, startedAt: 0)
        let arrived = self.coordinator.listLoaded(
            list,
            eventID: "ad",
            event: scheduled.event,
            current: run,
            scheduled: scheduled
        )
        #expect(arrived.run?.scheduledOffset == 7)
        #expect(
            arrived.action == .emit(.assetListLoaded(eventID: "ad", event: scheduled.event, assets: 2, duration: 15.5))
        )
        let ahead = self.coordinator.listLoaded(list, eventID: "ad", event: nil, current: nil, scheduled: scheduled)
        #expect(ahead.run == nil)
        #expect(ahead.action == .emit(.assetListLoaded(eventID: "ad", event: nil, assets: 2, duration: 15.5)))
    }

    @Test func aReloadsNewAttributesReachTheEventPlayingAnnounced() {
        let ad = InterstitialCoordinatorTests.event("ad")
        var returned = ad
        returned.playoutLimit = 4
        let run = EventRun(event: ad, startedAt: 0)
        let update = self.coordinator.currentEventUpdate(run, events: [returned], controller: nil)
        #expect(update?.run.event.playoutLimit == 4)
        #expect(update?.action == .emit(.currentEventUpdated(returned)))
        #expect(self.coordinator.currentEventUpdate(run, events: [ad], controller: nil) == nil)
        #expect(self.coordinator.currentEventUpdate(nil, events: [returned], controller: nil) == nil)
        // The app's events never change the one playing.
        #expect(self.coordinator.currentEventUpdate(run, events: [returned], controller: [returned]) == nil)
    }
}
