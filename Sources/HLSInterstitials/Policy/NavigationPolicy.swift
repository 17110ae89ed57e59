import HLSPlaylist

/// Where playback is: on the primary, or inside an interstitial.
public struct Playhead: Sendable, Hashable, CustomStringConvertible {
    /// The primary position.
    ///
    /// While an interstitial plays, where the primary paused (the event's start).
    public var primaryTime: MediaTime
    /// The interstitial playing, if any.
    public var eventID: String?
    /// How far into the interstitial playback is, counted across all its assets.
    public var eventTime: MediaTime

    /// Creates a playhead.
    public init(primaryTime: MediaTime, eventID: String? = nil, eventTime: MediaTime = .zero) {
        self.primaryTime = primaryTime
        self.eventID = eventID
        self.eventTime = eventTime
    }

    /// Playing primary content at `time`.
    public static func primary(_ time: MediaTime) -> Playhead {
        Playhead(primaryTime: time)
    }

    /// Playing the interstitial `eventID`, `time` into it (across all its assets), with the primary
    /// paused at `primaryTime`.
    public static func interstitial(_ eventID: String, at time: MediaTime, primaryTime: MediaTime) -> Playhead {
        Playhead(primaryTime: primaryTime, eventID: eventID, eventTime: time)
    }

    /// The time into a whole interstitial when playing asset `asset` (0-based) at `time`, given
    /// the durations of the assets before it: skip control counts across all assets (Appendix D.7).
    public static func eventTime(asset: Int, at time: MediaTime, assetDurations: [MediaTime]) -> MediaTime {
        assetDurations.prefix(asset).reduce(time, +)
    }

    /// `primary@T` or `event@t (primary T)`.
    public var description: String {
        if let eventID = self.eventID { return "\(eventID)@\(self.eventTime) (primary \(self.primaryTime))" }
        return "primary@\(self.primaryTime)"
    }
}

/// Where a seek goes: a primary time, or a time inside the interstitial that is playing.
public struct SeekTarget: Sendable, Hashable, CustomStringConvertible {
    /// The primary time, or the time inside the interstitial.
    public var time: MediaTime
    /// Whether ``time`` is inside the current interstitial rather than on the primary timeline.
    public var isWithinInterstitial: Bool

    /// A primary time.
    public static func primary(_ time: MediaTime) -> SeekTarget {
        SeekTarget(time: time, isWithinInterstitial: false)
    }

    /// A time inside the interstitial that is playing (across all its assets).
    public static func withinInterstitial(_ time: MediaTime) -> SeekTarget {
        SeekTarget(time: time, isWithinInterstitial: true)
    }

    /// `primary(T)` or `withinInterstitial(t)`.
    public var description: String {
        self.isWithinInterstitial ? "withinInterstitial(\(self.time))" : "primary(\(self.time))"
    }
}

/// The answer to a seek: refused, or a plan of interstitials to play first and where the primary
/// then continues, with the reason.
public struct SeekPlan: Sendable, Hashable, CustomStringConvertible {
    /// Whether the seek may happen.
    public var isAllowed: Bool
    /// The interstitials to play, in order, before primary playback continues: a `JUMP`-restricted
    /// event the seek crosses, then the events whose replaced span the target lands in.
    public var interstitials: [String]
    /// Where primary playback continues after them: the target, or the resume point of an
    /// interstitial the target lands in.
    ///
    /// `nil` when refused or when seeking inside an interstitial.
    public var primaryTime: MediaTime?
    /// For a seek inside the playing interstitial: where it continues.
    ///
    /// `nil` otherwise.
    public var interstitialTime: MediaTime?
    /// Why, in words.
    public var reason: String

    /// Creates a plan.
    public init(
        isAllowed: Bool,
        interstitials: [String] = [],
        primaryTime: MediaTime? = nil,
        interstitialTime: MediaTime? = nil,
        reason: String
    ) {
        self.isAllowed = isAllowed
        self.interstitials = interstitials
        self.primaryTime = primaryTime
        self.interstitialTime = interstitialTime
        self.reason = reason
    }

    /// A one-line summary: `play [ad2] then primary@70: …` or `refused: …`.
    public var description: String {
        guard self.isAllowed else { return "refused: " + self.reason }
        var text = ""
        if !self.interstitials.isEmpty { text += "play [" + self.interstitials.joined(separator: ", ") + "] then " }
        if let time = self.primaryTime { text += "primary@\(time)" }
        if let time = self.interstitialTime { text += "interstitial@\(time)" }
        return text + ": " + self.reason
    }
}

/// The answer to a request that is allowed or not (a rate change), with the reason.
public struct NavigationDecision: Sendable, Hashable, CustomStringConvertible {
    /// Whether the request may happen.
    public var isAllowed: Bool
    /// Why, in words.
    public var reason: String

    /// Creates a decision.
    public init(isAllowed: Bool, reason: String) {
        self.isAllowed = isAllowed
        self.reason = reason
    }

    /// `allowed: …` or `refused: …`.
    public var description: String { (self.isAllowed ? "allowed: " : "refused: ") + self.reason }
}

/// Whether the skip button of the current interstitial shows (AVFoundation
/// `AVPlayerInterstitialEvent.SkippableEventState`).
public struct SkippableEventState: Sendable, Hashable, CustomStringConvertible {
    /// The AVFoundation raw value: 0 `notSkippable`, 1 `notYetEligible`, 2 `eligible`, 3 `noLongerEligible`.
    public let rawValue: Int

    private init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// No skip control (or no interstitial playing).
    public static let notSkippable = SkippableEventState(0)
    /// Skip control exists but its offset is not reached yet.
    public static let notYetEligible = SkippableEventState(1)
    /// The skip button shows.
    public static let eligible = SkippableEventState(2)
    /// The skip control's duration has passed.
    public static let noLongerEligible = SkippableEventState(3)

    /// `notSkippable`, `notYetEligible`, `eligible` or `noLongerEligible`.
    public var description: String {
        switch self.rawValue {
        case 1: "notYetEligible"
        case 2: "eligible"
        case 3: "noLongerEligible"
        default: "notSkippable"
        }
    }
}

/// The skip state of the current interstitial, with the reason and the window it is eligible in.
public struct SkipStateReport: Sendable, Hashable, CustomStringConvertible {
    /// The state.
    public var state: SkippableEventState
    /// When the button shows, counted from the start of the interstitial across all assets
    /// (`nil` when not skippable).
    ///
    /// The end is `nil` when it shows until the interstitial ends.
    public var eligibleFrom: MediaTime?
    /// When the button goes away, or `nil` for the end of the interstitial.
    public var eligibleUntil: MediaTime?
    /// Why, in words.
    public var reason: String

    /// Creates a report.
    public init(
        state: SkippableEventState,
        eligibleFrom: MediaTime? = nil,
        eligibleUntil: MediaTime? = nil,
        reason: String
    ) {
        self.state = state
        self.eligibleFrom = eligibleFrom
        self.eligibleUntil = eligibleUntil
        self.reason = reason
    }

    /// `state: reason`.
    public var description: String { "\(self.state): \(self.reason)" }
}

/// Navigation rules around interstitials, as pure functions of a schedule, the events already
/// played and the playhead (§6 and Appendix D `X-RESTRICT`, `CUE=ONCE`, resumption, skip control).
///
/// - A forward seek across `JUMP`-restricted interstitials plays one of them first (the one
///   nearest the target), then lands on the target. `CUE=ONCE` events already played are not
///   played again. Seeking back is free.
/// - A seek landing between an event's start and its later resume point plays that interstitial
///   from its beginning, then the primary continues at its resume point.
/// - Inside an interstitial with `SKIP`, forward seeks and rates above 1 are refused until it ends;
///   pause, rate 1 or below and seeking back are allowed.
/// - Skip control counts its offset and duration across the whole interstitial.
///
/// ```swift
/// let policy = NavigationPolicy(schedule: schedule, playedEventIDs: ["ad1"])
/// let plan = policy.resolveSeek(to: .primary(70), from: .primary(10))
/// // plan.interstitials == ["ad-jump-restricted"], plan.primaryTime == 70
/// ```
public struct NavigationPolicy: Sendable {
    /// The schedule navigated.
    public var schedule: Schedule
    /// Events played in this session (besides those the schedule already knows).
    public var playedEventIDs: Set<String>

    /// Creates a policy.
    public init(schedule: Schedule, playedEventIDs: Set<String> = []) {
        self.schedule = schedule
        self.playedEventIDs = playedEventIDs.union(schedule.configuration.playedEventIDs)
    }

    /// Events on the primary timeline a seek can cross or land in, with their pods.
    private var placedEvents: [ScheduledEvent] {
        self.schedule.events.filter { event in
            guard event.startTime != nil, event.event.cue == .none else { return false }
            if event.event.willPlayOnce && self.playedEventIDs.contains(event.identifier) { return false }
            return event.status == .scheduled || event.status == .beforeStart
        }
    }

    /// Resolves a seek.
    ///
    /// - Parameters:
    ///   - target: Where to: a primary time, or a time inside the playing interstitial.
    ///   - playhead: Where playback is.
    /// - Returns: Refused with the reason, or what plays and where the primary continues.
    public func resolveSeek(to target: SeekTarget, from playhead: Playhead) -> SeekPlan {
        var origin = playhead.primaryTime
        if let eventID = playhead.eventID {
            let current = self.schedule.event(eventID)
            let restricted = current?.event.restrictions.contains(.skip) ?? false
            if target.isWithinInterstitial {
                if restricted && target.time > playhead.eventTime {
                    return SeekPlan(
                        isAllowed: false,
                        reason: "\(eventID) has X-RESTRICT=SKIP: no seeking forward until it ends"
                    )
                }
                return SeekPlan(isAllowed: true, interstitialTime: target.time, reason: "seek inside \(eventID)")
            }
            let start = current?.startTime ?? playhead.primaryTime
            if restricted && target.time >= start {
                return SeekPlan(
                    isAllowed: false,
                    reason: "\(eventID) has X-RESTRICT=SKIP: no seeking forward out of it until it ends"
                )
            }
            origin = start
        } else if target.isWithinInterstitial {
            return SeekPlan(isAllowed: false, reason: "no interstitial is playing")
        }

        let time = target.time
        let events = self.placedEvents
        var first: [String] = []
        var reasons: [String] = []
        if time > origin {
            // The JUMP-restricted events crossed, and the pod nearest the target among them.
            var nearest: MediaTime?
            for event in events where event.event.restrictions.contains(.jump) {
                guard let start = event.startTime, origin < start, start < time else { continue }
                if nearest == nil || start > nearest! { nearest = start }
            }
            if let nearest {
                let crossed = events.filter {
                    $0.event.restrictions.contains(.jump) && ($0.startTime.map { origin < $0 && $0 < time } ?? false)
                }
                first = events.filter { $0.startTime == nearest && $0.event.restrictions.contains(.jump) }
                    .map(\.identifier)
                let others = crossed.count - first.count
                reasons.append(
                    "the seek crosses X-RESTRICT=JUMP \(first.joined(separator: ", "))"
                        + (others > 0 ? " (and \(others) more)" : "") + ": play it first (the one nearest the target)"
                )
            } else {
                reasons.append("no JUMP-restricted interstitial between \(origin) and \(time)")
            }
        } else {
            reasons.append("seeking back is free")
        }

        // Landing inside a replaced span: play that interstitial (its pod) from the beginning.
        var primaryTime = time
        if let landing = events.last(where: { $0.replacedSpanContains(time) && $0.startTime != time }),
            let start = landing.startTime
        {
            let pod = events.filter { $0.startTime == start }
            let resume = pod.compactMap(\.resumeTime).last ?? time
            let ids = pod.map(\.identifier).filter { !first.contains($0) }
            first += ids
            primaryTime = resume
            reasons.append(
                "\(time) is between \(ids.joined(separator: ", "))'s start \(start) and resume point \(resume): "
                    + "it plays from its beginning, then the primary resumes at \(resume)"
            )
        }
        return SeekPlan(
            isAllowed: true,
            interstitials: first,
            primaryTime: primaryTime,
            reason: reasons.joined(separator: "; ")
        )
    }

    /// Decides a rate change (`0` pauses).
    ///
    /// Refused above 1 inside an interstitial with `X-RESTRICT=SKIP`; everything else is allowed.
    public func resolveRate(_ rate: Double, at playhead: Playhead) -> NavigationDecision {
        guard let eventID = playhead.eventID else {
            return NavigationDecision(isAllowed: true, reason: "primary content has no rate restriction")
        }
        let restricted = self.schedule.event(eventID)?.event.restrictions.contains(.skip) ?? false
        if restricted && rate > 1 {
            return NavigationDecision(
                isAllowed: false,
                reason: "\(eventID) has X-RESTRICT=SKIP: no rate above 1 until it ends (requested \(rate))"
            )
        }
        if rate == 0 { return NavigationDecision(isAllowed: true, reason: "pause is always allowed") }
        if restricted { return NavigationDecision(isAllowed: true, reason: "rate \(rate) is not above 1") }
        return NavigationDecision(isAllowed: true, reason: "\(eventID) has no SKIP restriction")
    }

    /// The skip-control state at the playhead.
    ///
    /// - Parameters:
    ///   - playhead: Where playback is.
    ///   - override: The asset list's `SKIP-CONTROL`, which overrides the event's attributes
    ///     key by key; `nil` to use the event's.
    /// - Returns: The state, the eligible window and the reason. `X-RESTRICT=SKIP` does not hide
    ///   the skip button: it restricts seeking and rate, while skip control is the server's offer
    ///   to skip (AVFoundation `skipCurrentEvent()`).
    public func skipState(at playhead: Playhead, skipControl override: SkipControl? = nil) -> SkipStateReport {
        guard let eventID = playhead.eventID else {
            return SkipStateReport(state: .notSkippable, reason: "no interstitial is playing")
        }
        guard let control = override ?? self.schedule.event(eventID)?.event.skipControl else {
            return SkipStateReport(state: .notSkippable, reason: "\(eventID) has no X-SKIP-CONTROL-OFFSET")
        }
        let from = control.offset
        let until = control.duration.map { from + $0 }
        let window = "from \(from) s" + (until.map { " to \($0) s" } ?? " to the end") + " of the interstitial"
        let t = playhead.eventTime
        if t < from {
            return SkipStateReport(
                state: .notYetEligible,
                eligibleFrom: from,
                eligibleUntil: until,
                reason: "\(t) s played; skip shows \(window)"
            )
        }
        if let until, t >= until {
            return SkipStateReport(
                state: .noLongerEligible,
                eligibleFrom: from,
                eligibleUntil: until,
                reason: "\(t) s played; skip showed \(window)"
            )
        }
        return SkipStateReport(
            state: .eligible,
            eligibleFrom: from,
            eligibleUntil: until,
            reason: "\(t) s played; skip shows \(window)"
        )
    }
}
