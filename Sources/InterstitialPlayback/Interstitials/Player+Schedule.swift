import HLSInterstitials
import HLSPlaylist

// The schedule, where playback starts, breaks and resumption.
extension Player {
    // MARK: Schedule

    /// The events the schedule uses: the controller's (plus playlist events that appeared after it
    /// set them), or the playlist's; none of the playlist's when the item does not handle them.
    ///
    /// Playlist events whose date ranges cannot play (`InterstitialEvent.defects`: no asset or
    /// two, `CUE` with PRE and POST, a negative duration, …) are left out, as the spec asks of
    /// clients for date ranges with illegal syntax: they are not shown, loaded or played, and do not
    /// move the primary. Each is logged once as `eventIgnored` (event ID, rule, message).
    func effectiveEvents() -> [InterstitialEvent] {
        let automatic = self.currentItem?.automaticallyHandlesInterstitialEvents ?? true
        return self.interstitials.coordinator.effectiveEvents(
            playlist: automatic ? self.usablePlaylistEvents() : [],
            automatic: automatic
        )
    }

    /// The tracker's events that can play; logs the others (once per identifier and defects).
    func usablePlaylistEvents() -> [InterstitialEvent] {
        let split = self.interstitials.coordinator.readPlaylistEvents(
            self.interstitials.tracker.interstitialEvents + self.scheduledEvents()
        )
        self.perform(split.actions, now: self.clock.now)
        return split.usable
    }

    /// A primary media playlist (first load or reload) arrived: merge its date ranges, update the
    /// schedule and the events.
    func primaryPlaylistDidLoad(_ playlist: MediaPlaylist, now: MediaTime) {
        self.interstitials.tracker.update(with: playlist)
        self.refreshSchedule(playlist: playlist, now: now)
        self.scheduleRangesDidLoad(playlist)
        self.perform(self.interstitials.coordinator.primaryPlaylistArrived(), now: now)
        self.updatePreloads(now: now)
    }

    /// Forgets an event's asset list and the assets loaded ahead for it (status: cleared).
    func dropPreparedAssets(of event: InterstitialEvent) {
        self.interstitials.coordinator.listCleared(event.identifier)
        self.dropAssetPresentations(of: event.identifier)
        if event.assetListURI != nil { self.emit(.assetListCleared(event)) }
    }

    /// Drops the presentations of an event's assets.
    func dropAssetPresentations(of eventID: String) {
        for key in self.assets.keys where key.eventID == eventID { self.assets[key] = nil }
    }

    func refreshSchedule(playlist given: MediaPlaylist?, now: MediaTime) {
        guard let playlist = given ?? self.primary?.mainTrack?.playlist else { return }
        // Controller events or a cancel (no playlist given): place every event again.
        let rebuilding = given == nil && self.interstitials.schedule != nil
        if let offset = self.primary?.mainTrack?.stableOffset(of: playlist) {
            self.interstitials.coordinator.primaryOffsetMoved(to: offset)
        }
        let events = self.effectiveEvents()
        self.interstitials.coordinator.placeEvents(
            rebuilding: rebuilding,
            primary: self.snapPlaylists(main: playlist),
            events: self.schedulableEvents(events),
            startTime: self.currentItem?.startTime
        )
        // An event playing picks up new attributes (an early return's X-PLAYOUT-LIMIT).
        // The app's events never change the one playing: it keeps the attributes it started with.
        if let update = self.interstitials.coordinator.updateCurrentEvent(
            events: events,
            controller: self.interstitials.controllerEvents
        ), let run = self.interstitials.current {
            self.perform([update], now: now)
            // The resume point may have moved (an early return): buffer the primary from there.
            if let brk = self.interstitials.currentBreak, let context = self.breakContext {
                let ids = brk.finished.map(\.event.identifier) + [run.eventID] + brk.queue
                let loaded = self.loadedDurations(of: ids)
                self.primary?.reposition(
                    to: self.interstitials.coordinator.expectedResume(
                        of: brk,
                        playing: run.eventID,
                        in: context,
                        loaded: loaded
                    )
                )
            }
        }
        if events != self.interstitials.events {
            let stale = self.interstitials.coordinator.eventsReplaced(
                by: events,
                playing: self.interstitials.current?.eventID
            )
            self.emit(.eventsDidChange(events))
            for event in stale.unscheduled {
                self.dropPreparedAssets(of: event)
                self.emit(.eventWasUnscheduled(event, nil))
            }
            // An event replaced under the same identifier with other assets (an app's event over
            // the playlist's): what was loaded ahead for the old one must not play for the new one.
            for old in stale.replaced { self.dropPreparedAssets(of: old) }
        }
    }

    /// The primary's playlists whose segment boundaries `X-SNAP` counts: the main (video) playlist
    /// first, then each audio rendition loaded (the earliest boundary for OUT, the latest for IN).
    func snapPlaylists(main: MediaPlaylist) -> [MediaPlaylist] {
        self.interstitials.coordinator.snapPlaylists(main: main, tracks: self.primary?.tracks ?? [])
    }

    /// The events the schedule places: all but those cancelled (D.5: a failed asset list or asset
    /// URI cancels its event with resume offset 0), so an event inside a cancelled one's span plays.
    func schedulableEvents(_ events: [InterstitialEvent]) -> [InterstitialEvent] {
        self.interstitials.coordinator.schedulable(events, cancelled: self.interstitials.cancelled)
    }

    /// Cancels an event that cannot play (D.5) and places the others again without it.
    func cancelEvent(_ eventID: String, now: MediaTime) {
        guard self.interstitials.coordinator.markCancelled(eventID) else { return }
        self.refreshSchedule(playlist: nil, now: now)
    }

    /// Where playback starts (the schedule's start position) and the pre-rolls or the break a
    /// live join lands in.
    func resolveStart(now: MediaTime) {
        guard let context = self.breakContext, let plan = self.interstitials.coordinator.start(in: context, now: now)
        else { return }
        self.primaryPosition = plan.position
        self.primary?.reposition(to: plan.requested)
        if plan.reposition != plan.requested { self.primary?.reposition(to: plan.reposition) }
        if let breakPlan = plan.breakPlan { self.beginBreak(breakPlan, now: now) }
    }

    /// What the coordinator reads of the bookkeeping; `nil` before the schedule exists.
    var breakContext: BreakContext? {
        guard let schedule = self.interstitials.schedule else { return nil }
        return BreakContext(
            schedule: schedule,
            offset: self.interstitials.offset,
            passed: self.interstitials.passed,
            cancelled: self.interstitials.cancelled
        )
    }

    /// The next break on the primary at or after the playhead: its start and its events in order.
    func nextBreak() -> (start: MediaTime, ids: [String])? {
        self.breakContext.flatMap { self.interstitials.coordinator.nextBreak(in: $0, at: self.primaryPosition) }
    }

    /// Where primary playback must stop for the next break.
    func primaryBoundary() -> MediaTime? {
        self.nextBreak()?.start
    }

    /// The break that begins where the playhead is, if any.
    func breakDue(now: MediaTime) -> BreakPlan? {
        guard let context = self.breakContext else { return nil }
        return self.interstitials.coordinator.breakDue(in: context, at: self.primaryPosition, now: now)
    }

    /// The post-rolls, when the primary ends: `nil` when none start (played already, or none).
    func startPostRolls(now: MediaTime) -> [InterstitialCoordinator.Action]? {
        self.interstitials.coordinator.primaryReachedEnd(in: self.breakContext, at: self.primaryPosition, now: now)
    }

    /// The item's interstitial under way (a handoff in the middle of an ad): its event, when it is
    /// the first of its break, is entered at the offset the sender left it at, once.
    func enterInterstitialUnderWay(_ eventID: String) {
        self.interstitials.coordinator.enterUnderWay(eventID, itemStart: self.currentItem?.interstitialStart)
    }

    /// A live join inside the break starts the first asset(s) partway.
    func applyJoinOffset() {
        guard let run = self.interstitials.current, case .loaded(let slots, _)? = self.interstitials.lists[run.eventID],
            let join = self.interstitials.coordinator.applyJoin(slots: slots)
        else { return }
        let id = PresentationID.asset(run.eventID, join.assetIndex)
        if self.assets[id] == nil, slots.indices.contains(join.assetIndex) {
            self.assets[id] = Presentation(id: id, url: slots[join.assetIndex].url, startTime: join.position)
        }
    }
}
