import HLSInterstitials
import HLSPlaylist

/// What to play: a primary asset's URL and how to treat its interstitials (AVFoundation's
/// `AVPlayerItem`).
public struct PlayerItem: Sendable, Hashable {
    /// The multivariant (or media) playlist URL of the primary asset.
    public var url: String
    /// Whether the player schedules the playlist's interstitial events by itself (default `true`).
    ///
    /// When `false`, only events set on an ``InterstitialEventController`` play (plan B of the
    /// AirPlay talk: no ads).
    public var automaticallyHandlesInterstitialEvents: Bool
    /// Where playback starts on the primary timeline; `nil` is the beginning for VOD and the live
    /// join point for live.
    public var startTime: MediaTime?
    /// An interstitial already under way elsewhere (a session handed over in the middle of an
    /// ad): when that event begins, it is entered this far in (across its assets) instead of
    /// from its start, once.
    ///
    /// ``startTime`` is then the primary time the event is at.
    public var interstitialStart: InterstitialStart?

    /// Creates an item.
    public init(
        url: String,
        automaticallyHandlesInterstitialEvents: Bool = true,
        startTime: MediaTime? = nil,
        interstitialStart: InterstitialStart? = nil
    ) {
        self.url = url
        self.automaticallyHandlesInterstitialEvents = automaticallyHandlesInterstitialEvents
        self.startTime = startTime
        self.interstitialStart = interstitialStart
    }
}

/// Where to enter an interstitial event already under way (``PlayerItem/interstitialStart``).
public struct InterstitialStart: Sendable, Hashable {
    /// The event's `ID`.
    public var eventID: String
    /// How far into the event, from its start across its assets.
    public var offset: MediaTime

    /// Creates a start.
    public init(eventID: String, offset: MediaTime) {
        self.eventID = eventID
        self.offset = offset
    }
}

/// Whether the player is playing, paused, or waiting to play (AVFoundation `timeControlStatus`).
public struct TimeControlStatus: Sendable, Hashable, CustomStringConvertible {
    private let code: UInt8
    private init(_ code: UInt8) {
        self.code = code
    }
    /// Paused: the rate is 0.
    public static let paused = TimeControlStatus(0)
    /// Waiting to play at the requested rate; see ``Player/reasonForWaitingToPlay``.
    public static let waitingToPlayAtSpecifiedRate = TimeControlStatus(1)
    /// Playing.
    public static let playing = TimeControlStatus(2)
    /// `paused`, `waitingToPlayAtSpecifiedRate` or `playing`.
    public var description: String {
        switch self.code {
        case 0: "paused"
        case 1: "waitingToPlayAtSpecifiedRate"
        default: "playing"
        }
    }
}

/// Why the player waits (AVFoundation `AVPlayer.WaitingReason`).
public struct WaitingReason: Sendable, Hashable, CustomStringConvertible {
    /// The reason's name.
    public let description: String
    private init(_ description: String) {
        self.description = description
    }
    /// The forward buffer is empty: waiting for media to arrive (buffering).
    public static let toMinimizeStalls = WaitingReason("toMinimizeStalls")
    /// There is no item, or it has not loaded yet.
    public static let noItemToPlay = WaitingReason("noItemToPlay")
    /// The primary waits while an interstitial event plays (`AVPlayer.WaitingReason.interstitialEvent`).
    public static let interstitialEvent = WaitingReason("interstitialEvent")
    /// The group the player plays in waits for other participants
    /// (`AVPlayer.WaitingReason.waitingForCoordinatedPlayback`); see
    /// ``Player/setWaitingForCoordinatedPlayback(_:)``.
    public static let waitingForCoordinatedPlayback = WaitingReason("waitingForCoordinatedPlayback")
}

/// A request the player makes at a given clock time (the CLI's `--seek T@AT` and `--rate R@AT`).
public struct ScheduledCommand: Sendable, Hashable {
    enum Action: Sendable, Hashable {
        case seek(MediaTime)
        case rate(Double)
        case skipCurrentEvent(overridesPolicy: Bool)
        case cancelCurrentEvent(MediaTime?)
        case muted(Bool)
    }
    let action: Action
    /// Seek the primary to `time`.
    public static func seek(to time: MediaTime) -> ScheduledCommand { ScheduledCommand(action: .seek(time)) }
    /// Set the rate (0 pauses).
    public static func rate(_ rate: Double) -> ScheduledCommand { ScheduledCommand(action: .rate(rate)) }
    /// Mute (`true`) or unmute the sound (the playing ad's `mute` and `unmute` beacons fire).
    public static func muted(_ muted: Bool) -> ScheduledCommand { ScheduledCommand(action: .muted(muted)) }
    /// Skip the current interstitial event through skip control: refused (and logged as
    /// `skipRefused`) outside the skip window and on an `X-RESTRICT=SKIP` event without one.
    public static let skipCurrentEvent = ScheduledCommand(action: .skipCurrentEvent(overridesPolicy: false))
    /// Skip the current interstitial event whatever its skip control says, for apps that own the
    /// skip policy (plans B and C of the AirPlay talk).
    public static func skipCurrentEvent(overridingPolicy: Bool) -> ScheduledCommand {
        ScheduledCommand(action: .skipCurrentEvent(overridesPolicy: overridingPolicy))
    }
    /// Cancel the current interstitial event (and those at the same time), resuming the primary at
    /// `offset` from the event's start (`nil`: the time spent in the event).
    public static func cancelCurrentEvent(resumptionOffset offset: MediaTime?) -> ScheduledCommand {
        ScheduledCommand(action: .cancelCurrentEvent(offset))
    }
}

/// What a seek request came to.
public struct SeekResult: Sendable, Hashable, CustomStringConvertible {
    /// Whether the seek happens.
    public var isAllowed: Bool
    /// The primary time asked for.
    public var requestedTime: MediaTime
    /// Where the primary continues (after any interstitials the policy plays first); `nil` when refused.
    public var grantedTime: MediaTime?
    /// The interstitial events played first (a `JUMP`-restricted event the seek crossed).
    public var interstitials: [String]
    /// Why, in words.
    public var reason: String

    /// Creates a result.
    public init(
        isAllowed: Bool,
        requestedTime: MediaTime,
        grantedTime: MediaTime?,
        interstitials: [String] = [],
        reason: String
    ) {
        self.isAllowed = isAllowed
        self.requestedTime = requestedTime
        self.grantedTime = grantedTime
        self.interstitials = interstitials
        self.reason = reason
    }

    /// `allowed → T: reason` or `refused: reason`.
    public var description: String {
        guard self.isAllowed else { return "refused: \(self.reason)" }
        return "allowed → \(self.grantedTime.map { "\($0)" } ?? "-"): \(self.reason)"
    }
}

/// What a rate request came to.
public struct RateResult: Sendable, Hashable, CustomStringConvertible {
    /// Whether the rate was applied.
    public var isAllowed: Bool
    /// The rate asked for.
    public var rate: Double
    /// Why, in words.
    public var reason: String

    /// Creates a result.
    public init(isAllowed: Bool, rate: Double, reason: String) {
        self.isAllowed = isAllowed
        self.rate = rate
        self.reason = reason
    }

    /// `allowed: reason` or `refused: reason`.
    public var description: String { (self.isAllowed ? "allowed: " : "refused: ") + self.reason }
}
