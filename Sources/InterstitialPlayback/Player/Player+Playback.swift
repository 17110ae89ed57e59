import HLSInterstitials
import HLSPlaylist

extension Player {
    // MARK: Answers

    func handleLoad(
        _ purpose: LoadPurpose,
        _ request: LoadRequest,
        _ result: Result<LoadResponse, PlaybackError>,
        now: MediaTime
    ) {
        self.advancePlayback(to: now)
        switch result {
        case .success(let response):
            if self.configuration.logsRequests {
                self.emit(
                    .request(
                        url: request.url,
                        kind: request.kind.description,
                        status: response.status,
                        bytes: response.byteCount,
                        error: nil
                    )
                )
            }
            if request.kind == .segment, response.byteCount > 16_384, (200..<300).contains(response.status) {
                let seconds = max(response.elapsed.seconds, 1e-4)
                let sample = Double(response.byteCount) * 8 / seconds
                self.bandwidthEstimate = self.bandwidthEstimate.map { 0.7 * $0 + 0.3 * sample } ?? sample
            }
        case .failure(let error):
            if self.configuration.logsRequests {
                self.emit(
                    .request(url: request.url, kind: request.kind.description, status: nil, bytes: 0, error: error.code)
                )
            }
        }
        if case .beacon = purpose {
            self.handleBeacon(result, now: now)
            return
        }
        if case .assetList(let eventID) = purpose {
            self.handleAssetList(eventID: eventID, result, now: now)
            return
        }
        if case .preload(let rangeID) = purpose {
            let actions = self.interstitials.coordinator.preloadAnswered(rangeID: rangeID, url: request.url, result)
            self.perform(actions, now: now)
            return
        }
        if case .schedule(let url) = purpose {
            self.handleSchedule(url: url, result, now: now)
            return
        }
        guard let id = purpose.presentation else { return }
        let settings = self.configuration.streaming
        if id.isPrimary {
            guard var primary = self.primary else { return }
            let events = primary.handle(
                result,
                for: purpose,
                now: now,
                bandwidth: self.bandwidthEstimate,
                settings: settings
            )
            var adapted: [PresentationEvent] = []
            if case .segment = purpose, let bandwidth = self.bandwidthEstimate {
                adapted = primary.adapt(bandwidth: bandwidth, settings: settings)
            }
            self.primary = primary
            self.report(events + adapted, for: id, purpose: purpose, now: now)
        } else {
            guard var presentation = self.assets[id] else { return }
            let events = presentation.handle(
                result,
                for: purpose,
                now: now,
                bandwidth: self.bandwidthEstimate,
                settings: settings
            )
            self.assets[id] = presentation
            self.report(events, for: id, purpose: purpose, now: now)
        }
        self.checkTransitions(now: now)
    }

    /// Forgets a playlist reload whose answer will not be waited for; the next one is due now.
    func abandonReload(_ purpose: LoadPurpose, now: MediaTime) {
        guard case .mediaPlaylist(let id, let k, _) = purpose else { return }
        if id.isPrimary {
            self.primary?.abandonReload(track: k, now: now)
        } else {
            self.assets[id]?.abandonReload(track: k, now: now)
        }
    }

    func report(_ events: [PresentationEvent], for id: PresentationID, purpose: LoadPurpose, now: MediaTime) {
        for event in events {
            switch event {
            case .variantSelected(let url, let bandwidth, let audio, let subtitles):
                self.emit(
                    .variantSelected(
                        presentation: id.description,
                        url: url,
                        bandwidth: bandwidth,
                        audioLanguage: audio,
                        subtitleLanguage: subtitles
                    )
                )
            case .playlistLoaded(let track, let url, let segments, let isLive, let changed, let delta):
                self.emit(
                    .playlistLoaded(
                        presentation: id.description,
                        track: track.rawValue,
                        url: url,
                        segments: segments,
                        isLive: isLive,
                        changed: changed,
                        delta: delta
                    )
                )
                if id.isPrimary, track == .main, let playlist = self.primary?.mainTrack?.playlist {
                    self.primaryPlaylistDidLoad(playlist, now: now)
                } else if id.isPrimary, track == .audio, changed {
                    // X-SNAP counts the audio playlist's segment boundaries too.
                    self.refreshSchedule(playlist: self.primary?.mainTrack?.playlist, now: now)
                }
            case .buffered:
                let from = id.isPrimary ? self.primaryPosition : self.assetStartPosition(id)
                let end = (id.isPrimary ? self.primary : self.assets[id])?.bufferedEnd(from: from) ?? from
                if self.lastBufferedReport[id].map({ end > $0 }) ?? true {
                    self.lastBufferedReport[id] = end
                    self.emit(.bufferedTo(presentation: id.description, time: end))
                }
            case .failed(let error):
                if id.isPrimary {
                    self.fail(error)
                } else {
                    self.assetDidFail(id, error: error, now: now)
                }
            }
        }
    }

    // MARK: Playback clock

    /// Moves the playhead from the last tick to `now` at the current rate, up to the next boundary.
    func advancePlayback(to now: MediaTime) {
        defer { self.lastTick = now }
        guard now > self.lastTick, self.rate > 0, !self.finished, self.started else { return }
        let elapsed = now - self.lastTick
        let distance = MediaTime(seconds: elapsed.seconds * self.rate)
        if self.interstitials.current != nil {
            self.advanceInterstitial(by: distance)
            return
        }
        guard !self.isStalled else { return }
        guard let primary = self.primary else { return }
        var limit = primary.bufferedEnd(from: self.primaryPosition)
        if let boundary = self.primaryBoundary() { limit = MediaTime.min(limit, boundary) }
        if let duration = primary.duration { limit = MediaTime.min(limit, duration) }
        self.primaryPosition = MediaTime.min(
            self.primaryPosition + distance,
            MediaTime.max(limit, self.primaryPosition)
        )
    }

    /// When the primary's playhead next reaches something: the end of the buffer, an event, the
    /// end (while an event plays, the coordinator's timer covers its asset: `armTimers`).
    func playbackDeadline(now: MediaTime) -> MediaTime? {
        guard self.rate > 0, !self.finished, self.interstitials.current == nil, !self.isStalled else { return nil }
        guard let primary = self.primary else { return nil }
        var target = primary.bufferedEnd(from: self.primaryPosition)
        if let boundary = self.primaryBoundary() { target = MediaTime.min(target, boundary) }
        if let duration = primary.duration { target = MediaTime.min(target, duration) }
        guard target > self.primaryPosition else { return now }
        return now + MediaTime(seconds: (target - self.primaryPosition).seconds / self.rate)
    }

    /// Reacts to where the playhead is: stalls, resumes, events, the end.
    ///
    /// Returns the follow-up
    /// inputs (a break that begins, then a look at its first event).
    func transitions(now: MediaTime) -> [InterstitialCoordinator.Action] {
        guard self.started, !self.finished else { return [] }
        if self.interstitials.current != nil { return self.eventTransitions(now: now) }
        guard let primary = self.primary, primary.isReady else {
            self.setStalled(true, now: now)
            return []
        }
        // A break just beginning (a mid-roll or the post-rolls) is looked at at once: its first
        // event's assets may already be buffered, or its list fetched ahead may have come back
        // empty or failed, with no load left to answer (on a real clock there may be no wake).
        if let plan = self.breakDue(now: now) { return [.beginBreak(plan), .checkBreakJustStarted] }
        if let duration = primary.duration, self.primaryPosition >= duration - BufferedRanges.tolerance {
            return self.primaryDidEnd(now: now) + [.checkBreakJustStarted]
        }
        let end = primary.bufferedEnd(from: self.primaryPosition)
        if self.isStalled {
            var needed = self.configuration.resumeBufferDuration
            if let duration = primary.duration { needed = MediaTime.min(needed, duration - self.primaryPosition) }
            if let boundary = self.primaryBoundary() { needed = MediaTime.min(needed, boundary - self.primaryPosition) }
            if end - self.primaryPosition >= needed { self.setStalled(false, now: now) }
        } else if end <= self.primaryPosition {
            self.setStalled(true, now: now)
        }
        self.primary?.discard(before: self.primaryPosition - 10)
        return []
    }

    func setStalled(_ stalled: Bool, now: MediaTime) {
        guard stalled != self.isStalled else { return }
        self.isStalled = stalled
        self.stallStart = stalled ? now : nil
        if stalled, self.started, self.rate > 0 {
            self.emit(.stalled(primaryTime: self.primaryPosition))
        } else if !stalled, self.rate > 0 {
            self.emit(.playing(primaryTime: self.primaryPosition))
        }
        self.updateStatus()
    }

    /// Makes a request when the playback clock reaches `time` (deterministic with a virtual clock).
    public func schedule(_ command: ScheduledCommand, at time: MediaTime) {
        self.commandCounter += 1
        self.commands.append((time, self.commandCounter, command))
        self.commands.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        self.wake()
    }

    /// Tells the player that the group it plays in waits for other participants (or no longer
    /// does): while it waits, ``timeControlStatus`` is `waitingToPlayAtSpecifiedRate` with the reason
    /// ``WaitingReason/waitingForCoordinatedPlayback``, whatever the rate, as AVFoundation's player
    /// reports under a playback coordinator.
    ///
    /// A coordinator calls it; the rate is the coordinator's
    /// to set.
    public func setWaitingForCoordinatedPlayback(_ waiting: Bool) {
        guard waiting != self.waitsForCoordinatedPlayback else { return }
        self.waitsForCoordinatedPlayback = waiting
        self.updateStatus()
    }

    func updateStatus() {
        let status: TimeControlStatus
        let reason: WaitingReason?
        if self.waitsForCoordinatedPlayback, self.interstitials.current == nil {
            status = .waitingToPlayAtSpecifiedRate
            reason = .waitingForCoordinatedPlayback
        } else if self.rate == 0 {
            status = .paused
            reason = nil
        } else if self.interstitials.current != nil {
            // The primary waits while the interstitial player plays.
            status = .waitingToPlayAtSpecifiedRate
            reason = .interstitialEvent
        } else if self.isStalled {
            status = .waitingToPlayAtSpecifiedRate
            reason = self.primary?.isReady == true ? .toMinimizeStalls : .noItemToPlay
        } else {
            status = .playing
            reason = nil
        }
        if status != self.timeControlStatus || reason != self.reasonForWaitingToPlay {
            self.timeControlStatus = status
            self.reasonForWaitingToPlay = reason
            self.emit(.timeControlStatusDidChange(status, reason))
        }
    }

    /// The primary reached its end: the post-rolls play, or playback ends.
    ///
    /// Returns the follow-up
    /// inputs (the post-roll break).
    func primaryDidEnd(now: MediaTime) -> [InterstitialCoordinator.Action] {
        if let postrolls = self.startPostRolls(now: now) { return postrolls }
        self.hasEnded = true
        self.emit(.ended(primaryTime: self.primaryPosition))
        self.finish()
        return []
    }

    func fail(_ error: PlaybackError) {
        guard !self.finished else { return }
        self.error = error
        self.emit(.error(error))
        self.finish()
    }

    func finish() {
        self.finished = true
        self.rate = 0
        self.updateStatus()
    }

    func finishNotifications() {
        for continuation in self.subscribers.values { continuation.finish() }
        self.subscribers.removeAll()
    }
}
