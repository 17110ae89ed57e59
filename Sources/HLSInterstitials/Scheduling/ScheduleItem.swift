import HLSPlaylist

/// One entry of the integrated timeline: a stretch of primary content, or one interstitial event.
///
/// Every item carries three ranges, one per time axis (see ARCHITECTURE.md):
/// - ``primary``: media time on the primary timeline. For primary content, the span played. For an
///   interstitial, from where it is scheduled (the primary pauses there) to where the primary
///   resumes after it (``resumeTime``); the end is before the start when the resume offset is
///   negative.
/// - ``playout``: everything played back to back, as a wall clock would see it.
/// - ``integrated``: what a timeline UI shows: point events have zero width, range events their
///   played duration (`X-TIMELINE-OCCUPIES`).
public struct ScheduleItem: Sendable, Hashable, Identifiable {
    /// A stable identity: the same event, or the primary content after the same event, keeps its
    /// identifier when the schedule is recomputed.
    public var id: ID
    /// Whether this is primary content or an interstitial.
    public var kind: Kind
    /// The interstitial's event identifier (`nil` for primary content).
    public var eventID: String?
    /// The range on the primary timeline (for an interstitial: scheduled start to resume time).
    public var primary: Span
    /// The range on the playout axis.
    public var playout: Span
    /// The range on the integrated axis.
    public var integrated: Span
    /// How far into the interstitial playback begins: non-zero only for the interstitial a live
    /// join lands in (the `_HLS_start_offset` a player sends).
    public var startOffset: MediaTime
    /// The interstitial's navigation restrictions (empty for primary content).
    public var restrictions: Restrictions

    /// Creates an item.
    public init(
        id: ID,
        kind: Kind,
        eventID: String?,
        primary: Span,
        playout: Span,
        integrated: Span,
        startOffset: MediaTime = .zero,
        restrictions: Restrictions = []
    ) {
        self.id = id
        self.kind = kind
        self.eventID = eventID
        self.primary = primary
        self.playout = playout
        self.integrated = integrated
        self.startOffset = startOffset
        self.restrictions = restrictions
    }

    /// Where the primary resumes after an interstitial (its ``primary`` end); for primary content,
    /// the end of the span.
    public var resumeTime: MediaTime { self.primary.end }

    /// Whether the item is an interstitial.
    public var isInterstitial: Bool { self.kind == .interstitial }

    /// A start and an end on one time axis, in seconds of media time.
    ///
    /// Unlike `Range`, the end may precede the start: an interstitial with a negative resume offset
    /// resumes the primary before the point it was scheduled at.
    public struct Span: Sendable, Hashable, CustomStringConvertible {
        /// The start.
        public var start: MediaTime
        /// The end.
        public var end: MediaTime

        /// Creates a span.
        public init(start: MediaTime, end: MediaTime) {
            self.start = start
            self.end = end
        }

        /// `end − start` (negative when the end precedes the start).
        public var duration: MediaTime { self.end - self.start }

        /// Whether `time` is in `start ..< end`.
        public func contains(_ time: MediaTime) -> Bool {
            self.start <= time && time < self.end
        }

        /// `start–end`, in seconds.
        public var description: String { "\(self.start)–\(self.end)" }
    }

    /// The kind of an item.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let code: UInt8

        private init(code: UInt8) {
            self.code = code
        }

        /// Primary content.
        public static let primary = Kind(code: 0)
        /// An interstitial event.
        public static let interstitial = Kind(code: 1)

        /// `primary` or `interstitial` (the JSON spelling).
        public var description: String { self.code == 0 ? "primary" : "interstitial" }
    }

    /// The identity of an item, stable across recomputations.
    ///
    /// An interstitial is identified by its event; primary content by the event it follows
    /// (or by being the first primary item).
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        /// `event:<id>`, `primary:start` or `primary:after:<id>`.
        public let description: String

        private init(_ text: String) {
            self.description = text
        }

        /// The item of the interstitial event `eventID`.
        public static func interstitial(_ eventID: String) -> ID { ID("event:" + eventID) }
        /// Primary content before any interstitial has played.
        public static let primaryAtStart = ID("primary:start")
        /// Primary content that follows the interstitial `eventID`.
        public static func primary(after eventID: String) -> ID { ID("primary:after:" + eventID) }
    }
}
