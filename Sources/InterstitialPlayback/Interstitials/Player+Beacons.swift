import HLSInterstitials
import HLSPlaylist

/// The beacons waiting to be sent, one at a time and in order, with their retries.
struct BeaconQueue: Sendable {
    /// A beacon in the queue.
    struct Item: Sendable {
        var fire: BeaconFire
        /// The absolute URL.
        var url: String
        /// Tries made so far.
        var attempts = 0
        /// The clock time it may be sent (later after a failed try).
        var due: MediaTime
    }

    /// In the order they fired.
    var items: [Item] = []
    /// Whether the head is being sent.
    var sending = false
}

// Client-side beacons (SVTA2053-2): the tracker decides, the actor sends them in order.
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

    /// Adds `fires` to the queue; past its limit, a beacon is logged as failed and dropped.
    func queueBeacons(_ fires: [BeaconFire], now: MediaTime) {
        for fire in fires {
            guard self.beaconQueue.items.count < self.configuration.beaconQueueLimit else {
                self.emit(
                    .beaconFailed(
                        eventID: fire.key.eventID,
                        type: fire.type,
                        creative: fire.creative,
                        url: fire.url,
                        reason: "the beacon queue is full (\(self.configuration.beaconQueueLimit))"
                    )
                )
                continue
            }
            let base = self.interstitials.listURLs[fire.key.eventID] ?? self.primaryBase
            let url = URIReference.resolve(fire.url, against: base)
            self.beaconQueue.items.append(BeaconQueue.Item(fire: fire, url: url, due: now))
        }
    }

    /// The head of the queue, when it is due and nothing is being sent.
    func beaconLoads(now: MediaTime) -> [PendingLoad] {
        guard !self.beaconQueue.sending, let head = self.beaconQueue.items.first, head.due <= now else { return [] }
        self.beaconQueue.sending = true
        return [
            PendingLoad(
                purpose: .beacon,
                request: LoadRequest(
                    url: head.url,
                    kind: .beacon,
                    timeout: self.configuration.beaconTimeout,
                    maximumBodySize: 64 << 10,
                    keepsBody: false
                )
            )
        ]
    }

    /// When the next beacon is due: the queue's head after a failed try, or the next moment of
    /// the asset playing.
    func beaconDeadline(now: MediaTime) -> MediaTime? {
        guard self.firesBeacons else { return nil }
        var candidates: [MediaTime] = []
        if !self.beaconQueue.sending, let head = self.beaconQueue.items.first { candidates.append(head.due) }
        if let run = self.interstitials.current, run.assetStarted, !run.stalled, self.rate > 0,
            let next = self.interstitials.beacons.nextMoment(
                eventID: run.eventID,
                asset: run.assetIndex,
                after: run.assetPosition,
                duration: self.assets[.asset(run.eventID, run.assetIndex)]?.duration
            )
        {
            candidates.append(now + MediaTime(seconds: (next - run.assetPosition).seconds / self.rate))
        }
        return candidates.min()
    }

    /// The head of the queue answered: logged as fired, retried later, or logged as failed.
    func handleBeacon(_ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        self.beaconQueue.sending = false
        guard var head = self.beaconQueue.items.first else { return }
        head.attempts += 1
        let failure: String
        switch result {
        case .success(let response) where (200..<400).contains(response.status):
            self.beaconQueue.items.removeFirst()
            self.emit(
                .beaconFired(
                    eventID: head.fire.key.eventID,
                    type: head.fire.type,
                    creative: head.fire.creative,
                    url: head.url,
                    status: response.status,
                    moment: head.fire.moment,
                    attempts: head.attempts
                )
            )
            return
        case .success(let response):
            // Only a server error, a timeout or "too many requests" is worth another try.
            let retryable = response.status >= 500 || response.status == 408 || response.status == 429
            failure = "HTTP \(response.status)"
            if !retryable { head.attempts = self.configuration.beaconAttempts }
        case .failure(let error):
            failure = error.description
        }
        guard head.attempts < self.configuration.beaconAttempts else {
            self.beaconQueue.items.removeFirst()
            self.emit(
                .beaconFailed(
                    eventID: head.fire.key.eventID,
                    type: head.fire.type,
                    creative: head.fire.creative,
                    url: head.url,
                    reason: "\(failure) after \(head.attempts) tries"
                )
            )
            return
        }
        head.due = now + self.configuration.beaconRetryDelay * (1 << min(head.attempts - 1, 16))
        self.beaconQueue.items[0] = head
    }

    /// Playback ended: the beacons still queued are sent (in order, with their tries, without
    /// waiting for their retry times) before `run` returns.
    func settleBeacons(group: inout ThrowingTaskGroup<Completion, any Error>) async throws {
        guard self.firesBeacons else { return }
        while !self.beaconQueue.items.isEmpty || self.beaconQueue.sending {
            if !self.beaconQueue.sending {
                for index in self.beaconQueue.items.indices { self.beaconQueue.items[index].due = .zero }
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
