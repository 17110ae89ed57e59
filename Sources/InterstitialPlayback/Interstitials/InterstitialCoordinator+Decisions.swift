import HLSInterstitials
import HLSPlaylist

// Decisions the actor used to take inline: which playlist events can play, what an asset list
// arriving mid-event changes, and when the primary moves to the predicted resume point.
extension InterstitialCoordinator {
    /// The playlist events that can play, and what to log of the others.
    struct UsableEvents: Sendable, Equatable {
        /// The events without defects, in order.
        var usable: [InterstitialEvent]
        /// The defects already logged, per identifier (the state to keep for the next call).
        var ignored: [String: [InterstitialEvent.Defect]]
        /// One `eventIgnored` per defect of each event not logged before with the same defects.
        var actions: [Action]
    }

    /// Splits `events` into those that can play and those that cannot (`InterstitialEvent.defects`).
    ///
    /// An unusable event is logged once per identifier and set of defects: again only when its
    /// defects change.
    func usableEvents(_ events: [InterstitialEvent], ignored: [String: [InterstitialEvent.Defect]]) -> UsableEvents {
        var result = UsableEvents(usable: [], ignored: ignored, actions: [])
        for event in events {
            guard !event.isUsable else {
                result.usable.append(event)
                continue
            }
            guard result.ignored[event.identifier] != event.defects else { continue }
            result.ignored[event.identifier] = event.defects
            for defect in event.defects {
                let ignoredEvent = PlayerEvent.eventIgnored(
                    eventID: event.identifier,
                    rule: defect.rule.id.rawValue,
                    message: defect.message
                )
                result.actions.append(.emit(ignoredEvent))
            }
        }
        return result
    }

    /// An asset list arrived for `eventID` (`event`, when still known): the event playing, when it
    /// is that one, takes what the schedule now knows of it (``current(_:afterListOf:scheduled:)``),
    /// and the list is announced (its asset count and total duration).
    func listLoaded(
        _ list: AssetList,
        eventID: String,
        event: InterstitialEvent?,
        current run: EventRun?,
        scheduled: ScheduledEvent?
    ) -> (run: EventRun?, action: Action) {
        let loaded = PlayerEvent.assetListLoaded(
            eventID: eventID,
            event: event,
            assets: list.assets.count,
            duration: list.totalDuration.seconds
        )
        return (self.current(run, afterListOf: eventID, scheduled: scheduled), .emit(loaded))
    }

    /// The event playing takes the new attributes a reload gave it (an early return's
    /// `X-PLAYOUT-LIMIT`), announced as `currentEventUpdated`; `nil` when nothing changed, or when
    /// only the app's events did (``updatedCurrentEvent(_:events:controller:)``).
    func currentEventUpdate(
        _ run: EventRun?,
        events: [InterstitialEvent],
        controller: [InterstitialEvent]?
    ) -> (run: EventRun, action: Action)? {
        guard var run, let updated = self.updatedCurrentEvent(run.event, events: events, controller: controller)
        else { return nil }
        run.event = updated
        return (run, .emit(.currentEventUpdated(updated)))
    }

    /// An asset list arrived for `eventID`: the event playing, when it is that one, takes the
    /// duration and the resume offset the schedule now knows (its end, D.2, counts them); `nil`
    /// when nothing playing changes.
    func current(_ run: EventRun?, afterListOf eventID: String, scheduled: ScheduledEvent?) -> EventRun? {
        guard var run, run.eventID == eventID, let scheduled else { return nil }
        run.duration = scheduled.duration
        run.scheduledOffset = scheduled.resumeOffset
        run.offsetSource = scheduled.resumeOffsetSource
        return run
    }

    /// The whole next break is buffered: whether to buffer the primary from where it will resume.
    ///
    /// Once per break (`repositionedFor` is the first event of the break it was done for) and only
    /// while the primary plays.
    ///
    /// - Parameters:
    ///   - playing: Whether an interstitial plays.
    ///   - next: The next break's start and events.
    ///   - repositionedFor: The first event of the break the primary last moved for.
    ///   - resume: Where the primary resumes after `next` (asked only when the move is due).
    /// - Returns: `nil` when nothing is due; otherwise the break to remember and the position to
    ///   move the primary to (`nil` when the break resumes where it starts).
    func primaryMove(
        playing: Bool,
        next: (start: MediaTime, ids: [String])?,
        repositionedFor: String?,
        resume: (MediaTime, [String]) -> MediaTime
    ) -> (mark: String?, position: MediaTime?)? {
        guard !playing, let next, repositionedFor != next.ids.first else { return nil }
        let target = resume(next.start, next.ids)
        return (next.ids.first, target == next.start ? nil : target)
    }

    /// The event `eventID` begins at clock time `now` in `brk`, the player at `rate`.
    ///
    /// The event is the current events' one (the playlist's or the app's), else the schedule's;
    /// the run keeps a copy of what the schedule says of it (its resume offset and duration), so
    /// replacing the events while it plays does not change how it ends. The actions announce it
    /// (where the primary paused, or the join point) and hold `X-RESTRICT=SKIP` from its first
    /// frame. `nil` when the event is known to neither (the break ends).
    mutating func beginEvent(
        _ eventID: String,
        events: [InterstitialEvent],
        schedule: Schedule?,
        in brk: BreakRun?,
        rate: Double,
        now: MediaTime
    ) -> (run: EventRun, actions: [Action])? {
        let scheduled = schedule?.event(eventID)
        guard let event = events.first(where: { $0.identifier == eventID }) ?? scheduled?.event else { return nil }
        var run = EventRun(event: event, startedAt: now)
        run.scheduledOffset = scheduled?.resumeOffset
        run.offsetSource = scheduled?.resumeOffsetSource
        run.duration = scheduled?.duration
        let report = self.eventStartReport(in: brk)
        var actions: [Action] = [
            .emit(.currentEventDidChange(event, primaryTime: report.primaryTime, joinedAt: report.joinedAt))
        ]
        actions += self.eventWillStart(event, rate: rate)
        return (run, actions)
    }

    // MARK: The schedule

    /// The schedule after the primary or the events changed.
    ///
    /// With none yet, a new one starting where the item asks (``startRequest(isLive:startTime:)``).
    /// `rebuilding` (the app's events changed, or an event was cancelled) places every event again,
    /// keeping the configuration (events played, the start); otherwise the schedule is updated
    /// with the reloaded primary and the events, recomputing only what changed.
    ///
    /// - Parameters:
    /// The schedule so far is consumed: given the only copy (the player hands over its own with
    /// `take()`), the update changes it in place rather than copying its arrays on every reload.
    ///
    /// - Parameters:
    ///   - current: The schedule so far.
    ///   - rebuilding: Whether to place every event again.
    ///   - primary: The primary's playlists whose boundaries `X-SNAP` counts (``snapPlaylists(main:tracks:)``).
    ///   - events: The events the schedule places.
    ///   - startTime: The item's start time, for a new schedule.
    func schedule(
        after current: consuming Schedule?,
        rebuilding: Bool,
        primary: [MediaPlaylist],
        events: [InterstitialEvent],
        startTime: MediaTime?
    ) -> Schedule {
        guard var schedule = consume current else {
            var configuration = Schedule.Configuration()
            configuration.start = self.startRequest(isLive: primary.first?.isLive == true, startTime: startTime)
            return Schedule(primary: primary, events: events, configuration: configuration)
        }
        if rebuilding {
            schedule = Schedule(primary: primary, events: events, configuration: schedule.configuration)
        }
        _ = schedule.update(primary: primary, events: events)
        return schedule
    }

    /// The primary's playlists whose segment boundaries `X-SNAP` counts for a break's start: the
    /// main (video) playlist first, then each audio rendition loaded (the earliest boundary wins
    /// for OUT); subtitles do not count.
    func snapPlaylists(main: MediaPlaylist, tracks: [Track]) -> [MediaPlaylist] {
        [main] + tracks.filter { $0.kind == .audio }.compactMap(\.playlist)
    }

    /// The segment boundaries `X-SNAP=IN` counts after `brk`: those of every audio and video
    /// track (subtitles do not count); none when the break resumes at a fixed point or its last
    /// event does not snap.
    func resumeEdges(of brk: BreakRun, tracks: [Track]) -> [[MediaTime]] {
        guard brk.fixedResume == nil, brk.finished.last?.event.alignsResumptionWithPrimarySegmentBoundary == true
        else { return [] }
        return tracks.filter { $0.kind != .subtitles }.map { track in track.segments.flatMap { [$0.start, $0.end] } }
    }

    // MARK: Rate and skip state

    /// Whether `rate` may be set with the playhead at `playhead`: always on primary content;
    /// while `playing` an interstitial, as the schedule's `NavigationPolicy` says (`X-RESTRICT=SKIP`
    /// allows no rate above 1).
    func rateDecision(_ rate: Double, playing: Bool, schedule: Schedule?, at playhead: Playhead) -> RateResult {
        guard playing, let schedule else {
            return RateResult(isAllowed: true, rate: rate, reason: "primary content has no rate restriction")
        }
        let decision = NavigationPolicy(schedule: schedule).resolveRate(rate, at: playhead)
        return RateResult(isAllowed: decision.isAllowed, rate: rate, reason: decision.reason)
    }

    /// The skip state of the event playing at `playhead`, its asset list's `SKIP-CONTROL` over the
    /// tag's; `nil` when none plays or there is no schedule.
    func skipReport(
        of run: EventRun?,
        list: AssetListState?,
        schedule: Schedule?,
        at playhead: Playhead
    ) -> SkipStateReport? {
        guard let run, let schedule else { return nil }
        var control = run.event.skipControl
        if case .loaded(_, let skip)? = list, let skip { control = skip }
        return NavigationPolicy(schedule: schedule).skipState(at: playhead, skipControl: control)
    }

    // MARK: Leaving a break

    /// `cancelCurrentEvent(resumptionOffset:)` while `playing` plays in `brk`: the break without
    /// its other events, resuming at its start + `offset` (or by the time spent when `nil`), and
    /// the `eventCancelled` announcement.
    func cancelling(
        _ brk: BreakRun,
        playing: EventRun,
        resumptionOffset offset: MediaTime?
    ) -> (run: BreakRun, actions: [Action]) {
        (self.cancel(brk, resumptionOffset: offset), [.emit(.eventCancelled(playing.event))])
    }

    /// The announcement of an event's end: the playout time is what this player played of it
    /// (after a live join, not the part it joined past), as AVFoundation's
    /// `AVPlayerInterstitialEventMonitor` reports it; an event joined partway was not played entire.
    func eventDidFinish(_ run: EventRun, entire: Bool) -> Action {
        .emit(
            .eventDidFinish(run.event, playoutTime: run.playedTime, didPlayEntireEvent: entire && run.joinedAt == .zero)
        )
    }

    /// The break is over with the player at `rate` (played out, or left by a seek): primary
    /// content plays again (announced), and the rate a restricted event lowered comes back.
    mutating func leaveBreak(rate: Double) -> [Action] {
        [.emit(.currentEventDidChange(nil, primaryTime: nil, joinedAt: nil))] + self.breakDidEnd(rate: rate)
    }

    // MARK: Assets of the event playing

    /// The current asset (at `url`) begins: the run marks it started, and it is announced.
    func assetStarted(_ run: EventRun, url: String) -> (run: EventRun, action: Action) {
        var run = run
        run.assetStarted = true
        return (run, .emit(.interstitialAssetStarted(eventID: run.eventID, index: run.assetIndex, url: url)))
    }

    /// The announcement that the current asset ended, at the playhead inside it.
    func assetEnded(_ run: EventRun) -> Action {
        .emit(.interstitialAssetEnded(eventID: run.eventID, index: run.assetIndex, playoutTime: run.assetPosition))
    }

    /// The current asset played to its end: it is announced, and the run moves to the next asset
    /// from its start, the one ended counted as played.
    func nextAsset(_ run: EventRun) -> (run: EventRun, action: Action) {
        let ended = self.assetEnded(run)
        var run = run
        run.playedBefore = run.playedBefore + run.assetPosition
        run.assetIndex += 1
        run.assetPosition = .zero
        run.assetStarted = false
        return (run, ended)
    }

    /// The current asset failed: the run moves to the next asset from its start (nothing of the
    /// failed one counts as played).
    func skippingFailedAsset(_ run: EventRun) -> EventRun {
        var run = run
        run.assetIndex += 1
        run.assetPosition = .zero
        run.assetStarted = false
        return run
    }
}

extension InterstitialCoordinator {
    /// What is known of the event playing when a skip is asked for.
    struct SkipRequest: Sendable {
        /// The event playing, or `nil`.
        var event: InterstitialEvent?
        /// The skip state at the playhead (the asset list's `SKIP-CONTROL` applied).
        var report: SkipStateReport?
        /// The app owns the skip policy (AirPlay plans B and C): grant whatever the state.
        var overridesPolicy: Bool
    }

    // MARK: Skipping

    /// A skip request (``InterstitialEventController/skipCurrentEvent(overridingPolicy:)``):
    /// granted inside the skip window, or anywhere for an event without skip control or
    /// `X-RESTRICT=SKIP`, or whatever the state when the app owns the policy.
    func skip(_ request: SkipRequest) -> [Action] {
        guard let event = request.event else {
            return [
                .refuse("no interstitial event is playing"),
                .emit(.skipRefused(eventID: nil, reason: "no interstitial event is playing")),
            ]
        }
        let granted: [Action] = [.emit(.currentEventSkipped(event)), .finishCurrentEvent]
        if request.overridesPolicy { return granted }
        let state = request.report?.state ?? .notSkippable
        let reason: String
        switch state {
        case .eligible:
            return granted
        case .notYetEligible:
            let from = request.report?.eligibleFrom.map { " at \($0) s into the event" } ?? ""
            reason = "skip control is not shown yet: it opens\(from)"
        case .noLongerEligible:
            let until = request.report?.eligibleUntil.map { " at \($0) s into the event" } ?? ""
            reason = "the skip window closed\(until)"
        default:
            guard event.restrictions.contains(.skip) else { return granted }
            reason = "X-RESTRICT=SKIP and no skip control"
        }
        return [.refuse(reason), .emit(.skipRefused(eventID: event.identifier, reason: reason))]
    }
}
