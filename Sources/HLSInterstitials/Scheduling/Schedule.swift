import HLSPlaylist

/// The integrated timeline of a primary asset and its interstitials: what plays, in what order,
/// and where each part sits on the primary, playout and integrated time axes.
///
/// A schedule is a pure function of its inputs: the primary media playlist (or several, such as
/// video and audio), the interstitial events, and a ``Configuration`` (known asset durations,
/// events already played, where playback starts, VOD or live). No clock is read; live behaviour
/// is modelled from the playlist as it is now, and ``update(primary:events:)-(MediaPlaylist,_)`` brings the schedule
/// up to date after a reload, recomputing only what changed.
///
/// ```swift
/// let playlist = try MediaPlaylist(parsing: text)
/// let schedule = Schedule(primary: playlist)
/// for item in schedule.items {
///     print(item.kind, item.eventID ?? "-", item.primary, item.playout, item.integrated)
/// }
/// print(schedule.jsonDescription)
/// ```
///
/// Rules applied (draft-pantos-hls-rfc8216bis Appendix D and §6 client model):
/// - `START-DATE` maps to primary time through `EXT-X-PROGRAM-DATE-TIME` (across discontinuities
///   and gaps, as `MediaPlaylist.time(at:)` does); events given as a time need no mapping.
/// - `CUE=PRE` events play before primary playback begins, wherever it begins (live join
///   included); `CUE=POST` after the primary ends (VOD, or a live playlist once it has
///   `EXT-X-ENDLIST`); `CUE=ONCE` events in ``Configuration/playedEventIDs`` do not play again and
///   do not move the primary (a played pre-roll leaves it at its start; the span a played mid-roll
///   replaced is shown).
/// - Events whose date range cannot play (``InterstitialEvent/defects``) are left out with status
///   ``ScheduledEvent/Status-swift.struct/unusable``; ``diagnostics(file:)`` says why.
/// - Events at one start play in playlist order and their resume offsets add up. An absent
///   `X-RESUME-OFFSET` is the interstitial's duration (or `X-PLAYOUT-LIMIT` when shorter) on VOD,
///   and the time spent in the break on live; 0 when nothing is known.
/// - `X-SNAP OUT` moves the start to the nearest segment boundary (the earliest such boundary
///   across the primary playlists); `X-SNAP IN` moves the resume point to the nearest boundary
///   (the latest across playlists).
/// - `X-PLAYOUT-LIMIT` caps the playout; events after the end of a VOD primary are left out;
///   `X-TIMELINE-OCCUPIES` `POINT` events have zero integrated width, `RANGE` events their playout.
public struct Schedule: Sendable {
    /// The integrated timeline: primary content and interstitials in play order.
    public internal(set) var items: [ScheduleItem]
    /// Every event, in schedule order (pre-rolls, then by start time and playlist order, then
    /// post-rolls, then events that cannot be placed), with where and whether it plays.
    public internal(set) var events: [ScheduledEvent]
    /// Whether the primary is live (no `EXT-X-ENDLIST` and not a VOD playlist, unless overridden).
    public internal(set) var isLive: Bool
    /// The duration of the primary playlist (for live: of the segments available now).
    public internal(set) var primaryDuration: MediaTime
    /// Where playback begins: present when a start was requested or the primary is live.
    public internal(set) var start: StartPosition?
    /// The inputs besides the playlists and events.
    public internal(set) var configuration: Configuration

    // Internal state for incremental updates.
    var timeline: PrimaryTimeline
    var inputs: [InterstitialEvent]
    var resolved: [ResolvedEvent]
    /// Input indices in schedule order.
    var order: [Int]
    /// The walk's state before each group of events at one start, by schedule position.
    var checkpoints: [WalkCheckpoint?]
    /// The resolved start position on the primary timeline (before pre-rolls).
    var startTime: MediaTime
    /// The primary position after the pre-rolls, where the ordinary walk begins.
    var walkOrigin: MediaTime
    /// The date of ``startTime``, to keep the start stable across sliding-window reloads.
    var startDate: DateTime?
    /// The preload ranges (Appendix F), placed on demand by ``preloads``.
    var preloadRanges: [PreloadRange] = []

    /// Builds the schedule of one primary media playlist and the interstitial events in it.
    ///
    /// Events are read from the playlist's interstitial `EXT-X-DATERANGE` tags in playlist order,
    /// with same-ID tags merged (``InterstitialEvent/events(in:draftNames:)``). Across live reloads, keep a
    /// ``DateRangeTracker`` and pass its events to ``init(primary:events:configuration:)-(MediaPlaylist,_,_)``.
    public init(primary: MediaPlaylist, configuration: Configuration = Configuration()) {
        self.init(primary: [primary], events: InterstitialEvent.events(in: primary), configuration: configuration)
        self.preloadRanges = PreloadRange.ranges(in: primary)
    }

    /// Builds the schedule of a primary media playlist and events.
    ///
    /// - Parameters:
    ///   - primary: The primary media playlist; its timeline is the primary timeline.
    ///   - events: The interstitial events, in playlist order (same-start events play in this order).
    ///   - configuration: Known durations, played events, the start position, live or VOD.
    public init(primary: MediaPlaylist, events: [InterstitialEvent], configuration: Configuration = Configuration()) {
        self.init(primary: [primary], events: events, configuration: configuration)
    }

    /// Builds the schedule of several primary media playlists (such as video and audio) and events.
    ///
    /// The first playlist's timeline is the primary timeline; the others only matter for
    /// `X-SNAP` (OUT snaps to the earliest boundary across playlists, IN to the latest). Their
    /// boundaries are related to the first playlist through PROGRAM-DATE-TIME when both have it,
    /// and by media time otherwise.
    ///
    /// - Parameters:
    ///   - primary: The primary media playlists; must not be empty.
    ///   - events: The interstitial events, in playlist order.
    ///   - configuration: Known durations, played events, the start position, live or VOD.
    public init(primary: [MediaPlaylist], events: [InterstitialEvent], configuration: Configuration = Configuration()) {
        precondition(!primary.isEmpty, "a schedule needs at least one primary media playlist")
        self.timeline = PrimaryTimeline(playlists: primary, isLive: configuration.isLive)
        self.configuration = configuration
        self.inputs = events
        self.items = []
        self.events = []
        self.isLive = self.timeline.isLive
        self.primaryDuration = self.timeline.end
        self.start = nil
        self.resolved = []
        self.order = []
        self.checkpoints = []
        self.startTime = .zero
        self.walkOrigin = .zero
        self.startDate = nil
        self.resolveStart()
        self.rebuild()
    }

    /// The index of the item with identity `id`, to re-find "the same" item after an update.
    public func index(of id: ScheduleItem.ID) -> Int? {
        self.items.firstIndex { $0.id == id }
    }

    /// The scheduled event with identifier `eventID`.
    public func event(_ eventID: String) -> ScheduledEvent? {
        self.events.first { $0.identifier == eventID }
    }

    /// The index of the item playing at `time` on the integrated axis (the first item whose range
    /// contains it; a point interstitial at that time comes before the primary after it).
    public func itemIndex(atIntegratedTime time: MediaTime) -> Int? {
        var low = 0
        var high = self.items.count
        while low < high {
            let mid = (low + high) / 2
            if self.items[mid].integrated.end <= time { low = mid + 1 } else { high = mid }
        }
        // Zero-width items at `time` before the containing one play first.
        var k = low
        while k > 0, self.items[k - 1].integrated.start == time, self.items[k - 1].integrated.end == time { k -= 1 }
        return k < self.items.count ? k : nil
    }

    /// The index of the item playing at `time` on the playout axis.
    public func itemIndex(atPlayoutTime time: MediaTime) -> Int? {
        var low = 0
        var high = self.items.count
        while low < high {
            let mid = (low + high) / 2
            if self.items[mid].playout.end <= time { low = mid + 1 } else { high = mid }
        }
        return low < self.items.count ? low : nil
    }

    /// The total playout duration (every item back to back).
    public var playoutDuration: MediaTime { self.items.last?.playout.end ?? .zero }

    /// The total integrated duration (what a timeline UI shows).
    public var integratedDuration: MediaTime { self.items.last?.integrated.end ?? .zero }
}

extension Schedule: Equatable {
    /// Schedules are equal when their outputs are: items, events, liveness, primary duration, start.
    public static func == (lhs: Schedule, rhs: Schedule) -> Bool {
        lhs.isLive == rhs.isLive && lhs.primaryDuration == rhs.primaryDuration && lhs.start == rhs.start
            && lhs.items == rhs.items && lhs.events == rhs.events
    }
}

extension Schedule {
    /// The inputs of a schedule besides the playlists and events.
    public struct Configuration: Sendable, Hashable {
        /// Asset durations the player learned, by event identifier: one value for an `X-ASSET-URI`
        /// asset, one per asset for an asset list.
        ///
        /// Their sum is the interstitial's duration.
        public var assetDurations: [String: [MediaTime]]
        /// Events that already played in this session: `CUE=ONCE` events among them do not play again.
        public var playedEventIDs: Set<String>
        /// Where playback starts; `nil` is the beginning for VOD and the live join point for live.
        public var start: StartRequest?
        /// Whether interstitials play at all (AVFoundation `automaticallyHandlesInterstitialEvents`).
        ///
        /// When `false`, the schedule is the primary alone and every event is ``ScheduledEvent/Status/disabled``.
        public var handlesInterstitialEvents: Bool
        /// Overrides whether the primary is live; `nil` reads it from the first playlist.
        public var isLive: Bool?

        /// Creates a configuration.
        public init(
            assetDurations: [String: [MediaTime]] = [:],
            playedEventIDs: Set<String> = [],
            start: StartRequest? = nil,
            handlesInterstitialEvents: Bool = true,
            isLive: Bool? = nil
        ) {
            self.assetDurations = assetDurations
            self.playedEventIDs = playedEventIDs
            self.start = start
            self.handlesInterstitialEvents = handlesInterstitialEvents
            self.isLive = isLive
        }
    }

    /// Where playback is asked to start on the primary timeline.
    public struct StartRequest: Sendable, Hashable, CustomStringConvertible {
        enum Base: Sendable, Hashable {
            case beginning
            case liveJoin
            case time(MediaTime)
            case date(DateTime)
        }

        let base: Base

        /// The start of the primary (its first segment).
        public static let beginning = StartRequest(base: .beginning)
        /// Where a player joins a live stream: `HOLD-BACK` from the end of the playlist, or three
        /// target durations when the server gives none.
        public static let liveJoin = StartRequest(base: .liveJoin)
        /// A time on the primary timeline.
        public static func time(_ time: MediaTime) -> StartRequest { StartRequest(base: .time(time)) }
        /// A date, mapped through PROGRAM-DATE-TIME.
        public static func date(_ date: DateTime) -> StartRequest { StartRequest(base: .date(date)) }

        /// `beginning`, `liveJoin`, `time(T)` or `date(D)`.
        public var description: String {
            switch self.base {
            case .beginning: "beginning"
            case .liveJoin: "liveJoin"
            case .time(let t): "time(\(t))"
            case .date(let d): "date(\(d.iso8601))"
            }
        }
    }

    /// Where playback begins, and whether it begins inside an interstitial.
    public struct StartPosition: Sendable, Hashable {
        /// The position asked for, on the primary timeline (before any pre-roll).
        public var requestedTime: MediaTime
        /// The primary position when playback begins: the requested time, moved by the resume
        /// offsets of the pre-rolls that play first.
        public var primaryTime: MediaTime
        /// The `CUE=PRE` events that play first, in order.
        public var prerollEventIDs: [String]
        /// The interstitial the position lands in: it falls between the event's start and its
        /// resume point, or inside a `RANGE` event.
        ///
        /// `nil` otherwise.
        public var eventID: String?
        /// How far ``primaryTime`` is into that interstitial.
        public var offsetIntoEvent: MediaTime?
        /// Where playback of that interstitial begins: on live, ``offsetIntoEvent`` (the
        /// `_HLS_start_offset` to send with the asset-list request); on VOD, 0 (a start inside the
        /// span an interstitial replaces plays it from its beginning, §6).
        ///
        /// `nil` outside interstitials.
        public var startOffset: MediaTime?

        /// Creates a start position.
        public init(
            requestedTime: MediaTime,
            primaryTime: MediaTime,
            prerollEventIDs: [String] = [],
            eventID: String? = nil,
            offsetIntoEvent: MediaTime? = nil,
            startOffset: MediaTime? = nil
        ) {
            self.requestedTime = requestedTime
            self.primaryTime = primaryTime
            self.prerollEventIDs = prerollEventIDs
            self.eventID = eventID
            self.offsetIntoEvent = offsetIntoEvent
            self.startOffset = startOffset
        }
    }
}

extension Schedule {
    /// Why events were left out as unusable: one diagnostic per defect of each event with status
    /// ``ScheduledEvent/Status/unusable`` (rule, message, hint), located at the event's last
    /// `EXT-X-DATERANGE` tag in the first primary playlist (at the attribute at fault), or at line 0
    /// when the tag is no longer in the playlist (an event a tracker kept after it slid out).
    ///
    /// - Parameter file: The file or URL of the primary playlist, for the locations.
    /// - Returns: The diagnostics, in schedule order.
    public func diagnostics(file: String? = nil) -> [PlaylistDiagnostic] {
        var result: [PlaylistDiagnostic] = []
        for scheduled in self.events where scheduled.status == .unusable {
            let event = scheduled.event
            let placed = self.timeline.reference.dateRanges.last { $0.dateRange.id == event.identifier }
            for defect in event.defects {
                let location =
                    placed.map { self.timeline.reference.location(of: $0, attribute: defect.attribute, file: file) }
                    ?? SourceLocation(file: file, line: 0, column: 0)
                result.append(
                    PlaylistDiagnostic(
                        severity: defect.rule.severity,
                        rule: defect.rule.id,
                        message: defect.message + "; it is left out of the schedule",
                        hint: defect.hint,
                        location: location
                    )
                )
            }
        }
        return result
    }
}
