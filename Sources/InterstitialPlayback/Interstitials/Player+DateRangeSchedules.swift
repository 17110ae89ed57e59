import HLSInterstitials
import HLSPlaylist

// Scheduled date ranges (Appendix H): `ScheduleBook` decides, the actor requests and posts.
extension Player {
    // MARK: Scheduled date ranges

    /// The interstitials the primary's schedules resolved to, except those whose `ID` a playlist
    /// date range already uses (the playlist's event wins; the scheduled one is logged as ignored).
    func scheduledEvents() -> [InterstitialEvent] {
        guard !self.interstitials.schedules.isEmpty else { return [] }
        let written = Set(self.interstitials.tracker.interstitialEvents.map(\.identifier))
        return self.interstitials.schedules.events.filter { !written.contains($0.identifier) }
    }

    /// A primary playlist arrived: the book takes its schedule date ranges and their positions.
    func scheduleRangesDidLoad(_ playlist: MediaPlaylist) {
        guard self.configuration.followsDateRangeSchedules else { return }
        self.interstitials.schedules.update(
            playlist: playlist,
            playlistURL: self.primaryBase,
            offset: self.interstitials.offset
        )
    }

    /// The schedule documents to request now: those of the schedule date ranges the primary's
    /// buffer (or the playhead) reached, and the nested ones their documents list.
    ///
    /// Each request
    /// is made like an asset list's: `X-URI` resolved against the playlist, `_HLS_primary_id`
    /// set, the interstitial request timeout and the asset-list body limit.
    func scheduleLoads(now: MediaTime) -> [PendingLoad] {
        guard !self.interstitials.schedules.isEmpty else { return [] }
        let buffered = self.primary?.bufferedEnd(from: self.primaryPosition) ?? self.primaryPosition
        _ = self.interstitials.schedules.reach(MediaTime.max(buffered, self.primaryPosition))
        return self.interstitials.schedules.takeRequests().map { request in
            PendingLoad(
                purpose: .schedule(url: request.url),
                request: LoadRequest(
                    url: InterstitialRequestURL.asset(request.url, primaryID: self.sessionID),
                    kind: .schedule,
                    timeout: self.configuration.interstitialRequestTimeout,
                    maximumBodySize: self.configuration.maximumAssetListSize,
                    keepsBody: true
                )
            )
        }
    }

    /// A schedule document answered: post `scheduleRequestCompleted` (and what the document got
    /// wrong), and place the events it resolved to with the playlist's.
    func handleSchedule(url: String, _ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        let response: [UInt8]?
        if case .success(let answer) = result { response = answer.body } else { response = nil }
        let outcome = self.interstitials.schedules.answer(
            url: url,
            Presentation.body(result, url: url),
            response: response
        )
        for event in outcome.events { self.emit(event) }
        guard outcome.changed, let playlist = self.primary?.mainTrack?.playlist else { return }
        self.refreshSchedule(playlist: playlist, now: now)
        self.updatePreloads(now: now)
        self.checkTransitions(now: now)
    }
}
