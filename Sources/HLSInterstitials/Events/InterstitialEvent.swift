import HLSPlaylist

/// An interstitial event: something to play between parts of a primary asset, scheduled at a
/// time or date on the primary timeline (draft-pantos-hls-rfc8216bis Appendix D).
///
/// The vocabulary follows AVFoundation's `AVPlayerInterstitialEvent` in Swift terms. An event comes
/// from an `EXT-X-DATERANGE` tag with `CLASS="com.apple.hls.interstitial"` (``init(dateRange:)``)
/// or is made in code for client-side scheduling, and can be written back as a tag
/// (``dateRange(startDate:)``).
///
/// ```swift
/// var event = InterstitialEvent(identifier: "ad1", time: 10)
/// event.assetURIs = ["https://example.com/ad1/main.m3u8"]
/// event.resumptionOffset = .zero
/// event.restrictions = [.skip, .jump]
/// ```
public struct InterstitialEvent: Sendable, Hashable {
    /// `ID`: identifies the event; setting an event with the same identifier on a controller replaces it.
    public var identifier: String
    /// Where the event is scheduled: a media time on the primary timeline, or a date (`START-DATE`).
    public var start: Start
    /// `X-ASSET-URI` (one URI), or the template assets of a client-scheduled event (played in order).
    public var assetURIs: [String]
    /// `X-ASSET-LIST`: the URI of a JSON asset list resolved when the event is about to play.
    public var assetListURI: String?
    /// `X-RESTRICT`: navigation restrictions while the event applies.
    public var restrictions: Restrictions
    /// `X-RESUME-OFFSET`: where primary playback resumes, from the scheduled start.
    ///
    /// `nil` means the
    /// spec default: the interstitial's duration (or the playout limit when shorter).
    public var resumptionOffset: MediaTime?
    /// `X-PLAYOUT-LIMIT`: the most the whole interstitial may play; `nil` for no limit.
    public var playoutLimit: MediaTime?
    /// `CUE` `PRE` / `POST` (AVFoundation's join and leave cues).
    public var cue: Cue
    /// `CUE` `ONCE`: play at most once.
    public var willPlayOnce: Bool
    /// `X-SNAP` `OUT`: start at the primary segment boundary nearest the scheduled start.
    public var alignsStartWithPrimarySegmentBoundary: Bool
    /// `X-SNAP` `IN`: resume at the primary segment boundary nearest the resume point.
    public var alignsResumptionWithPrimarySegmentBoundary: Bool
    /// `X-TIMELINE-OCCUPIES`: a point (default) or a range of the integrated timeline.
    public var timelineOccupancy: TimelineOccupancy
    /// `X-TIMELINE-STYLE=PRIMARY`: shown as part of the primary rather than highlighted.
    public var supplementsPrimaryContent: Bool
    /// `X-CONTENT-MAY-VARY` (default `true`): `false` means every viewer gets the same content.
    public var contentMayVary: Bool
    /// `DURATION` (or `END-DATE` − `START-DATE`): the interstitial's duration, when known.
    public var duration: MediaTime?
    /// `PLANNED-DURATION`: the expected duration while the real one is unknown.
    public var plannedDuration: MediaTime?
    /// `X-SKIP-CONTROL-OFFSET` / `-DURATION` / `-LABEL-ID`.
    public var skipControl: SkipControl?
    /// The other client attributes (`X-…`), in written order with their spelling.
    public var userDefinedAttributes: [Attribute]
    /// Why the date range this event was read from cannot play (see ``Defect``); empty for a
    /// playable event and for events made in code.
    ///
    /// The schedule and the player leave out events
    /// with defects (status ``ScheduledEvent/Status/unusable``), as the spec asks of clients for
    /// date ranges with illegal syntax.
    public var defects: [Defect]
    /// The `ID` of the `com.apple.hls.daterange-schedule` date range this event came from
    /// (AVFoundation `scheduleIdentifier`); `nil` for an event written in the playlist or made in code.
    ///
    /// Set by `DateRangeScheduleResolver`.
    public var scheduleIdentifier: String?

    /// Whether the event can play: it has no ``defects``.
    public var isUsable: Bool { self.defects.isEmpty }

    /// A rule the event's date range breaks that makes it unplayable, with the attribute at fault.
    public struct Defect: Sendable, Hashable, CustomStringConvertible {
        /// The rule, one of ``InterstitialRule/unusableRules``.
        public var rule: InterstitialRule
        /// The attribute at fault, or `nil` for the tag as a whole.
        public var attribute: String?
        /// What is wrong, in one sentence.
        public var message: String
        /// What to change.
        public var hint: String

        /// Creates a defect.
        public init(rule: InterstitialRule, attribute: String?, message: String, hint: String) {
            self.rule = rule
            self.attribute = attribute
            self.message = message
            self.hint = hint
        }

        /// `RULE: message`.
        public var description: String { "\(self.rule.id): \(self.message)" }
    }

    /// Creates an event at a media time on the primary timeline.
    public init(identifier: String, time: MediaTime) {
        self.init(identifier: identifier, start: .time(time))
    }

    /// Creates an event at a date (requires a primary with PROGRAM-DATE-TIME).
    public init(identifier: String, date: DateTime) {
        self.init(identifier: identifier, start: .date(date))
    }

    /// Creates an event with the spec's defaults for everything but its identifier and start.
    public init(identifier: String, start: Start) {
        self.identifier = identifier
        self.start = start
        self.assetURIs = []
        self.assetListURI = nil
        self.restrictions = []
        self.resumptionOffset = nil
        self.playoutLimit = nil
        self.cue = .none
        self.willPlayOnce = false
        self.alignsStartWithPrimarySegmentBoundary = false
        self.alignsResumptionWithPrimarySegmentBoundary = false
        self.timelineOccupancy = .point
        self.supplementsPrimaryContent = false
        self.contentMayVary = true
        self.duration = nil
        self.plannedDuration = nil
        self.skipControl = nil
        self.userDefinedAttributes = []
        self.defects = []
        self.scheduleIdentifier = nil
    }

    /// The scheduled start of an event.
    public enum Start: Sendable, Hashable {
        /// A media time on the primary timeline (seconds from the first segment's start).
        case time(MediaTime)
        /// A wall-clock date, mapped through PROGRAM-DATE-TIME.
        case date(DateTime)
    }

    /// The start as a media time, if it was given as one.
    public var time: MediaTime? {
        if case .time(let t) = self.start { return t }
        return nil
    }

    /// The start as a date, if it was given as one.
    public var date: DateTime? {
        if case .date(let d) = self.start { return d }
        return nil
    }
}

/// `X-RESTRICT`: what a viewer may not do around an interstitial.
public struct Restrictions: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: Int

    /// Creates the set from its bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `JUMP`: no seeking from before the event to after it without playing it first
    /// (AVFoundation `constrainsSeekingForwardInPrimaryContent`).
    public static let jump = Restrictions(rawValue: 1 << 0)
    /// `SKIP`: no forward seeking or rate above normal while it plays
    /// (AVFoundation `requiresPlaybackAtPreferredRateForAdvancement`).
    public static let skip = Restrictions(rawValue: 1 << 2)

    /// The `X-RESTRICT` members in spec order (`SKIP`, `JUMP`).
    public var members: [String] {
        var result: [String] = []
        if self.contains(.skip) { result.append(AttributeName.Value.skip) }
        if self.contains(.jump) { result.append(AttributeName.Value.jump) }
        return result
    }

    /// Parses `X-RESTRICT` members; unknown members are ignored, as the spec requires.
    public init(members: [String]) {
        var value = Restrictions()
        for member in members {
            switch member {
            case AttributeName.Value.skip: value.insert(.skip)
            case AttributeName.Value.jump: value.insert(.jump)
            default: break
            }
        }
        self = value
    }
}

/// `CUE`: whether the event plays before the primary starts (`PRE`), after it ends (`POST`), or at
/// its scheduled point (none).
///
/// AVFoundation calls these the join and leave cues.
public struct Cue: Sendable, Hashable, CustomStringConvertible {
    private let code: UInt8

    private init(code: UInt8) {
        self.code = code
    }

    /// Play at the scheduled point.
    public static let none = Cue(code: 0)
    /// `PRE`: before primary playback begins, wherever it begins (AVFoundation `joinCue`).
    public static let join = Cue(code: 1)
    /// `POST`: after the primary plays to its end (AVFoundation `leaveCue`).
    public static let leave = Cue(code: 2)

    /// `PRE`, `POST` or empty.
    public var member: String? {
        switch self.code {
        case 1: AttributeName.Value.pre
        case 2: AttributeName.Value.post
        default: nil
        }
    }

    /// `none`, `PRE` or `POST`.
    public var description: String { self.member ?? "none" }
}

/// `X-TIMELINE-OCCUPIES`: how the event shows on an integrated timeline.
public struct TimelineOccupancy: Sendable, Hashable, CustomStringConvertible {
    /// `POINT` or `RANGE`.
    public let rawValue: String

    private init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// `POINT`: zero width on the integrated timeline (AVFoundation `.singlePoint`).
    public static let point = TimelineOccupancy(AttributeName.Value.point)
    /// `RANGE`: occupies its duration (AVFoundation `.fill`).
    public static let range = TimelineOccupancy(AttributeName.Value.range)

    /// Parses `POINT` / `RANGE`; `nil` for any other value (treated as absent).
    public init?(rawValue: String) {
        switch rawValue {
        case AttributeName.Value.point: self = .point
        case AttributeName.Value.range: self = .range
        default: return nil
        }
    }

    /// `POINT` or `RANGE`.
    public var description: String { self.rawValue }
}

/// The skip button of an interstitial: when it appears and for how long, counted across the whole
/// interstitial (all assets), and the key of its label.
public struct SkipControl: Sendable, Hashable {
    /// `X-SKIP-CONTROL-OFFSET`: seconds played before the button appears (0 = at once).
    public var offset: MediaTime
    /// `X-SKIP-CONTROL-DURATION`: how long it stays; `nil` = until the interstitial ends.
    public var duration: MediaTime?
    /// `X-SKIP-CONTROL-LABEL-ID`: the key of a localized label.
    public var labelID: String?

    /// Creates a skip control.
    public init(offset: MediaTime, duration: MediaTime? = nil, labelID: String? = nil) {
        self.offset = offset
        self.duration = duration
        self.labelID = labelID
    }
}
