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
        let known = Set(self.interstitials.events.map(\.identifier))
        self.refreshSchedule(playlist: playlist, now: now)
        self.updatePreloads(now: now)
        self.joinScheduledEventUnderWay(known: known, now: now)
        self.checkTransitions(now: now)
    }

    /// A live player whose playhead is inside a scheduled interstitial that just arrived (a
    /// viewer who joined during the break: the schedule is fetched once playback has started)
    /// enters it at the playhead's offset, as a live join into an interstitial of the playlist
    /// does, instead of playing the primary the interstitial replaces until the next one.
    ///
    /// - Parameters:
    ///   - known: The `ID`s of the events known before the schedule answered (only an arrival
    ///     is entered: an event the viewer already left, skipped or seeked past is not).
    ///   - now: The playback clock's time.
    func joinScheduledEventUnderWay(known: Set<String>, now: MediaTime) {
        guard self.interstitials.currentBreak == nil, self.interstitials.current == nil,
            self.interstitials.schedule?.isLive == true, let context = self.breakContext,
            let plan = self.interstitials.coordinator.entry(in: context, resumingAt: self.primaryPosition, now: now),
            let first = plan.run.queue.first, !known.contains(first),
            self.interstitials.schedules.events.contains(where: { $0.identifier == first })
        else { return }
        self.beginBreak(plan, now: now)
    }

    /// A scheduled interstitial's asset is known: plans the beacons of its entry's
    /// `X-AD-CREATIVE-SIGNALING` (one asset, whose slots' starts count from the interstitial's own
    /// start), as an asset list's are planned; its beacon URLs resolve against the schedule
    /// document's URL.
    func planScheduledBeacons(_ event: InterstitialEvent) {
        guard self.firesBeacons, event.scheduleIdentifier != nil,
            let found = self.interstitials.schedules.creativeSignaling(of: event.identifier)
        else { return }
        let actions = self.interstitials.coordinator.planScheduledBeacons(
            eventID: event.identifier,
            signaling: found.value,
            documentURL: found.documentURL
        )
        self.perform(actions, now: self.clock.now)
    }
}
