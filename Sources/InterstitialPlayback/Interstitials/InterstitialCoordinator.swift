import HLSInterstitials
import HLSPlaylist

/// How a live break without `X-RESUME-OFFSET` resumes the primary.
public struct LiveResumption: Sendable, Hashable, CustomStringConvertible {
    private let code: UInt8
    private init(_ code: UInt8) {
        self.code = code
    }
    /// The spec's default (Appendix D.2): the interstitial's duration, or its playout limit when
    /// shorter, counted from its start, whatever time the asset list and the loads took.
    public static let eventDuration = LiveResumption(0)
    /// AVFoundation's `resumptionOffset = .indefinite`: the time spent in the break, so the
    /// primary keeps pace with the wall clock (answer and load times included).
    public static let followsWallClock = LiveResumption(1)
    /// `eventDuration` or `followsWallClock`.
    public var description: String { self.code == 0 ? "eventDuration" : "followsWallClock" }
}

/// One event of a break once it finished, as it was when it played: a copy of its attributes
/// and of what the schedule said of it, so replacing the events while it plays
/// (``InterstitialEventController/setEvents(_:)``) cannot change how it ends.
struct FinishedEvent: Sendable, Hashable {
    /// The event's attributes as it played.
    var event: InterstitialEvent
    /// The schedule's resume offset for it, and where that came from.
    var scheduledOffset: MediaTime?
    /// Where ``scheduledOffset`` came from.
    var offsetSource: ScheduledEvent.ResumeOffsetSource?
    /// The interstitial's duration as the schedule knew it (the asset list's durations once loaded).
    var duration: MediaTime?
    /// The event's playhead when it ended (from the event's start, a live join's skipped part included).
    var playout: MediaTime
    /// Playback-clock time spent in it.
    var elapsed: MediaTime
    /// Whether any of it played.
    var playedSomething: Bool
    /// Whether it was cancelled before it played (a failed asset list or asset URI): resume offset 0.
    var cancelled: Bool
}

/// The pure part of the interstitial engine.
///
/// It takes what happened (the schedule or the events changed, a list loaded or failed, an asset
/// ended or failed, the clock reached a boundary, a seek, rate or skip request, a cancel) and
/// returns what the player must do, with no I/O, clock or actor, after
/// `Presentation` and AsyncHTTPClient's `HTTPRequestStateMachine`.
/// The ``Player`` actor performs the actions. Its tests are tables, with no network.
struct InterstitialCoordinator: Sendable {
    /// What the player must do.
    enum Action: Sendable, Equatable {
        /// Write the log line and post the notification of an event.
        case emit(PlayerEvent)
        /// Set the playback rate.
        case setRate(Double)
        /// End the current event (a granted skip), not played entire.
        case finishCurrentEvent
        /// A request is refused, with why.
        case refuse(String)
        /// Cancel an event that cannot play (D.5): resume offset 0, the schedule placed without it.
        case cancelEvent(String)
    }

    /// What is known of the event playing when a skip is asked for.
    struct SkipRequest: Sendable {
        /// The event playing, or `nil`.
        var event: InterstitialEvent?
        /// The skip state at the playhead (the asset list's `SKIP-CONTROL` applied).
        var report: SkipStateReport?
        /// The app owns the skip policy (AirPlay plans B and C): grant whatever the state.
        var overridesPolicy: Bool
    }

    /// How a live break without `X-RESUME-OFFSET` resumes.
    var liveResumption: LiveResumption = .eventDuration
    /// The rate in force before an `X-RESTRICT=SKIP` event lowered it to 1, until the break ends.
    private(set) var rateBeforeRestriction: Double?
    /// The effective skip label of the event playing (the asset list's `SKIP-CONTROL` over the tag's).
    private(set) var skipLabelID: String?

    // MARK: Skipping

    /// A skip request (``InterstitialEventController/skipCurrentEvent(overridingPolicy:)``):
    /// granted inside the skip window, or anywhere for an event without skip control or
    /// `X-RESTRICT=SKIP`, or whatever the state when the app owns the policy.
    func skip(_ request: SkipRequest) -> [Action] {
        guard let event = request.event else {
            return [
                .refuse("no interstitial event is playing"),
                .emit(.skipRefused(eventID: nil, reason: "no interstitial event is playing")),
            ]
        }
        let granted: [Action] = [.emit(.currentEventSkipped(event)), .finishCurrentEvent]
        if request.overridesPolicy { return granted }
        let state = request.report?.state ?? .notSkippable
        let reason: String
        switch state {
        case .eligible:
            return granted
        case .notYetEligible:
            let from = request.report?.eligibleFrom.map { " at \($0) s into the event" } ?? ""
            reason = "skip control is not shown yet: it opens\(from)"
        case .noLongerEligible:
            let until = request.report?.eligibleUntil.map { " at \($0) s into the event" } ?? ""
            reason = "the skip window closed\(until)"
        default:
            guard event.restrictions.contains(.skip) else { return granted }
            reason = "X-RESTRICT=SKIP and no skip control"
        }
        return [.refuse(reason), .emit(.skipRefused(eventID: event.identifier, reason: reason))]
    }

    /// The skip state moved from `old` to `report.state`: report it with the effective label.
    mutating func skipStateChanged(
        from old: SkippableEventState,
        to new: SkippableEventState,
        event: InterstitialEvent,
        control: SkipControl?
    ) -> [Action] {
        self.skipLabelID = new == .notSkippable ? nil : control?.labelID
        guard new != old else { return [] }
        return [.emit(.skippableStateDidChange(event, new, labelID: self.skipLabelID))]
    }

    // MARK: Rate

    /// An event begins while the player runs at `rate`: `X-RESTRICT=SKIP` holds from its first
    /// frame, so a rate above 1 is lowered to 1 (and comes back when the break ends).
    mutating func eventWillStart(_ event: InterstitialEvent, rate: Double) -> [Action] {
        guard event.restrictions.contains(.skip), rate > 1 else { return [] }
        if self.rateBeforeRestriction == nil { self.rateBeforeRestriction = rate }
        let reason = "\(event.identifier) has X-RESTRICT=SKIP: no rate above 1"
        return [.setRate(1), .emit(.rateChanged(rate: 1, reason: reason))]
    }

    /// The break ended with the player at `rate`: the rate in force before a restricted event
    /// lowered it comes back, unless the app changed the rate since (paused, or set another).
    mutating func breakDidEnd(rate: Double) -> [Action] {
        defer {
            self.rateBeforeRestriction = nil
            self.skipLabelID = nil
        }
        guard let before = self.rateBeforeRestriction, rate == 1 else { return [] }
        return [.setRate(before), .emit(.rateChanged(rate: before, reason: "the rate before the restricted break"))]
    }

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
