import HLSInterstitials
import HLSPlaylist

extension Player {
    // MARK: Public surface used by the monitor and the controller

    /// The events as a monitor shows them.
    var interstitialEvents: [InterstitialEvent] { self.interstitials.events }

    /// The event playing.
    var currentInterstitialEvent: InterstitialEvent? { self.interstitials.current?.event }

    /// The identifier of the event playing, or `nil` while primary content plays.
    public var currentInterstitialEventID: String? { self.interstitials.current?.eventID }

    /// The skip state of the event playing.
    var currentEventSkippableState: SkippableEventState { self.interstitials.skipState }

    /// Sets client events (``InterstitialEventController/setEvents(_:)``).
    func setControllerEvents(_ events: [InterstitialEvent]) {
        if events.isEmpty {
            self.interstitials.controllerEvents = nil
            self.interstitials.suppressedPlaylistIDs = []
        } else {
            self.interstitials.controllerEvents = events
            self.interstitials.suppressedPlaylistIDs = Set(self.interstitials.tracker.ids)
        }
        self.refreshSchedule(playlist: nil, now: self.clock.now)
        self.wake()
    }

    /// Abandons the current event and the rest of its break.
    func cancelCurrentEvent(resumptionOffset offset: MediaTime?) {
        guard var run = self.interstitials.currentBreak, self.interstitials.current != nil else { return }
        let now = self.clock.now
        self.advancePlayback(to: now)
        run.queue.removeAll()
        if let offset {
            run.fixedResume = run.start + offset
        } else {
            run.resumeByElapsed = true
        }
        self.interstitials.currentBreak = run
        self.emit("eventCancelled", [("event_id", .string(self.interstitials.current!.eventID))])
        self.finishEvent(entire: false, now: now)
        self.wake()
    }

    /// Abandons the current event only (skip control).
    func skipCurrentEvent() {
        guard let run = self.interstitials.current else { return }
        let now = self.clock.now
        self.advancePlayback(to: now)
        self.emit("currentEventSkipped", [("event_id", .string(run.eventID))])
        self.notify(.currentEventSkipped(run.event))
        self.finishEvent(entire: false, now: now)
        self.wake()
    }

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
        let playlist = automatic ? self.usablePlaylistEvents() : []
        guard let controller = self.interstitials.controllerEvents else { return playlist }
        let ids = Set(controller.map(\.identifier))
        return controller + playlist.filter { !ids.contains($0.identifier) && !self.interstitials.suppressedPlaylistIDs.contains($0.identifier) }
    }

    /// The tracker's events that can play; logs the others (once per identifier and defects).
    private func usablePlaylistEvents() -> [InterstitialEvent] {
        var usable: [InterstitialEvent] = []
        for event in self.interstitials.tracker.interstitialEvents {
            guard !event.isUsable else {
                usable.append(event)
                continue
            }
            guard self.interstitials.ignored[event.identifier] != event.defects else { continue }
            self.interstitials.ignored[event.identifier] = event.defects
            for defect in event.defects {
                self.emit(
                    "eventIgnored",
                    [
                        ("event_id", .string(event.identifier)), ("rule", .string(defect.rule.id.rawValue)),
                        ("message", .string(defect.message)),
                    ]
                )
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
        self.notify(.assetListResponseStatusDidChange(event, .cleared, nil))
    }

    /// Drops the presentations of an event's assets.
    func dropAssetPresentations(of eventID: String) {
        for key in self.assets.keys where key.eventID == eventID { self.assets[key] = nil }
    }

    func refreshSchedule(playlist given: MediaPlaylist?, now: MediaTime) {
        guard let playlist = given ?? self.primary?.mainTrack?.playlist else { return }
        if given == nil, let schedule = self.interstitials.schedule {
            // Controller events: rebuild, keeping the configuration (played events, start).
            self.interstitials.schedule = Schedule(primary: playlist, events: self.effectiveEvents(), configuration: schedule.configuration)
        }
        if let offset = self.primary?.mainTrack?.stableOffset(of: playlist) { self.interstitials.offset = offset }
        let events = self.effectiveEvents()
        if self.interstitials.schedule == nil {
            var configuration = Schedule.Configuration()
            if playlist.isLive {
                configuration.start = self.currentItem?.startTime.map { .time($0) }
            } else {
                configuration.start = .time(self.currentItem?.startTime ?? .zero)
            }
            self.interstitials.schedule = Schedule(primary: playlist, events: events, configuration: configuration)
        } else {
            _ = self.interstitials.schedule!.update(primary: playlist, events: events)
        }
        // An event playing picks up new attributes (an early return's X-PLAYOUT-LIMIT).
        if var run = self.interstitials.current, let updated = events.first(where: { $0.identifier == run.eventID }), updated != run.event {
            run.event = updated
            self.interstitials.current = run
            self.emit("currentEventUpdated", [("event_id", .string(run.eventID)), ("playoutLimit", .seconds(updated.playoutLimit))])
            // The resume point may have moved (an early return): buffer the primary from there.
            if let brk = self.interstitials.currentBreak {
                let resume = brk.fixedResume ?? self.predictedResume(start: brk.start, ids: brk.finished.map(\.id) + [run.eventID] + brk.queue)
                self.primary?.reposition(to: resume)
            }
        }
        if events != self.interstitials.events {
            let previous = self.interstitials.events
            let removed = previous.filter { old in !events.contains { $0.identifier == old.identifier } }
            self.interstitials.events = events
            self.emit("eventsDidChange", [("events", .array(events.map { .string($0.identifier) }))])
            self.notify(.eventsDidChange(events))
            for event in removed where self.interstitials.lists[event.identifier] != nil && !self.interstitials.passed.contains(event.identifier) {
                self.dropPreparedAssets(of: event)
                self.notify(.eventWasUnscheduled(event, nil))
                self.emit("eventWasUnscheduled", [("event_id", .string(event.identifier)), ("error", .null)])
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

    /// Where playback starts (the schedule's start position) and the pre-rolls or the break a
    /// live join lands in.
    func resolveStart(now: MediaTime) {
        guard let schedule = self.interstitials.schedule else { return }
        let offset = self.interstitials.offset
        guard let start = schedule.start else { return }
        let requested = start.requestedTime + offset
        self.primaryPosition = requested
        self.primary?.reposition(to: requested)
        let prerolls = start.prerollEventIDs
        if !prerolls.isEmpty {
            self.interstitials.passed.formUnion(prerolls)
            // Resumes where resumeTime(of:) says: the pre-rolls' offsets, as after any break.
            self.beginBreak(BreakRun(queue: prerolls, start: requested, startedAt: now), now: now)
            return
        }
        if let eventID = start.eventID, let scheduled = schedule.event(eventID), let eventStart = scheduled.startTime {
            let pod = schedule.events.filter { $0.startTime == eventStart && $0.isScheduled && $0.event.cue == .none }.map(\.identifier)
            let queue = Array(pod.drop { $0 != eventID })
            self.interstitials.passed.formUnion(pod)
            var run = BreakRun(queue: queue, start: eventStart + offset, startedAt: now)
            run.joinOffset = start.startOffset ?? .zero
            // Events of the pod before the one joined were skipped: their share of the primary
            // (their resume offsets) still counts when the primary resumes.
            let coinciding = schedule.events.filter { $0.startTime == eventStart && $0.event.cue == .none }
            for skipped in coinciding.prefix(while: { $0.identifier != eventID }) {
                run.skippedSpan = run.skippedSpan + skipped.resumeOffset
            }
            if !schedule.isLive { run.fixedResume = nil }
            self.primaryPosition = eventStart + offset
            self.beginBreak(run, now: now)
            return
        }
        if start.primaryTime + offset != requested {
            self.primaryPosition = start.primaryTime + offset
            self.primary?.reposition(to: self.primaryPosition)
        }
    }

    /// The stable primary time of a scheduled event's start.
    func stableStart(_ eventID: String) -> MediaTime? {
        self.interstitials.schedule?.event(eventID)?.startTime.map { $0 + self.interstitials.offset }
    }

    /// The next break on the primary at or after the playhead: its start and its events in order.
    func nextBreak() -> (start: MediaTime, ids: [String])? {
        guard let schedule = self.interstitials.schedule else { return nil }
        let offset = self.interstitials.offset
        var best: (start: MediaTime, ids: [String])?
        for scheduled in schedule.events where scheduled.isScheduled && scheduled.event.cue == .none {
            let id = scheduled.identifier
            guard let time = scheduled.startTime, !self.interstitials.passed.contains(id), !self.interstitials.cancelled.contains(id) else { continue }
            let start = time + offset
            guard start >= self.primaryPosition - BufferedRanges.tolerance else { continue }
            if let current = best {
                if start < current.start {
                    best = (start, [id])
                } else if start == current.start {
                    best!.ids.append(id)
                }
            } else {
                best = (start, [id])
            }
        }
        return best
    }

    /// Where primary playback must stop for the next break.
    func primaryBoundary() -> MediaTime? {
        self.nextBreak()?.start
    }

    /// Starts the next break when the playhead reached it; returns whether it did.
    func checkPrimaryBoundary(now: MediaTime) -> Bool {
        guard let next = self.nextBreak(), self.primaryPosition >= next.start - BufferedRanges.tolerance else { return false }
        self.interstitials.passed.formUnion(next.ids)
        self.primaryPosition = next.start
        self.beginBreak(BreakRun(queue: next.ids, start: next.start, startedAt: now), now: now)
        return true
    }

    /// Plays the post-rolls when the primary ends; returns whether any started.
    func startPostRolls(now: MediaTime) -> Bool {
        guard !self.interstitials.postrollsStarted, let schedule = self.interstitials.schedule else { return false }
        self.interstitials.postrollsStarted = true
        let ids = schedule.events.filter { $0.event.cue == .leave && $0.isScheduled }.map(\.identifier)
        guard !ids.isEmpty else { return false }
        self.interstitials.passed.formUnion(ids)
        var run = BreakRun(queue: ids, start: self.primaryPosition, startedAt: now)
        run.fixedResume = self.primaryPosition
        self.beginBreak(run, now: now)
        return true
    }

    // MARK: Breaks

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
        if let join = self.interstitials.currentBreak?.joinOffset, join > .zero, self.interstitials.currentBreak?.finished.isEmpty == true {
            run.assetPosition = .zero
            run.playedBefore = .zero
            self.interstitials.currentBreak?.joinOffset = join
        }
        self.interstitials.current = run
        _ = self.interstitials.schedule?.markPlayed(eventID)
        var fields: [(String, JSONValue)] = [("event_id", .string(eventID))]
        // Where the primary paused for the break (for a live join: where the viewer joined).
        if let start = self.interstitials.currentBreak?.start { fields.append(("primaryTime", .seconds(start))) }
        self.emit("currentEventDidChange", fields)
        self.notify(.currentEventDidChange(event))
        self.updateStatus()
        self.prepareEventAssets(eventID, atMarker: true)
        self.applyJoinOffset(now: now)
    }

    /// A live join inside the break starts the first asset(s) partway.
    func applyJoinOffset(now: MediaTime) {
        guard let brk = self.interstitials.currentBreak, brk.joinOffset > .zero, brk.finished.isEmpty,
            var run = self.interstitials.current, run.eventTime == .zero,
            case .loaded(let slots, _)? = self.interstitials.lists[run.eventID]
        else { return }
        var remaining = brk.joinOffset
        var index = 0
        while index < slots.count, let duration = slots[index].duration, remaining >= duration {
            remaining = remaining - duration
            index += 1
        }
        run.assetIndex = index
        run.playedBefore = brk.joinOffset - remaining
        run.assetPosition = remaining
        run.joinedAt = brk.joinOffset
        self.interstitials.current = run
        let id = PresentationID.asset(run.eventID, index)
        if self.assets[id] == nil, index < slots.count {
            self.assets[id] = Presentation(id: id, url: slots[index].url, startTime: remaining)
        }
    }

    /// Ends the current event and moves to the next event of the break, or resumes the primary.
    func finishEvent(entire: Bool, now: MediaTime) {
        guard let run = self.interstitials.current else { return }
        let playedSomething = run.playedTime > .zero
        self.reportEventDidFinish(run, entire: entire)
        self.interstitials.currentBreak?.finished.append((run.eventID, run.eventTime, now - run.startedAt, playedSomething))
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
        self.emit(
            "eventDidFinish",
            [("event_id", .string(run.eventID)), ("playoutTime", .seconds(played)), ("didPlayEntireEvent", .bool(entire))]
        )
        self.notify(.eventDidFinish(run.event, playoutTime: played, didPlayEntireEvent: entire))
    }

    /// Resumes the primary after a break, where the schedule and the events' offsets say.
    func endBreak(now: MediaTime) {
        guard let brk = self.interstitials.currentBreak else { return }
        self.interstitials.currentBreak = nil
        self.interstitials.current = nil
        self.interstitials.repositionedFor = nil
        let resume = self.resumeTime(of: brk, now: now)
        self.emit("currentEventDidChange", [("event_id", .null)])
        self.notify(.currentEventDidChange(nil))
        if self.interstitials.postrollsStarted, self.primary?.duration.map({ self.primaryPosition >= $0 - BufferedRanges.tolerance }) ?? false {
            self.updateStatus()
            self.primaryDidEnd(now: now)
            return
        }
        self.emit("primaryResumed", [("primaryTime", .seconds(resume))])
        self.isStalled = false
        self.jumpPrimary(to: resume, now: now)
        self.updateStatus()
        self.checkTransitions(now: now)
    }

    /// Where the primary resumes after `brk` (§6 resumption, D.5 failures).
    func resumeTime(of brk: BreakRun, now: MediaTime) -> MediaTime {
        if let fixed = brk.fixedResume { return fixed }
        if brk.resumeByElapsed { return brk.start + brk.skippedSpan + brk.joinOffset + (now - brk.startedAt) }
        let isLive = self.interstitials.schedule?.isLive ?? false
        var total = MediaTime.zero
        var elapsedUsed = false
        for finished in brk.finished {
            let scheduled = self.interstitials.schedule?.event(finished.id)
            let event = self.interstitials.events.first { $0.identifier == finished.id } ?? scheduled?.event
            let given = event?.resumptionOffset
            if self.interstitials.cancelled.contains(finished.id) || !finished.playedSomething {
                total = total + (given ?? .zero)
            } else if let given {
                total = total + given
            } else if isLive {
                total = total + finished.elapsed
                elapsedUsed = true
            } else if scheduled?.resumeOffsetSource == .unknown {
                // No X-RESUME-OFFSET and no duration in the playlist: the offset is the
                // interstitial's duration (D.2), which its assets told once loaded.
                total = total + finished.playout
            } else {
                total = total + (scheduled?.resumeOffset ?? finished.playout)
            }
        }
        var resume = brk.start + brk.skippedSpan + total + (elapsedUsed ? brk.joinOffset : .zero)
        if let last = brk.finished.last, let event = self.interstitials.events.first(where: { $0.identifier == last.id }),
            event.alignsResumptionWithPrimarySegmentBoundary, let main = self.primary?.mainTrack
        {
            var best: MediaTime?
            for segment in main.segments {
                for edge in [segment.start, segment.end] where best == nil || (edge - resume).magnitude < (best! - resume).magnitude {
                    best = edge
                }
            }
            resume = best ?? resume
        }
        return resume
    }

    // MARK: Late binding and pre-buffering

    /// Makes sure an event's assets are known: an `X-ASSET-URI` event has one asset; an
    /// `X-ASSET-LIST` event's list is requested (once the primary is buffered to the marker).
    func prepareEventAssets(_ eventID: String, atMarker: Bool) {
        guard self.interstitials.lists[eventID] == nil, !self.interstitials.cancelled.contains(eventID),
            let event = self.interstitials.events.first(where: { $0.identifier == eventID }) ?? self.interstitials.schedule?.event(eventID)?.event
        else { return }
        if event.assetListURI == nil {
            let slots = event.assetURIs.map { uri in
                AssetSlot(url: InterstitialRequestURL.asset(self.resolveAgainstPrimary(uri), primaryID: self.sessionID), duration: nil)
            }
            self.interstitials.lists[eventID] = .loaded(slots, event.skipControl)
            if slots.isEmpty { self.emit("assetListLoaded", [("event_id", .string(eventID)), ("assets", .number(0)), ("duration", .number(0))]) }
            return
        }
        guard let listURI = event.assetListURI else { return }
        var startOffset: MediaTime?
        if let brk = self.interstitials.currentBreak, brk.joinOffset > .zero, self.interstitials.current?.eventID == eventID,
            self.interstitials.schedule?.isLive == true
        {
            startOffset = brk.joinOffset
        }
        let url = InterstitialRequestURL.assetList(self.resolveAgainstPrimary(listURI), primaryID: self.sessionID, liveStartOffset: startOffset)
        self.interstitials.lists[eventID] = .loading
        self.pendingLoads.append(
            PendingLoad(
                purpose: .assetList(eventID: eventID),
                request: LoadRequest(
                    url: url,
                    kind: .assetList,
                    timeout: self.configuration.interstitialRequestTimeout,
                    maximumBodySize: self.configuration.maximumAssetListSize,
                    keepsBody: true
                )
            )
        )
    }

    func resolveAgainstPrimary(_ uri: String) -> String {
        let base = self.primary?.mainTrack?.playlistURL ?? self.currentItem?.url ?? ""
        return URIReference.resolve(uri, against: base)
    }

    /// An asset list answered.
    func handleAssetList(eventID: String, _ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        guard case .loading? = self.interstitials.lists[eventID] else { return }
        let event = self.interstitials.events.first { $0.identifier == eventID } ?? self.interstitials.schedule?.event(eventID)?.event
        let decoded: Result<AssetList, PlaybackError>
        switch Presentation.body(result, url: eventID) {
        case .failure(let error): decoded = .failure(error)
        case .success(let bytes):
            do {
                decoded = .success(try AssetList.decode(bytes))
            } catch {
                decoded = .failure(PlaybackError(code: .invalidAssetList, message: "\(error)"))
            }
        }
        switch decoded {
        case .success(let list):
            let slots = list.assets.map { asset in
                AssetSlot(url: InterstitialRequestURL.asset(asset.uri, primaryID: self.sessionID), duration: asset.mediaDuration)
            }
            let skip = event.flatMap { list.effectiveSkipControl(for: $0) }
            self.interstitials.lists[eventID] = .loaded(slots, skip)
            _ = self.interstitials.schedule?.setAssetDurations(list.assets.map(\.mediaDuration), forEvent: eventID)
            self.emit(
                "assetListLoaded",
                [("event_id", .string(eventID)), ("assets", .number(Double(slots.count))), ("duration", .number(list.totalDuration))]
            )
            if let event { self.notify(.assetListResponseStatusDidChange(event, .available, nil)) }
            self.applyJoinOffset(now: now)
        case .failure(var error):
            if error.url == nil || error.url == eventID { error.url = nil }
            self.interstitials.lists[eventID] = .failed(error)
            self.interstitials.cancelled.insert(eventID)
            self.emit("assetListFailed", [("event_id", .string(eventID)), ("error", .string(error.description))])
            if let event {
                self.notify(.assetListResponseStatusDidChange(event, .unavailable, error))
                if self.interstitials.current?.eventID != eventID {
                    self.notify(.eventWasUnscheduled(event, error))
                    self.emit("eventWasUnscheduled", [("event_id", .string(eventID)), ("error", .string(error.code.description))])
                }
            }
        }
        self.checkTransitions(now: now)
    }

    /// An asset presentation failed: skip that asset (an `X-ASSET-URI` event is cancelled).
    func assetDidFail(_ id: PresentationID, error: PlaybackError, now: MediaTime) {
        guard let eventID = id.eventID, case .loaded(var slots, let skip)? = self.interstitials.lists[eventID], slots.indices.contains(id.assetIndex) else { return }
        slots[id.assetIndex].failed = true
        self.interstitials.lists[eventID] = .loaded(slots, skip)
        self.emit("interstitialAssetFailed", [("event_id", .string(eventID)), ("index", .number(Double(id.assetIndex))), ("error", .string(error.description))])
        let event = self.interstitials.events.first { $0.identifier == eventID }
        if event?.assetListURI == nil, self.interstitials.current?.eventID != eventID {
            // D.5: a failed X-ASSET-URI request cancels the event with resume offset 0.
            self.interstitials.cancelled.insert(eventID)
            if let event {
                self.notify(.eventWasUnscheduled(event, error))
                self.emit("eventWasUnscheduled", [("event_id", .string(eventID)), ("error", .string(error.code.description))])
            }
        }
        self.checkTransitions(now: now)
    }

    /// The events whose assets buffer now: the current break's, else the next break's once the
    /// primary is buffered to its marker.
    func bufferingBreak() -> [String]? {
        if let run = self.interstitials.current {
            return [run.eventID] + (self.interstitials.currentBreak?.queue ?? [])
        }
        guard let next = self.nextBreak(), let primary = self.primary else { return nil }
        guard primary.bufferedEnd(from: self.primaryPosition) >= next.start - BufferedRanges.tolerance else { return nil }
        return next.ids
    }

    /// Loads for interstitials: asset lists (late binding), then each asset in order, one at a time.
    func interstitialLoads(now: MediaTime, settings: StreamingSettings) -> [PendingLoad] {
        guard let ids = self.bufferingBreak() else { return [] }
        var loads: [PendingLoad] = []
        var interstitialSettings = settings
        interstitialSettings.playlistTimeout = self.configuration.interstitialRequestTimeout
        var languages: [String] = []
        if let audio = self.primary?.audioLanguage { languages.append(audio) }
        if let subtitles = self.primary?.subtitleLanguage, !languages.contains(subtitles) { languages.append(subtitles) }
        for eventID in ids {
            self.prepareEventAssets(eventID, atMarker: false)
            guard case .loaded(let slots, _)? = self.interstitials.lists[eventID] else {
                if case .loading? = self.interstitials.lists[eventID] { return loads }
                continue
            }
            let event = self.interstitials.events.first { $0.identifier == eventID }
            var before = MediaTime.zero
            let first = self.interstitials.current?.eventID == eventID ? self.interstitials.current!.assetIndex : 0
            for (index, slot) in slots.enumerated() where index >= first {
                if let limit = event?.playoutLimit, before >= limit { break }
                before = before + (slot.duration ?? .zero)
                guard !slot.failed else { continue }
                let id = PresentationID.asset(eventID, index)
                var presentation = self.assets[id] ?? Presentation(id: id, url: slot.url)
                presentation.languageOverride = languages
                let start = presentation.startTime
                loads += presentation.nextLoads(now: now, limit: start + self.configuration.forwardBufferDuration, settings: interstitialSettings)
                let done = presentation.hasFailed || presentation.isFullyBuffered(from: start)
                self.assets[id] = presentation
                if !done { return loads }
            }
        }
        // The whole break is buffered: buffer the primary from where it will resume.
        if self.interstitials.current == nil, let next = self.nextBreak(), self.interstitials.repositionedFor != next.ids.first {
            self.interstitials.repositionedFor = next.ids.first
            let resume = self.predictedResume(start: next.start, ids: next.ids)
            if resume != next.start { self.primary?.reposition(to: resume) }
        }
        return loads
    }

    func predictedResume(start: MediaTime, ids: [String]) -> MediaTime {
        var total = MediaTime.zero
        for id in ids where !self.interstitials.cancelled.contains(id) {
            let scheduled = self.interstitials.schedule?.event(id)
            if scheduled?.resumeOffsetSource == .unknown, let loaded = self.loadedDuration(of: id) {
                total = total + loaded
            } else {
                total = total + (scheduled?.resumeOffset ?? .zero)
            }
        }
        return start + total
    }

    /// The duration of an event's assets (capped by its playout limit) once every one is loaded.
    private func loadedDuration(of eventID: String) -> MediaTime? {
        guard case .loaded(let slots, _)? = self.interstitials.lists[eventID] else { return nil }
        var total = MediaTime.zero
        for index in slots.indices where !slots[index].failed {
            guard let duration = self.assets[.asset(eventID, index)]?.duration else { return nil }
            total = total + duration
        }
        if let limit = self.event(eventID)?.playoutLimit { total = MediaTime.min(total, limit) }
        return total
    }

    /// How far the primary may buffer: the forward buffer, but not past the next break's marker
    /// until that break's assets are buffered; then from its resume point.
    func primaryBufferLimit() -> MediaTime {
        let end = self.primaryPosition + self.configuration.forwardBufferDuration
        guard let next = self.nextBreak() else {
            if let brk = self.interstitials.currentBreak, self.interstitials.current != nil {
                // During a break with nothing after it: buffer from the resume point.
                let resume = self.predictedResume(start: brk.start, ids: [])
                return resume + self.configuration.forwardBufferDuration
            }
            return end
        }
        if self.interstitials.current == nil, self.interstitials.repositionedFor == next.ids.first {
            let resume = self.predictedResume(start: next.start, ids: next.ids)
            let left = self.configuration.forwardBufferDuration - (next.start - self.primaryPosition)
            return resume + MediaTime.max(left, self.configuration.resumeBufferDuration * 2)
        }
        return MediaTime.min(end, next.start)
    }

    func assetStartPosition(_ id: PresentationID) -> MediaTime {
        if let run = self.interstitials.current, run.eventID == id.eventID, run.assetIndex == id.assetIndex { return run.assetPosition }
        return self.assets[id]?.startTime ?? .zero
    }

    // MARK: Playing an event

    var currentAssetID: PresentationID? {
        guard let run = self.interstitials.current else { return nil }
        return .asset(run.eventID, run.assetIndex)
    }

    /// How far the current asset may play: its buffer, its end, the playout limit.
    func currentAssetLimit() -> MediaTime? {
        guard let run = self.interstitials.current, let id = self.currentAssetID, let presentation = self.assets[id], presentation.isReady else { return nil }
        var limit = presentation.bufferedEnd(from: run.assetPosition)
        if let duration = presentation.duration { limit = MediaTime.min(limit, duration) }
        if let playout = run.event.playoutLimit { limit = MediaTime.min(limit, playout - run.playedBefore) }
        return limit
    }

    func advanceInterstitial(by distance: MediaTime) {
        guard var run = self.interstitials.current, !run.stalled, let limit = self.currentAssetLimit() else { return }
        run.assetPosition = MediaTime.min(run.assetPosition + distance, MediaTime.max(limit, run.assetPosition))
        self.interstitials.current = run
    }

    func interstitialPlaybackDeadline(now: MediaTime) -> MediaTime? {
        guard let run = self.interstitials.current, !run.stalled, let limit = self.currentAssetLimit() else { return nil }
        guard limit > run.assetPosition else { return now }
        return now + MediaTime(seconds: (limit - run.assetPosition).seconds / self.rate)
    }

    /// Skip-control changes are due at their offsets.
    func interstitialDeadline(now: MediaTime) -> MediaTime? {
        guard let run = self.interstitials.current, !run.stalled, self.rate > 0, let report = self.skipReport() else { return nil }
        let times = [report.eligibleFrom, report.eligibleUntil].compactMap { $0 }.filter { $0 > run.eventTime }
        guard let next = times.min() else { return nil }
        return now + MediaTime(seconds: (next - run.eventTime).seconds / self.rate)
    }

    func skipReport() -> SkipStateReport? {
        guard let run = self.interstitials.current, let schedule = self.interstitials.schedule else { return nil }
        var control: SkipControl?
        if case .loaded(_, let skip)? = self.interstitials.lists[run.eventID] { control = skip }
        let policy = NavigationPolicy(schedule: schedule)
        let start = (self.interstitials.currentBreak?.start ?? self.primaryPosition) - self.interstitials.offset
        return policy.skipState(at: .interstitial(run.eventID, at: run.eventTime, primaryTime: start), skipControl: control ?? run.event.skipControl)
    }

    func setSkipState(_ state: SkippableEventState, event: InterstitialEvent) {
        guard state != self.interstitials.skipState else { return }
        self.interstitials.skipState = state
        self.emit("skippableStateDidChange", [("event_id", .string(event.identifier)), ("state", .string(state.description))])
        self.notify(.currentEventSkippableStateDidChange(event, state, labelID: state == .notSkippable ? nil : event.skipControl?.labelID))
    }

    /// Reacts to where the event's playhead is: assets starting and ending, the playout limit,
    /// failures, stalls.
    func checkInterstitialTransitions(now: MediaTime) {
        while var run = self.interstitials.current {
            let eventID = run.eventID
            guard let list = self.interstitials.lists[eventID] else {
                self.prepareEventAssets(eventID, atMarker: true)
                if self.interstitials.lists[eventID] == nil {
                    self.finishEvent(entire: false, now: now)
                    continue
                }
                return
            }
            switch list {
            case .loading:
                self.setEventStalled(true)
                return
            case .failed:
                self.finishEvent(entire: false, now: now)
                continue
            case .loaded(let slots, _):
                if let report = self.skipReport() { self.setSkipState(report.state, event: run.event) }
                if let limit = run.event.playoutLimit, run.eventTime >= limit - BufferedRanges.tolerance, run.eventTime > .zero || limit == .zero {
                    if run.assetStarted {
                        self.emit("interstitialAssetEnded", [("event_id", .string(eventID)), ("index", .number(Double(run.assetIndex))), ("playoutTime", .seconds(run.assetPosition))])
                    }
                    // The limit cut the event short when asset material is left (an early return).
                    var left = run.assetIndex < slots.count - 1
                    if run.assetIndex < slots.count {
                        let duration = self.assets[.asset(eventID, run.assetIndex)]?.duration ?? slots[run.assetIndex].duration
                        if let duration, run.assetPosition < duration - BufferedRanges.tolerance { left = true }
                    }
                    self.finishEvent(entire: !left, now: now)
                    continue
                }
                if run.assetIndex >= slots.count {
                    let anyPlayed = run.eventTime > .zero
                    self.finishEvent(entire: anyPlayed || slots.isEmpty || slots.allSatisfy { !$0.failed }, now: now)
                    continue
                }
                if slots[run.assetIndex].failed {
                    run.assetIndex += 1
                    run.assetPosition = .zero
                    run.assetStarted = false
                    self.interstitials.current = run
                    if slots[(run.assetIndex - 1)...].allSatisfy(\.failed), event(eventID)?.assetListURI == nil {
                        self.interstitials.cancelled.insert(eventID)
                    }
                    continue
                }
                let id = PresentationID.asset(eventID, run.assetIndex)
                if self.assets[id] == nil { self.assets[id] = Presentation(id: id, url: slots[run.assetIndex].url, startTime: run.assetPosition) }
                guard let presentation = self.assets[id], presentation.isReady else {
                    self.setEventStalled(true)
                    return
                }
                if !run.assetStarted {
                    run.assetStarted = true
                    self.interstitials.current = run
                    self.emit("interstitialAssetStarted", [("event_id", .string(eventID)), ("index", .number(Double(run.assetIndex))), ("url", .string(slots[run.assetIndex].url))])
                }
                if let duration = presentation.duration, run.assetPosition >= duration - BufferedRanges.tolerance {
                    self.emit("interstitialAssetEnded", [("event_id", .string(eventID)), ("index", .number(Double(run.assetIndex))), ("playoutTime", .seconds(run.assetPosition))])
                    run.playedBefore = run.playedBefore + run.assetPosition
                    run.assetIndex += 1
                    run.assetPosition = .zero
                    run.assetStarted = false
                    self.interstitials.current = run
                    self.assets[id] = nil
                    continue
                }
                let end = presentation.bufferedEnd(from: run.assetPosition)
                if run.stalled {
                    var needed = self.configuration.resumeBufferDuration
                    if let duration = presentation.duration { needed = MediaTime.min(needed, duration - run.assetPosition) }
                    if end - run.assetPosition >= needed { self.setEventStalled(false) }
                } else if end <= run.assetPosition {
                    self.setEventStalled(true)
                }
                return
            }
        }
    }

    private func event(_ id: String) -> InterstitialEvent? {
        self.interstitials.events.first { $0.identifier == id }
    }

    func setEventStalled(_ stalled: Bool) {
        guard var run = self.interstitials.current, run.stalled != stalled else { return }
        run.stalled = stalled
        self.interstitials.current = run
    }

    // MARK: Navigation policy

    func decideRate(_ rate: Double) -> RateResult {
        guard let run = self.interstitials.current, let schedule = self.interstitials.schedule else {
            return RateResult(isAllowed: true, rate: rate, reason: "primary content has no rate restriction")
        }
        let start = (self.interstitials.currentBreak?.start ?? self.primaryPosition) - self.interstitials.offset
        let decision = NavigationPolicy(schedule: schedule).resolveRate(rate, at: .interstitial(run.eventID, at: run.eventTime, primaryTime: start))
        return RateResult(isAllowed: decision.isAllowed, rate: rate, reason: decision.reason)
    }

    func performSeek(to time: MediaTime) -> SeekResult {
        let now = self.clock.now
        guard let schedule = self.interstitials.schedule else {
            self.jumpPrimary(to: time, now: now)
            return SeekResult(isAllowed: true, requestedTime: time, grantedTime: time, reason: "no schedule yet")
        }
        let offset = self.interstitials.offset
        let playhead: Playhead
        if let run = self.interstitials.current {
            playhead = .interstitial(run.eventID, at: run.eventTime, primaryTime: (self.interstitials.currentBreak?.start ?? self.primaryPosition) - offset)
        } else {
            playhead = .primary(self.primaryPosition - offset)
        }
        let plan = NavigationPolicy(schedule: schedule).resolveSeek(to: .primary(time - offset), from: playhead)
        guard plan.isAllowed else {
            return SeekResult(isAllowed: false, requestedTime: time, grantedTime: nil, reason: plan.reason)
        }
        if let run = self.interstitials.current {
            // Leave the break without resuming the primary: the seek decides where it goes.
            self.interstitials.currentBreak?.queue.removeAll()
            self.reportEventDidFinish(run, entire: false)
            self.dropAssetPresentations(of: run.eventID)
            self.interstitials.current = nil
            self.interstitials.currentBreak = nil
            self.setSkipState(.notSkippable, event: run.event)
            self.emit("currentEventDidChange", [("event_id", .null)])
            self.notify(.currentEventDidChange(nil))
        }
        let granted = (plan.primaryTime ?? (time - offset)) + offset
        // Events at or after the target may play again (CUE=ONCE ones are kept out by the schedule).
        self.interstitials.passed = self.interstitials.passed.filter { id in
            guard let start = self.stableStart(id) else { return true }
            return start < time
        }
        self.interstitials.repositionedFor = nil
        if let first = plan.interstitials.first {
            let start = self.stableStart(first) ?? self.primaryPosition
            self.interstitials.passed.formUnion(plan.interstitials)
            self.primaryPosition = start
            self.primary?.reposition(to: granted)
            var run = BreakRun(queue: plan.interstitials, start: start, startedAt: now)
            run.fixedResume = granted
            self.beginBreak(run, now: now)
        } else {
            self.jumpPrimary(to: granted, now: now)
            self.updateStatus()
        }
        return SeekResult(isAllowed: true, requestedTime: time, grantedTime: granted, interstitials: plan.interstitials, reason: plan.reason)
    }

    // MARK: Integrated timeline

    /// The playhead on the integrated timeline.
    func integratedPosition() -> MediaTime {
        guard let schedule = self.interstitials.schedule else { return self.primaryPosition }
        let offset = self.interstitials.offset
        if let run = self.interstitials.current, let index = schedule.index(of: .interstitial(run.eventID)) {
            let item = schedule.items[index]
            return item.integrated.start + MediaTime.min(run.eventTime, item.integrated.duration)
        }
        let p = self.primaryPosition - offset
        for item in schedule.items where item.kind == .primary && item.primary.start <= p && p <= item.primary.end {
            return item.integrated.start + (p - item.primary.start)
        }
        return p
    }

    /// A snapshot of the integrated timeline for user interfaces: primary stretches and
    /// interstitials in play order with their ranges, the current segment and position.
    public func integratedTimelineSnapshot() -> IntegratedTimelineSnapshot {
        let offset = self.interstitials.offset
        guard let schedule = self.interstitials.schedule else {
            return IntegratedTimelineSnapshot(segments: [], currentSegmentIndex: nil, currentTime: self.primaryPosition, duration: self.primary?.duration, isLive: self.primary?.isLive ?? false)
        }
        let segments = schedule.items.map { item in
            IntegratedTimelineSnapshot.Segment(
                kind: item.kind,
                event: item.eventID.flatMap { id in self.interstitials.events.first { $0.identifier == id } },
                primary: ScheduleItem.Span(start: item.primary.start + offset, end: item.primary.end + offset),
                playout: item.playout,
                integrated: item.integrated
            )
        }
        let time = self.integratedPosition()
        var current: Int?
        if let run = self.interstitials.current {
            current = schedule.index(of: .interstitial(run.eventID))
        } else {
            current = segments.firstIndex { $0.kind == .primary && $0.primary.start <= self.primaryPosition && self.primaryPosition <= $0.primary.end }
        }
        return IntegratedTimelineSnapshot(
            segments: segments,
            currentSegmentIndex: current,
            currentTime: time,
            duration: schedule.isLive ? nil : schedule.integratedDuration,
            isLive: schedule.isLive
        )
    }
}

/// The integrated timeline at one moment (AVFoundation `AVPlayerItemIntegratedTimelineSnapshot`).
public struct IntegratedTimelineSnapshot: Sendable, Hashable {
    /// One stretch of the timeline (AVFoundation `AVPlayerItemSegment`).
    public struct Segment: Sendable, Hashable {
        /// Primary content or an interstitial.
        public var kind: ScheduleItem.Kind
        /// The interstitial's event (`nil` for primary content).
        public var event: InterstitialEvent?
        /// The range on the primary timeline (for an interstitial: its start to the resume point).
        public var primary: ScheduleItem.Span
        /// The range on the playout axis.
        public var playout: ScheduleItem.Span
        /// The range on the integrated axis (point events have zero width).
        public var integrated: ScheduleItem.Span
    }
    /// The segments in play order.
    public var segments: [Segment]
    /// The segment playing.
    public var currentSegmentIndex: Int?
    /// The playhead on the integrated axis.
    public var currentTime: MediaTime
    /// The integrated duration; `nil` for live or before loading.
    public var duration: MediaTime?
    /// Whether the primary is live.
    public var isLive: Bool
}
