import HLSInterstitials
import HLSPlaylist

/// The interstitial engine: a state machine with no I/O, clock or actor, after `Presentation`
/// and AsyncHTTPClient's `HTTPRequestStateMachine`.
///
/// It owns the break and the event playing. It takes what happened (the schedule or the events
/// changed, a list loaded or failed, an asset ended or failed, the clock reached a boundary, a
/// seek, rate or skip request, a cancel) and returns what the player must do: effects, and the
/// follow-up inputs that sequence breaks, pods, assets, pre- and post-rolls, joins and failures.
/// The ``Player`` actor performs the actions in one loop and feeds the results back. Its tests
/// are tables, with no network.
struct InterstitialCoordinator: Sendable {
    /// How a live break without `X-RESUME-OFFSET` resumes.
    var liveResumption: LiveResumption = .eventDuration
    /// The rate in force before an `X-RESTRICT=SKIP` event lowered it to 1, until the break ends.
    private(set) var rateBeforeRestriction: Double?
    /// The effective skip label of the event playing (the asset list's `SKIP-CONTROL` over the tag's).
    private(set) var skipLabelID: String?
    /// The event playing.
    private(set) var current: EventRun?
    /// The break playing.
    private(set) var currentBreak: BreakRun?
    /// Events handled at their point in this pass (not triggered again when the primary resumes
    /// there).
    private(set) var passed: Set<String> = []
    /// The skip state of the event playing.
    private(set) var skipState: SkippableEventState = .notSkippable
    /// Events cancelled before they played (D.5: a failed asset list or asset URI): offset 0.
    private(set) var cancelled: Set<String> = []
    /// The first event of the break the primary's buffering last moved to the resume point of.
    private(set) var repositionedFor: String?
    /// The events, the schedule, its offset and the asset lists: changed only through its inputs.
    var known = EventBook()
    /// The instants of the interstitial deadlines, by purpose, as last armed.
    private(set) var timers = TimerBook()
    /// Whether the player fires client-side beacons (``Player/Configuration``'s beacon mode).
    var firesBeacons = false

    // The state below changes only through the inputs of the extensions that own it (Swift's
    // `private(set)` would confine their setters to this file): `+Beacons`, `+Preload`, `+Item`.

    /// Client-side beacons waiting to be sent, with their retries.
    var beaconQueue = BeaconQueue()
    /// Client-side beacons (SVTA2053-2): what fires when, planned from the asset lists.
    var beacons = BeaconTracker()
    /// The preload ranges (Appendix F) followed: moments, requests and answers.
    var preloads = PreloadBook()
    /// The asset-list URL of each event (or its schedule document's), which its assets' and
    /// beacons' relative URIs resolve against: recorded when the player reports the request.
    var listURLs: [String: String] = [:]
    /// The item's start, its post-rolls and the app's events.
    var item = ItemProgress()

    // MARK: Timers

    /// Arms the timer of the interstitial deadlines at clock time `now`
    /// (`timerInstants(_:current:beaconRetry:now:asset:)`): the earliest, or `nil` when none is due.
    mutating func armTimers(
        _ readings: TimerReadings,
        now: MediaTime,
        asset: () -> AssetReading?
    ) -> Action? {
        self.timers = self.timerInstants(
            readings,
            current: self.current,
            beaconRetry: self.beaconQueue.retryDue,
            now: now,
            asset: asset
        )
        guard let earliest = self.timers.earliest else { return nil }
        return .armTimer(earliest.purposes, at: earliest.instant)
    }

    /// The clock reached `now`: the timers due by then fired.
    ///
    /// The machine is level-triggered: the pass that follows finds what is due from the state
    /// (an asset's end, a skip window, a preload's moment, a beacon), whichever timer woke it.
    ///
    /// - Returns: The purposes that fired.
    @discardableResult
    mutating func timerFired(at now: MediaTime) -> TimerPurposes {
        self.timers.fire(at: now)
    }

    // MARK: Skipping

    /// The skip state moved from `old` to `report.state`: report it with the effective label.
    mutating func skipStateChanged(
        from old: SkippableEventState,
        to new: SkippableEventState,
        event: InterstitialEvent,
        control: SkipControl?
    ) -> [Action] {
        self.skipLabelID = new == .notSkippable ? nil : control?.labelID
        guard new != old else { return [] }
        return [.emit(.skippableStateDidChange(event, new, labelID: self.skipLabelID))]
    }

    // MARK: Rate

    /// An event begins while the player runs at `rate`: `X-RESTRICT=SKIP` holds from its first
    /// frame, so a rate above 1 is lowered to 1 (and comes back when the break ends).
    mutating func eventWillStart(_ event: InterstitialEvent, rate: Double) -> [Action] {
        guard event.restrictions.contains(.skip), rate > 1 else { return [] }
        if self.rateBeforeRestriction == nil { self.rateBeforeRestriction = rate }
        let reason = "\(event.identifier) has X-RESTRICT=SKIP: no rate above 1"
        return [.setRate(1), .emit(.rateChanged(rate: 1, reason: reason))]
    }

    /// The break ended with the player at `rate`: the rate in force before a restricted event
    /// lowered it comes back, unless the app changed the rate since (paused, or set another).
    mutating func breakDidEnd(rate: Double) -> [Action] {
        defer {
            self.rateBeforeRestriction = nil
            self.skipLabelID = nil
        }
        guard let before = self.rateBeforeRestriction, rate == 1 else { return [] }
        return [.setRate(before), .emit(.rateChanged(rate: before, reason: "the rate before the restricted break"))]
    }
}

extension InterstitialCoordinator {
    // MARK: Sequencing breaks and events

    /// A break the schedule placed begins: its events are handled at this point, then
    /// its run begins.
    mutating func beginBreak(_ plan: BreakPlan) -> [Action] {
        self.passed.formUnion(plan.passed)
        return self.beginBreak(plan.run)
    }

    /// A seek was granted: the events still handled are those before its target.
    mutating func seekGranted(_ decision: SeekDecision) {
        self.passed = decision.passed
    }

    /// The skip state of the event playing is now `state` (`control`: the skip control in force):
    /// a change is reported with the effective label.
    mutating func setSkipState(
        _ state: SkippableEventState,
        event: InterstitialEvent,
        control: SkipControl?
    )
        -> [Action]
    {
        let old = self.skipState
        self.skipState = state
        return self.skipStateChanged(from: old, to: state, event: event, control: control)
    }

    /// A break begins: its first event is next, the others queue behind it; nothing when it has
    /// no event.
    mutating func beginBreak(_ run: BreakRun) -> [Action] {
        var run = run
        guard !run.queue.isEmpty else { return [] }
        let first = run.queue.removeFirst()
        self.currentBreak = run
        return [.primaryPlays, .beginEvent(first)]
    }

    /// The event `eventID` of the break playing begins at clock time `now`, the player at `rate`;
    /// when neither the events nor the schedule know it, the break ends.
    mutating func eventBegins(
        _ eventID: String,
        events: [InterstitialEvent],
        schedule: Schedule?,
        rate: Double,
        now: MediaTime
    ) -> [Action] {
        guard
            let begun = self.beginEvent(
                eventID,
                events: events,
                schedule: schedule,
                in: self.currentBreak,
                rate: rate,
                now: now
            )
        else { return [.endBreak] }
        self.current = begun.run
        return [.markPlayed(eventID)] + begun.actions + [
            .updateStatus, .prepareAssets(eventID), .enterUnderWay(eventID), .applyJoin,
        ]
    }

    /// The current event ends (`entire`: played to its end): its end is announced while it is
    /// still the event playing, then it closes.
    func finishEvent(entire: Bool) -> [Action] {
        guard let run = self.current else { return [] }
        return [self.eventDidFinish(run, entire: entire), .closeEvent]
    }

    /// The primary's buffering moved (or need not move) to where `breakID`'s break resumes.
    mutating func primaryMoved(for breakID: String?) {
        self.repositionedFor = breakID
    }

    /// The break ended or a seek left it: the primary's next move is for the break after.
    mutating func forgetReposition() {
        self.repositionedFor = nil
    }

    /// An event cannot play (D.5): it is cancelled from now on (resume offset 0).
    ///
    /// - Returns: Whether it was not cancelled yet (the schedule must then be placed again).
    mutating func markCancelled(_ eventID: String) -> Bool {
        self.cancelled.insert(eventID).inserted
    }

    /// The current event closes at clock time `now`: it is recorded in its break (cancelled or
    /// not), and the break's next event begins, or the break ends.
    mutating func closeEvent(now: MediaTime) -> [Action] {
        guard let run = self.current else { return [] }
        let record = self.record(of: run, now: now, cancelled: self.cancelled.contains(run.eventID))
        var next: String?
        if let brk = self.currentBreak {
            let step = self.eventDidFinish(record, in: brk)
            self.currentBreak = step.run
            next = step.next
        }
        self.current = nil
        return [.clearSkipState(run.event), .dropAssets(run.eventID), next.map { .beginEvent($0) } ?? .endBreak]
    }

    /// The break playing ended at clock time `now`, the player at `rate`: the post-rolls' end
    /// ends the primary, a resume point inside another interstitial enters it, or the primary
    /// resumes where the schedule and the events' offsets say.
    mutating func endBreak(
        in context: BreakContext?,
        primary: PrimaryAtBreakEnd,
        rate: Double,
        now: MediaTime
    ) -> [Action] {
        guard let brk = self.currentBreak else { return [] }
        self.currentBreak = nil
        self.current = nil
        let outcome = self.afterBreak(
            brk,
            in: context,
            now: now,
            position: primary.position,
            primaryDuration: primary.duration,
            postrollsStarted: primary.postrollsStarted,
            segmentEdges: self.resumeEdges(of: brk, tracks: primary.tracks)
        )
        var actions: [Action] = [.forgetReposition] + self.leaveBreak(rate: rate)
        switch outcome {
        case .primaryEnded: actions.append(.primaryEnded)
        case .enter(let plan): actions.append(.beginBreak(plan))
        case .resume(let time): actions.append(.resumePrimary(time))
        }
        return actions
    }

    /// A seek leaves the break playing: the current event's end is announced (not played
    /// entire), and nothing else of the break plays; then ``abandonBreak(rate:)``.
    mutating func seekLeavesBreak() -> [Action] {
        guard let run = self.current else { return [] }
        self.currentBreak?.queue.removeAll()
        return [self.eventDidFinish(run, entire: false), .abandonBreak]
    }

    /// The break is left without resuming the primary (a seek decides where it goes), the
    /// player at `rate`.
    mutating func abandonBreak(rate: Double) -> [Action] {
        guard let run = self.current else { return [] }
        self.current = nil
        self.currentBreak = nil
        return [.dropAssets(run.eventID), .clearSkipState(run.event)] + self.leaveBreak(rate: rate)
    }

    /// `cancelCurrentEvent(resumptionOffset:)`: the break loses its other events and resumes at
    /// its start + `offset` (by the time spent when `nil`); the event playing ends.
    mutating func cancelCurrent(resumptionOffset offset: MediaTime?) -> [Action] {
        guard let brk = self.currentBreak, let playing = self.current else { return [] }
        let cancelled = self.cancelling(brk, playing: playing, resumptionOffset: offset)
        self.currentBreak = cancelled.run
        return cancelled.actions + [.finishEvent(entire: false)]
    }

    // MARK: The event playing

    /// The clock moved the event's playhead by `distance`, up to `limit` (its buffer, its end,
    /// the playout limit); a stalled event does not move.
    mutating func advanceCurrent(by distance: MediaTime, limit: MediaTime) {
        guard var run = self.current, !run.stalled else { return }
        run.assetPosition = MediaTime.min(run.assetPosition + distance, MediaTime.max(limit, run.assetPosition))
        self.current = run
    }

    /// The event playing stalls (its asset's buffer ran out, or its list is loading) or plays on.
    mutating func setCurrentStalled(_ stalled: Bool) {
        guard var run = self.current, run.stalled != stalled else { return }
        run.stalled = stalled
        self.current = run
    }

    /// The current asset (at `url`) begins.
    mutating func startCurrentAsset(url: String) -> [Action] {
        guard let run = self.current else { return [] }
        let started = self.assetStarted(run, url: url)
        self.current = started.run
        return [started.action]
    }

    /// The current asset ended (played out, or the app skipped it): the next one begins from its
    /// start.
    mutating func nextCurrentAsset() -> [Action] {
        guard let run = self.current else { return [] }
        let next = self.nextAsset(run)
        self.current = next.run
        return [next.action]
    }

    /// The current asset failed: the next one is current (nothing of the failed one counts).
    mutating func skipFailedCurrentAsset() {
        guard let run = self.current else { return }
        self.current = self.skippingFailedAsset(run)
    }

    /// An asset list arrived for `eventID`: the event playing, when it is that one, takes what
    /// the schedule now knows of it; the list is announced.
    mutating func listArrived(
        _ list: AssetList,
        eventID: String,
        event: InterstitialEvent?,
        scheduled: ScheduledEvent?
    ) -> [Action] {
        let arrived = self.listLoaded(list, eventID: eventID, event: event, current: self.current, scheduled: scheduled)
        if let run = arrived.run { self.current = run }
        return [arrived.action]
    }

    /// The events changed: the event playing takes its new attributes (an early return's
    /// `X-PLAYOUT-LIMIT`); `nil` when nothing changed for it.
    mutating func updateCurrentEvent(events: [InterstitialEvent], controller: [InterstitialEvent]?) -> Action? {
        guard let update = self.currentEventUpdate(self.current, events: events, controller: controller) else {
            return nil
        }
        self.current = update.run
        return update.action
    }

    /// The event `eventID` began and `start` (the item's, or a seek's) names it: as the first
    /// event of its break, it is entered `start.offset` into it.
    mutating func enter(_ start: InterstitialStart, beginning eventID: String) {
        guard start.eventID == eventID, start.offset > .zero, var brk = self.currentBreak, brk.finished.isEmpty,
            brk.joinOffset == .zero
        else { return }
        brk.joinOffset = start.offset
        self.currentBreak = brk
    }

    /// A break entered partway whose first event has just begun (its assets are `slots`): the
    /// event starts at the join point.
    ///
    /// - Returns: The asset to start there and where inside it, or `nil` when nothing moves.
    mutating func applyJoin(slots: [AssetSlot]) -> (assetIndex: Int, position: MediaTime)? {
        guard let brk = self.currentBreak, brk.joinOffset > .zero, brk.finished.isEmpty, var run = self.current,
            run.eventTime == .zero
        else { return nil }
        let join = self.joinPoint(offset: brk.joinOffset, slots: slots)
        run.assetIndex = join.assetIndex
        run.playedBefore = join.playedBefore
        run.assetPosition = join.assetPosition
        run.joinedAt = brk.joinOffset
        self.current = run
        return (join.assetIndex, join.assetPosition)
    }
}
