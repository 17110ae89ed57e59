import HLSInterstitials
import HLSPlaylist

/// The state of an event's asset list (AVFoundation `AVPlayerInterstitialEvent.AssetListResponseStatus`).
public struct AssetListResponseStatus: Sendable, Hashable, CustomStringConvertible {
    /// The AVFoundation raw value: 0 available, 1 cleared, 2 unavailable.
    public let rawValue: Int
    private init(_ rawValue: Int) {
        self.rawValue = rawValue
    }
    /// The list loaded and was decoded.
    public static let available = AssetListResponseStatus(0)
    /// The list was discarded (the event left the schedule).
    public static let cleared = AssetListResponseStatus(1)
    /// The list could not be loaded or decoded.
    public static let unavailable = AssetListResponseStatus(2)
    /// `available`, `cleared` or `unavailable`.
    public var description: String {
        switch self.rawValue {
        case 0: "available"
        case 1: "cleared"
        default: "unavailable"
        }
    }
}

/// What a player reports to its monitors (AVFoundation's interstitial monitor notifications, plus
/// the time-control status).
public enum PlayerNotification: Sendable {
    /// The schedule of events changed (``InterstitialEventObserving/events``).
    case eventsDidChange([InterstitialEvent])
    /// The current event changed (`nil`: primary content plays).
    case currentEventDidChange(InterstitialEvent?)
    /// An event's asset list became available, was cleared, or is unavailable (with the error).
    case assetListResponseStatusDidChange(InterstitialEvent, AssetListResponseStatus, PlaybackError?)
    /// An event was taken off the schedule before it played; the error when one caused it.
    case eventWasUnscheduled(InterstitialEvent, PlaybackError?)
    /// An event finished (also when cancelled, skipped or left by a seek), as AVFoundation's
    /// `interstitialEventDidFinishNotification` reports it.
    ///
    /// - `playoutTime`: how much of the event this player actually played, summed over its assets
    ///   and capped by `X-PLAYOUT-LIMIT`. After a live join inside the event it counts only what
    ///   played from the join point: joining 10 s into a 20 s event and playing to its end
    ///   reports 10 s, not 20 s.
    /// - `didPlayEntireEvent`: whether the event played from its start to its end (or to its
    ///   playout limit with no asset material left); `false` when it was cancelled, skipped, left by
    ///   a seek, cut short by an early return, or joined partway.
    case eventDidFinish(InterstitialEvent, playoutTime: MediaTime, didPlayEntireEvent: Bool)
    /// The skip control of the current event changed state.
    case currentEventSkippableStateDidChange(InterstitialEvent, SkippableEventState, labelID: String?)
    /// The current event was skipped through skip control.
    case currentEventSkipped(InterstitialEvent)
    /// A scheduled-date-range document (Appendix H) was fetched: the `ID` of the schedule date
    /// range that names it (AVFoundation's `scheduleIdentifier`), the raw response when one
    /// arrived, and the error when it could not be fetched or read (AVFoundation's
    /// `ScheduleRequestCompleted`).
    case scheduleRequestCompleted(scheduleIdentifier: String, response: [UInt8]?, error: PlaybackError?)
    /// The player started or stopped playing, or waits for another reason.
    case timeControlStatusDidChange(TimeControlStatus, WaitingReason?)
}

/// What ``InterstitialEventMonitor`` and ``InterstitialEventController`` both read from the
/// player they hold.
public protocol InterstitialEventObserving: Sendable {
    /// The player read.
    var player: Player { get }
}

extension InterstitialEventObserving {
    /// The current schedule of events: the playlist's, or the controller's when it set some.
    public var events: [InterstitialEvent] {
        get async { await self.player.interstitialEvents }
    }

    /// The event playing, or `nil` while primary content plays.
    public var currentEvent: InterstitialEvent? {
        get async { await self.player.currentInterstitialEvent }
    }
}

/// Observes a player's interstitial events (AVFoundation `AVPlayerInterstitialEventMonitor`).
///
/// ```swift
/// let monitor = InterstitialEventMonitor(player: player)
/// let notes = await monitor.notifications()
/// for await note in notes {
///     if case .currentEventDidChange(let event) = note { print(event?.identifier ?? "primary") }
/// }
/// ```
public struct InterstitialEventMonitor: InterstitialEventObserving {
    /// The player observed.
    public let player: Player

    /// Creates a monitor of `player`.
    public init(player: Player) {
        self.player = player
    }

    /// The skip state of the current event (`notSkippable` when none plays).
    public var currentEventSkippableState: SkippableEventState {
        get async { await self.player.currentEventSkippableState }
    }

    /// The current event's effective skip label: the asset list's `SKIP-CONTROL` `LABEL-ID` over
    /// the tag's `X-SKIP-CONTROL-LABEL-ID`; `nil` while it is not skippable or none plays.
    public var currentEventSkipLabelID: String? {
        get async { await self.player.currentEventSkipLabelID }
    }

    /// A stream of the player's notifications from now on; it ends when playback ends.
    public func notifications() async -> AsyncStream<PlayerNotification> {
        await self.player.notifications()
    }
}

/// Observes and controls a player's interstitial events (AVFoundation
/// `AVPlayerInterstitialEventController`).
///
/// Setting ``setEvents(_:)`` replaces the future events, including the playlist's; an event with
/// the identifier of a playlist event replaces it; an empty array reverts to the playlist's events.
/// Plan C of the AirPlay talk (skip allowed after the first ad):
///
/// ```swift
/// let controller = InterstitialEventController(player: player)
/// var events = await controller.events          // ad1, ad2 from the playlist
/// events[1].restrictions = []
/// await controller.setEvents(events)
/// ```
public struct InterstitialEventController: InterstitialEventObserving {
    /// The player controlled.
    public let player: Player

    /// Creates a controller of `player`.
    public init(player: Player) {
        self.player = player
    }

    /// Replaces the future events (an empty array reverts to the playlist's).
    ///
    /// ``InterstitialEventObserving/events`` reads them back at once. The event playing keeps
    /// playing and ends as it would have: its attributes are a copy taken when it began.
    public func setEvents(_ events: [InterstitialEvent]) async {
        await self.player.setControllerEvents(events)
    }

    /// Abandons the current event and those scheduled at the same time, resuming the primary at
    /// `offset` from the event's start (`nil`: by the time spent in the event, as `.indefinite`).
    public func cancelCurrentEvent(resumptionOffset offset: MediaTime?) async {
        await self.player.cancelCurrentEvent(resumptionOffset: offset)
    }

    /// Abandons the current event only through skip control.
    ///
    /// A granted skip posts ``PlayerNotification/currentEventSkipped(_:)``. Refused, with the
    /// reason (also logged as `skipRefused`), before `X-SKIP-CONTROL-OFFSET`, after the skip
    /// window closes, and on an `X-RESTRICT=SKIP` event without skip control.
    @discardableResult
    public func skipCurrentEvent() async -> NavigationDecision {
        await self.player.skipCurrentEvent(overridingPolicy: false)
    }

    /// Abandons the current event whatever its skip control and restrictions say.
    ///
    /// For apps that own the skip policy (plans B and C of the AirPlay talk). Refused only when
    /// no event plays.
    @discardableResult
    public func skipCurrentEvent(overridingPolicy: Bool) async -> NavigationDecision {
        await self.player.skipCurrentEvent(overridingPolicy: overridingPolicy)
    }

    /// A stream of the player's notifications from now on.
    public func notifications() async -> AsyncStream<PlayerNotification> {
        await self.player.notifications()
    }
}
