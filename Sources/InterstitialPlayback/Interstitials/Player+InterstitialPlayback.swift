import HLSInterstitials
import HLSPlaylist

// Playing an event, and the navigation policy while one plays.
extension Player {
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
        var control = event.skipControl
        if case .loaded(_, let effective)? = self.interstitials.lists[event.identifier] { control = effective }
        let old = self.interstitials.skipState
        self.interstitials.skipState = state
        self.perform(self.interstitials.coordinator.skipStateChanged(from: old, to: state, event: event, control: control), now: self.clock.now)
    }

    /// Reacts to where the event's playhead is: assets starting and ending, the playout limit,
    /// failures, stalls.
    func checkInterstitialTransitions(now: MediaTime) {
        while var run = self.interstitials.current {
            let eventID = run.eventID
            guard let list = self.interstitials.lists[eventID] else {
                self.prepareEventAssets(eventID)
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
                        self.emit(.interstitialAssetEnded(eventID: eventID, index: run.assetIndex, playoutTime: run.assetPosition))
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
                        self.cancelEvent(eventID, now: now)
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
                    self.emit(.interstitialAssetStarted(eventID: eventID, index: run.assetIndex, url: slots[run.assetIndex].url))
                }
                if let duration = presentation.duration, run.assetPosition >= duration - BufferedRanges.tolerance {
                    self.emit(.interstitialAssetEnded(eventID: eventID, index: run.assetIndex, playoutTime: run.assetPosition))
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

    func event(_ id: String) -> InterstitialEvent? {
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
            self.emit(.currentEventDidChange(nil, primaryTime: nil, joinedAt: nil))
            self.perform(self.interstitials.coordinator.breakDidEnd(rate: self.rate), now: now)
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
}
