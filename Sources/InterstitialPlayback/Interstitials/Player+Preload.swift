import HLSInterstitials
import HLSPlaylist

// Preload date ranges (Appendix F): the coordinator decides, the actor requests and hands over.
extension Player {
    // MARK: Preloads

    /// A primary playlist arrived: the coordinator takes the tracker's preload ranges and
    /// schedules, moves or discards preloads.
    func updatePreloads(now: MediaTime) {
        guard self.configuration.followsPreloadRanges else { return }
        let actions = self.interstitials.coordinator.preloadRangesRead(
            self.interstitials.tracker.preloadRanges,
            playhead: self.primaryPosition,
            forward: self.configuration.forwardBufferDuration
        )
        self.perform(actions, now: now)
    }

    /// The preload requests whose moment the playhead reached (each range is requested once).
    func preloadLoads() -> [PendingLoad] {
        self.interstitials.coordinator.requestDuePreloads(playhead: self.primaryPosition).map { due in
            PendingLoad(
                purpose: .preload(rangeID: due.rangeID),
                request: LoadRequest(
                    url: InterstitialRequestURL.assetList(
                        self.resolveAgainstPrimary(due.uri),
                        primaryID: self.sessionID
                    ),
                    kind: .assetList,
                    timeout: self.configuration.interstitialRequestTimeout,
                    maximumBodySize: self.configuration.maximumAssetListSize,
                    keepsBody: true
                )
            )
        }
    }

    /// The break of `eventID` buffers: hands a preloaded answer over as the event's asset list.
    ///
    /// - Returns: `nil` when no preload stands in for the usual request; otherwise the follow-up
    ///   inputs (none while the preload is under way, the answer's when it is used now).
    func takePreload(for eventID: String) -> [InterstitialCoordinator.Action]? {
        let decision = self.interstitials.coordinator.takePreload(
            for: eventID,
            target: self.interstitials.tracker[eventID]
        )
        self.perform(decision.actions, now: self.clock.now)
        switch decision.use {
        case .none:
            return nil
        case .wait:
            return []
        case .use(let result):
            return self.assetListAnswered(eventID: eventID, result, now: self.clock.now)
        }
    }
}
