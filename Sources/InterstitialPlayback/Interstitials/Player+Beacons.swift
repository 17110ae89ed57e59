import HLSInterstitials
import HLSPlaylist

// Client-side beacons (SVTA2053-2): the coordinator's tracker decides what fires, its queue when
// each is sent and retried; the actor reports what the asset playing's presentation says, sends
// the beacons and feeds the answers back.
extension Player {
    // MARK: Beacons

    var firesBeacons: Bool { self.configuration.beaconMode == .client }

    /// What the presentation of the event playing's asset says now, for its beacons.
    func currentAssetFacts() -> AssetFacts {
        guard let run = self.interstitials.current else { return AssetFacts(mediaArrived: false) }
        let presentation = self.assets[.asset(run.eventID, run.assetIndex)]
        return AssetFacts(
            mediaArrived: presentation?.hasMedia ?? false,
            duration: presentation?.duration,
            url: presentation?.url
        )
    }

    /// The playhead of the event playing moved: the coordinator queues the beacons it reached.
    func trackBeacons(now: MediaTime) {
        guard self.firesBeacons else { return }
        let actions = self.interstitials.coordinator.assetProgressed(
            self.currentAssetFacts(),
            primaryPosition: self.primaryPosition,
            primaryBase: self.primaryBase,
            now: now
        )
        if !actions.isEmpty { self.perform(actions, now: now) }
    }

    /// The viewer paused, played again, muted or unmuted (`type` is VAST's event name).
    func viewerDidAct(_ type: String) {
        let now = self.clock.now
        self.perform(
            self.interstitials.coordinator.viewerActed(type, primaryBase: self.primaryBase, now: now),
            now: now
        )
    }

    /// The player emitted `event`: the coordinator follows the ones that fire or end beacons.
    func observeForBeacons(_ event: PlayerEvent) {
        let now = self.clock.now
        // Read before the coordinator's input begins: the input has exclusive access to it.
        var facts: AssetFacts?
        if case .eventDidFinish = event { facts = self.currentAssetFacts() }
        let actions = self.interstitials.coordinator.observeForBeacons(
            event,
            facts: facts,
            primaryPosition: self.primaryPosition,
            primaryBase: self.primaryBase,
            now: now
        )
        if !actions.isEmpty { self.perform(actions, now: now) }
    }

    /// The beacon the coordinator sends next, when one is due and nothing is being sent.
    func beaconLoads(now: MediaTime) -> [PendingLoad] {
        guard case .sendBeacon(let url)? = self.interstitials.coordinator.nextBeacon(now: now) else { return [] }
        return [self.beaconLoad(url: url)]
    }

    /// The request of a beacon.
    func beaconLoad(url: String) -> PendingLoad {
        PendingLoad(
            purpose: .beacon,
            request: LoadRequest(
                url: url,
                kind: .beacon,
                timeout: self.configuration.beaconTimeout,
                maximumBodySize: 64 << 10,
                keepsBody: false
            )
        )
    }

    /// The head of the queue answered: the coordinator logs it as fired, retries it later, or
    /// gives it up.
    func handleBeacon(_ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        self.perform(self.interstitials.coordinator.beaconAnswered(result, now: now), now: now)
    }

    /// Playback ended: the beacons still queued are sent (in order, with their tries, without
    /// waiting for their retry times) before `run` returns.
    func settleBeacons(group: inout ThrowingTaskGroup<Completion, any Error>) async throws {
        guard self.firesBeacons else { return }
        while !self.interstitials.coordinator.beaconQueue.isSettled {
            if !self.interstitials.coordinator.beaconQueue.sending {
                self.interstitials.coordinator.settleBeacons()
                // Playback is over: only beacons are sent now.
                self.pendingLoads = self.beaconLoads(now: self.clock.now)
                self.startLoads(in: &group)
            }
            guard let completion = try await group.next() else { return }
            if case .loaded(let id, let result) = completion, let entry = self.inFlight.removeValue(forKey: id),
                case .beacon = entry.purpose
            {
                self.handleBeacon(result, now: self.clock.now)
            }
        }
    }
}
