import HLSPlaylist

/// A command a participant gives the group: it reaches every participant.
public enum GroupCommand: Sendable, Hashable {
    /// Play at the rate (1 when not given).
    case play(rate: Double)
    /// Pause.
    case pause
    /// Move the group to a coordinated time, keeping its rate.
    case seek(to: MediaTime)
}

/// One message between a participant and the group hub, as one JSON object with a `type` key.
///
/// | `type` | From | Fields |
/// |---|---|---|
/// | `hello` | participant | `participantID`, `description`, `policy` (used when the message creates the group), `secret` (optional: the one its `welcome` gave, to take its place back after a drop) |
/// | `ping` | participant | `sent` (nanoseconds on the participant's clock) |
/// | `command` | participant | `command` (`play`, `pause`, `seek`), `rate`, `time` |
/// | `suspend` | participant | `reason`, `time` (coordinated), `expectedDuration` (optional) |
/// | `resume` | participant | `time` (coordinated) |
/// | `welcome` | hub | `participantID`, `policy`, `state`, `secret` (binds the ID to this participant) |
/// | `refused` | hub | `reasons` |
/// | `pong` | hub | `sent`, `hubReceived`, `hubSent` |
/// | `state` | hub | `state` |
/// | `error` | hub | `code`, `message` |
///
/// Times and durations are exact: `{"nanoseconds": N}` objects, as `MediaTime` encodes itself; clock
/// instants are plain numbers of nanoseconds.
public enum GroupMessage: Sendable, Hashable {
    /// A participant asks to join; `secret` is the one a former `welcome` gave it, when it
    /// comes back to a group that may still hold its ID.
    case hello(participantID: String, description: ParticipantDescription, policy: GroupPolicy, secret: String? = nil)
    /// A clock probe.
    case ping(sent: ClockInstant)
    /// A command for the whole group.
    case command(GroupCommand)
    /// The participant steps out of coordinated playback.
    case suspend(reason: SuspensionReason, time: MediaTime, expectedDuration: MediaTime?)
    /// The participant is back.
    case resume(time: MediaTime)
    /// The hub accepted the participant; `secret` is what it presents in a later `hello` to take
    /// its ID back while the group still holds it.
    case welcome(participantID: String, policy: GroupPolicy, state: GroupState, secret: String? = nil)
    /// The hub refused the participant, with every reason.
    case refused(reasons: [String])
    /// The answer to a clock probe.
    case pong(sent: ClockInstant, hubReceived: ClockInstant, hubSent: ClockInstant)
    /// The group's state after a change.
    case state(GroupState)
    /// The hub could not take a message.
    case error(code: String, message: String)

    /// The message's `type` value.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .command: "command"
        case .suspend: "suspend"
        case .resume: "resume"
        case .welcome: "welcome"
        case .refused: "refused"
        case .pong: "pong"
        case .state: "state"
        case .error: "error"
        }
    }
}

extension GroupMessage: Codable {
    enum Key: String, CodingKey {
        case type, participantID, description, policy, sent, command, rate, time, reason, expectedDuration, state,
            reasons, secret
        case hubReceived, hubSent, code, message
    }

    /// Encodes the message as one flat JSON object.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(self.type, forKey: .type)
        switch self {
        case .hello(let id, let description, let policy, let secret):
            try c.encode(id, forKey: .participantID)
            try c.encode(description, forKey: .description)
            try c.encode(policy, forKey: .policy)
            try c.encodeIfPresent(secret, forKey: .secret)
        case .ping(let sent):
            try c.encode(sent, forKey: .sent)
        case .command(let command):
            switch command {
            case .play(let rate):
                try c.encode("play", forKey: .command)
                try c.encode(rate, forKey: .rate)
            case .pause:
                try c.encode("pause", forKey: .command)
            case .seek(let time):
                try c.encode("seek", forKey: .command)
                try c.encode(time, forKey: .time)
            }
        case .suspend(let reason, let time, let expected):
            try c.encode(reason, forKey: .reason)
            try c.encode(time, forKey: .time)
            try c.encodeIfPresent(expected, forKey: .expectedDuration)
        case .resume(let time):
            try c.encode(time, forKey: .time)
        case .welcome(let id, let policy, let state, let secret):
            try c.encode(id, forKey: .participantID)
            try c.encode(policy, forKey: .policy)
            try c.encode(state, forKey: .state)
            try c.encodeIfPresent(secret, forKey: .secret)
        case .refused(let reasons):
            try c.encode(reasons, forKey: .reasons)
        case .pong(let sent, let received, let hubSent):
            try c.encode(sent, forKey: .sent)
            try c.encode(received, forKey: .hubReceived)
            try c.encode(hubSent, forKey: .hubSent)
        case .state(let state):
            try c.encode(state, forKey: .state)
        case .error(let code, let message):
            try c.encode(code, forKey: .code)
            try c.encode(message, forKey: .message)
        }
    }

    /// Decodes a message; an unknown `type` or command is a decoding error.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "hello":
            self = .hello(
                participantID: try c.decode(String.self, forKey: .participantID),
                description: try c.decode(ParticipantDescription.self, forKey: .description),
                policy: try c.decodeIfPresent(GroupPolicy.self, forKey: .policy) ?? GroupPolicy(),
                secret: try c.decodeIfPresent(String.self, forKey: .secret)
            )
        case "ping":
            self = .ping(sent: try c.decode(ClockInstant.self, forKey: .sent))
        case "command":
            switch try c.decode(String.self, forKey: .command) {
            case "play": self = .command(.play(rate: try c.decodeIfPresent(Double.self, forKey: .rate) ?? 1))
            case "pause": self = .command(.pause)
            case "seek": self = .command(.seek(to: try c.decode(MediaTime.self, forKey: .time)))
            case let other:
                throw DecodingError.dataCorruptedError(
                    forKey: .command,
                    in: c,
                    debugDescription: "unknown command \"\(other.prefix(40))\""
                )
            }
        case "suspend":
            self = .suspend(
                reason: try c.decode(SuspensionReason.self, forKey: .reason),
                time: try c.decode(MediaTime.self, forKey: .time),
                expectedDuration: try c.decodeIfPresent(MediaTime.self, forKey: .expectedDuration)
            )
        case "resume":
            self = .resume(time: try c.decode(MediaTime.self, forKey: .time))
        case "welcome":
            self = .welcome(
                participantID: try c.decode(String.self, forKey: .participantID),
                policy: try c.decode(GroupPolicy.self, forKey: .policy),
                state: try c.decode(GroupState.self, forKey: .state),
                secret: try c.decodeIfPresent(String.self, forKey: .secret)
            )
        case "refused":
            self = .refused(reasons: try c.decode([String].self, forKey: .reasons))
        case "pong":
            self = .pong(
                sent: try c.decode(ClockInstant.self, forKey: .sent),
                hubReceived: try c.decode(ClockInstant.self, forKey: .hubReceived),
                hubSent: try c.decode(ClockInstant.self, forKey: .hubSent)
            )
        case "state":
            self = .state(try c.decode(GroupState.self, forKey: .state))
        case "error":
            self = .error(
                code: try c.decode(String.self, forKey: .code),
                message: try c.decode(String.self, forKey: .message)
            )
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: c,
                debugDescription: "unknown message type \"\(type.prefix(40))\""
            )
        }
    }
}
