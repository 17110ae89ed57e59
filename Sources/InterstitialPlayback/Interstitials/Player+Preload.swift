import HLSInterstitials
import HLSPlaylist

// Preload date ranges (Appendix F): the coordinator decides, the actor requests and hands over.
extension Player {
    // MARK: Preloads

    /// How far ahead of the playhead the player requests an asset list without a hint: its
    /// forward buffer, bounded by how far the live edge (the end of the primary playlist) is ahead
    /// of the playhead, since the buffer cannot reach past it.
    func preloadLead() -> MediaTime {
        let forward = self.configuration.forwardBufferDuration
        guard let schedule = self.interstitials.schedule else { return forward }
        let edge = schedule.primaryDuration + self.interstitials.offset
        return MediaTime.min(forward, MediaTime.max(.zero, edge - self.primaryPosition))
    }

    /// A primary playlist arrived: the schedule takes the tracker's preload ranges, and the
    /// coordinator schedules, moves or discards preloads.
    func updatePreloads(now: MediaTime) {
        guard self.configuration.followsPreloadRanges, self.interstitials.schedule != nil else { return }
        let ranges = self.interstitials.tracker.preloadRanges
        self.interstitials.coordinator.known.preloadRangesChanged(ranges)
        guard let schedule = self.interstitials.schedule else { return }
        let prepared = Set(self.interstitials.lists.keys).union(self.interstitials.passed)
        var book = self.interstitials.preloads
        var random = book.random
        let actions = self.interstitials.coordinator.updatePreloads(
            &book,
            preloads: schedule.preloads,
            isLive: schedule.isLive,
            offset: self.interstitials.offset,
            playhead: self.primaryPosition,
            lead: self.preloadLead(),
            prepared: prepared,
            using: &random
        )
        book.random = random
        self.interstitials.preloads = book
        self.perform(actions, now: now)
    }

    /// The preload requests whose moment the playhead reached (each range is requested once).
    func preloadLoads() -> [PendingLoad] {
        guard !self.interstitials.preloads.entries.isEmpty else { return [] }
        var loads: [PendingLoad] = []
        for id in self.interstitials.coordinator.duePreloads(
            self.interstitials.preloads,
            playhead: self.primaryPosition
        ) {
            guard var entry = self.interstitials.preloads.entries[id], let uri = entry.range.uri else { continue }
            entry.state = .fetching
            self.interstitials.preloads.entries[id] = entry
            loads.append(
                PendingLoad(
                    purpose: .preload(rangeID: id),
                    request: LoadRequest(
                        url: InterstitialRequestURL.assetList(
                            self.resolveAgainstPrimary(uri),
                            primaryID: self.sessionID
                        ),
                        kind: .assetList,
                        timeout: self.configuration.interstitialRequestTimeout,
                        maximumBodySize: self.configuration.maximumAssetListSize,
                        keepsBody: true
                    )
                )
            )
        }
        return loads
    }

    /// A preload request answered: keep the answer for the target's break (a range dropped
    /// meanwhile keeps nothing).
    func handlePreload(rangeID: String, _ result: Result<LoadResponse, PlaybackError>) {
        guard var entry = self.interstitials.preloads.entries[rangeID], case .fetching = entry.state else { return }
        entry.state = .fetched(result)
        self.interstitials.preloads.entries[rangeID] = entry
        let status: Int?
        let error: PlaybackError.Code?
        switch result {
        case .success(let response): (status, error) = (response.status, nil)
        case .failure(let failure): (status, error) = (nil, failure.code)
        }
        self.emit(.preloadFetched(rangeID: rangeID, targetID: entry.range.targetID ?? "", status: status, error: error))
    }

    /// The break of `eventID` buffers: hands a preloaded answer over as the event's asset list.
    ///
    /// - Returns: `nil` when no preload stands in for the usual request; otherwise the follow-up
    ///   inputs (none while the preload is under way, the answer's when it is used now).
    func takePreload(for eventID: String) -> [InterstitialCoordinator.Action]? {
        guard !self.interstitials.preloads.entries.isEmpty else { return nil }
        var book = self.interstitials.preloads
        let decision = self.interstitials.coordinator.preloadUse(
            &book,
            eventID: eventID,
            target: self.interstitials.tracker[eventID]
        )
        self.interstitials.preloads = book
        self.perform(decision.actions, now: self.clock.now)
        switch decision.use {
        case .none:
            return nil
        case .wait:
            return []
        case .use(let result):
            self.interstitials.coordinator.known.listRequested(eventID)
            return self.assetListAnswered(eventID: eventID, result, now: self.clock.now)
        }
    }
}
