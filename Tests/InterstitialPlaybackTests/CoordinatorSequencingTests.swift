import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The coordinator sequencing breaks on its own state: each input returns the actions and the
/// follow-up inputs, and the tests feed those back as the player would.
///
/// No player, no network.
///
/// The primary is six 10 s segments (0–60 s); an event's `START-DATE` second is its primary time.
@Suite struct CoordinatorSequencingTests {
    typealias Action = InterstitialCoordinator.Action

    static let primary = PrimaryAtBreakEnd(position: 20, duration: 60, postrollsStarted: false, tracks: [])

    /// A pod of two events at 20 s, `a` (resume offset 5) then `b` (resume offset 3).
    static func pod() throws -> BreakContext {
        try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("a", at: 20, "X-RESUME-OFFSET=5"),
            CoordinatorBreakTests.daterange("b", at: 20, "X-RESUME-OFFSET=3"),
        ])
    }

    /// The break due at 20 s in `context`, begun: the coordinator with its first event playing.
    static func begun(_ context: BreakContext, now: MediaTime = 100) throws -> InterstitialCoordinator {
        var machine = InterstitialCoordinator()
        let plan = try #require(machine.breakDue(in: context, at: 20, now: now))
        #expect(machine.beginBreak(plan.run) == [.primaryPlays, .beginEvent("a")])
        let events = context.schedule.events.map(\.event)
        let actions = machine.eventBegins("a", events: events, schedule: context.schedule, rate: 1, now: now)
        #expect(actions.first == .markPlayed("a"))
        #expect(Array(actions.suffix(4)) == [.updateStatus, .prepareAssets("a"), .enterUnderWay("a"), .applyJoin])
        return machine
    }

    @Test func aPodPlaysItsEventsInOrderThenResumesAtTheSumOfTheirOffsets() throws {
        let context = try Self.pod()
        var machine = try Self.begun(context)
        #expect(machine.current?.eventID == "a")
        #expect(machine.currentBreak?.queue == ["b"])

        // `a` ends: announced while it is still current, then closed, then `b` is next.
        let finish = machine.finishEvent(entire: true)
        #expect(finish.last == .closeEvent)
        #expect(machine.current?.eventID == "a")
        let closeA = machine.closeEvent(now: 105)
        #expect(machine.current == nil)
        #expect(closeA.suffix(2) == [.dropAssets("a"), .beginEvent("b")])

        let events = context.schedule.events.map(\.event)
        _ = machine.eventBegins("b", events: events, schedule: context.schedule, rate: 1, now: 105)
        #expect(machine.current?.eventID == "b")
        _ = machine.finishEvent(entire: true)
        #expect(machine.closeEvent(now: 108).last == .endBreak)

        // The break ends: the primary resumes at 20 + 5 + 3, announced after leaving the break.
        let end = machine.endBreak(in: context, primary: Self.primary, rate: 1, now: 108)
        #expect(end.first == .forgetReposition)
        #expect(end.last == .resumePrimary(28))
        #expect(machine.currentBreak == nil && machine.current == nil)
    }

    @Test func aBreakWithoutEventsDoesNotBegin() {
        var machine = InterstitialCoordinator()
        #expect(machine.beginBreak(BreakRun(queue: [], start: 0, startedAt: 0)).isEmpty)
        #expect(machine.currentBreak == nil)
    }

    @Test func anEventNobodyKnowsEndsTheBreak() throws {
        var machine = InterstitialCoordinator()
        _ = machine.beginBreak(BreakRun(queue: ["gone"], start: 20, startedAt: 0))
        let context = try Self.pod()
        let actions = machine.eventBegins("gone", events: [], schedule: context.schedule, rate: 1, now: 0)
        #expect(actions == [.endBreak])
        #expect(machine.current == nil)
    }

    @Test func cancellingTheEventDropsTheRestOfTheBreakAndResumesAtTheOffsetGiven() throws {
        let context = try Self.pod()
        var machine = try Self.begun(context)
        let actions = machine.cancelCurrent(resumptionOffset: 2)
        #expect(actions.last == .finishEvent(entire: false))
        #expect(machine.currentBreak?.queue == [])
        _ = machine.finishEvent(entire: false)
        #expect(machine.closeEvent(now: 101).last == .endBreak)
        // The player marked the pod handled when the break began (`.beginBreak`), so the resume
        // point inside the pod's span does not enter it again.
        var handled = context
        handled.passed = ["a", "b"]
        #expect(machine.endBreak(in: handled, primary: Self.primary, rate: 1, now: 101).last == .resumePrimary(22))
    }

    @Test func aSeekLeavesTheBreakWithoutResumingThePrimary() throws {
        let context = try Self.pod()
        var machine = try Self.begun(context)
        let leave = machine.seekLeavesBreak()
        #expect(leave.last == .abandonBreak)
        #expect(machine.currentBreak?.queue == [])
        #expect(machine.current?.eventID == "a")
        let event = try #require(context.schedule.event("a")).event
        let abandon = machine.abandonBreak(rate: 1)
        #expect(abandon.prefix(2) == [.dropAssets("a"), .clearSkipState(event)])
        #expect(!abandon.contains { if case .resumePrimary = $0 { true } else { false } })
        #expect(machine.current == nil && machine.currentBreak == nil)
    }

    @Test func thePostRollsEndThePrimary() throws {
        let context = try CoordinatorBreakTests.context([
            CoordinatorBreakTests.daterange("post", at: 40, "CUE=\"POST\",X-RESUME-OFFSET=0")
        ])
        var machine = InterstitialCoordinator()
        let plan = try #require(machine.postrollBreak(in: context, at: 60, now: 70))
        #expect(machine.beginBreak(plan.run) == [.primaryPlays, .beginEvent("post")])
        let events = context.schedule.events.map(\.event)
        _ = machine.eventBegins("post", events: events, schedule: context.schedule, rate: 1, now: 70)
        _ = machine.finishEvent(entire: true)
        #expect(machine.closeEvent(now: 80).last == .endBreak)
        let primary = PrimaryAtBreakEnd(position: 60, duration: 60, postrollsStarted: true, tracks: [])
        #expect(machine.endBreak(in: context, primary: primary, rate: 1, now: 80).last == .primaryEnded)
    }

    @Test func theEventPlayingMovesOnlyWhenNotStalledAndNotPastItsLimit() throws {
        var machine = try Self.begun(try Self.pod())
        // A new event begins stalled until its asset is buffered.
        machine.advanceCurrent(by: 2, limit: 10)
        #expect(machine.current?.assetPosition == 0)
        machine.setCurrentStalled(false)
        machine.advanceCurrent(by: 2, limit: 10)
        #expect(machine.current?.assetPosition == 2)
        machine.advanceCurrent(by: 20, limit: 10)
        #expect(machine.current?.assetPosition == 10)
        let started = machine.startCurrentAsset(url: "a0")
        #expect(started == [.emit(.interstitialAssetStarted(eventID: "a", index: 0, url: "a0"))])
        #expect(machine.current?.assetStarted == true)
        _ = machine.nextCurrentAsset()
        #expect(machine.current?.assetIndex == 1 && machine.current?.playedBefore == 10)
        #expect(machine.current?.assetPosition == 0 && machine.current?.assetStarted == false)
    }

    @Test func aLiveJoinEntersTheFirstEventAtTheJoinPoint() throws {
        var machine = InterstitialCoordinator()
        var run = BreakRun(queue: ["a"], start: 20, startedAt: 0)
        run.joinOffset = 12
        _ = machine.beginBreak(run)
        let context = try Self.pod()
        let events = context.schedule.events.map(\.event)
        _ = machine.eventBegins("a", events: events, schedule: context.schedule, rate: 1, now: 0)
        let join = machine.applyJoin(slots: [AssetSlot(url: "a0", duration: 10), AssetSlot(url: "a1", duration: 10)])
        #expect(join?.assetIndex == 1 && join?.position == 2)
        #expect(machine.current?.joinedAt == 12 && machine.current?.eventTime == 12)
        // Once the event moved, the join applies no more.
        #expect(machine.applyJoin(slots: [AssetSlot(url: "a0", duration: 10)]) == nil)
    }

    @Test func anInterstitialStartNamingTheFirstEventEntersItPartway() throws {
        var machine = InterstitialCoordinator()
        _ = machine.beginBreak(BreakRun(queue: ["a", "b"], start: 20, startedAt: 0))
        machine.enter(InterstitialStart(eventID: "b", offset: 4), beginning: "a")
        #expect(machine.currentBreak?.joinOffset == 0)
        machine.enter(InterstitialStart(eventID: "a", offset: 4), beginning: "a")
        #expect(machine.currentBreak?.joinOffset == 4)
    }

    @Test func anAssetListEventAsksForItsListWithTheJoinOffsetOnlyWhenGiven() throws {
        let playlist = try CoordinatorBreakTests.playlist([
            "#EXT-X-DATERANGE:ID=\"l\",CLASS=\"com.apple.hls.interstitial\","
                + "START-DATE=\"2026-01-01T00:00:20.000Z\",X-ASSET-LIST=\"lists/l.json\""
        ])
        let event = try #require(Schedule(primary: playlist).events.first).event
        let machine = InterstitialCoordinator()
        let base = "http://origin.test/live/main.m3u8"
        let load = machine.assetListLoad(of: event, startOffset: nil, base: base, primaryID: "P")
        #expect(load == [.loadAssetList(eventID: "l", url: "http://origin.test/live/lists/l.json?_HLS_primary_id=P")])
        let joined = machine.assetListLoad(of: event, startOffset: MediaTime(seconds: 12.5), base: base, primaryID: "P")
        let url = "http://origin.test/live/lists/l.json?_HLS_primary_id=P&_HLS_start_offset=12.5"
        #expect(joined == [.loadAssetList(eventID: "l", url: url)])
        // An `X-ASSET-URI` event has no list to load.
        let pod = try Self.pod()
        let uriEvent = try #require(pod.schedule.event("a")).event
        #expect(machine.assetListLoad(of: uriEvent, startOffset: nil, base: base, primaryID: "P").isEmpty)
    }

    @Test func aCancelledEventIsRecordedAsCancelledAndAsksForNothing() throws {
        let context = try Self.pod()
        var machine = try Self.begun(context)
        let first = machine.markCancelled("a")
        let again = machine.markCancelled("a")
        #expect(first && !again)
        #expect(machine.cancelled == ["a"])
        _ = machine.finishEvent(entire: false)
        let close = machine.closeEvent(now: 101)
        #expect(close.last == .beginEvent("b"))
        #expect(machine.currentBreak?.finished.map(\.cancelled) == [true])
        let event = try #require(context.schedule.event("a")).event
        #expect(machine.assetListLoad(of: event, startOffset: nil, base: "", primaryID: "P").isEmpty)
    }

    @Test func thePrimaryMovesOncePerBreakUntilTheBreakEnds() throws {
        let context = try Self.pod()
        var machine = InterstitialCoordinator()
        let next: (start: MediaTime, ids: [String]) = (20, ["a", "b"])
        let move = try #require(
            machine.primaryMove(playing: false, next: next, repositionedFor: machine.repositionedFor) { start, _ in
                start + 8
            }
        )
        #expect(move.mark == "a" && move.position == 28)
        machine.primaryMoved(for: move.mark)
        #expect(machine.repositionedFor == "a")
        let again = machine.primaryMove(playing: false, next: next, repositionedFor: machine.repositionedFor) {
            start,
            _ in
            start
        }
        let movedAgain = again != nil
        #expect(!movedAgain, "moved again for the same break")
        // The break plays and ends: its `.forgetReposition`, fed back, clears the mark.
        machine = try Self.begun(context)
        machine.primaryMoved(for: "a")
        _ = machine.finishEvent(entire: true)
        _ = machine.closeEvent(now: 105)
        let events = context.schedule.events.map(\.event)
        _ = machine.eventBegins("b", events: events, schedule: context.schedule, rate: 1, now: 105)
        _ = machine.finishEvent(entire: true)
        _ = machine.closeEvent(now: 108)
        let end = machine.endBreak(in: context, primary: Self.primary, rate: 1, now: 108)
        #expect(end.first == .forgetReposition)
        machine.forgetReposition()
        #expect(machine.repositionedFor == nil)
    }
}
