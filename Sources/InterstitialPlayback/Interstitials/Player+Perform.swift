import HLSInterstitials
import HLSPlaylist

// The actor's half of the interstitial engine: it carries out what the coordinator decided and
// feeds it the results, one input at a time.
extension Player {
    /// Performs the coordinator's actions, and the follow-up inputs each one leads to, depth first
    /// (the follow-ups of an action run before the actions after it), until none is left.
    ///
    /// Sequencing breaks, events and assets is a loop here, never a chain of calls back into the
    /// actor: each step returns what comes next.
    ///
    /// - Returns: The reason of a refusal among the actions, if any.
    @discardableResult
    func perform(_ actions: [InterstitialCoordinator.Action], now: MediaTime) -> String? {
        var refusal: String?
        var stack = Array(actions.reversed())
        while let action = stack.popLast() {
            if case .refuse(let reason) = action {
                refusal = reason
                continue
            }
            stack += self.carryOut(action, now: now).reversed()
        }
        return refusal
    }

    /// Carries out one action; returns the follow-up inputs it led to.
    private func carryOut(_ action: InterstitialCoordinator.Action, now: MediaTime) -> [InterstitialCoordinator.Action]
    {
        switch action {
        case .emit(let event): self.emit(event)
        case .setRate(let rate):
            self.rate = max(0, rate)
            self.updateStatus()
        case .refuse: break
        case .cancelEvent(let eventID): self.cancelEvent(eventID, now: now)
        case .loadAssetList(let eventID, let url): self.loadAssetList(eventID: eventID, url: url)
        case .armTimer: break  // The run loop arms it when it works out its deadline (`nextDeadline(now:)`).
        case .sendBeacon(let url): self.pendingLoads.append(self.beaconLoad(url: url))
        case .finishCurrentEvent: return self.interstitials.coordinator.finishEvent(entire: false)
        case .finishEvent(let entire): return self.interstitials.coordinator.finishEvent(entire: entire)
        case .closeEvent:
            return self.interstitials.coordinator.closeEvent(now: now)
        case .beginBreak(let plan):
            self.primaryPosition = plan.position
            return self.interstitials.coordinator.beginBreak(plan)
        case .primaryPlays: self.setStalled(false, now: now)
        case .beginEvent(let eventID):
            return self.interstitials.coordinator.eventBegins(
                eventID,
                events: self.interstitials.events,
                schedule: self.interstitials.schedule,
                rate: self.rate,
                now: now
            )
        case .placeEventsAgain: self.refreshSchedule(playlist: nil, now: now)
        case .resolveStart: self.resolveStart(now: now)
        case .markPlayed(let eventID): self.interstitials.coordinator.markPlayed(eventID)
        case .updateStatus: self.updateStatus()
        case .prepareAssets(let eventID): return self.prepareEventAssets(eventID)
        case .enterUnderWay(let eventID): self.enterInterstitialUnderWay(eventID)
        case .applyJoin: self.applyJoinOffset()
        case .clearSkipState(let event): self.setSkipState(.notSkippable, event: event)
        case .dropAssets(let eventID): self.dropAssetPresentations(of: eventID)
        case .endBreak:
            let primary = PrimaryAtBreakEnd(
                position: self.primaryPosition,
                duration: self.primary?.duration,
                postrollsStarted: self.interstitials.postrollsStarted,
                tracks: self.primary?.tracks ?? []
            )
            return self.interstitials.coordinator.endBreak(
                in: self.breakContext,
                primary: primary,
                rate: self.rate,
                now: now
            )
        case .abandonBreak: return self.interstitials.coordinator.abandonBreak(rate: self.rate)
        case .forgetReposition: self.interstitials.coordinator.forgetReposition()
        case .resumePrimary(let time):
            self.emit(.primaryResumed(primaryTime: time))
            self.isStalled = false
            self.jumpPrimary(to: time, now: now)
            self.updateStatus()
            return [.checkTransitions]
        case .primaryEnded:
            self.updateStatus()
            return self.primaryDidEnd(now: now)
        case .checkTransitions: return self.transitions(now: now)
        case .checkEvent: return self.eventTransitions(now: now)
        case .checkBreakJustStarted:
            guard !self.finished, self.interstitials.current != nil else { return [] }
            return self.eventTransitions(now: now)
        }
        return []
    }

    /// Reacts to where the playhead is now: starts what is due, ends what is over.
    ///
    /// Most passes lead to nothing: then no action list is built (the player's step stays free
    /// of allocations here).
    func checkTransitions(now: MediaTime) {
        let follow = self.transitions(now: now)
        if !follow.isEmpty { self.perform(follow, now: now) }
    }

    /// Begins a break the coordinator planned.
    func beginBreak(_ plan: BreakPlan, now: MediaTime) {
        self.perform([.beginBreak(plan)], now: now)
    }
}
