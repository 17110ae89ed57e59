import HLSInterstitials
import HLSPlaylist

// Where the primary resumes after a break, and where a resume point enters another interstitial.
extension InterstitialCoordinator {
    // MARK: Resumption

    /// An interstitial a resume point may land in: its start on the stable primary timeline and
    /// the span of primary it covers.
    struct SpanCandidate: Sendable, Hashable {
        /// The event's identifier.
        var id: String
        /// Where it starts.
        var start: MediaTime
        /// How much of the primary it covers (its duration, or its resume offset).
        var span: MediaTime
        /// Whether a resume point may enter it; a pod's events that may not (already passed,
        /// cancelled, or before the start) still take their share of the pod's span.
        var enterable = true
    }

    /// The interstitial whose span a resume point lands inside, and how far into it.
    ///
    /// After a pre-roll, a cancel or a failed list, playback enters it there, asking its asset
    /// list with `_HLS_start_offset` on live, exactly as a live join does. The events of a pod
    /// (candidates with the same start, in pod order) cover consecutive shares of the primary:
    /// the first from the pod's start, each next one from where the one before it ends. `nil`
    /// when none contains the point, or when the point is the pod's start (it plays normally).
    ///
    /// - Returns: The event, its pod's start, how far into the event the point lies, and the
    ///   spans of the pod's events before it (``BreakRun/skippedSpan``).
    func interstitial(
        containing time: MediaTime,
        among candidates: [SpanCandidate]
    ) -> (id: String, start: MediaTime, offset: MediaTime, skippedSpan: MediaTime)? {
        let tolerance = BufferedRanges.tolerance
        var shareEnds: [MediaTime: MediaTime] = [:]
        var best: (id: String, start: MediaTime, offset: MediaTime, skippedSpan: MediaTime)?
        for candidate in candidates where candidate.span > .zero {
            let from = shareEnds[candidate.start] ?? candidate.start
            shareEnds[candidate.start] = from + candidate.span
            let opens = from == candidate.start ? from < time - tolerance : from - tolerance <= time
            guard candidate.enterable, opens, time < from + candidate.span - tolerance else { continue }
            if let best, best.start <= candidate.start { continue }
            let offset = MediaTime.max(time - from, .zero)
            best = (candidate.id, candidate.start, offset, from - candidate.start)
        }
        return best
    }

    /// Where the primary resumes after a break that paused it at `start` (§6 resumption, D.2, D.5).
    ///
    /// - Parameters:
    ///   - start: Where the break began on the stable primary timeline (a live join: the event's start).
    ///   - finished: The break's events as they played.
    ///   - skippedSpan: The resume offsets of a pod's events a live join landed after.
    ///   - joinOffset: How far into the break a live join entered it (zero otherwise).
    ///   - isLive: Whether the primary is live.
    ///   - segmentEdges: The segment boundaries of each of the primary's audio and video
    ///     playlists, for `X-SNAP=IN`: the resume point snaps to the nearest boundary of each, and
    ///     the latest of those wins, so no track resumes mid-segment before the others.
    func resumption(
        start: MediaTime,
        finished: [FinishedEvent],
        skippedSpan: MediaTime,
        joinOffset: MediaTime,
        isLive: Bool,
        segmentEdges: [[MediaTime]]
    ) -> MediaTime {
        var total = MediaTime.zero
        var elapsedUsed = false
        for item in finished {
            let given = item.event.resumptionOffset
            if item.cancelled || !item.playedSomething {
                total = total + (given ?? .zero)
            } else if let given {
                total = total + given
            } else if isLive {
                if self.liveResumption == .followsWallClock {
                    total = total + item.elapsed
                    elapsedUsed = true
                } else {
                    // D.2: the interstitial's duration, or its playout limit when shorter.
                    var duration = item.duration ?? item.playout
                    if let limit = item.event.playoutLimit { duration = MediaTime.min(duration, limit) }
                    total = total + duration
                }
            } else if item.offsetSource == nil || item.offsetSource == .unknown {
                // No X-RESUME-OFFSET and no duration in the playlist: the offset is the
                // interstitial's duration (D.2), which its assets told once loaded.
                total = total + item.playout
            } else {
                total = total + (item.scheduledOffset ?? item.playout)
            }
        }
        let resume = start + skippedSpan + total + (elapsedUsed ? joinOffset : .zero)
        guard let last = finished.last, last.event.alignsResumptionWithPrimarySegmentBoundary else { return resume }
        var latest: MediaTime?
        for edges in segmentEdges {
            var nearest: MediaTime?
            for edge in edges where nearest.map({ (edge - resume).magnitude < ($0 - resume).magnitude }) ?? true {
                nearest = edge
            }
            if let nearest { latest = latest.map { MediaTime.max($0, nearest) } ?? nearest }
        }
        return latest ?? resume
    }
}
