import HLSInterstitials
import HLSPlaylist

/// Where an ad break goes in a VOD presentation.
public enum VODBreakPosition: Sendable, Hashable {
    /// Before the content (`CUE="PRE"`).
    case preRoll
    /// At a media time of the primary.
    case midRoll(MediaTime)
    /// After the content (`CUE="POST"`).
    case postRoll
}

/// An ad break of a VOD presentation, from configuration.
public struct VODBreak: Sendable, Hashable {
    /// The break's ID: the `ID` of its date range, unique within the presentation.
    public var id: String
    /// Where it plays.
    public var position: VODBreakPosition
    /// The length of the pod to fill.
    public var duration: MediaTime
    /// `CUE` `ONCE`: play at most once.
    public var once: Bool
    /// `X-RESUME-OFFSET`; `0` by default so that no content is lost.
    ///
    /// `nil` writes no attribute
    /// (the interstitial then replaces its duration of primary content).
    public var resumeOffset: MediaTime?
    /// `X-RESTRICT`.
    public var restrictions: Restrictions

    /// Creates a break with `X-RESUME-OFFSET=0`, `X-RESTRICT="SKIP,JUMP"` and no `ONCE`.
    public init(
        id: String,
        position: VODBreakPosition,
        duration: MediaTime,
        once: Bool = false,
        resumeOffset: MediaTime? = .zero,
        restrictions: Restrictions = [.skip, .jump]
    ) {
        self.id = id
        self.position = position
        self.duration = duration
        self.once = once
        self.resumeOffset = resumeOffset
        self.restrictions = restrictions
    }
}

/// Where a live break came from.
public struct LiveBreakOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `scheduled`, `admin` or `scte35`.
    public let rawValue: String

    private init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A break of the channel's regular plan (every N minutes).
    public static let scheduled = LiveBreakOrigin("scheduled")
    /// A break added through the admin API.
    public static let admin = LiveBreakOrigin("admin")
    /// A break made from SCTE-35 date ranges of the upstream playlist.
    public static let scte35 = LiveBreakOrigin("scte35")

    /// Parses a raw value; `nil` for unknown values.
    public init?(rawValue: String) {
        switch rawValue {
        case "scheduled": self = .scheduled
        case "admin": self = .admin
        case "scte35": self = .scte35
        default: return nil
        }
    }

    /// Reads the value from its JSON spelling.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = LiveBreakOrigin(rawValue: text) ?? .admin
    }

    /// Writes the value in its JSON spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    /// The raw value.
    public var description: String { self.rawValue }
}

/// An ad break of a live channel: planned, added by an operator, or signalled by SCTE-35.
///
/// Its date range is written from these values on every reload, so that the tag is the same each
/// time; an early return adds ``playoutLimit`` to the same ID (later tags may add attributes, never
/// change them).
public struct LiveBreak: Sendable, Hashable, Codable {
    /// The date range `ID`, unique within the channel.
    public var id: String
    /// The channel it belongs to.
    public var channel: String
    /// `START-DATE`.
    public var startDate: DateTime
    /// `DURATION`: the pod to fill.
    public var duration: MediaTime
    /// `CUE` members (`PRE`, `POST`, `ONCE`).
    public var cue: [String]
    /// `X-RESTRICT` members (`SKIP`, `JUMP`).
    public var restrictions: [String]
    /// `X-SNAP` members (`OUT`, `IN`).
    public var snap: [String]
    /// `X-RESUME-OFFSET`; `nil` (the default for live) lets the break replace its duration of content.
    public var resumeOffset: MediaTime?
    /// `X-PLAYOUT-LIMIT`, set by an early return.
    public var playoutLimit: MediaTime?
    /// Whether the break was cancelled before it started (it is then no longer written).
    public var cancelled: Bool
    /// Where it came from.
    public var origin: LiveBreakOrigin
    /// When it was created or last changed.
    public var updatedAt: DateTime

    /// Creates a live break.
    public init(
        id: String,
        channel: String,
        startDate: DateTime,
        duration: MediaTime,
        cue: [String] = [],
        restrictions: [String] = [],
        snap: [String] = [],
        resumeOffset: MediaTime? = nil,
        playoutLimit: MediaTime? = nil,
        cancelled: Bool = false,
        origin: LiveBreakOrigin = .admin,
        updatedAt: DateTime
    ) {
        self.id = id
        self.channel = channel
        self.startDate = startDate
        self.duration = duration
        self.cue = cue
        self.restrictions = restrictions
        self.snap = snap
        self.resumeOffset = resumeOffset
        self.playoutLimit = playoutLimit
        self.cancelled = cancelled
        self.origin = origin
        self.updatedAt = updatedAt
    }

    /// The date the break ends: start + duration, or start + playout limit when that is shorter.
    public var endDate: DateTime {
        self.startDate + self.effectiveDuration
    }

    /// The duration a viewer gets: the playout limit when it is shorter than the duration.
    public var effectiveDuration: MediaTime {
        if let limit = self.playoutLimit, limit < self.duration { return limit }
        return self.duration
    }

    /// Checks the members of `cue`, `restrictions` and `snap`.
    ///
    /// - Throws: ``AdInsertionError`` with ``AdInsertionError/Code/invalidInput`` naming the bad value.
    public func validate() throws {
        func check(_ values: [String], _ attribute: AttributeName, _ name: String) throws {
            let allowed = Set(attribute.allowedValues ?? [])
            for value in values where !allowed.contains(value) {
                throw AdInsertionError(
                    code: .invalidInput,
                    message: "\(name) member \"\(value)\" is not one of \(allowed.sorted().joined(separator: ", "))"
                )
            }
        }
        try check(self.cue, .cue, "cue")
        try check(self.restrictions, .restrict, "restrictions")
        try check(self.snap, .snap, "snap")
        if self.cue.contains(AttributeName.Value.pre) && self.cue.contains(AttributeName.Value.post) {
            throw AdInsertionError(code: .invalidInput, message: "cue cannot contain both PRE and POST")
        }
        if self.duration < .zero {
            throw AdInsertionError(code: .invalidInput, message: "duration must not be negative")
        }
        if self.id.isEmpty || self.id.contains("\"") || self.id.contains(where: \.isNewline) {
            throw AdInsertionError(code: .invalidInput, message: "id must be non-empty, without '\"' or line breaks")
        }
    }
}
