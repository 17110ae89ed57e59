import HLSInterstitials
import HLSPlaylist

/// What the player reads of the asset playing's presentation for its beacons.
struct AssetFacts: Sendable, Equatable {
    /// Whether any of its media arrived (an ad none of whose segments came counts no impression).
    var mediaArrived: Bool
    /// Its duration, once known.
    var duration: MediaTime?
    /// Its URL (the `ASSETURI` macro).
    var url: String?
}

// Client-side beacons (SVTA2053-2): the tracker decides what fires, the queue when each is sent
// and retried; the player reports what happened and sends the `.sendBeacon` it gets back.
extension InterstitialCoordinator {
    // MARK: Beacons

    /// The beacon policy in force (``Player/Configuration``'s beacon settings).
    var beaconPolicy: BeaconQueue.Policy {
        get { self.beaconQueue.policy }
        set { self.beaconQueue.policy = newValue }
    }

    /// Beacons fired at clock time `now` join the queue, each at its absolute URL.
    mutating func queueBeacons(_ fires: [BeaconFire], now: MediaTime, url: (BeaconFire) -> String) -> [Action] {
        guard !fires.isEmpty else { return [] }
        return self.beaconQueue.enqueue(fires, now: now, url: url)
    }

    /// The head of the beacon queue, when it is due at `now` and nothing is being sent.
    mutating func nextBeacon(now: MediaTime) -> Action? {
        self.beaconQueue.nextSend(now: now)
    }

    /// The beacon sent answered at `now`: fired, retried later, or given up.
    mutating func beaconAnswered(_ result: Result<LoadResponse, PlaybackError>, now: MediaTime) -> [Action] {
        self.beaconQueue.answered(result, now: now)
    }

    /// Playback ended: the beacons waiting are due now.
    mutating func settleBeacons() {
        self.beaconQueue.settle()
    }

    /// An asset list loaded for `eventID`: its creatives' beacons are planned; an unreadable
    /// `X-AD-CREATIVE-SIGNALING` is logged as a failed beacon.
    mutating func planBeacons(eventID: String, list: AssetList) -> [Action] {
        guard self.firesBeacons else { return [] }
        var actions: [Action] = []
        var plannedStart = MediaTime.zero
        var assets: [(signaling: CreativeSignaling?, plannedStart: MediaTime)] = []
        for asset in list.assets {
            var signaling: CreativeSignaling?
            do {
                signaling = try asset.creativeSignaling()
            } catch {
                actions.append(self.unreadableSignaling(eventID: eventID, url: self.listURLs[eventID] ?? "", error))
            }
            assets.append((signaling, plannedStart))
            plannedStart = plannedStart + asset.mediaDuration
        }
        self.beacons.listLoaded(eventID: eventID, assets: assets)
        return actions
    }

    /// A scheduled interstitial's asset is known and its schedule document (at `documentURL`)
    /// gives it the signaling `value`: one asset's beacons, whose URLs resolve against the
    /// document's URL.
    mutating func planScheduledBeacons(eventID: String, signaling value: JSONValue, documentURL: String) -> [Action] {
        guard self.firesBeacons else { return [] }
        self.listURLs[eventID] = documentURL
        var actions: [Action] = []
        var signaling: CreativeSignaling?
        do {
            signaling = try CreativeSignaling(json: value)
        } catch {
            actions.append(self.unreadableSignaling(eventID: eventID, url: documentURL, error))
        }
        self.beacons.listLoaded(eventID: eventID, assets: [(signaling, .zero)])
        return actions
    }

    private func unreadableSignaling(eventID: String, url: String, _ error: any Error) -> Action {
        .emit(
            .beaconFailed(
                eventID: eventID,
                type: "*",
                creative: nil,
                url: url,
                reason: "unreadable \(CreativeSignaling.key): \(error)"
            )
        )
    }

    /// The asset playing moved on (its playhead, or its media arrived): the beacons it reached
    /// join the queue at clock time `now`, once its first media has arrived.
    ///
    /// - Parameters:
    ///   - facts: What its presentation says now.
    ///   - primaryPosition: The primary playhead (the `CONTENTPLAYHEAD` macro).
    ///   - primaryBase: What beacon URIs resolve against when the event has no list URL.
    ///   - now: The clock time.
    mutating func assetProgressed(
        _ facts: AssetFacts,
        primaryPosition: MediaTime,
        primaryBase: String,
        now: MediaTime
    ) -> [Action] {
        guard self.firesBeacons, let run = self.current, run.assetStarted else { return [] }
        var known = ["CONTENTPLAYHEAD": VASTMacros.playhead(primaryPosition)]
        if let url = facts.url { known["ASSETURI"] = url }
        self.beacons.knownMacros[run.eventID, default: [:]][run.assetIndex] = known
        let fires = self.beacons.advance(
            eventID: run.eventID,
            asset: run.assetIndex,
            position: run.assetPosition,
            duration: facts.duration,
            mediaArrived: facts.mediaArrived
        )
        return self.queueBeacons(fires, primaryBase: primaryBase, now: now)
    }

    /// The viewer paused, played again, muted or unmuted (`type` is VAST's event name): the
    /// current ad's beacons of that type, when an ad is playing.
    mutating func viewerActed(_ type: String, primaryBase: String, now: MediaTime) -> [Action] {
        guard self.firesBeacons, let run = self.current, run.assetStarted else { return [] }
        return self.queueBeacons(
            self.beacons.viewerAction(type, eventID: run.eventID),
            primaryBase: primaryBase,
            now: now
        )
    }

    /// The player emitted `event`: skips, failed assets and events that end fire or end beacons.
    ///
    /// - Parameters:
    ///   - event: What the player emitted.
    ///   - facts: What the asset playing's presentation says now, when `event` ends the event
    ///     playing (for what the last step reached).
    ///   - primaryPosition: The primary playhead.
    ///   - primaryBase: What beacon URIs resolve against when the event has no list URL.
    ///   - now: The clock time.
    mutating func observeForBeacons(
        _ event: PlayerEvent,
        facts: AssetFacts?,
        primaryPosition: MediaTime,
        primaryBase: String,
        now: MediaTime
    ) -> [Action] {
        guard self.firesBeacons else { return [] }
        switch event {
        case .currentEventSkipped(let skipped):
            return self.queueBeacons(
                self.beacons.skipped(eventID: skipped.identifier),
                primaryBase: primaryBase,
                now: now
            )
        case .interstitialAssetFailed(let eventID, let index, let error):
            let fires = self.beacons.assetFailed(
                eventID: eventID,
                asset: index,
                errorCode: BeaconTracker.errorCode(of: error)
            )
            return self.queueBeacons(fires, primaryBase: primaryBase, now: now)
        case .eventDidFinish(let finished, _, _):
            var actions: [Action] = []
            if let run = self.current, run.eventID == finished.identifier, let facts {
                // What the last step reached before the event ended.
                actions = self.assetProgressed(
                    facts,
                    primaryPosition: primaryPosition,
                    primaryBase: primaryBase,
                    now: now
                )
            }
            self.beacons.finished(eventID: finished.identifier)
            return actions
        case .eventCancelled(let cancelled):
            self.beacons.finished(eventID: cancelled.identifier)
            return []
        default:
            return []
        }
    }

    /// `fires` join the queue at clock time `now`, each resolved against its event's list URL (the
    /// primary's `primaryBase` when none).
    private mutating func queueBeacons(_ fires: [BeaconFire], primaryBase: String, now: MediaTime) -> [Action] {
        let listURLs = self.listURLs
        return self.queueBeacons(fires, now: now) { fire in
            URIReference.resolve(fire.url, against: listURLs[fire.key.eventID] ?? primaryBase)
        }
    }
}
