import HLSPlaylist

/// The primary playlists as the scheduler sees them: the first one's timeline, its end, and
/// segment boundaries across all of them for `X-SNAP`.
struct PrimaryTimeline: Sendable {
    var playlists: [MediaPlaylist]
    var end: MediaTime
    var isLive: Bool
    var targetDuration: MediaTime
    var holdBack: MediaTime?
    var hasDates: Bool
    var mediaSequence: Int
    var segmentCount: Int
    /// The first and last segment's timing, to recognise an append-only reload.
    var first: SegmentTiming?
    var last: SegmentTiming?

    init(playlists: [MediaPlaylist], isLive: Bool?) {
        let reference = playlists[0]
        let timings = reference.timings
        self.playlists = playlists
        self.end = reference.duration
        self.isLive = isLive ?? reference.isLive
        self.targetDuration = MediaTime(seconds: reference.targetDuration ?? 0)
        self.holdBack = reference.serverControl?.holdBack
        self.hasDates = reference.hasProgramDateTime
        self.mediaSequence = reference.mediaSequence
        self.segmentCount = timings.count
        self.first = timings.first
        self.last = timings.last
    }

    var reference: MediaPlaylist { self.playlists[0] }

    /// Where an event's start falls on the primary timeline, before snapping.
    func time(of start: InterstitialEvent.Start) -> MediaTime? {
        switch start {
        case .time(let time): time
        case .date(let date): self.reference.time(at: date)
        }
    }

    /// The date of a primary time, through PROGRAM-DATE-TIME.
    func date(at time: MediaTime) -> DateTime? {
        self.hasDates ? self.reference.date(at: time) : nil
    }

    /// Where a live player joins: `HOLD-BACK`, or three target durations, from the end.
    var liveJoinTime: MediaTime {
        let back = self.holdBack ?? self.targetDuration * 3
        return MediaTime.max(.zero, self.end - back)
    }

    /// The segment boundary nearest `time`: across playlists, the earliest (`latest == false`, for
    /// `X-SNAP OUT`) or the latest (`latest == true`, for `X-SNAP IN`).
    ///
    /// A time after the end of a playlist is not snapped against it: the boundary does not exist yet.
    func snap(_ time: MediaTime, latest: Bool) -> MediaTime {
        var best: MediaTime?
        for (j, playlist) in self.playlists.enumerated() {
            var local = time
            if j > 0, self.hasDates, playlist.hasProgramDateTime, let date = self.reference.date(at: time),
                let mapped = playlist.time(at: date)
            {
                local = mapped
            }
            guard local <= playlist.duration, let boundary = playlist.nearestSegmentBoundary(to: local) else {
                continue
            }
            let candidate = time + (boundary - local)
            if let current = best {
                best = latest ? MediaTime.max(current, candidate) : MediaTime.min(current, candidate)
            } else {
                best = candidate
            }
        }
        return best ?? time
    }

    /// How a new version of the playlists relates to this one.
    func change(to new: PrimaryTimeline) -> Change {
        if new.isLive != self.isLive || new.playlists.count != self.playlists.count
            || new.mediaSequence != self.mediaSequence || new.hasDates != self.hasDates
            || new.targetDuration != self.targetDuration || new.holdBack != self.holdBack
        {
            return .other
        }
        if new.segmentCount < self.segmentCount || new.first != self.first { return .other }
        guard let last = self.last else { return new.segmentCount == 0 ? .same : .other }
        guard new.reference.timings[self.segmentCount - 1] == last else { return .other }
        // The secondary playlists only matter for snapping; compare their length cheaply.
        for j in 1..<max(1, self.playlists.count) where new.playlists[j].duration < self.playlists[j].duration {
            return .other
        }
        return new.segmentCount == self.segmentCount && new.end == self.end ? .same : .appended
    }

    enum Change {
        /// The same segments.
        case same
        /// Segments were added at the end; the existing ones are unchanged.
        case appended
        /// Anything else (a sliding window, a new playlist, liveness changed): rebuild.
        case other
    }
}
