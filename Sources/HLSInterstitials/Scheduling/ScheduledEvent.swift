import HLSPlaylist

/// An interstitial event as the schedule places it: where it starts on the primary timeline (after
/// `CUE` and `X-SNAP`), how long it plays, where the primary resumes, and whether it plays at all.
public struct ScheduledEvent: Sendable, Hashable {
    /// The event as given.
    public var event: InterstitialEvent
    /// Where it starts on the primary timeline, after `CUE` and `X-SNAP OUT`; `nil` when a date
    /// cannot be mapped (the primary has no `EXT-X-PROGRAM-DATE-TIME`) or a post-roll has no end yet.
    public var startTime: MediaTime?
    /// The date of ``startTime`` through PROGRAM-DATE-TIME, or the event's own date.
    public var startDate: DateTime?
    /// Where `START-DATE` (or the event's time) falls before `X-SNAP`; `nil` when unmapped.
    public var scheduledTime: MediaTime?
    /// The interstitial's duration: the known asset durations, else `DURATION` / `END-DATE`, else
    /// `PLANNED-DURATION`; `nil` when none is known.
    public var duration: MediaTime?
    /// Where ``duration`` comes from.
    public var durationSource: DurationSource
    /// How long it plays: the duration capped by `X-PLAYOUT-LIMIT` (zero when the duration is unknown).
    public var playoutDuration: MediaTime
    /// This event's own resume offset (given, or the spec default).
    public var resumeOffset: MediaTime
    /// Where ``resumeOffset`` comes from.
    public var resumeOffsetSource: ResumeOffsetSource
    /// The offsets of the events before it at the same start, plus its own: offsets add up.
    public var cumulativeResumeOffset: MediaTime
    /// Where the primary resumes after this event (start plus cumulative offset, `X-SNAP IN`
    /// applied); `nil` when unplaced.
    public var resumeTime: MediaTime?
    /// Whether and why it plays.
    public var status: Status
    /// Its place among events scheduled at the same start (0-based), and how many there are.
    public var podPosition: Int
    /// How many events share this start (a pod).
    public var podSize: Int

    /// The event's identifier.
    public var identifier: String { self.event.identifier }

    /// Whether the event has an item in the schedule.
    public var isScheduled: Bool { self.status == .scheduled }

    /// Whether `time` falls in the span the event replaces: from its start up to a later resume
    /// point (a positive cumulative offset).
    ///
    /// A seek landing there plays the event from its start.
    public func replacedSpanContains(_ time: MediaTime) -> Bool {
        guard let start = self.startTime, let resume = self.resumeTime else { return false }
        return start <= time && time < resume
    }

    /// Whether an event plays, and if not, why.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        private let code: UInt8

        private init(code: UInt8) {
            self.code = code
        }

        /// It has an item in the schedule.
        public static let scheduled = Status(code: 0)
        /// `CUE=ONCE` and it already played in this session.
        public static let alreadyPlayed = Status(code: 1)
        /// It is scheduled before the point where playback starts (and playback does not start inside it).
        public static let beforeStart = Status(code: 2)
        /// It starts inside the span an earlier interstitial's resume offset skips.
        public static let skippedByResumption = Status(code: 3)
        /// It starts after the end of a VOD primary, so it never plays.
        public static let afterPrimaryEnd = Status(code: 4)
        /// `CUE=POST` on a live primary: it plays when the playlist ends (`EXT-X-ENDLIST`).
        public static let awaitingPrimaryEnd = Status(code: 5)
        /// Its date cannot be mapped: the primary has no `EXT-X-PROGRAM-DATE-TIME`.
        public static let unplaceable = Status(code: 6)
        /// Interstitial handling is off (AVFoundation `automaticallyHandlesInterstitialEvents = false`).
        public static let disabled = Status(code: 7)
        /// Its date range breaks a rule that makes it unplayable (``InterstitialEvent/defects``):
        /// it is left out and does not move the primary; ``Schedule/diagnostics(file:)`` says why.
        public static let unusable = Status(code: 8)

        /// The JSON spelling (`scheduled`, `alreadyPlayed`, `beforeStart`, …).
        public var description: String {
            switch self.code {
            case 0: "scheduled"
            case 1: "alreadyPlayed"
            case 2: "beforeStart"
            case 3: "skippedByResumption"
            case 4: "afterPrimaryEnd"
            case 5: "awaitingPrimaryEnd"
            case 6: "unplaceable"
            case 8: "unusable"
            default: "disabled"
            }
        }
    }

    /// Where an interstitial's duration comes from.
    public struct DurationSource: Sendable, Hashable, CustomStringConvertible {
        private let code: UInt8

        private init(code: UInt8) {
            self.code = code
        }

        /// Asset durations the player learned (the asset list's `DURATION`s or the asset playlist).
        public static let assets = DurationSource(code: 0)
        /// `DURATION`, or `END-DATE − START-DATE`.
        public static let dateRange = DurationSource(code: 1)
        /// `PLANNED-DURATION`: an estimate until the real duration is known.
        public static let planned = DurationSource(code: 2)
        /// Nothing is known yet.
        public static let unknown = DurationSource(code: 3)

        /// `assets`, `dateRange`, `planned` or `unknown`.
        public var description: String {
            switch self.code {
            case 0: "assets"
            case 1: "dateRange"
            case 2: "planned"
            default: "unknown"
            }
        }
    }

    /// Where an event's resume offset comes from.
    public struct ResumeOffsetSource: Sendable, Hashable, CustomStringConvertible {
        private let code: UInt8

        private init(code: UInt8) {
            self.code = code
        }

        /// `X-RESUME-OFFSET` (or a client-set offset).
        public static let given = ResumeOffsetSource(code: 0)
        /// VOD default: the interstitial's duration.
        public static let duration = ResumeOffsetSource(code: 1)
        /// VOD default when `X-PLAYOUT-LIMIT` is shorter than the duration: the limit.
        public static let playoutLimit = ResumeOffsetSource(code: 2)
        /// Live default: the time spent in the interstitial, so the primary keeps pace with the
        /// wall clock (AVFoundation `.indefinite`).
        ///
        /// The schedule uses the playout duration; a player
        /// uses the time actually spent.
        public static let elapsed = ResumeOffsetSource(code: 3)
        /// No offset given and no duration known: zero.
        public static let unknown = ResumeOffsetSource(code: 4)

        /// `given`, `duration`, `playoutLimit`, `elapsed` or `unknown`.
        public var description: String {
            switch self.code {
            case 0: "given"
            case 1: "duration"
            case 2: "playoutLimit"
            case 3: "elapsed"
            default: "unknown"
            }
        }
    }
}
