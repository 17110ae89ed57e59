import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The coordinator's break decisions as tables over real schedules: no player, no network.
///
/// Every primary is six 10 s segments from 00:00:00 (0–60 s); an event's `START-DATE` second is
/// its primary time.
@Suite struct CoordinatorBreakTests {
    static func daterange(_ id: String, at second: Int, _ attributes: String) -> String {
        let start = second < 10 ? "0\(second)" : "\(second)"
        return
            "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:\(start).000Z\","
            + "X-ASSET-URI=\"/ads/\(id).m3u8\"" + (attributes.isEmpty ? "" : "," + attributes)
    }

    static func playlist(_ dateranges: [String], live: Bool = false) throws -> MediaPlaylist {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:10",
            "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
        ]
        lines += dateranges
        for index in 0..<6 { lines += ["#EXTINF:10,", "s\(index).ts"] }
        if !live { lines.append("#EXT-X-ENDLIST") }
        return try MediaPlaylist(parsing: lines.joined(separator: "\n") + "\n")
    }

    static func context(
        _ dateranges: [String],
        live: Bool = false,
        start: Schedule.StartRequest? = .time(0),
        played: Set<String> = [],
        passed: Set<String> = [],
        cancelled: Set<String> = []
    ) throws -> BreakContext {
        let playlist = try Self.playlist(dateranges, live: live)
        let configuration = Schedule.Configuration(playedEventIDs: played, start: start)
        let events = InterstitialCoordinator().schedulable(
            Schedule(primary: playlist).events.map(\.event),
            cancelled: cancelled
        )
        let schedule = Schedule(primary: playlist, events: events, configuration: configuration)
        return BreakContext(schedule: schedule, passed: passed, cancelled: cancelled)
    }

    let coordinator = InterstitialCoordinator()

    // MARK: PRE / POST / ONCE

    @Test func prerollsPlayFirstAndResumeAtTheirOffsets() throws {
        let context = try Self.context([
            Self.daterange("pre", at: 30, "CUE=\"PRE\",X-RESUME-OFFSET=0"),
            Self.daterange("mid", at: 20, "X-RESUME-OFFSET=0"),
        ])
        let plan = try #require(self.coordinator.start(in: context, now: 0))
        let preroll = try #require(plan.breakPlan)
        #expect(preroll.run.queue == ["pre"])
        #expect(preroll.passed == ["pre"])
        #expect(preroll.run.start == 0 && preroll.position == 0)
        #expect(preroll.run.fixedResume == nil)
    }

    @Test func preAndPostRollsAreNotBreaksOnThePrimary() throws {
        let context = try Self.context([
            Self.daterange("pre", at: 5, "CUE=\"PRE\",X-RESUME-OFFSET=0"),
            Self.daterange("mid", at: 20, "X-RESUME-OFFSET=0"),
            Self.daterange("post", at: 40, "CUE=\"POST\",X-RESUME-OFFSET=0"),
        ])
        let next = try #require(self.coordinator.nextBreak(in: context, at: 0))
        #expect(next.start == 20 && next.ids == ["mid"])
        var after = context
        after.passed = ["mid"]
        #expect(self.coordinator.nextBreak(in: after, at: 21) == nil)
        let post = try #require(self.coordinator.postrollBreak(in: after, at: 60, now: 70))
        #expect(post.run.queue == ["post"] && post.run.fixedResume == 60 && post.run.startedAt == 70)
        #expect(self.coordinator.postrolls(in: context.schedule) == ["post"])
    }

    @Test func onceEventsDoNotPlayAgainAfterASeekBack() throws {
        let ranges = [
            Self.daterange("mid", at: 20, "X-RESUME-OFFSET=0"),
            Self.daterange("once", at: 30, "CUE=\"ONCE\",X-RESUME-OFFSET=0"),
        ]
        let context = try Self.context(ranges, played: ["mid", "once"], passed: ["mid", "once"])
        let seek = try self.coordinator.seek(to: 0, from: .primary(50), in: context, position: 50, now: 0).get()
        #expect(seek.passed.isEmpty)
        #expect(seek.breakPlan == nil && seek.granted == 0)
        var after = context
        after.passed = seek.passed
        let next = try #require(self.coordinator.nextBreak(in: after, at: 0))
        #expect(next.ids == ["mid"])
        after.passed = ["mid"]
        #expect(self.coordinator.nextBreak(in: after, at: 21) == nil)
    }

    // MARK: Breaks and pods

    @Test func aBreakIsDueAtItsMarkerAndPodsPlayInOrder() throws {
        let context = try Self.context([
            Self.daterange("a", at: 20, "X-RESUME-OFFSET=0"), Self.daterange("b", at: 20, "X-RESUME-OFFSET=0"),
        ])
        #expect(self.coordinator.breakDue(in: context, at: 19, now: 0) == nil)
        let plan = try #require(self.coordinator.breakDue(in: context, at: 20, now: 5))
        #expect(plan.run.queue == ["a", "b"] && plan.passed == ["a", "b"])
        #expect(plan.run.start == 20 && plan.position == 20 && plan.run.startedAt == 5)
    }

    // MARK: JUMP

    struct SeekRow: Sendable, CustomTestStringConvertible {
        var name: String
        var from: MediaTime
        var target: MediaTime
        var expectedBreak: [String]
        var expectedBreakStart: MediaTime?
        var testDescription: String { self.name }
    }

    static let jumpRanges = [
        daterange("j1", at: 10, "X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""),
        daterange("j2", at: 30, "X-RESUME-OFFSET=0,X-RESTRICT=\"JUMP\""),
    ]

    static let seekRows: [SeekRow] = [
        SeekRow(
            name: "across one JUMP break: it plays, then the target",
            from: 0,
            target: 20,
            expectedBreak: ["j1"],
            expectedBreakStart: 10
        ),
        SeekRow(
            name: "across two: the one nearest the target plays, then the target",
            from: 0,
            target: 50,
            expectedBreak: ["j2"],
            expectedBreakStart: 30
        ),
        SeekRow(
            name: "back across a JUMP break: nothing to play",
            from: 50,
            target: 5,
            expectedBreak: [],
            expectedBreakStart: nil
        ),
        SeekRow(name: "forward, no break crossed", from: 31, target: 45, expectedBreak: [], expectedBreakStart: nil),
    ]

    @Test(arguments: seekRows)
    func jump(_ row: SeekRow) throws {
        let context = try Self.context(Self.jumpRanges, passed: row.from > 30 ? ["j1", "j2"] : [])
        let decision = try self.coordinator.seek(
            to: row.target,
            from: .primary(row.from),
            in: context,
            position: row.from,
            now: 3
        ).get()
        #expect(decision.granted == row.target)
        #expect(decision.breakPlan?.run.queue ?? [] == row.expectedBreak)
        #expect(decision.breakPlan?.run.start == row.expectedBreakStart)
        if let plan = decision.breakPlan {
            #expect(plan.run.fixedResume == row.target)
            #expect(plan.position == row.expectedBreakStart)
            #expect(decision.passed.isSuperset(of: row.expectedBreak))
        }
    }

    // MARK: Plans A, B, C

    @Test func planAAppEventsReplaceTheServersAndLaterOnesJoin() throws {
        let server = try Self.context([Self.daterange("s1", at: 20, ""), Self.daterange("s2", at: 30, "")]).schedule
            .events.map(\.event)
        var app = InterstitialEvent(identifier: "app", time: 15)
        app.assetURIs = ["/ads/app.m3u8"]
        var late = InterstitialEvent(identifier: "s3", time: 40)
        late.assetURIs = ["/ads/s3.m3u8"]
        let events = self.coordinator.effectiveEvents(
            playlist: server + [late],
            controller: [app],
            suppressed: ["s1", "s2"],
            automatic: true
        )
        #expect(events.map(\.identifier) == ["app", "s3"])
    }

    @Test func planBNoAutomaticHandlingKeepsOnlyTheAppsEvents() throws {
        let server = try Self.context([Self.daterange("s1", at: 20, "")]).schedule.events.map(\.event)
        var app = InterstitialEvent(identifier: "app", time: 15)
        app.assetURIs = ["/ads/app.m3u8"]
        #expect(
            self.coordinator.effectiveEvents(playlist: server, controller: nil, suppressed: [], automatic: false)
                .isEmpty
        )
        #expect(
            self.coordinator.effectiveEvents(playlist: server, controller: [app], suppressed: [], automatic: false).map(
                \.identifier
            ) == ["app"]
        )
        #expect(
            self.coordinator.effectiveEvents(playlist: server, controller: nil, suppressed: [], automatic: true).map(
                \.identifier
            ) == ["s1"]
        )
    }

    @Test func planCRestrictionsLiftedLetSeeksAndSkipsThrough() throws {
        let restricted = try Self.context(Self.jumpRanges)
        let lifted = restricted.schedule.events.map(\.event).map { event -> InterstitialEvent in
            var copy = event
            copy.restrictions = []
            return copy
        }
        let events = self.coordinator.effectiveEvents(
            playlist: [],
            controller: lifted,
            suppressed: ["j1", "j2"],
            automatic: true
        )
        let playlist = try Self.playlist(Self.jumpRanges)
        let context = BreakContext(schedule: Schedule(primary: playlist, events: events))
        let decision = try self.coordinator.seek(to: 50, from: .primary(0), in: context, position: 0, now: 0).get()
        #expect(decision.breakPlan == nil && decision.granted == 50)
        var event = InterstitialEvent(identifier: "r", time: 0)
        event.restrictions = [.skip]
        let request = InterstitialCoordinator.SkipRequest(event: event, report: nil, overridesPolicy: true)
        #expect(self.coordinator.skip(request) == [.emit(.currentEventSkipped(event)), .finishCurrentEvent])
    }

    // MARK: Live joins into pods

    @Test func liveJoinIntoAPodsSecondEvent() throws {
        let context = try Self.context(
            [Self.daterange("a", at: 20, "DURATION=10"), Self.daterange("b", at: 20, "DURATION=10")],
            live: true,
            start: .time(35)
        )
        let plan = try #require(self.coordinator.start(in: context, now: 0))
        let join = try #require(plan.breakPlan)
        #expect(join.run.queue == ["b"])
        // The event joined past is before the start: the schedule never plays it, so it needs no mark.
        #expect(join.passed == ["b"])
        #expect(context.schedule.event("a")?.status == .beforeStart)
        #expect(join.run.start == 20 && plan.position == 20)
        #expect(join.run.skippedSpan == 10)
        #expect(join.run.joinOffset == 5)
    }

    @Test func resumePointInsideAPodEntersItPartway() throws {
        let context = try Self.context([
            Self.daterange("a", at: 20, "DURATION=10"), Self.daterange("b", at: 20, "DURATION=10"),
        ])
        let plan = try #require(self.coordinator.entry(in: context, resumingAt: 24, now: 9))
        #expect(plan.run.queue == ["a", "b"] && plan.passed == ["a", "b"])
        #expect(plan.run.joinOffset == 4 && plan.position == 20 && plan.run.startedAt == 9)
        #expect(self.coordinator.entry(in: context, resumingAt: 12, now: 9) == nil)
    }

    /// A pod's second event covers the primary after the first one's share: a resume point at 26
    /// (pod at 20, shares 20…24 and 24…34) enters b 2 s in, with a's 4 s counted as passed over.
    @Test func resumePointInThePodsSecondShareEntersTheSecondEvent() throws {
        let context = try Self.context([
            Self.daterange("a", at: 20, "DURATION=4"), Self.daterange("b", at: 20, "DURATION=10"),
        ])
        let plan = try #require(self.coordinator.entry(in: context, resumingAt: 26, now: 9))
        #expect(plan.run.queue == ["b"] && plan.passed == ["a", "b"])
        #expect(plan.run.joinOffset == 2 && plan.run.skippedSpan == 4 && plan.position == 20)
        #expect(self.coordinator.eventStartReport(in: plan.run) == (26, 2))
        let boundary = try #require(self.coordinator.entry(in: context, resumingAt: 24, now: 9))
        #expect(boundary.run.queue == ["b"] && boundary.run.joinOffset == 0 && boundary.run.skippedSpan == 4)
        #expect(self.coordinator.entry(in: context, resumingAt: 34, now: 9) == nil)
    }

    // MARK: Early return

    @Test func earlyReturnByReloadUpdatesTheEventPlaying() throws {
        var playing = InterstitialEvent(identifier: "live", time: 20)
        playing.assetURIs = ["/ads/live.m3u8"]
        var reloaded = playing
        reloaded.playoutLimit = 5
        #expect(self.coordinator.updatedCurrentEvent(playing, events: [reloaded], controller: nil) == reloaded)
        #expect(self.coordinator.updatedCurrentEvent(playing, events: [playing], controller: nil) == nil)
        #expect(self.coordinator.updatedCurrentEvent(playing, events: [reloaded], controller: [playing]) == nil)
        #expect(self.coordinator.updatedCurrentEvent(nil, events: [reloaded], controller: nil) == nil)

        var run = EventRun(event: reloaded, startedAt: 0)
        run.assetStarted = true
        run.assetPosition = 5
        let slots = [AssetSlot(url: "/ads/live.m3u8", duration: 10)]
        #expect(
            self.coordinator.assetStep(run, slots: slots, assetDuration: 10, assetReady: true)
                == .finishEvent(entire: false, endAsset: true)
        )
        run.assetPosition = 4
        #expect(self.coordinator.assetStep(run, slots: slots, assetDuration: 10, assetReady: true) == .play)
    }

    // MARK: Failures (Appendix D.5)

    @Test func aFailedListLetsAnEventInsideItsSpanPlay() throws {
        let ranges = [
            Self.daterange("outer", at: 10, "DURATION=20"), Self.daterange("inner", at: 20, "X-RESUME-OFFSET=0"),
        ]
        let intact = try Self.context(ranges, passed: ["outer"])
        #expect(self.coordinator.nextBreak(in: intact, at: 10) == nil)
        let failed = try Self.context(ranges, passed: ["outer"], cancelled: ["outer"])
        let next = try #require(self.coordinator.nextBreak(in: failed, at: 10))
        #expect(next.start == 20 && next.ids == ["inner"])
    }

    struct AssetRow: Sendable, CustomTestStringConvertible {
        var name: String
        var listURI: Bool
        var slots: [AssetSlot]
        var index: Int
        var position: MediaTime = .zero
        var started = false
        var playedBefore: MediaTime = .zero
        var duration: MediaTime?
        var ready = true
        var expected: AssetStep
        var testDescription: String { self.name }
    }

    static let assetRows: [AssetRow] = [
        AssetRow(
            name: "D.5: a failed first asset of a list is skipped, the event goes on",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5, failed: true), AssetSlot(url: "b", duration: 5)],
            index: 0,
            expected: .skipFailedAsset(cancelEvent: false)
        ),
        AssetRow(
            name: "then the next asset starts",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5, failed: true), AssetSlot(url: "b", duration: 5)],
            index: 1,
            duration: 5,
            expected: .startAsset
        ),
        AssetRow(
            name: "D.5: a failed X-ASSET-URI cancels its event (resume offset 0)",
            listURI: false,
            slots: [AssetSlot(url: "a", duration: nil, failed: true)],
            index: 0,
            expected: .skipFailedAsset(cancelEvent: true)
        ),
        AssetRow(
            name: "every asset failed: the event ends, not entire",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5, failed: true), AssetSlot(url: "b", duration: 5, failed: true)],
            index: 2,
            expected: .finishEvent(entire: false, endAsset: false)
        ),
        AssetRow(
            name: "the last asset ended: the event ends entire",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5), AssetSlot(url: "b", duration: 5)],
            index: 2,
            playedBefore: 10,
            expected: .finishEvent(entire: true, endAsset: false)
        ),
        AssetRow(
            name: "an asset at its end: the next one",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5), AssetSlot(url: "b", duration: 5)],
            index: 0,
            position: 5,
            started: true,
            duration: 5,
            expected: .nextAsset
        ),
        AssetRow(
            name: "an asset not ready: wait",
            listURI: true,
            slots: [AssetSlot(url: "a", duration: 5)],
            index: 0,
            ready: false,
            expected: .awaitAsset
        ),
    ]

    @Test(arguments: assetRows)
    func assetStep(_ row: AssetRow) {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        if row.listURI { event.assetListURI = "/list.json" } else { event.assetURIs = ["/a.m3u8"] }
        var run = EventRun(event: event, startedAt: 0)
        run.assetIndex = row.index
        run.assetPosition = row.position
        run.assetStarted = row.started
        run.playedBefore = row.playedBefore
        #expect(
            self.coordinator.assetStep(run, slots: row.slots, assetDuration: row.duration, assetReady: row.ready)
                == row.expected
        )
    }

    // MARK: Subtitles

    @Test func interstitialRenditionsFollowThePrimarysChoice() {
        let off = self.coordinator.followedRenditions(primaryAudio: "en", primarySubtitles: nil)
        #expect(off == FollowedRenditions(audio: "en", subtitles: nil))
        let french = self.coordinator.followedRenditions(primaryAudio: "en", primarySubtitles: "fr")
        #expect(french == FollowedRenditions(audio: "en", subtitles: "fr"))
    }

    // MARK: Loading ahead

    @Test func postRollsBufferAheadOnceThePrimaryIsBufferedToItsEnd() throws {
        let context = try Self.context([
            Self.daterange("post", at: 40, "CUE=\"POST\""), Self.daterange("mid", at: 20, "X-RESUME-OFFSET=0"),
        ])
        func buffer(
            _ position: MediaTime,
            _ end: MediaTime,
            passed: Set<String> = [],
            started: Bool = false
        ) -> [String]? {
            var context = context
            context.passed = passed
            return self.coordinator.breakToBuffer(
                in: context,
                playing: nil,
                position: position,
                bufferedEnd: end,
                primaryDuration: 60,
                postrollsStarted: started
            )
        }
        #expect(buffer(0, 15) == nil)
        #expect(buffer(0, 20) == ["mid"])
        #expect(buffer(25, 50, passed: ["mid"]) == nil)
        #expect(buffer(25, 60, passed: ["mid"]) == ["post"])
        #expect(buffer(60, 60, passed: ["mid", "post"], started: true) == nil)
        let playing = self.coordinator.breakToBuffer(
            in: context,
            playing: ["x", "y"],
            position: 0,
            bufferedEnd: nil,
            primaryDuration: nil,
            postrollsStarted: false
        )
        #expect(playing == ["x", "y"])
    }

    @Test func predictedResumeCountsOffsetsLoadedDurationsAndCancels() throws {
        let ranges = [
            Self.daterange("a", at: 20, "X-RESUME-OFFSET=7"), Self.daterange("b", at: 20, "X-RESUME-OFFSET=3"),
        ]
        let context = try Self.context(ranges)
        #expect(self.coordinator.predictedResume(in: context, start: 20, ids: ["a", "b"], loaded: [:]) == 30)
        let cancelled = try Self.context(ranges, cancelled: ["a"])
        #expect(self.coordinator.predictedResume(in: cancelled, start: 20, ids: ["a", "b"], loaded: [:]) == 23)
    }

    // MARK: Entering partway, cancels, D.5 actions

    @Test func aJoinLandsInTheAssetItsOffsetReaches() {
        let slots = [
            AssetSlot(url: "a", duration: 5), AssetSlot(url: "b", duration: 10), AssetSlot(url: "c", duration: nil),
        ]
        let expected: [(offset: MediaTime, index: Int, before: MediaTime, position: MediaTime)] = [
            (0, 0, 0, 0), (6, 1, 5, 1), (15, 2, 15, 0), (40, 2, 15, 25),
        ]
        for row in expected {
            let join = self.coordinator.joinPoint(offset: row.offset, slots: slots)
            #expect(join == JoinPoint(assetIndex: row.index, playedBefore: row.before, assetPosition: row.position))
        }
        #expect(
            self.coordinator.joinPoint(offset: 3, slots: [])
                == JoinPoint(assetIndex: 0, playedBefore: 0, assetPosition: 3)
        )
    }

    @Test func liveJoinsAskTheListWithTheirStartOffset() {
        var brk = BreakRun(queue: [], start: 20, startedAt: 0)
        brk.joinOffset = 6
        #expect(self.coordinator.assetListStartOffset(for: "a", playing: "a", in: brk, isLive: true) == 6)
        #expect(self.coordinator.assetListStartOffset(for: "a", playing: "a", in: brk, isLive: false) == nil)
        #expect(self.coordinator.assetListStartOffset(for: "b", playing: "a", in: brk, isLive: true) == nil)
        brk.joinOffset = 0
        #expect(self.coordinator.assetListStartOffset(for: "a", playing: "a", in: brk, isLive: true) == nil)
    }

    @Test func cancelResumesAtTheOffsetOrByTheTimeSpent() {
        var brk = BreakRun(queue: ["b", "c"], start: 20, startedAt: 100)
        let fixed = self.coordinator.cancel(brk, resumptionOffset: 3)
        #expect(fixed.queue.isEmpty)
        #expect(self.coordinator.resumePoint(of: fixed, now: 130, isLive: false, segmentEdges: []) == 23)
        brk.joinOffset = 2
        let elapsed = self.coordinator.cancel(brk, resumptionOffset: nil)
        #expect(self.coordinator.resumePoint(of: elapsed, now: 107, isLive: true, segmentEdges: []) == 29)
    }

    @Test func aFailedListCancelsItsEventAndUnschedulesItWhenNotPlaying() {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        event.assetListURI = "/list.json"
        let error = PlaybackError(code: .invalidAssetList, message: "bad")
        #expect(
            self.coordinator.assetListDidFail("ev", event: event, error: error, playing: false) == [
                .cancelEvent("ev"), .emit(.assetListFailed(eventID: "ev", event: event, error: error)),
                .emit(.eventWasUnscheduled(event, error)),
            ]
        )
        #expect(
            self.coordinator.assetListDidFail("ev", event: event, error: error, playing: true) == [
                .cancelEvent("ev"), .emit(.assetListFailed(eventID: "ev", event: event, error: error)),
            ]
        )
    }

    @Test func aFailedAssetURICancelsItsEventAListsAssetIsSkippedLater() {
        var single = InterstitialEvent(identifier: "uri", time: 10)
        single.assetURIs = ["/a.m3u8"]
        var listed = InterstitialEvent(identifier: "list", time: 10)
        listed.assetListURI = "/list.json"
        let error = PlaybackError(code: .invalidAssetList, message: "404")
        let failed = InterstitialCoordinator.Action.emit(
            .interstitialAssetFailed(eventID: "uri", index: 0, error: error)
        )
        #expect(
            self.coordinator.assetDidFail("uri", index: 0, event: single, error: error, playing: false) == [
                failed, .cancelEvent("uri"), .emit(.eventWasUnscheduled(single, error)),
            ]
        )
        #expect(self.coordinator.assetDidFail("uri", index: 0, event: single, error: error, playing: true) == [failed])
        #expect(
            self.coordinator.assetDidFail("list", index: 1, event: listed, error: error, playing: false) == [
                .emit(.interstitialAssetFailed(eventID: "list", index: 1, error: error))
            ]
        )
    }

    // MARK: A break's events and its end

    @Test func aPodsEventsFollowInOrderThenTheBreakEnds() {
        let brk = BreakRun(queue: ["b", "c"], start: 20, startedAt: 0)
        let record = InterstitialCoordinatorTests.finished(
            InterstitialCoordinatorTests.event("a"),
            playout: 5,
            elapsed: 5
        )
        let first = self.coordinator.eventDidFinish(record, in: brk)
        #expect(first.next == "b" && first.run.queue == ["c"] && first.run.finished.count == 1)
        let second = self.coordinator.eventDidFinish(record, in: first.run)
        let third = self.coordinator.eventDidFinish(record, in: second.run)
        #expect(second.next == "c" && third.next == nil && third.run.finished.count == 3)
    }

    @Test func anEventsStartReportsTheJoinPointAndTheOffsetIntoIt() {
        #expect(self.coordinator.eventStartReport(in: nil) == (nil, nil))
        var brk = BreakRun(queue: [], start: 20, startedAt: 0)
        #expect(self.coordinator.eventStartReport(in: brk) == (20, nil))
        brk.joinOffset = 6
        #expect(self.coordinator.eventStartReport(in: brk) == (26, 6))
        brk.skippedSpan = 10
        #expect(self.coordinator.eventStartReport(in: brk) == (36, 6))
        brk.skippedSpan = .zero
        brk.finished = [
            InterstitialCoordinatorTests.finished(InterstitialCoordinatorTests.event("a"), playout: 5, elapsed: 5)
        ]
        #expect(self.coordinator.eventStartReport(in: brk) == (20, nil))
    }

    @Test func afterABreakThePrimaryEndsResumesOrEntersTheNextSpan() throws {
        let preroll = InterstitialCoordinatorTests.event("pre", resume: 25)
        var brk = BreakRun(queue: [], start: 0, startedAt: 0)
        brk.finished = [
            InterstitialCoordinatorTests.finished(preroll, scheduled: 25, source: .given, playout: 5, elapsed: 5)
        ]
        let spanned = try Self.context([Self.daterange("b", at: 20, "DURATION=10")])
        func after(_ context: BreakContext?, position: MediaTime = 0, postrolls: Bool = false) -> BreakEnd {
            self.coordinator.afterBreak(
                brk,
                in: context,
                now: 5,
                position: position,
                primaryDuration: 60,
                postrollsStarted: postrolls,
                segmentEdges: []
            )
        }
        guard case .enter(let plan) = after(spanned) else {
            Issue.record("a resume point at 25 inside b (20-30) enters b")
            return
        }
        #expect(plan.run.queue == ["b"] && plan.run.joinOffset == 5 && plan.position == 20)
        let plain = try Self.context([Self.daterange("b", at: 40, "DURATION=10")])
        guard case .resume(let time) = after(plain) else {
            Issue.record("nothing spans 25: the primary resumes")
            return
        }
        #expect(time == 25)
        guard case .primaryEnded = after(plain, position: 60, postrolls: true) else {
            Issue.record("post-rolls at the end: playback ends")
            return
        }
    }

    @Test func changedEventsDropWhatWasPreparedForThem() {
        func event(_ id: String, list: String) -> InterstitialEvent {
            var event = InterstitialEvent(identifier: id, time: 10)
            event.assetListURI = list
            return event
        }
        let previous = [event("a", list: "/x"), event("b", list: "/b"), event("c", list: "/y")]
        let events = [event("b", list: "/b"), event("c", list: "/z")]
        let stale = self.coordinator.staleEvents(
            previous: previous,
            events: events,
            playing: nil,
            prepared: ["a", "c"],
            passed: []
        )
        #expect(stale == StaleEvents(unscheduled: [previous[0]], replaced: [previous[2]]))
        let playing = self.coordinator.staleEvents(
            previous: previous,
            events: events,
            playing: "c",
            prepared: ["a", "c"],
            passed: ["a"]
        )
        #expect(playing == StaleEvents())
        let unprepared = self.coordinator.staleEvents(
            previous: previous,
            events: events,
            playing: nil,
            prepared: [],
            passed: []
        )
        #expect(unprepared == StaleEvents())
    }

    @Test func assetsBufferUpToThePlayoutLimitSkippingFailedOnes() {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        event.playoutLimit = 7
        let slots = [
            AssetSlot(url: "a", duration: 5), AssetSlot(url: "b", duration: 5), AssetSlot(url: "c", duration: 5),
        ]
        #expect(self.coordinator.assetsToBuffer(slots, of: event, from: 0) == [0, 1])
        #expect(self.coordinator.assetsToBuffer(slots, of: event, from: 1) == [1])
        #expect(self.coordinator.assetsToBuffer(slots, of: nil, from: 1) == [1, 2])
        var failed = slots
        failed[1].failed = true
        #expect(self.coordinator.assetsToBuffer(failed, of: nil, from: 0) == [0, 2])
    }

    // MARK: Start request and primary buffering

    @Test func theStartRequestIsTheItemsTimeOrTheDefault() {
        #expect(self.coordinator.startRequest(isLive: false, startTime: nil) == .time(0))
        #expect(self.coordinator.startRequest(isLive: false, startTime: 12) == .time(12))
        #expect(self.coordinator.startRequest(isLive: true, startTime: nil) == nil)
        #expect(self.coordinator.startRequest(isLive: true, startTime: 7) == .time(7))
    }

    @Test func anEarlyReturnMovesTheExpectedResumePoint() throws {
        let context = try Self.context([
            Self.daterange("a", at: 20, "X-RESUME-OFFSET=7"), Self.daterange("b", at: 20, "X-RESUME-OFFSET=3"),
        ])
        var brk = BreakRun(queue: ["b"], start: 20, startedAt: 0)
        #expect(self.coordinator.expectedResume(of: brk, playing: "a", in: context, loaded: [:]) == 30)
        brk.queue = []
        #expect(self.coordinator.expectedResume(of: brk, playing: "a", in: context, loaded: [:]) == 27)
        brk.fixedResume = 50
        #expect(self.coordinator.expectedResume(of: brk, playing: "a", in: context, loaded: [:]) == 50)
    }

    @Test func thePrimaryBuffersToTheMarkerThenFromTheResumePoint() {
        let buffering = PrimaryBuffering(forward: 30, resume: 2)
        func limit(
            _ next: (start: MediaTime, ids: [String])?,
            buffered: Bool = false,
            resume: MediaTime? = nil,
            playing: MediaTime? = nil
        ) -> MediaTime {
            self.coordinator.primaryBufferLimit(
                position: 10,
                buffering: buffering,
                next: next,
                nextBuffered: buffered,
                nextResume: resume,
                playingBreakStart: playing
            )
        }
        #expect(limit(nil) == 40)
        #expect(limit(nil, playing: 25) == 55)
        #expect(limit((20, ["a"])) == 20)
        #expect(limit((60, ["a"])) == 40)
        #expect(limit((20, ["a"]), buffered: true, resume: 35) == 55)
        #expect(limit((38, ["a"]), buffered: true, resume: 50) == 54)
    }

    // MARK: Playing an event

    @Test func theListDecidesWhetherTheEventWaitsPlaysOrEnds() {
        guard case .prepare = self.coordinator.listStep(nil), case .wait = self.coordinator.listStep(.loading),
            case .finish = self.coordinator.listStep(.failed(PlaybackError(code: .invalidAssetList, message: "x")))
        else {
            Issue.record("no list: prepare; loading: wait; failed (D.5): finish")
            return
        }
        guard case .play(let slots) = self.coordinator.listStep(.loaded([AssetSlot(url: "a", duration: 5)], nil)) else {
            Issue.record("a loaded list plays")
            return
        }
        #expect(slots.map(\.url) == ["a"])
    }

    @Test func anAssetPlaysToItsBufferItsEndOrThePlayoutLimit() {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        event.playoutLimit = 12
        var run = EventRun(event: event, startedAt: 0)
        run.playedBefore = 10
        #expect(self.coordinator.assetLimit(run, bufferedEnd: 8, duration: 10) == 2)
        run.event.playoutLimit = nil
        #expect(self.coordinator.assetLimit(run, bufferedEnd: 8, duration: 10) == 8)
        #expect(self.coordinator.assetLimit(run, bufferedEnd: 12, duration: 10) == 10)
        #expect(self.coordinator.assetLimit(run, bufferedEnd: 12, duration: nil) == 12)
    }

    @Test func theNextSkipChangeIsTheWindowsNextEdge() {
        let report = SkipStateReport(state: .notYetEligible, eligibleFrom: 5, eligibleUntil: 15, reason: "")
        #expect(self.coordinator.nextSkipChange(report, after: 0) == 5)
        #expect(self.coordinator.nextSkipChange(report, after: 5) == 15)
        #expect(self.coordinator.nextSkipChange(report, after: 15) == nil)
        #expect(self.coordinator.nextSkipChange(SkipStateReport(state: .notSkippable, reason: ""), after: 0) == nil)
    }

    @Test func settingTheAppsEventsSuppressesThePlaylistsKnownNow() {
        var app = InterstitialEvent(identifier: "app", time: 15)
        app.assetURIs = ["/ads/app.m3u8"]
        let set = self.coordinator.controllerEvents([app], playlistIDs: ["s1", "s2"])
        #expect(set.events == [app] && set.suppressed == ["s1", "s2"])
        let cleared = self.coordinator.controllerEvents([], playlistIDs: ["s1"])
        #expect(cleared.events == nil && cleared.suppressed.isEmpty)
    }

    // MARK: Asset lists and records

    @Test func aLoadedListGivesSlotsAndItsSkipControlOverTheTags() throws {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        event.assetListURI = "/list.json"
        event.skipControl = SkipControl(offset: 2, duration: 3, labelID: "TAG")
        let json =
            #"{"ASSETS":[{"URI":"https://ads.example/a.m3u8","DURATION":6},{"URI":"https://ads.example/b.m3u8","DURATION":4}],"#
            + #""SKIP-CONTROL":{"OFFSET":1,"DURATION":9,"LABEL-ID":"LIST"}}"#
        let list = try AssetList.decode(json)
        guard case .loaded(let slots, let skip) = self.coordinator.assetListDidLoad(list, for: event, primaryID: "P1")
        else {
            Issue.record("a loaded list")
            return
        }
        #expect(slots.map(\.duration) == [6, 4])
        #expect(slots.allSatisfy { $0.url.contains("_HLS_primary_id=P1") })
        #expect(skip?.labelID == "LIST" && skip?.offset == 1 && skip?.duration == 9)
    }

    @Test func loadedDurationWaitsForEveryAssetAndHonoursTheLimit() {
        #expect(self.coordinator.loadedDuration([6, 4], playoutLimit: nil) == 10)
        #expect(self.coordinator.loadedDuration([6, 4], playoutLimit: 7) == 7)
        #expect(self.coordinator.loadedDuration([6, nil], playoutLimit: nil) == nil)
        #expect(self.coordinator.loadedDuration([], playoutLimit: nil) == 0)
    }

    @Test func aRecordCopiesTheEventAndWhetherAnyOfItPlayed() {
        var run = EventRun(event: InterstitialCoordinatorTests.event("ad", resume: 0), startedAt: 100)
        run.scheduledOffset = 0
        run.duration = 20
        run.playedBefore = 6
        run.joinedAt = 6
        let joinedOnly = self.coordinator.record(of: run, now: 103, cancelled: false)
        #expect(joinedOnly.playout == 6 && joinedOnly.elapsed == 3 && !joinedOnly.playedSomething)
        run.assetPosition = 2
        let played = self.coordinator.record(of: run, now: 110, cancelled: true)
        #expect(played.playout == 8 && played.playedSomething && played.cancelled && played.duration == 20)
    }

    // MARK: Assets without a list, stalls

    @Test func anAssetURIEventHasOneResolvedSlotAndTheTagsSkipControl() {
        var event = InterstitialEvent(identifier: "ev", time: 10)
        event.assetURIs = ["../ads/red.m3u8"]
        event.skipControl = SkipControl(offset: 3, labelID: "TAG")
        guard
            case .loaded(let slots, let skip)? = self.coordinator.assetURIList(
                of: event,
                base: "https://cdn.example/vod/main/prog.m3u8",
                primaryID: "P9"
            )
        else {
            Issue.record("an X-ASSET-URI event's assets are known at once")
            return
        }
        #expect(slots.count == 1 && slots[0].duration == nil)
        #expect(
            slots[0].url.hasPrefix("https://cdn.example/vod/ads/red.m3u8")
                && slots[0].url.contains("_HLS_primary_id=P9")
        )
        #expect(skip?.labelID == "TAG")
        event.assetListURI = "/list.json"
        #expect(self.coordinator.assetURIList(of: event, base: "https://cdn.example/", primaryID: "P9") == nil)
    }

    @Test func anEventStallsWhenItsBufferRunsOutAndResumesWithEnoughBuffered() {
        var run = EventRun(event: InterstitialEvent(identifier: "ev", time: 10), startedAt: 0)
        run.assetPosition = 4
        run.stalled = false
        #expect(!self.coordinator.isStalled(run, bufferedEnd: 6, assetDuration: 10, resumeBuffer: 2))
        #expect(self.coordinator.isStalled(run, bufferedEnd: 4, assetDuration: 10, resumeBuffer: 2))
        run.stalled = true
        #expect(self.coordinator.isStalled(run, bufferedEnd: 5, assetDuration: 10, resumeBuffer: 2))
        #expect(!self.coordinator.isStalled(run, bufferedEnd: 6, assetDuration: 10, resumeBuffer: 2))
        // Less than the resume buffer is left in the asset: what is left is enough.
        #expect(!self.coordinator.isStalled(run, bufferedEnd: 5, assetDuration: 5, resumeBuffer: 2))
    }
}
