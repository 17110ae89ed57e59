import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The coordinator's timers and beacon queue: the instant it arms for each purpose, and what it
/// sends, retries and gives up, with no player, clock or network.
extension CoordinatorSequencingTests {
    /// `id` at 20 s (with `attributes`) begun at clock time `now`, its first asset not stalled.
    static func playing(
        _ id: String,
        _ attributes: String,
        now: MediaTime = 100
    ) throws -> (
        machine: InterstitialCoordinator, context: BreakContext
    ) {
        let context = try CoordinatorBreakTests.context([CoordinatorBreakTests.daterange(id, at: 20, attributes)])
        var machine = InterstitialCoordinator()
        let plan = try #require(machine.breakDue(in: context, at: 20, now: now))
        #expect(machine.beginBreak(plan.run) == [.primaryPlays, .beginEvent(id)])
        let events = context.schedule.events.map(\.event)
        _ = machine.eventBegins(id, events: events, schedule: context.schedule, rate: 1, now: now)
        machine.setCurrentStalled(false)
        return (machine, context)
    }

    /// What the player reads while `machine`'s event plays (or the primary, at `position`).
    static func readings(
        _ machine: InterstitialCoordinator,
        _ context: BreakContext?,
        rate: Double = 1,
        position: MediaTime = 20,
        list: AssetListState? = nil,
        preloads: PreloadBook = PreloadBook(),
        beacons: BeaconTracker? = nil
    ) -> TimerReadings {
        let playhead: Playhead =
            machine.current.map { .interstitial($0.eventID, at: $0.eventTime, primaryTime: 20) } ?? .primary(position)
        return TimerReadings(
            rate: rate,
            finished: false,
            primaryStalled: false,
            primaryPosition: position,
            list: list,
            schedule: context?.schedule,
            playhead: playhead,
            preloads: preloads,
            beacons: beacons
        )
    }

    /// `machine.armTimers(_:now:asset:)` with what the player reads (`readings(_:_:rate:position:list:preloads:beacons:)`).
    static func arm(
        _ machine: inout InterstitialCoordinator,
        _ context: BreakContext?,
        rate: Double = 1,
        position: MediaTime = 20,
        list: AssetListState? = nil,
        preloads: PreloadBook = PreloadBook(),
        beacons: BeaconTracker? = nil,
        now: MediaTime,
        asset: AssetReading?
    ) -> InterstitialCoordinator.Action? {
        let readings = Self.readings(
            machine,
            context,
            rate: rate,
            position: position,
            list: list,
            preloads: preloads,
            beacons: beacons
        )
        return machine.armTimers(readings, now: now) { asset }
    }

    /// `machine.armTimers(_:now:asset:)` with `asset` read.
    static func arm(
        _ machine: inout InterstitialCoordinator,
        _ readings: TimerReadings,
        now: MediaTime,
        _ asset: AssetReading?
    ) -> InterstitialCoordinator.Action? {
        machine.armTimers(readings, now: now) { asset }
    }

    /// A 10 s asset, buffered to `buffered` (from the asset's start).
    static func asset(buffered: MediaTime = 10, ready: Bool = true) -> AssetReading {
        AssetReading(isReady: ready, bufferedEnd: buffered, duration: 10)
    }

    @Test func theTimerIsArmedForThePlayoutLimitAtTheRate() throws {
        let played = try Self.playing("a", "X-PLAYOUT-LIMIT=6")
        var machine = played.machine
        let context = played.context
        machine.advanceCurrent(by: 2, limit: 10)
        // Buffered to its end (10 s): the playout limit (6 s) comes first, 4 s of media away.
        let once = Self.arm(&machine, context, now: 200, asset: Self.asset())
        #expect(once == .armTimer(.assetBoundary, at: 204))
        #expect(machine.timers.assetBoundary == 204)
        let twice = Self.arm(&machine, context, rate: 2, now: 200, asset: Self.asset())
        #expect(twice == .armTimer(.assetBoundary, at: 202))
        // The buffer ends sooner (3 s): its end is the boundary.
        let short = Self.arm(&machine, context, now: 200, asset: Self.asset(buffered: 3))
        #expect(short == .armTimer(.assetBoundary, at: 201))
        // At the limit already: due now.
        machine.advanceCurrent(by: 10, limit: 6)
        let armed1 = Self.arm(&machine, context, now: 200, asset: Self.asset())
        #expect(armed1 == .armTimer(.assetBoundary, at: 200))
    }

    @Test func noAssetTimerWhilePausedStalledOrNotReady() throws {
        let played = try Self.playing("a", "X-PLAYOUT-LIMIT=6")
        var machine = played.machine
        let context = played.context
        let armed2 = Self.arm(&machine, context, rate: 0, now: 200, asset: Self.asset())
        #expect(armed2 == nil)
        let armed3 = Self.arm(&machine, context, now: 200, asset: Self.asset(ready: false))
        #expect(armed3 == nil)
        let armed4 = Self.arm(&machine, context, now: 200, asset: nil)
        #expect(armed4 == nil)
        machine.setCurrentStalled(true)
        let armed5 = Self.arm(&machine, context, now: 200, asset: Self.asset())
        #expect(armed5 == nil)
        #expect(machine.timers == TimerBook())
    }

    @Test func theTimerIsArmedWhenTheSkipWindowOpens() throws {
        let played = try Self.playing("ad", "DURATION=20,X-SKIP-CONTROL-OFFSET=8")
        var machine = played.machine
        let context = played.context
        machine.advanceCurrent(by: 3, limit: 10)
        // The window opens at 8 s into the event: 5 s of media away.
        let armed = Self.arm(&machine, context, now: 200, asset: nil)
        #expect(armed == .armTimer(.skipControl, at: 205))
        let fast = Self.arm(&machine, context, rate: 2, now: 200, asset: nil)
        #expect(fast == .armTimer(.skipControl, at: MediaTime(seconds: 202.5)))
        // The asset list's SKIP-CONTROL (open from 1 s, for 4 s) replaces the tag's: it closes at 5 s.
        let list = AssetListState.loaded(
            [AssetSlot(url: "/ads/ad.m3u8", duration: 20)],
            SkipControl(offset: 1, duration: 4, labelID: nil)
        )
        let fromList = Self.arm(&machine, context, list: list, now: 200, asset: nil)
        #expect(fromList == .armTimer(.skipControl, at: 202))
        // The asset's end (7 s of media away) is later: the skip window's instant is armed.
        let both = Self.arm(&machine, context, now: 200, asset: Self.asset())
        #expect(both == .armTimer(.skipControl, at: 205))
        #expect(machine.timers.assetBoundary == 207)
    }

    @Test func theTimerIsArmedJustPastAPreloadMomentWhileThePrimaryPlays() throws {
        var book = PreloadBook()
        let range = CoordinatorPreloadTests.preload(30, 40).range
        book.entries["p"] = PreloadEntry(range: range, moment: 30, state: .scheduled)
        var machine = InterstitialCoordinator()
        let armed = Self.arm(&machine, nil, position: 25, preloads: book, now: 200, asset: nil)
        #expect(armed == .armTimer(.preload, at: 205 + MediaTime(milliseconds: 1)))
        let fast = Self.arm(&machine, nil, rate: 2, position: 25, preloads: book, now: 200, asset: nil)
        #expect(fast == .armTimer(.preload, at: MediaTime(seconds: 202.5) + MediaTime(milliseconds: 1)))
        // Passed: due now.
        let passed = Self.arm(&machine, nil, position: 31, preloads: book, now: 200, asset: nil)
        #expect(passed == .armTimer(.preload, at: 200))
        // Paused, or the request already under way: no timer.
        let armed6 = Self.arm(&machine, nil, rate: 0, position: 25, preloads: book, now: 200, asset: nil)
        #expect(armed6 == nil)
        book.entries["p"]?.state = .fetching
        let armed7 = Self.arm(&machine, nil, position: 25, preloads: book, now: 200, asset: nil)
        #expect(armed7 == nil)
    }

    @Test func theTimerIsArmedForTheNextBeaconOfTheAssetPlaying() throws {
        let played = try Self.playing("a", "")
        var machine = played.machine
        let context = played.context
        var tracker = BeaconTracker()
        let signaling = try BeaconTrackerTests.signaling(
            BeaconTrackerTests.envelope([BeaconTrackerTests.slot(start: "0")])
        )
        tracker.listLoaded(eventID: "a", assets: [(signaling, .zero)])
        _ = tracker.advance(eventID: "a", asset: 0, position: .zero, duration: 10)
        // Not begun: no beacon timer.
        let armed8 = Self.arm(&machine, context, beacons: tracker, now: 200, asset: nil)
        #expect(armed8 == nil)
        _ = machine.startCurrentAsset(url: "/ads/a.m3u8")
        // The first quartile of the 10 s slot, 2.5 s away.
        let armed = Self.arm(&machine, context, beacons: tracker, now: 200, asset: nil)
        #expect(armed == .armTimer(.beaconMoment, at: MediaTime(seconds: 202.5)))
        // Without client beacons, nothing.
        let armed9 = Self.arm(&machine, context, now: 200, asset: nil)
        #expect(armed9 == nil)
    }

    @Test func theEarliestInstantIsArmedWithEveryPurposeDueThenAndFiringClearsThem() {
        var book = TimerBook()
        book.assetBoundary = 5
        book.skipControl = 5
        book.preload = 7
        #expect(book.earliest?.purposes == [.assetBoundary, .skipControl])
        #expect(book.earliest?.instant == 5)
        #expect(book.fire(at: 6) == [.assetBoundary, .skipControl])
        #expect(book.earliest?.purposes == .preload && book.earliest?.instant == 7)
        #expect(book.fire(at: 6) == [])
        #expect(book.fire(at: 7) == .preload)
        #expect(book.earliest == nil)
    }

    // MARK: Beacons

    static func fire(_ type: String = "impression", url: String = "/imp") -> BeaconFire {
        BeaconFire(
            key: BeaconTracker.Key(eventID: "e", asset: 0, path: [0], index: 0),
            type: type,
            creative: "c",
            url: url,
            moment: .zero
        )
    }

    static func answer(_ status: Int) -> Result<LoadResponse, PlaybackError> {
        .success(LoadResponse(status: status, body: [], byteCount: 0, elapsed: .zero))
    }

    /// A coordinator with one beacon queued at 10 s and sent.
    static func sending(attempts: Int = 3) -> InterstitialCoordinator {
        var machine = InterstitialCoordinator()
        machine.beaconPolicy = BeaconQueue.Policy(
            limit: 4,
            attempts: attempts,
            retryDelay: MediaTime(milliseconds: 500)
        )
        let queued = machine.queueBeacons([Self.fire()], now: 10) { "http://t.test" + $0.url }
        #expect(queued.isEmpty)
        #expect(machine.nextBeacon(now: 10) == .sendBeacon(url: "http://t.test/imp"))
        #expect(machine.nextBeacon(now: 10) == nil, "one at a time")
        return machine
    }

    @Test func aFailedBeaconIsRetriedAfterADelayThatDoublesThenGivenUp() {
        var machine = Self.sending()
        // A server error: tried again 0.5 s later, and the timer is armed then.
        #expect(machine.beaconAnswered(Self.answer(503), now: 11).isEmpty)
        #expect(machine.beaconQueue.retryDue == MediaTime(seconds: 11.5))
        let readings = Self.readings(machine, nil, beacons: BeaconTracker())
        let armed10 = Self.arm(&machine, readings, now: 11, nil)
        #expect(armed10 == .armTimer(.beaconRetry, at: MediaTime(seconds: 11.5)))
        #expect(machine.nextBeacon(now: MediaTime(seconds: 11.4)) == nil)
        #expect(machine.nextBeacon(now: MediaTime(seconds: 11.5)) == .sendBeacon(url: "http://t.test/imp"))
        // A failed request: 1 s later (the delay doubled).
        let timeout = PlaybackError(code: .timeout, message: "timed out")
        #expect(machine.beaconAnswered(.failure(timeout), now: 12).isEmpty)
        #expect(machine.beaconQueue.retryDue == 13)
        #expect(machine.nextBeacon(now: 13) != nil)
        // The third failure gives it up.
        let given = machine.beaconAnswered(Self.answer(500), now: 14)
        let failed = PlayerEvent.beaconFailed(
            eventID: "e",
            type: "impression",
            creative: "c",
            url: "http://t.test/imp",
            reason: "HTTP 500 after 3 tries"
        )
        #expect(given == [.emit(failed)])
        #expect(machine.beaconQueue.isSettled)
        let armed11 = Self.arm(&machine, readings, now: 14, nil)
        #expect(armed11 == nil)
    }

    @Test func aBeaconAnsweredWithAClientErrorIsGivenUpAtOnceAndOneAnsweredIsFired() {
        var machine = Self.sending()
        let given = machine.beaconAnswered(Self.answer(404), now: 11)
        #expect(given.count == 1)
        if case .emit(.beaconFailed(_, _, _, _, let reason))? = given.first {
            #expect(reason == "HTTP 404 after 3 tries")
        } else {
            Issue.record("not given up: \(given)")
        }
        machine = Self.sending()
        _ = machine.beaconAnswered(Self.answer(429), now: 11)
        _ = machine.nextBeacon(now: 12)
        let fired = machine.beaconAnswered(Self.answer(204), now: 12)
        let expected = PlayerEvent.beaconFired(
            eventID: "e",
            type: "impression",
            creative: "c",
            url: "http://t.test/imp",
            status: 204,
            moment: .zero,
            attempts: 2
        )
        #expect(fired == [.emit(expected)])
        #expect(machine.beaconQueue.isSettled)
    }

    @Test func aFullQueueDropsTheBeaconAndSettlingSendsTheRestAtOnce() {
        var machine = InterstitialCoordinator()
        machine.beaconPolicy = BeaconQueue.Policy(limit: 1, attempts: 2, retryDelay: 60)
        let dropped = machine.queueBeacons([Self.fire(), Self.fire("start", url: "/start")], now: 0) { $0.url }
        let full = PlayerEvent.beaconFailed(
            eventID: "e",
            type: "start",
            creative: "c",
            url: "/start",
            reason: "the beacon queue is full (1)"
        )
        #expect(dropped == [.emit(full)])
        _ = machine.nextBeacon(now: 0)
        _ = machine.beaconAnswered(Self.answer(502), now: 1)
        #expect(machine.nextBeacon(now: 2) == nil, "retried only at 61 s")
        machine.settleBeacons()
        #expect(machine.nextBeacon(now: 2) == .sendBeacon(url: "/imp"))
    }

    // MARK: What the coordinator knows of the events

    @Test func theAssetListsChangeOnlyThroughTheirInputs() throws {
        var book = EventBook()
        #expect(!book.isLoading("l"))
        book.listRequested("l")
        #expect(book.isLoading("l"))
        let slots = [AssetSlot(url: "/a0.m3u8", duration: 10), AssetSlot(url: "/a1.m3u8", duration: 5)]
        book.listLoaded(.loaded(slots, nil), durations: [10, 5], for: "l")
        #expect(!book.isLoading("l"))
        // An asset fails: that slot is marked, the other is not; an asset the list lacks is refused.
        let marks = (book.assetFailed(1, of: "l"), book.assetFailed(2, of: "l"), book.assetFailed(0, of: "other"))
        #expect(marks == (true, false, false))
        guard case .loaded(let marked, _)? = book.lists["l"] else {
            Issue.record("the list is gone: \(String(describing: book.lists["l"]))")
            return
        }
        #expect(marked.map(\.failed) == [false, true])
        book.listFailed(PlaybackError(code: .timeout, message: "late"), for: "m")
        let failedList = book.assetFailed(0, of: "m")
        #expect(!failedList)
        book.listCleared("l")
        #expect(book.lists["l"] == nil && book.lists.count == 1)
    }

    @Test func theScheduleIsMarkedPlayedAndTakesTheListsDurations() throws {
        let context = try CoordinatorBreakTests.context([CoordinatorBreakTests.daterange("a", at: 20, "")])
        var book = EventBook()
        book.scheduleChanged(context.schedule)
        book.offsetMoved(to: 30)
        #expect(book.offset == 30)
        book.markPlayed("a")
        #expect(book.schedule?.configuration.playedEventIDs == ["a"])
        book.listLoaded(.loaded([], nil), durations: [4, 3], for: "a")
        #expect(book.schedule?.configuration.assetDurations["a"] == [4, 3])
        let taken = book.takeSchedule()
        #expect(taken != nil && book.schedule == nil)
    }
}
