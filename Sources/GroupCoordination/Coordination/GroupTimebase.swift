import HLSPlaylist

/// Why a participant has stepped out of coordinated playback for a while, after AVFoundation's
/// `AVCoordinatedPlaybackSuspension.Reason`.
///
/// A group waits for a suspended participant only when the reason is in its
/// ``GroupPolicy/suspensionReasonsThatTriggerWaiting``.
public struct SuspensionReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The reason's name as it travels on the wire.
    public let rawValue: String

    /// Creates a reason from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The participant is playing an interstitial the others may not have: an HLS interstitial whose
    /// content may vary, or a stitched ad.
    public static let playingInterstitial = SuspensionReason(rawValue: "playingInterstitial")
    /// The participant stalled and is buffering.
    public static let stallRecovery = SuspensionReason(rawValue: "stallRecovery")
    /// The participant is moving its playhead itself (scrubbing).
    public static let userIsChangingCurrentTime = SuspensionReason(rawValue: "userIsChangingCurrentTime")
    /// The participant's player needs the viewer to act before it can play.
    public static let userActionRequired = SuspensionReason(rawValue: "userActionRequired")
    /// The participant cannot follow the group (for example its item is incompatible).
    public static let coordinatedPlaybackNotPossible = SuspensionReason(rawValue: "coordinatedPlaybackNotPossible")

    /// The reason's name.
    public var description: String { self.rawValue }
}

/// The group's settings, fixed when the group is made.
public struct GroupPolicy: Sendable, Hashable, Codable {
    /// The suspension reasons for which the rest of the group waits.
    ///
    /// Empty (the default) means the
    /// group never waits: a participant returning from an ad catches up, skipping content.
    public var suspensionReasonsThatTriggerWaiting: Set<SuspensionReason>

    /// Creates a policy.
    public init(suspensionReasonsThatTriggerWaiting: Set<SuspensionReason> = []) {
        self.suspensionReasonsThatTriggerWaiting = suspensionReasonsThatTriggerWaiting
    }

    /// The policy in which the group waits for participants playing interstitials.
    public static let waitsForInterstitials = GroupPolicy(suspensionReasonsThatTriggerWaiting: [.playingInterstitial])
}

/// Where the group is on its timeline: at group-clock instant ``anchor`` it is at coordinated time
/// ``time`` and moves at ``rate`` (0 when paused or waiting).
///
/// The hub is the only author of timebases; each carries a ``revision`` so a participant can drop
/// one that arrives after a newer one.
public struct GroupTimebase: Sendable, Hashable, Codable {
    /// Increases by one with every timebase the hub issues.
    public var revision: Int64
    /// The coordinated time at ``anchor``.
    public var time: MediaTime
    /// A group-clock instant.
    public var anchor: ClockInstant
    /// The playback rate from ``anchor`` on: 0 paused, 1 normal.
    public var rate: Double

    /// Creates a timebase.
    public init(revision: Int64, time: MediaTime, anchor: ClockInstant, rate: Double) {
        self.revision = revision
        self.time = time
        self.anchor = anchor
        self.rate = rate
    }

    /// The coordinated time at a group-clock instant: before the anchor the group holds at
    /// ``time`` (it is getting ready to move), after it the time advances at ``rate``.
    public func time(at instant: ClockInstant) -> MediaTime {
        guard self.rate != 0, instant > self.anchor else { return self.time }
        let elapsed = self.anchor.duration(to: instant)
        return self.time + MediaTime(seconds: elapsed.seconds * self.rate)
    }

    /// Whether the group moves.
    public var isMoving: Bool { self.rate != 0 }
}

/// A participant's suspension as the group knows it.
public struct Suspension: Sendable, Hashable, Codable {
    /// Why the participant stepped out.
    public var reason: SuspensionReason
    /// The coordinated time at which it stepped out.
    public var coordinatedTime: MediaTime
    /// When it expects to be back, on the group clock, if it knows (from its schedule).
    public var expectedEnd: ClockInstant?

    /// Creates a suspension.
    public init(reason: SuspensionReason, coordinatedTime: MediaTime, expectedEnd: ClockInstant? = nil) {
        self.reason = reason
        self.coordinatedTime = coordinatedTime
        self.expectedEnd = expectedEnd
    }
}

/// The group's state as the hub sends it to every participant after any change.
public struct GroupState: Sendable, Hashable, Codable {
    /// Where the group is: frozen (rate 0) while it waits.
    public var timebase: GroupTimebase
    /// The rate the group plays at once nobody is waited for.
    public var intendedRate: Double
    /// Participants the group waits for, with their suspensions.
    public var waitingFor: [String: Suspension]
    /// Every participant's suspension, waited for or not (for display).
    public var suspensions: [String: Suspension]
    /// The participants, by identifier.
    public var participants: [String]

    /// Creates a state.
    public init(
        timebase: GroupTimebase,
        intendedRate: Double,
        waitingFor: [String: Suspension] = [:],
        suspensions: [String: Suspension] = [:],
        participants: [String] = []
    ) {
        self.timebase = timebase
        self.intendedRate = intendedRate
        self.waitingFor = waitingFor
        self.suspensions = suspensions
        self.participants = participants
    }

    /// When the last waited-for participant expects to be back, if all of them said.
    public var expectedWaitEnd: ClockInstant? {
        guard !self.waitingFor.isEmpty else { return nil }
        let ends = self.waitingFor.values.map(\.expectedEnd)
        guard ends.allSatisfy({ $0 != nil }) else { return nil }
        return ends.compactMap { $0 }.max()
    }
}
