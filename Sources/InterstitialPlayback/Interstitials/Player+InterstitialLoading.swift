import HLSInterstitials
import HLSPlaylist

// Late binding and pre-buffering of interstitial assets.
extension Player {
    // MARK: Late binding and pre-buffering

    /// Makes sure an event's assets are known: an `X-ASSET-URI` event has one asset; an
    /// `X-ASSET-LIST` event's list is requested (once the primary is buffered to the marker).
    ///
    /// - Returns: The follow-up inputs (a preloaded answer taken as the list).
    func prepareEventAssets(_ eventID: String) -> [InterstitialCoordinator.Action] {
        guard self.interstitials.lists[eventID] == nil, !self.interstitials.cancelled.contains(eventID),
            let event = self.interstitials.events.first(where: { $0.identifier == eventID })
                ?? self.interstitials.schedule?.event(eventID)?.event
        else { return [] }
        if let refused = self.interstitials.coordinator.assetURIsKnown(
            of: event,
            base: self.primaryBase,
            primaryID: self.sessionID
        ) {
            self.planScheduledBeacons(event)
            if event.assetURIs.isEmpty {
                self.emit(.assetListLoaded(eventID: eventID, event: nil, assets: 0, duration: 0))
            }
            return refused
        }
        guard event.assetListURI != nil else { return [] }
        let startOffset = self.interstitials.coordinator.assetListStartOffset(
            for: eventID,
            playing: self.interstitials.current?.eventID,
            in: self.interstitials.currentBreak,
            isLive: self.interstitials.schedule?.isLive == true
        )
        // A preloaded answer (Appendix F) stands in for the request, or the preload is under way.
        if startOffset == nil, let taken = self.takePreload(for: eventID) { return taken }
        return self.interstitials.coordinator.assetListLoad(
            of: event,
            startOffset: startOffset,
            base: self.primaryBase,
            primaryID: self.sessionID
        )
    }

    /// Requests an event's asset list (the coordinator's `.loadAssetList`): its answer comes back
    /// through ``assetListAnswered(eventID:_:now:)``.
    func loadAssetList(eventID: String, url: String) {
        self.interstitials.coordinator.assetListRequested(eventID: eventID, url: url)
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

    /// What interstitial URIs resolve against: the primary's playlist, or the item's URL.
    var primaryBase: String { self.primary?.mainTrack?.playlistURL ?? self.currentItem?.url ?? "" }

    func resolveAgainstPrimary(_ uri: String) -> String {
        URIReference.resolve(uri, against: self.primaryBase)
    }

    /// An asset list answered.
    func handleAssetList(eventID: String, _ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        self.perform(self.assetListAnswered(eventID: eventID, result, now: now), now: now)
    }

    /// An asset list answered: the list is kept (or its failure), and the follow-up inputs come
    /// back (the transitions it may allow).
    func assetListAnswered(
        eventID: String,
        _ result: Result<LoadResponse, PlaybackError>,
        now: MediaTime
    ) -> [InterstitialCoordinator.Action] {
        guard self.interstitials.coordinator.known.isLoading(eventID) else { return [] }
        let event =
            self.interstitials.events.first { $0.identifier == eventID }
            ?? self.interstitials.schedule?.event(eventID)?.event
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
            return self.interstitials.coordinator.assetListDecoded(
                list,
                eventID: eventID,
                event: event,
                primaryID: self.sessionID
            )
        case .failure(var error):
            if error.url == nil || error.url == eventID { error.url = nil }
            return self.interstitials.coordinator.assetListFailed(
                eventID,
                event: event,
                error: error,
                playing: self.interstitials.current?.eventID == eventID
            )
        }
    }

    /// An asset presentation failed: skip that asset (an `X-ASSET-URI` event is cancelled).
    func assetDidFail(_ id: PresentationID, error: PlaybackError, now: MediaTime) {
        guard let eventID = id.eventID,
            let actions = self.interstitials.coordinator.assetFailedToLoad(
                eventID,
                index: id.assetIndex,
                event: self.interstitials.events.first { $0.identifier == eventID },
                error: error,
                playing: self.interstitials.current?.eventID == eventID
            )
        else { return }
        self.perform(actions + [.checkTransitions], now: now)
    }

    /// The events whose assets buffer now: the current break's, else the next break's once the
    /// primary is buffered to its marker.
    func bufferingBreak() -> [String]? {
        guard let context = self.breakContext else { return nil }
        let playing = self.interstitials.current.map { [$0.eventID] + (self.interstitials.currentBreak?.queue ?? []) }
        return self.interstitials.coordinator.breakToBuffer(
            in: context,
            playing: playing,
            position: self.primaryPosition,
            bufferedEnd: self.primary?.bufferedEnd(from: self.primaryPosition),
            primaryDuration: self.primary?.duration,
            postrollsStarted: self.interstitials.coordinator.item.postrollsStarted
        )
    }

    /// Loads for interstitials: asset lists (late binding), then each asset in order, one at a time.
    func interstitialLoads(now: MediaTime, settings: StreamingSettings) -> [PendingLoad] {
        guard let ids = self.bufferingBreak() else { return [] }
        var loads: [PendingLoad] = []
        var interstitialSettings = settings
        interstitialSettings.playlistTimeout = self.configuration.interstitialRequestTimeout
        let followed = self.interstitials.coordinator.followedRenditions(
            primaryAudio: self.primary?.audioLanguage,
            primarySubtitles: self.primary?.subtitleLanguage
        )
        for eventID in ids {
            self.perform(self.prepareEventAssets(eventID), now: now)
            guard case .loaded(let slots, _)? = self.interstitials.lists[eventID] else {
                if case .loading? = self.interstitials.lists[eventID] { return loads }
                continue
            }
            let event = self.interstitials.events.first { $0.identifier == eventID }
            let first = self.interstitials.current.flatMap { $0.eventID == eventID ? $0.assetIndex : nil } ?? 0
            for index in self.interstitials.coordinator.assetsToBuffer(slots, of: event, from: first) {
                let id = PresentationID.asset(eventID, index)
                var presentation = self.assets[id] ?? Presentation(id: id, url: slots[index].url)
                presentation.followedChoice = followed
                let start = presentation.startTime
                // The forward buffer counts from the asset's playhead once it plays, from its
                // start before.
                var from = start
                if let run = self.interstitials.current, run.eventID == eventID, run.assetIndex == index {
                    from = MediaTime.max(start, run.assetPosition)
                }
                loads += presentation.nextLoads(
                    now: now,
                    limit: from + self.configuration.forwardBufferDuration,
                    settings: interstitialSettings
                )
                let done = presentation.hasFailed || presentation.isFullyBuffered(from: start)
                self.assets[id] = presentation
                if !done { return loads }
            }
        }
        // The whole break is buffered: buffer the primary from where it will resume.
        if let move = self.interstitials.coordinator.primaryMove(
            playing: self.interstitials.current != nil,
            next: self.nextBreak(),
            repositionedFor: self.interstitials.coordinator.repositionedFor,
            resume: { self.predictedResume(start: $0, ids: $1) }
        ) {
            self.interstitials.coordinator.primaryMoved(for: move.mark)
            if let position = move.position { self.primary?.reposition(to: position) }
        }
        return loads
    }

    func predictedResume(start: MediaTime, ids: [String]) -> MediaTime {
        guard let context = self.breakContext else { return start }
        return self.interstitials.coordinator.predictedResume(
            in: context,
            start: start,
            ids: ids,
            loaded: self.loadedDurations(of: ids)
        )
    }

    /// The loaded durations of those of `ids` whose assets are all loaded.
    func loadedDurations(of ids: [String]) -> [String: MediaTime] {
        var loaded: [String: MediaTime] = [:]
        for id in ids { loaded[id] = self.loadedDuration(of: id) }
        return loaded
    }

    /// The duration of an event's assets (capped by its playout limit) once every one is loaded.
    func loadedDuration(of eventID: String) -> MediaTime? {
        guard case .loaded(let slots, _)? = self.interstitials.lists[eventID] else { return nil }
        let durations = slots.indices.filter { !slots[$0].failed }.map { self.assets[.asset(eventID, $0)]?.duration }
        return self.interstitials.coordinator.loadedDuration(durations, playoutLimit: self.event(eventID)?.playoutLimit)
    }

    /// How far the primary may buffer: the forward buffer, but not past the next break's marker
    /// until that break's assets are buffered; then from its resume point.
    func primaryBufferLimit() -> MediaTime {
        let next = self.nextBreak()
        let nextBuffered =
            self.interstitials.current == nil && next != nil
            && self.interstitials.coordinator.repositionedFor == next?.ids.first
        return self.interstitials.coordinator.primaryBufferLimit(
            position: self.primaryPosition,
            buffering: PrimaryBuffering(
                forward: self.configuration.forwardBufferDuration,
                resume: self.configuration.resumeBufferDuration
            ),
            next: next,
            nextBuffered: nextBuffered,
            nextResume: next.map { self.predictedResume(start: $0.start, ids: $0.ids) },
            playingBreakStart: self.interstitials.current == nil ? nil : self.interstitials.currentBreak?.start
        )
    }

    func assetStartPosition(_ id: PresentationID) -> MediaTime {
        if let run = self.interstitials.current, run.eventID == id.eventID, run.assetIndex == id.assetIndex {
            return run.assetPosition
        }
        return self.assets[id]?.startTime ?? .zero
    }
}
