import HLSPlaylist

/// What a participant shows while in a group, after AVFoundation's `timeControlStatus` and
/// `reasonForWaitingToPlay`.
public enum ParticipantStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not yet admitted.
    case joining
    /// The group refused the participant, with every reason.
    case refused([String])
    /// The group is paused.
    case paused
    /// The group plays at this rate.
    case playing(rate: Double)
    /// `waitingToPlayAtSpecifiedRate` with the reason `waitingForCoordinatedPlayback`: the group waits
    /// for the named participants, until `until` on this participant's clock when they all said.
    case waitingForCoordinatedPlayback(for: [String], until: ClockInstant?)
    /// The participant has stepped out (for example to play its own ad) and does not follow the group.
    case suspended(SuspensionReason)

    /// The AVFoundation-style status name.
    public var timeControlStatus: String {
        switch self {
        case .playing: "playing"
        case .waitingForCoordinatedPlayback, .suspended, .joining: "waitingToPlayAtSpecifiedRate"
        case .paused, .refused: "paused"
        }
    }

    /// The status and its reason, as logs show it.
    public var description: String {
        switch self {
        case .joining: "joining"
        case .refused(let reasons): "refused: " + reasons.joined(separator: "; ")
        case .paused: "paused"
        case .playing(let rate): "playing at \(rate)"
        case .waitingForCoordinatedPlayback(let ids, _):
            "waitingToPlayAtSpecifiedRate (waitingForCoordinatedPlayback: \(ids.joined(separator: ", ")))"
        case .suspended(let reason): "suspended (\(reason))"
        }
    }
}

/// One participant's side of coordinated playback: it turns the hub's states into player actions,
/// the viewer's commands into messages, and watches its own position for drift and for left-out
/// ranges.
///
/// A value type; the participant's actor feeds it and performs the actions.
///
/// All instants given to it are on the participant's own clock; it converts with its ``clock``.
public struct ParticipantCoordination: Sendable {
    /// What the participant's actor does.
    public enum Action: Sendable, Hashable {
        /// Send a message to the hub.
        case send(GroupMessage)
        /// Move the player to a position now.
        case seek(ItemPosition)
        /// Play at the rate from a local instant on (at once when it has passed).
        case play(rate: Double, at: ClockInstant)
        /// Pause now.
        case pause
        /// The status changed.
        case status(ParticipantStatus)
    }

    /// The participant's identifier in the group.
    public let participantID: String
    /// The participant's own view of the group's timeline.
    public var timeline: CoordinatedTimeline
    /// How far the participant may drift from the group before it seeks back into step.
    public var syncTolerance: MediaTime

    /// The participant's estimate of the group clock.
    public private(set) var clock = GroupClock()
    /// The last state from the hub.
    public private(set) var groupState: GroupState?
    /// The group's policy, once admitted.
    public private(set) var policy: GroupPolicy?
    /// The participant's own suspension, if it has stepped out.
    public private(set) var suspension: Suspension?
    /// When the suspension began on this participant's own clock, and how long it was expected to
    /// last: for a suspension that began before the hub clock was known (a pre-roll that starts at
    /// once), whose ``Suspension/expectedEnd`` could not be dated on the hub's clock.
    private var suspensionStart: (at: ClockInstant, expectedDuration: MediaTime?)?
    /// The last status reported.
    public private(set) var status: ParticipantStatus = .joining
    /// The secret the hub's `welcome` gave: the next `hello` presents it, so that a participant
    /// whose connection dropped takes its ID back while the group still holds it.
    public private(set) var secret: String?

    /// Creates a participant's coordination.
    public init(
        participantID: String,
        timeline: CoordinatedTimeline,
        syncTolerance: MediaTime = MediaTime(milliseconds: 50)
    ) {
        self.participantID = participantID
        self.timeline = timeline
        self.syncTolerance = syncTolerance
    }

    /// The messages that ask to join (with the secret of a former `welcome`, if any).
    public func hello(description: ParticipantDescription, policy: GroupPolicy) -> [Action] {
        [
            .send(
                .hello(participantID: self.participantID, description: description, policy: policy, secret: self.secret)
            )
        ]
    }

    /// A clock probe sent now.
    public func probe(at now: ClockInstant) -> Action { .send(.ping(sent: now)) }

    /// A message from the hub, read at `now` while the player stands at `position`.
    public mutating func receive(_ message: GroupMessage, at now: ClockInstant, position: ItemPosition) -> [Action] {
        switch message {
        case .pong(let sent, let hubReceived, let hubSent):
            self.clock.add(ClockSample(sent: sent, hubReceived: hubReceived, hubSent: hubSent, received: now))
            return []
        case .welcome(_, let policy, let state, let secret):
            self.policy = policy
            if let secret { self.secret = secret }
            // Stepped out before the group admitted it (a pre-roll that began at once): tell the group now.
            var actions: [Action] = []
            if let suspension {
                var remaining: MediaTime?
                if let end = suspension.expectedEnd, let groupNow = self.clock.groupInstant(at: now) {
                    remaining = MediaTime.max(.zero, groupNow.duration(to: end))
                } else if let start = self.suspensionStart, let expected = start.expectedDuration {
                    // Dated on this participant's clock: what is left of it now.
                    remaining = MediaTime.max(.zero, expected - start.at.duration(to: now))
                }
                actions.append(
                    .send(
                        .suspend(
                            reason: suspension.reason,
                            time: suspension.coordinatedTime,
                            expectedDuration: remaining
                        )
                    )
                )
            }
            return actions + self.apply(state, at: now, position: position)
        case .state(let state):
            guard self.policy != nil else { return [] }
            if let current = self.groupState, state.timebase.revision < current.timebase.revision { return [] }
            return self.apply(state, at: now, position: position)
        case .refused(let reasons):
            return self.setStatus(.refused(reasons))
        case .error, .hello, .ping, .command, .suspend, .resume:
            return []
        }
    }

    /// A command from this participant's viewer: it goes to the hub, which tells everyone.
    ///
    /// A seek into one of this participant's left-out ranges moves the group to the range's start.
    public func request(_ command: GroupCommand) -> [Action] {
        [.send(.command(command))]
    }

    /// A seek by this participant's viewer to a time on its own item, snapped out of left-out ranges.
    public func requestSeek(toItemTime time: MediaTime) -> [Action] {
        let snapped = self.timeline.snappedSeekTarget(for: time)
        guard let coordinated = self.timeline.coordinatedTime(of: .primary(snapped)) else { return [] }
        return [.send(.command(.seek(to: MediaTime.max(.zero, coordinated))))]
    }

    /// The participant starts playing an interstitial the others may not have, expected to last
    /// `expectedDuration` (from its schedule).
    public mutating func beginInterstitial(
        at now: ClockInstant,
        position: ItemPosition,
        expectedDuration: MediaTime?
    ) -> [Action] {
        guard self.suspension == nil else { return [] }
        let time = self.timeline.placement(of: position)?.time ?? self.groupTime(at: now) ?? .zero
        let groupNow = self.clock.groupInstant(at: now)
        self.suspension = Suspension(
            reason: .playingInterstitial,
            coordinatedTime: time,
            expectedEnd: expectedDuration.flatMap { d in groupNow.map { $0 + d } }
        )
        self.suspensionStart = (now, expectedDuration)
        return [.send(.suspend(reason: .playingInterstitial, time: time, expectedDuration: expectedDuration))]
            + self.setStatus(.suspended(.playingInterstitial))
    }

    /// The participant is back in the primary at `position`: it tells the group and, unless the group
    /// waited for it, catches up with the group (skipping what it missed).
    public mutating func endInterstitial(at now: ClockInstant, position: ItemPosition) -> [Action] {
        guard self.suspension != nil else { return [] }
        self.suspension = nil
        self.suspensionStart = nil
        let time = self.timeline.coordinatedTime(of: position) ?? .zero
        var actions: [Action] = [.send(.resume(time: time))]
        if let state = self.groupState { actions += self.apply(state, at: now, position: position) }
        return actions
    }

    /// The coordinated time the group is at, at a local instant, once the clock and a state are known.
    public func groupTime(at now: ClockInstant) -> MediaTime? {
        guard let state = self.groupState, let groupNow = self.clock.groupInstant(at: now) else { return nil }
        return state.timebase.time(at: groupNow)
    }

    /// Called as the player moves: enters and leaves left-out ranges (as suspensions) and seeks back
    /// into step when the participant has drifted more than ``syncTolerance`` from the group.
    public mutating func observe(position: ItemPosition, at now: ClockInstant) -> [Action] {
        if case .primary(let time) = position {
            let range = self.timeline.nonPrimaryRanges.first { $0.contains(time) }
            if let range, self.suspension == nil {
                return self.beginInterstitial(at: now, position: position, expectedDuration: range.end - time)
            }
            if range == nil, self.suspension?.reason == .playingInterstitial, self.isInStitchedSuspension {
                return self.endInterstitial(at: now, position: position)
            }
        }
        guard self.suspension == nil, let state = self.groupState, state.timebase.isMoving, state.waitingFor.isEmpty,
            let target = self.groupTime(at: now), let mine = self.timeline.coordinatedTime(of: position)
        else { return [] }
        return self.seek(from: mine, to: target)
    }

    /// A seek to a coordinated time, unless the participant (at `mine`, `nil` when it has no place
    /// on the timeline) is within ``syncTolerance`` of it.
    func seek(from mine: MediaTime?, to target: MediaTime) -> [Action] {
        if let mine, (mine - target).magnitude <= self.syncTolerance { return [] }
        return [.seek(self.timeline.itemPosition(at: target))]
    }

    /// Whether the current suspension is for a stitched range (so leaving the range ends it).
    var isInStitchedSuspension: Bool {
        guard let suspension else { return false }
        return self.timeline.nonPrimaryRanges.contains { range in
            self.timeline.coordinatedTime(of: .primary(range.start)) == suspension.coordinatedTime
        }
    }

    mutating func setStatus(_ status: ParticipantStatus) -> [Action] {
        guard status != self.status else { return [] }
        self.status = status
        return [.status(status)]
    }

    mutating func apply(_ state: GroupState, at now: ClockInstant, position: ItemPosition) -> [Action] {
        self.groupState = state
        if let suspension {
            // Its own interstitial plays at the rate the group means to play at: a group pause
            // pauses it too, and a play started while the group waits for it lets it go on.
            let rate = state.intendedRate
            let motion: Action = rate > 0 ? .play(rate: rate, at: now) : .pause
            return [motion] + self.setStatus(.suspended(suspension.reason))
        }
        let timebase = state.timebase
        let mine = self.timeline.coordinatedTime(of: position)
        let others = state.waitingFor.keys.filter { $0 != self.participantID }.sorted()
        var actions: [Action] = []
        if !others.isEmpty || !timebase.isMoving {
            // Hold where the group holds.
            actions.append(.pause)
            actions += self.seek(from: mine, to: timebase.time)
            if others.isEmpty {
                actions += self.setStatus(.paused)
            } else {
                let until = state.expectedWaitEnd.flatMap { self.clock.localInstant(at: $0) }
                actions += self.setStatus(.waitingForCoordinatedPlayback(for: others, until: until))
            }
            return actions
        }
        // Moving: be at the timebase's time at its anchor, then play from the anchor's local instant.
        guard let groupNow = self.clock.groupInstant(at: now),
            let localAnchor = self.clock.localInstant(at: timebase.anchor)
        else {
            // No clock yet: follow at once, as well as can be done.
            return [.seek(self.timeline.itemPosition(at: timebase.time)), .play(rate: timebase.rate, at: now)]
                + self.setStatus(.playing(rate: timebase.rate))
        }
        if groupNow < timebase.anchor {
            actions.append(.pause)
            actions += self.seek(from: mine, to: timebase.time)
            actions.append(.play(rate: timebase.rate, at: localAnchor))
        } else {
            let target = timebase.time(at: groupNow)
            actions += self.seek(from: mine, to: target)
            actions.append(.play(rate: timebase.rate, at: now))
        }
        return actions + self.setStatus(.playing(rate: timebase.rate))
    }
}
