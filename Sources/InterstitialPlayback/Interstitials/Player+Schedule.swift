import HLSInterstitials
import HLSPlaylist

// The schedule, where playback starts, breaks and resumption.
extension Player {
    // MARK: Schedule

    /// The events the schedule uses: the controller's (plus playlist events that appeared after it
    /// set them), or the playlist's; none of the playlist's when the item does not handle them.
    ///
    /// Playlist events whose date ranges cannot play (``InterstitialEvent/defects``: no asset or
    /// two, `CUE` with PRE and POST, a negative duration, …) are left out, as the spec asks of
    /// clients for date ranges with illegal syntax: they are not shown, loaded or played, and do not
    /// move the primary. Each is logged once as `eventIgnored` (event ID, rule, message).
    func effectiveEvents() -> [InterstitialEvent] {
        let automatic = self.currentItem?.automaticallyHandlesInterstitialEvents ?? true
        return self.interstitials.coordinator.effectiveEvents(
            playlist: automatic ? self.usablePlaylistEvents() : [],
            controller: self.interstitials.controllerEvents,
            suppressed: self.interstitials.suppressedPlaylistIDs,
            automatic: automatic
        )
    }

    /// The tracker's events that can play; logs the others (once per identifier and defects).
    func usablePlaylistEvents() -> [InterstitialEvent] {
        var usable: [InterstitialEvent] = []
        for event in self.interstitials.tracker.interstitialEvents {
            guard !event.isUsable else {
                usable.append(event)
                continue
            }
            guard self.interstitials.ignored[event.identifier] != event.defects else { continue }
            self.interstitials.ignored[event.identifier] = event.defects
            for defect in event.defects {
                self.emit(.eventIgnored(eventID: event.identifier, rule: defect.rule.id.rawValue, message: defect.message))
            }
        }
        return usable
    }

    /// A primary media playlist (first load or reload) arrived: merge its date ranges, update the
    /// schedule and the events.
    func primaryPlaylistDidLoad(_ playlist: MediaPlaylist, now: MediaTime) {
        self.interstitials.tracker.update(with: playlist)
        self.refreshSchedule(playlist: playlist, now: now)
        if !self.interstitials.startResolved {
            self.interstitials.startResolved = true
            self.resolveStart(now: now)
        }
    }

    /// Forgets an event's asset list and the assets loaded ahead for it (status: cleared).
    func dropPreparedAssets(of event: InterstitialEvent) {
        self.interstitials.lists[event.identifier] = nil
        self.dropAssetPresentations(of: event.identifier)
        if event.assetListURI != nil { self.emit(.assetListCleared(event)) }
    }

    /// Drops the presentations of an event's assets.
    func dropAssetPresentations(of eventID: String) {
        for key in self.assets.keys where key.eventID == eventID { self.assets[key] = nil }
    }

    func refreshSchedule(playlist given: MediaPlaylist?, now: MediaTime) {
        guard let playlist = given ?? self.primary?.mainTrack?.playlist else { return }
        if given == nil, let schedule = self.interstitials.schedule {
            // Controller events: rebuild, keeping the configuration (played events, start).
            self.interstitials.schedule = Schedule(
                primary: self.snapPlaylists(main: playlist),
                events: self.schedulableEvents(self.effectiveEvents()),
                configuration: schedule.configuration
            )
        }
        if let offset = self.primary?.mainTrack?.stableOffset(of: playlist) { self.interstitials.offset = offset }
        let events = self.effectiveEvents()
        if var schedule = self.interstitials.schedule {
            _ = schedule.update(primary: self.snapPlaylists(main: playlist), events: self.schedulableEvents(events))
            self.interstitials.schedule = schedule
        } else {
            var configuration = Schedule.Configuration()
            if playlist.isLive {
                configuration.start = self.currentItem?.startTime.map { .time($0) }
            } else {
                configuration.start = .time(self.currentItem?.startTime ?? .zero)
            }
            self.interstitials.schedule = Schedule(primary: self.snapPlaylists(main: playlist), events: self.schedulableEvents(events), configuration: configuration)
        }
        // An event playing picks up new attributes (an early return's X-PLAYOUT-LIMIT).
        // The app's events never change the one playing: it keeps the attributes it started with.
        if var run = self.interstitials.current,
            let updated = self.interstitials.coordinator.updatedCurrentEvent(run.event, events: events, controller: self.interstitials.controllerEvents)
        {
            run.event = updated
            self.interstitials.current = run
            self.emit(.currentEventUpdated(updated))
            // The resume point may have moved (an early return): buffer the primary from there.
            if let brk = self.interstitials.currentBreak {
                let resume = brk.fixedResume ?? self.predictedResume(start: brk.start, ids: brk.finished.map(\.event.identifier) + [run.eventID] + brk.queue)
                self.primary?.reposition(to: resume)
            }
        }
        if events != self.interstitials.events {
            let previous = self.interstitials.events
            let removed = previous.filter { old in !events.contains { $0.identifier == old.identifier } }
            self.interstitials.events = events
            self.emit(.eventsDidChange(events))
            for event in removed where self.interstitials.lists[event.identifier] != nil && !self.interstitials.passed.contains(event.identifier) {
                self.dropPreparedAssets(of: event)
                self.emit(.eventWasUnscheduled(event, nil))
            }
            // An event replaced under the same identifier with other assets (an app's event over
            // the playlist's): what was loaded ahead for the old one must not play for the new one.
            for event in events where event.identifier != self.interstitials.current?.eventID {
                guard let old = previous.first(where: { $0.identifier == event.identifier }),
                    old.assetURIs != event.assetURIs || old.assetListURI != event.assetListURI,
                    self.interstitials.lists[event.identifier] != nil
                else { continue }
                self.dropPreparedAssets(of: old)
            }
        }
    }

    /// The primary's playlists whose segment boundaries `X-SNAP` counts: the main (video) playlist
    /// first, then each audio rendition loaded (the earliest boundary for OUT, the latest for IN).
    func snapPlaylists(main: MediaPlaylist) -> [MediaPlaylist] {
        let audio = self.primary?.tracks.filter { $0.kind == .audio }.compactMap(\.playlist) ?? []
        return [main] + audio
    }

    /// The events the schedule places: all but those cancelled (D.5: a failed asset list or asset
    /// URI cancels its event with resume offset 0), so an event inside a cancelled one's span plays.
    func schedulableEvents(_ events: [InterstitialEvent]) -> [InterstitialEvent] {
        self.interstitials.coordinator.schedulable(events, cancelled: self.interstitials.cancelled)
    }

    /// Cancels an event that cannot play (D.5) and places the others again without it.
    func cancelEvent(_ eventID: String, now: MediaTime) {
        guard self.interstitials.cancelled.insert(eventID).inserted else { return }
        self.refreshSchedule(playlist: nil, now: now)
    }

    /// Where playback starts (the schedule's start position) and the pre-rolls or the break a
    /// live join lands in.
    func resolveStart(now: MediaTime) {
        guard let context = self.breakContext, let plan = self.interstitials.coordinator.start(in: context, now: now) else { return }
        self.primaryPosition = plan.position
        self.primary?.reposition(to: plan.requested)
        if plan.reposition != plan.requested { self.primary?.reposition(to: plan.reposition) }
        if let breakPlan = plan.breakPlan { self.beginBreak(breakPlan, now: now) }
    }

    /// What the coordinator reads of the bookkeeping; `nil` before the schedule exists.
    var breakContext: BreakContext? {
        guard let schedule = self.interstitials.schedule else { return nil }
        return BreakContext(schedule: schedule, offset: self.interstitials.offset, passed: self.interstitials.passed, cancelled: self.interstitials.cancelled)
    }

    /// The next break on the primary at or after the playhead: its start and its events in order.
    func nextBreak() -> (start: MediaTime, ids: [String])? {
        self.breakContext.flatMap { self.interstitials.coordinator.nextBreak(in: $0, at: self.primaryPosition) }
    }

    /// Where primary playback must stop for the next break.
    func primaryBoundary() -> MediaTime? {
        self.nextBreak()?.start
    }

    /// Starts the next break when the playhead reached it; returns whether it did.
    func checkPrimaryBoundary(now: MediaTime) -> Bool {
        guard let context = self.breakContext,
            let plan = self.interstitials.coordinator.breakDue(in: context, at: self.primaryPosition, now: now)
        else { return false }
        self.beginBreak(plan, now: now)
        return true
    }

    /// Plays the post-rolls when the primary ends; returns whether any started.
    func startPostRolls(now: MediaTime) -> Bool {
        guard !self.interstitials.postrollsStarted, let context = self.breakContext else { return false }
        self.interstitials.postrollsStarted = true
        guard let plan = self.interstitials.coordinator.postrollBreak(in: context, at: self.primaryPosition, now: now) else { return false }
        self.beginBreak(plan, now: now)
        return true
    }

    // MARK: Breaks

    /// Begins a break the coordinator planned: its events are handled at this point.
    func beginBreak(_ plan: BreakPlan, now: MediaTime) {
        self.interstitials.passed.formUnion(plan.passed)
        self.primaryPosition = plan.position
        self.beginBreak(plan.run, now: now)
    }

    func beginBreak(_ run: BreakRun, now: MediaTime) {
        var run = run
        guard !run.queue.isEmpty else { return }
        let first = run.queue.removeFirst()
        self.interstitials.currentBreak = run
        self.setStalled(false, now: now)
        self.beginEvent(first, now: now)
    }

    func beginEvent(_ eventID: String, now: MediaTime) {
        guard let event = self.interstitials.events.first(where: { $0.identifier == eventID })
            ?? self.interstitials.schedule?.event(eventID)?.event
        else {
            self.endBreak(now: now)
            return
        }
        var run = EventRun(event: event, startedAt: now)
        let scheduled = self.interstitials.schedule?.event(eventID)
        run.scheduledOffset = scheduled?.resumeOffset
        run.offsetSource = scheduled?.resumeOffsetSource
        run.duration = scheduled?.duration
        if let join = self.interstitials.currentBreak?.joinOffset, join > .zero, self.interstitials.currentBreak?.finished.isEmpty == true {
            run.assetPosition = .zero
            run.playedBefore = .zero
            self.interstitials.currentBreak?.joinOffset = join
        }
        self.interstitials.current = run
        _ = self.interstitials.schedule?.markPlayed(eventID)
        // Where the primary paused for the break; for a live join, where the viewer joined and how
        // far into the event that is.
        var primaryTime = self.interstitials.currentBreak?.start
        var joinedAt: MediaTime?
        if let brk = self.interstitials.currentBreak, brk.joinOffset > .zero, brk.finished.isEmpty {
            primaryTime = brk.start + brk.joinOffset
            joinedAt = brk.joinOffset
        }
        self.emit(.currentEventDidChange(event, primaryTime: primaryTime, joinedAt: joinedAt))
        self.perform(self.interstitials.coordinator.eventWillStart(event, rate: self.rate), now: now)
        self.updateStatus()
        self.prepareEventAssets(eventID)
        self.applyJoinOffset(now: now)
    }

    /// A live join inside the break starts the first asset(s) partway.
    func applyJoinOffset(now: MediaTime) {
        guard let brk = self.interstitials.currentBreak, brk.joinOffset > .zero, brk.finished.isEmpty,
            var run = self.interstitials.current, run.eventTime == .zero,
            case .loaded(let slots, _)? = self.interstitials.lists[run.eventID]
        else { return }
        let join = self.interstitials.coordinator.joinPoint(offset: brk.joinOffset, slots: slots)
        run.assetIndex = join.assetIndex
        run.playedBefore = join.playedBefore
        run.assetPosition = join.assetPosition
        run.joinedAt = brk.joinOffset
        self.interstitials.current = run
        let id = PresentationID.asset(run.eventID, join.assetIndex)
        if self.assets[id] == nil, slots.indices.contains(join.assetIndex) {
            self.assets[id] = Presentation(id: id, url: slots[join.assetIndex].url, startTime: join.assetPosition)
        }
    }

    /// Ends the current event and moves to the next event of the break, or resumes the primary.
    func finishEvent(entire: Bool, now: MediaTime) {
        guard let run = self.interstitials.current else { return }
        let playedSomething = run.playedTime > .zero
        self.reportEventDidFinish(run, entire: entire)
        let record = FinishedEvent(
                event: run.event,
                scheduledOffset: run.scheduledOffset,
                offsetSource: run.offsetSource,
                duration: run.duration,
                playout: run.eventTime,
                elapsed: now - run.startedAt,
                playedSomething: playedSomething,
                cancelled: self.interstitials.cancelled.contains(run.eventID)
        )
        self.interstitials.currentBreak?.finished.append(record)
        self.interstitials.current = nil
        self.setSkipState(.notSkippable, event: run.event)
        self.dropAssetPresentations(of: run.eventID)
        if var brk = self.interstitials.currentBreak, !brk.queue.isEmpty {
            let next = brk.queue.removeFirst()
            self.interstitials.currentBreak = brk
            self.beginEvent(next, now: now)
            return
        }
        self.endBreak(now: now)
    }

    /// Logs and posts `eventDidFinish`: the playout time is what this player played of the event
    /// (after a live join, not the part it joined past), as AVFoundation's
    /// `AVPlayerInterstitialEventMonitor` reports it; an event joined partway was not played entire.
    func reportEventDidFinish(_ run: EventRun, entire: Bool) {
        let played = run.playedTime
        let entire = entire && run.joinedAt == .zero
        self.emit(.eventDidFinish(run.event, playoutTime: played, didPlayEntireEvent: entire))
    }

    /// Resumes the primary after a break, where the schedule and the events' offsets say.
    func endBreak(now: MediaTime) {
        guard let brk = self.interstitials.currentBreak else { return }
        self.interstitials.currentBreak = nil
        self.interstitials.current = nil
        self.interstitials.repositionedFor = nil
        let resume = self.resumeTime(of: brk, now: now)
        self.emit(.currentEventDidChange(nil, primaryTime: nil, joinedAt: nil))
        self.perform(self.interstitials.coordinator.breakDidEnd(rate: self.rate), now: now)
        if self.interstitials.postrollsStarted, self.primary?.duration.map({ self.primaryPosition >= $0 - BufferedRanges.tolerance }) ?? false {
            self.updateStatus()
            self.primaryDidEnd(now: now)
            return
        }
        if self.enterInterstitial(spanning: resume, now: now) { return }
        self.emit(.primaryResumed(primaryTime: resume))
        self.isStalled = false
        self.jumpPrimary(to: resume, now: now)
        self.updateStatus()
        self.checkTransitions(now: now)
    }

    /// A resume point inside another interstitial's span enters it partway, as a live join does
    /// (its asset list is asked for with `_HLS_start_offset` on live); returns whether it did.
    func enterInterstitial(spanning time: MediaTime, now: MediaTime) -> Bool {
        guard let context = self.breakContext,
            let plan = self.interstitials.coordinator.entry(in: context, resumingAt: time, now: now)
        else { return false }
        self.beginBreak(plan, now: now)
        return true
    }

    /// Where the primary resumes after `brk` (§6 resumption, D.2, D.5 failures): a fixed point, the
    /// time spent (`cancelCurrentEvent(resumptionOffset: nil)`), or the coordinator's resumption.
    func resumeTime(of brk: BreakRun, now: MediaTime) -> MediaTime {
        // X-SNAP=IN: the boundaries of every audio and video playlist (subtitles do not count).
        var edges: [[MediaTime]] = []
        if brk.finished.last?.event.alignsResumptionWithPrimarySegmentBoundary == true, let tracks = self.primary?.tracks {
            edges = tracks.filter { $0.kind != .subtitles }.map { track in track.segments.flatMap { [$0.start, $0.end] } }
        }
        return self.interstitials.coordinator.resumePoint(
            of: brk,
            now: now,
            isLive: self.interstitials.schedule?.isLive ?? false,
            segmentEdges: edges
        )
    }
}
