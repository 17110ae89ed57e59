import HLSInterstitials
import HLSPlaylist

// Client-side beacons (SVTA2053-2): the tracker decides what fires, the coordinator's queue when
// each is sent and retried; the actor sends them and feeds the answers back.
extension Player {
    // MARK: Beacons

    var firesBeacons: Bool { self.configuration.beaconMode == .client }

    /// An asset list loaded for `eventID` (requested from `listURL`): plans its beacons.
    func planBeacons(eventID: String, list: AssetList, listURL: String?) {
        guard self.firesBeacons else { return }
        var plannedStart = MediaTime.zero
        var assets: [(signaling: CreativeSignaling?, plannedStart: MediaTime)] = []
        for asset in list.assets {
            let signaling: CreativeSignaling?
            do {
                signaling = try asset.creativeSignaling()
            } catch {
                signaling = nil
                self.emit(
                    .beaconFailed(
                        eventID: eventID,
                        type: "*",
                        creative: nil,
                        url: listURL ?? "",
                        reason: "unreadable \(CreativeSignaling.key): \(error)"
                    )
                )
            }
            assets.append((signaling, plannedStart))
            plannedStart = plannedStart + asset.mediaDuration
        }
        self.interstitials.beacons.listLoaded(eventID: eventID, assets: assets)
    }

    /// The playhead of the event playing moved: the beacons it reached join the queue, once the
    /// asset's first media has arrived (an ad none of whose segments came counts no impression).
    func trackBeacons(_ run: EventRun, duration: MediaTime?, now: MediaTime) {
        guard self.firesBeacons, run.assetStarted else { return }
        let presentation = self.assets[.asset(run.eventID, run.assetIndex)]
        var known = ["CONTENTPLAYHEAD": VASTMacros.playhead(self.primaryPosition)]
        if let url = presentation?.url { known["ASSETURI"] = url }
        self.interstitials.beacons.knownMacros[run.eventID, default: [:]][run.assetIndex] = known
        let fires = self.interstitials.beacons.advance(
            eventID: run.eventID,
            asset: run.assetIndex,
            position: run.assetPosition,
            duration: duration,
            mediaArrived: presentation?.hasMedia ?? false
        )
        self.queueBeacons(fires, now: now)
    }

    /// The viewer paused, played again, muted or unmuted (`type` is VAST's event name): the
    /// current ad's beacons of that type, when an ad is playing.
    func viewerDidAct(_ type: String) {
        guard self.firesBeacons, let run = self.interstitials.current, run.assetStarted else { return }
        self.queueBeacons(self.interstitials.beacons.viewerAction(type, eventID: run.eventID), now: self.clock.now)
    }

    /// Follows the events that fire or end beacons: skips, failed assets, events that end.
    func observeForBeacons(_ event: PlayerEvent) {
        let now = self.clock.now
        switch event {
        case .currentEventSkipped(let skipped):
            self.queueBeacons(self.interstitials.beacons.skipped(eventID: skipped.identifier), now: now)
        case .interstitialAssetFailed(let eventID, let index, let error):
            let fires = self.interstitials.beacons.assetFailed(
                eventID: eventID,
                asset: index,
                errorCode: BeaconTracker.errorCode(of: error)
            )
            self.queueBeacons(fires, now: now)
        case .eventDidFinish(let finished, _, _):
            if let run = self.interstitials.current, run.eventID == finished.identifier {
                // What the last step reached before the event ended.
                let duration = self.assets[.asset(run.eventID, run.assetIndex)]?.duration
                self.trackBeacons(run, duration: duration, now: now)
            }
            self.interstitials.beacons.finished(eventID: finished.identifier)
        case .eventCancelled(let cancelled):
            self.interstitials.beacons.finished(eventID: cancelled.identifier)
        default:
            break
        }
    }

    /// Adds `fires` to the coordinator's queue, each resolved against its asset list's URL (the
    /// primary's when none); past its limit, a beacon is logged as failed and dropped.
    func queueBeacons(_ fires: [BeaconFire], now: MediaTime) {
        guard !fires.isEmpty else { return }
        let listURLs = self.interstitials.listURLs
        let primaryBase = self.primaryBase
        let actions = self.interstitials.coordinator.queueBeacons(fires, now: now) { fire in
            URIReference.resolve(fire.url, against: listURLs[fire.key.eventID] ?? primaryBase)
        }
        self.perform(actions, now: now)
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
