import HLSInterstitials
import HLSPlaylist

extension Player {
    // MARK: Public surface used by the monitor and the controller

    /// The events as a monitor shows them.
    var interstitialEvents: [InterstitialEvent] {
        // Before the playlist loads there is no schedule yet: what the app set reads back at once.
        if self.interstitials.schedule == nil, let set = self.interstitials.controllerEvents { return set }
        return self.interstitials.events
    }

    /// The event playing.
    var currentInterstitialEvent: InterstitialEvent? { self.interstitials.current?.event }

    /// The identifier of the event playing, or `nil` while primary content plays.
    public var currentInterstitialEventID: String? { self.interstitials.current?.eventID }

    /// How far into the current interstitial event playback is (across its assets, from the event's
    /// start), brought up to the playback clock's present; `nil` outside interstitials.
    ///
    /// A pause
    /// holds it, as the event's own media position does.
    public var currentInterstitialTime: MediaTime? {
        self.advancePlayback(to: self.clock.now)
        return self.interstitials.current?.eventTime
    }

    /// The skip state of the event playing.
    var currentEventSkippableState: SkippableEventState { self.interstitials.skipState }

    /// The effective skip label of the event playing: the asset list's `SKIP-CONTROL` `LABEL-ID`
    /// over the tag's `X-SKIP-CONTROL-LABEL-ID`; `nil` when it is not skippable.
    var currentEventSkipLabelID: String? { self.interstitials.coordinator.skipLabelID }

    /// Sets client events (``InterstitialEventController/setEvents(_:)``).
    func setControllerEvents(_ events: [InterstitialEvent]) {
        let actions = self.interstitials.coordinator.setControllerEvents(
            events,
            playlistIDs: Set(self.interstitials.tracker.ids)
        )
        self.perform(actions, now: self.clock.now)
        self.wake()
    }

    /// Abandons the current event and the rest of its break.
    func cancelCurrentEvent(resumptionOffset offset: MediaTime?) {
        guard self.interstitials.currentBreak != nil, self.interstitials.current != nil else { return }
        let now = self.clock.now
        self.advancePlayback(to: now)
        // Playing up to now may have ended the event (or the break): cancel what plays now.
        self.perform(self.interstitials.coordinator.cancelCurrent(resumptionOffset: offset), now: now)
        self.wake()
    }

    /// Which asset of the current interstitial event plays (0 for the first, or for an
    /// `X-ASSET-URI` event), and how many the event has once its list is loaded; `nil` outside
    /// interstitials.
    public var currentInterstitialAsset: (index: Int, count: Int?)? {
        guard let run = self.interstitials.current else { return nil }
        if case .loaded(let slots, _)? = self.interstitials.lists[run.eventID] { return (run.assetIndex, slots.count) }
        return (run.assetIndex, nil)
    }

    /// Skips the ad playing inside the current event (one asset of a pod given as one asset list),
    /// whatever the event's skip control says: the next asset starts, or after the last the event
    /// ends as ``InterstitialEventController/skipCurrentEvent(overridingPolicy:)`` ends it.
    ///
    /// For apps
    /// that own a per-ad skip policy (plan C of the AirPlay talk: the first ad of a pod restricted,
    /// the later ones skippable, for both pod shapes).
    ///
    /// - Returns: Granted, or refused when no interstitial plays.
    @discardableResult
    public func skipCurrentAsset() -> NavigationDecision {
        let now = self.clock.now
        self.advancePlayback(to: now)
        guard let run = self.interstitials.current else {
            return self.skipCurrentEvent(overridingPolicy: true)
        }
        guard case .loaded(let slots, _)? = self.interstitials.lists[run.eventID], run.assetIndex + 1 < slots.count
        else {
            // The last ad (or the only one): the event ends.
            var count = run.assetIndex + 1
            if case .loaded(let slots, _)? = self.interstitials.lists[run.eventID] { count = slots.count }
            let decision = self.skipCurrentEvent(overridingPolicy: true)
            guard decision.isAllowed else { return decision }
            return NavigationDecision(
                isAllowed: true,
                reason: "ad \(run.assetIndex + 1) of \(count) of \(run.eventID) skipped; the event ends"
            )
        }
        self.perform(self.interstitials.coordinator.nextCurrentAsset(), now: now)
        self.assets[PresentationID.asset(run.eventID, run.assetIndex)] = nil
        self.wake()
        return NavigationDecision(
            isAllowed: true,
            reason: "ad \(run.assetIndex + 1) of \(slots.count) of \(run.eventID) skipped"
        )
    }

    /// Abandons the current event only (skip control), when the coordinator grants it.
    @discardableResult
    func skipCurrentEvent(overridingPolicy: Bool = false) -> NavigationDecision {
        let now = self.clock.now
        self.advancePlayback(to: now)
        let request = InterstitialCoordinator.SkipRequest(
            event: self.interstitials.current?.event,
            report: self.interstitials.current == nil ? nil : self.skipReport(),
            overridesPolicy: overridingPolicy
        )
        let refusal = self.perform(self.interstitials.coordinator.skip(request), now: now)
        self.wake()
        return NavigationDecision(
            isAllowed: refusal == nil,
            reason: refusal ?? (overridingPolicy ? "skipped: the app's policy" : "skipped")
        )
    }
}
