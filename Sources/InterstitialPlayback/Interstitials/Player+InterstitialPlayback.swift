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
        guard let run = self.interstitials.current, let id = self.currentAssetID, let presentation = self.assets[id],
            presentation.isReady
        else { return nil }
        let buffered = presentation.bufferedEnd(from: run.assetPosition)
        return self.interstitials.coordinator.assetLimit(run, bufferedEnd: buffered, duration: presentation.duration)
    }

    func advanceInterstitial(by distance: MediaTime) {
        guard let run = self.interstitials.current, !run.stalled, let limit = self.currentAssetLimit() else { return }
        self.interstitials.coordinator.advanceCurrent(by: distance, limit: limit)
    }

    func skipReport() -> SkipStateReport? {
        self.interstitials.coordinator.skipReport(
            of: self.interstitials.current,
            list: self.interstitials.current.flatMap { self.interstitials.lists[$0.eventID] },
            schedule: self.interstitials.schedule,
            at: self.playhead
        )
    }

    func setSkipState(_ state: SkippableEventState, event: InterstitialEvent) {
        var control = event.skipControl
        if case .loaded(_, let effective)? = self.interstitials.lists[event.identifier] { control = effective }
        self.perform(
            self.interstitials.coordinator.setSkipState(state, event: event, control: control),
            now: self.clock.now
        )
    }

    /// Reacts to where the event's playhead is: assets starting and ending, the playout limit,
    /// failures, stalls.
    ///
    /// - Returns: The follow-up inputs (an event that ends, then this check again).
    func eventTransitions(now: MediaTime) -> [InterstitialCoordinator.Action] {
        while let run = self.interstitials.current {
            let eventID = run.eventID
            switch self.interstitials.coordinator.listStep(self.interstitials.lists[eventID]) {
            case .prepare:
                let follow = self.prepareEventAssets(eventID)
                // No assets and no list requested: the event cannot play.
                let requested = follow.contains { if case .loadAssetList = $0 { true } else { false } }
                if self.interstitials.lists[eventID] == nil && !requested {
                    return follow + [.finishEvent(entire: false), .checkEvent]
                }
                return follow
            case .wait:
                self.setEventStalled(true)
                return []
            case .finish:
                return [.finishEvent(entire: false), .checkEvent]
            case .play(let slots):
                if let report = self.skipReport() { self.setSkipState(report.state, event: run.event) }
                let id = PresentationID.asset(eventID, run.assetIndex)
                if slots.indices.contains(run.assetIndex), !slots[run.assetIndex].failed, self.assets[id] == nil {
                    self.assets[id] = Presentation(id: id, url: slots[run.assetIndex].url, startTime: run.assetPosition)
                }
                let presentation = self.assets[id]
                self.trackBeacons(now: now)
                let step = self.interstitials.coordinator.assetStep(
                    run,
                    slots: slots,
                    assetDuration: presentation?.duration,
                    assetReady: presentation?.isReady ?? false
                )
                switch step {
                case .finishEvent(let entire, let endAsset):
                    let ended = endAsset ? [self.interstitials.coordinator.assetEnded(run)] : []
                    return ended + [.finishEvent(entire: entire), .checkEvent]
                case .skipFailedAsset(let cancelEvent):
                    self.interstitials.coordinator.skipFailedCurrentAsset()
                    if cancelEvent { self.cancelEvent(eventID, now: now) }
                case .awaitAsset:
                    self.setEventStalled(true)
                    return []
                case .startAsset:
                    let started = self.interstitials.coordinator.startCurrentAsset(url: slots[run.assetIndex].url)
                    return started + [.checkEvent]
                case .nextAsset:
                    let ended = self.interstitials.coordinator.nextCurrentAsset()
                    self.assets[id] = nil
                    return ended + [.checkEvent]
                case .play:
                    guard let presentation else { return [] }
                    self.updateEventStall(run, presentation: presentation)
                    return []
                }
            }
        }
        return []
    }

    /// Stalls the event when its asset's buffer ran out, and resumes it once enough is buffered.
    func updateEventStall(_ run: EventRun, presentation: Presentation) {
        let stalled = self.interstitials.coordinator.isStalled(
            run,
            bufferedEnd: presentation.bufferedEnd(from: run.assetPosition),
            assetDuration: presentation.duration,
            resumeBuffer: self.configuration.resumeBufferDuration
        )
        self.setEventStalled(stalled)
    }

    func event(_ id: String) -> InterstitialEvent? {
        self.interstitials.events.first { $0.identifier == id }
    }

    func setEventStalled(_ stalled: Bool) {
        self.interstitials.coordinator.setCurrentStalled(stalled)
    }

    // MARK: Navigation policy

    func decideRate(_ rate: Double) -> RateResult {
        self.interstitials.coordinator.rateDecision(
            rate,
            playing: self.interstitials.current != nil,
            schedule: self.interstitials.schedule,
            at: self.playhead
        )
    }

    /// The playhead as the navigation policy sees it.
    var playhead: Playhead {
        self.interstitials.coordinator.playhead(
            current: self.interstitials.current,
            breakStart: self.interstitials.currentBreak?.start,
            position: self.primaryPosition,
            offset: self.interstitials.offset
        )
    }

    /// What ``seek(to:)`` would come to now, without moving: the same navigation policy, asked
    /// only.
    ///
    /// A coordinator checks a viewer's group seek with it before the group moves.
    public func wouldSeek(to time: MediaTime) -> SeekResult {
        switch self.seekDecision(to: time, now: self.clock.now) {
        case nil: SeekResult(isAllowed: true, requestedTime: time, grantedTime: time, reason: "no schedule yet")
        case .failure(let refusal):
            SeekResult(isAllowed: false, requestedTime: time, grantedTime: nil, reason: refusal.reason)
        case .success(let decision): Self.granted(decision, requested: time)
        }
    }

    /// The navigation policy's answer to a seek from the playhead now; `nil` before there is a
    /// schedule.
    private func seekDecision(to time: MediaTime, now: MediaTime) -> Result<SeekDecision, NavigationRefusal>? {
        guard let context = self.breakContext else { return nil }
        return self.interstitials.coordinator.seek(
            to: time,
            from: self.playhead,
            in: context,
            position: self.primaryPosition,
            now: now
        )
    }

    /// A granted seek's result.
    private static func granted(_ decision: SeekDecision, requested time: MediaTime) -> SeekResult {
        let plan = decision.plan
        return SeekResult(
            isAllowed: true,
            requestedTime: time,
            grantedTime: decision.granted,
            interstitials: plan.interstitials,
            reason: plan.reason
        )
    }

    /// Seeks the primary to `time`, where the interstitial event `eventID` is, and enters that
    /// event `offset` into it (across its assets) when it begins there, instead of from its start:
    /// how a participant joins a shared interstitial the group is already inside.
    ///
    /// - Returns: What the seek came to (the navigation policy decides, as for ``seek(to:)``).
    @discardableResult
    public func seek(to time: MediaTime, enteringInterstitial eventID: String, at offset: MediaTime) -> SeekResult {
        self.interstitials.coordinator.enterOnNextBegin(InterstitialStart(eventID: eventID, offset: offset))
        let result = self.seek(to: time)
        if !result.isAllowed { self.interstitials.coordinator.enterOnNextBegin(nil) }
        return result
    }

    /// What ``setRate(_:)`` would come to now, without changing the rate.
    public func wouldSetRate(_ rate: Double) -> RateResult {
        self.decideRate(rate)
    }

    func performSeek(to time: MediaTime) -> SeekResult {
        let now = self.clock.now
        let decision: SeekDecision
        switch self.seekDecision(to: time, now: now) {
        case nil:
            self.jumpPrimary(to: time, now: now)
            return SeekResult(isAllowed: true, requestedTime: time, grantedTime: time, reason: "no schedule yet")
        case .failure(let refusal):
            return SeekResult(isAllowed: false, requestedTime: time, grantedTime: nil, reason: refusal.reason)
        case .success(let granted):
            decision = granted
        }
        // Leave the break without resuming the primary: the seek decides where it goes.
        self.perform(self.interstitials.coordinator.seekLeavesBreak(), now: now)
        // Events at or after the target may play again (CUE=ONCE ones are kept out by the schedule).
        self.interstitials.coordinator.seekGranted(decision)
        self.interstitials.coordinator.forgetReposition()
        if let plan = decision.breakPlan {
            self.primary?.reposition(to: decision.granted)
            self.beginBreak(plan, now: now)
        } else {
            self.jumpPrimary(to: decision.granted, now: now)
            self.updateStatus()
        }
        return Self.granted(decision, requested: time)
    }
}
