import HLSPlaylist

/// The authority of one group: it admits participants, orders their commands into timebases and
/// decides when the group waits.
///
/// A value type whose methods return what to send; the server's
/// WebSocket hub performs them.
///
/// Every change of the group's course becomes a new ``GroupTimebase`` revision, broadcast to every
/// participant in a ``GroupState``. Commands that start motion (play, seek while playing, the end of
/// a wait) take effect ``startLead`` after the hub reads them, so that each participant has time to
/// seek and can start at the same group-clock instant.
public struct GroupHub: Sendable {
    /// What the hub sends in answer to an input.
    public enum Output: Sendable, Hashable {
        /// To the participant the input came from.
        case reply(GroupMessage)
        /// To every participant, the sender included.
        case broadcast(GroupMessage)
    }

    /// Where a `hello` comes from, as the server sees it, and the secret the hub gives a new
    /// participant.
    public struct Arrival: Sendable, Hashable {
        /// The network address of the participant's connection; `nil` is not counted against
        /// ``GroupHub/joinsPerAddress``.
        public var address: String?
        /// The connection, so that the leave of a connection whose participant has come back on
        /// another one is ignored.
        public var connection: UInt64
        /// The secret a new participant's `welcome` gives (random, made by the server); `nil`
        /// gives none, and the ID cannot be taken back while the group holds it.
        public var newSecret: String?

        /// Describes an arrival.
        public init(address: String? = nil, connection: UInt64 = 0, newSecret: String? = nil) {
            self.address = address
            self.connection = connection
            self.newSecret = newSecret
        }
    }

    /// What the hub knows of a participant's connection.
    struct Member: Sendable {
        /// The address it joined from (see ``Arrival/address``).
        var address: String?
        /// The connection it joined on last.
        var connection: UInt64
        /// The secret its welcome gave.
        var secret: String?
    }

    /// The most participants a group admits.
    public static let maximumParticipants = 64
    /// The default of ``joinsPerAddress``.
    public static let defaultJoinsPerAddress = 8
    /// The longest participant identifier accepted, in UTF-8 bytes.
    public static let maximumIdentifierLength = 128
    /// The rates a command may ask for (0 is a pause).
    public static let rateRange: ClosedRange<Double> = 0...8
    /// How far a suspender's reported position may be from the group's before the hub uses its own.
    public static let suspensionPositionTolerance = MediaTime(seconds: 2)

    /// The group's policy, from the participant that made the group.
    public let policy: GroupPolicy
    /// How long after a command motion starts.
    public var startLead: MediaTime
    /// The check each joining participant passes.
    public var compatibility: CompatibilityCheck
    /// The most participants of the group connected from one network address (default
    /// ``defaultJoinsPerAddress``), so that one client cannot fill the group.
    public var joinsPerAddress: Int = GroupHub.defaultJoinsPerAddress

    /// The current state, as last broadcast.
    public private(set) var state: GroupState
    /// What each participant said of its item when it joined.
    public private(set) var descriptions: [String: ParticipantDescription] = [:]
    /// The description later participants are checked against: the first one's.
    public private(set) var reference: ParticipantDescription?
    /// Each participant's address, connection and secret.
    var members: [String: Member] = [:]

    /// Creates a hub for a new group, paused at coordinated time 0.
    public init(
        policy: GroupPolicy,
        now: ClockInstant,
        startLead: MediaTime = MediaTime(milliseconds: 250),
        compatibility: CompatibilityCheck = CompatibilityCheck()
    ) {
        self.policy = policy
        self.startLead = startLead
        self.compatibility = compatibility
        self.state = GroupState(
            timebase: GroupTimebase(revision: 0, time: .zero, anchor: now, rate: 0),
            intendedRate: 0
        )
    }

    /// Whether nobody is left in the group.
    public var isEmpty: Bool { self.descriptions.isEmpty }

    /// A participant asks to join: a `welcome` to it and the new state to all, or a `refused` with
    /// every reason.
    ///
    /// An ID the group holds is given back only to a `hello` that presents the secret its
    /// `welcome` gave (a participant coming back after its connection dropped); the connection it
    /// came from is then replaced. A new participant is refused when ``joinsPerAddress``
    /// participants of the group are connected from its address.
    public mutating func join(
        participantID: String,
        description: ParticipantDescription,
        secret: String? = nil,
        arrival: Arrival = Arrival(),
        at now: ClockInstant
    ) -> [Output] {
        var reasons: [String] = []
        if participantID.isEmpty || participantID.utf8.count > Self.maximumIdentifierLength {
            reasons.append("the participant ID must be 1 to \(Self.maximumIdentifierLength) bytes")
        } else if participantID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            reasons.append("the participant ID must not contain control characters")
        }
        let returning = self.members[participantID]
        if let returning {
            if returning.secret == nil || secret.map({ Self.same($0, returning.secret ?? "") }) != true {
                reasons.append(
                    "the participant ID is in use in this group (a participant coming back presents the secret of its welcome)"
                )
            }
        } else {
            if self.descriptions.count >= Self.maximumParticipants {
                reasons.append("the group is full (\(Self.maximumParticipants) participants)")
            }
            if let address = arrival.address,
                self.members.values.count(where: { $0.address == address }) >= self.joinsPerAddress
            {
                reasons.append("the group has \(self.joinsPerAddress) participants from this address already")
            }
        }
        if let reference = self.reference {
            reasons += self.compatibility.reasons(joining: description, group: reference)
        }
        guard reasons.isEmpty else { return [.reply(.refused(reasons: reasons))] }
        if self.reference == nil {
            self.reference = description
            // A live group starts, paused, where its first participant joined the stream: time 0
            // of a live timeline (program dates) is 1970, out of every playlist's window.
            // A negative start is refused as a negative seek is: the group starts at 0.
            if description.isLive, let start = description.startTime, start >= .zero, self.state.timebase.rate == 0,
                self.state.timebase.time == .zero
            {
                self.state.timebase = GroupTimebase(
                    revision: self.state.timebase.revision + 1,
                    time: start,
                    anchor: now,
                    rate: 0
                )
            }
        }
        self.descriptions[participantID] = description
        let member = Member(
            address: arrival.address,
            connection: arrival.connection,
            secret: returning?.secret ?? arrival.newSecret
        )
        self.members[participantID] = member
        self.state.participants = self.descriptions.keys.sorted()
        return [
            .reply(
                .welcome(participantID: participantID, policy: self.policy, state: self.state, secret: member.secret)
            ),
            .broadcast(.state(self.state)),
        ]
    }

    /// The connection a participant joined on last (see ``Arrival/connection``).
    public func connection(of participantID: String) -> UInt64? { self.members[participantID]?.connection }

    /// Whether two secrets are equal, in a time that depends on their lengths only.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A participant left (or its connection closed): the group stops waiting for it.
    ///
    /// With a `connection`, the leave counts only when the participant is on that connection
    /// still (one it came back on is not left by the old one's closing).
    public mutating func leave(participantID: String, connection: UInt64? = nil, at now: ClockInstant) -> [Output] {
        if let connection, let member = self.members[participantID], member.connection != connection { return [] }
        guard self.descriptions.removeValue(forKey: participantID) != nil else { return [] }
        self.members[participantID] = nil
        self.state.participants = self.descriptions.keys.sorted()
        if self.descriptions.isEmpty { self.reference = nil }
        self.endSuspension(of: participantID, at: now)
        return [.broadcast(.state(self.state))]
    }

    /// The answer to a clock probe read at `received` and answered at `answered` (group clock).
    public func pong(sent: ClockInstant, received: ClockInstant, answered: ClockInstant) -> GroupMessage {
        .pong(sent: sent, hubReceived: received, hubSent: answered)
    }

    /// A message from a participant that has joined.
    public mutating func handle(_ message: GroupMessage, from participantID: String, at now: ClockInstant) -> [Output] {
        guard self.descriptions[participantID] != nil else {
            return [.reply(.error(code: "not-joined", message: "send hello first"))]
        }
        switch message {
        case .command(let command):
            if let problem = Self.problem(with: command) {
                return [.reply(.error(code: "bad-command", message: problem))]
            }
            self.apply(command, at: now)
        case .suspend(let reason, let time, let expected):
            if let expected, expected < .zero || !MediaTime.validRange.contains(expected) {
                return [.reply(.error(code: "bad-suspension", message: "expectedDuration must not be negative"))]
            }
            self.beginSuspension(of: participantID, reason: reason, time: time, expectedDuration: expected, at: now)
        case .resume:
            self.endSuspension(of: participantID, at: now)
        case .ping(let sent):
            return [.reply(self.pong(sent: sent, received: now, answered: now))]
        case .hello:
            return [.reply(.error(code: "already-joined", message: "this connection has joined already"))]
        case .welcome, .refused, .pong, .state, .error:
            return [
                .reply(.error(code: "unexpected-message", message: "\(message.type) is sent by the hub, not to it"))
            ]
        }
        return [.broadcast(.state(self.state))]
    }

    static func problem(with command: GroupCommand) -> String? {
        switch command {
        case .play(let rate):
            guard rate.isFinite, Self.rateRange.contains(rate) else {
                return "rate must be a number from \(Self.rateRange.lowerBound) to \(Self.rateRange.upperBound)"
            }
        case .seek(let time):
            guard time >= .zero else { return "a seek time must not be negative" }
        case .pause:
            break
        }
        return nil
    }

    var isWaiting: Bool { !self.state.waitingFor.isEmpty }

    mutating func issue(time: MediaTime, anchor: ClockInstant, rate: Double) {
        let revision = self.state.timebase.revision + 1
        self.state.timebase = GroupTimebase(revision: revision, time: time, anchor: anchor, rate: rate)
    }

    mutating func apply(_ command: GroupCommand, at now: ClockInstant) {
        let current = self.state.timebase
        switch command {
        case .pause:
            self.state.intendedRate = 0
            self.issue(time: current.time(at: now), anchor: now, rate: 0)
        case .play(let rate):
            self.state.intendedRate = rate
            if self.isWaiting { return }  // the group starts when the wait ends
            let start = now + self.startLead
            self.issue(time: current.time(at: start), anchor: start, rate: rate)
        case .seek(let time):
            if self.isWaiting || current.rate == 0 {
                self.issue(time: time, anchor: now, rate: 0)
            } else {
                self.issue(time: time, anchor: now + self.startLead, rate: current.rate)
            }
        }
    }

    mutating func beginSuspension(
        of id: String,
        reason: SuspensionReason,
        time: MediaTime,
        expectedDuration: MediaTime?,
        at now: ClockInstant
    ) {
        let suspension = Suspension(
            reason: reason,
            coordinatedTime: time,
            expectedEnd: expectedDuration.map { now + $0 }
        )
        self.state.suspensions[id] = suspension
        guard self.policy.suspensionReasonsThatTriggerWaiting.contains(reason) else { return }
        let wasWaiting = self.isWaiting
        self.state.waitingFor[id] = suspension
        guard !wasWaiting, self.state.timebase.isMoving else { return }
        // Freeze where the suspender stepped out, unless that is far from where the group is.
        let groupNow = self.state.timebase.time(at: now)
        let freeze = (time - groupNow).magnitude <= Self.suspensionPositionTolerance ? time : groupNow
        self.issue(time: freeze, anchor: now, rate: 0)
    }

    mutating func endSuspension(of id: String, at now: ClockInstant) {
        self.state.suspensions[id] = nil
        guard self.state.waitingFor.removeValue(forKey: id) != nil, !self.isWaiting else { return }
        // The last one the group waited for is back: go on together.
        if self.state.intendedRate != 0 {
            let start = now + self.startLead
            self.issue(time: self.state.timebase.time, anchor: start, rate: self.state.intendedRate)
        }
    }
}
