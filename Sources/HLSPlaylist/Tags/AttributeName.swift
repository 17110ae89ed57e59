/// The name of an attribute in an attribute list: `DURATION`, `X-ASSET-URI`.
///
/// Attribute names are an open vocabulary, like ``TagName``: the attributes that
/// draft-pantos-hls-rfc8216bis defines for `EXT-X-DATERANGE` and for the interstitial class
/// (Appendix D) have static members, and any other name (a client attribute such as
/// `X-COM-EXAMPLE-AD-ID`) is kept as written. The members an enumerated attribute allows are in
/// ``allowedValues``, so checks of the spelling and of the values use one list.
///
/// ```swift
/// dateRange.attributes[.assetURI]?.quotedString      // X-ASSET-URI
/// AttributeName.restrict.allowedValues                // ["SKIP", "JUMP"]
/// ```
public struct AttributeName: RawRepresentable, PlaylistSpelling {
    /// The name as written (`X-ASSET-URI`).
    public let rawValue: String

    /// Creates a attribute name from its spelling.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Whether the name is a client attribute name (`X-` prefix, §4.4.5.1).
    public var isClientAttribute: Bool { self.rawValue.hasPrefix("X-") }

    // MARK: EXT-X-DATERANGE (§4.4.5.1)

    /// `ID`: the date range's unique identifier (quoted-string).
    public static let id = AttributeName("ID")
    /// `CLASS`: the client-defined class of the date range (quoted-string).
    public static let `class` = AttributeName("CLASS")
    /// `START-DATE`: an ISO-8601 date (quoted-string).
    public static let startDate = AttributeName("START-DATE")
    /// `CUE`: when the date range triggers an action (quoted enumerated-string-list of `PRE`,
    /// `POST`, `ONCE`).
    public static let cue = AttributeName("CUE")
    /// `END-DATE`: an ISO-8601 date (quoted-string).
    public static let endDate = AttributeName("END-DATE")
    /// `DURATION`: seconds (decimal-floating-point).
    public static let duration = AttributeName("DURATION")
    /// `PLANNED-DURATION`: expected seconds (decimal-floating-point).
    public static let plannedDuration = AttributeName("PLANNED-DURATION")
    /// `END-ON-NEXT`: its only value is `YES`.
    public static let endOnNext = AttributeName("END-ON-NEXT")
    /// `SCTE35-CMD` (hexadecimal-sequence).
    public static let scte35Command = AttributeName("SCTE35-CMD")
    /// `SCTE35-OUT` (hexadecimal-sequence).
    public static let scte35Out = AttributeName("SCTE35-OUT")
    /// `SCTE35-IN` (hexadecimal-sequence).
    public static let scte35In = AttributeName("SCTE35-IN")

    // MARK: The interstitial class (Appendix D.2)

    /// `X-ASSET-URI`: the URI of one interstitial asset (quoted-string).
    public static let assetURI = AttributeName("X-ASSET-URI")
    /// `X-ASSET-LIST`: the URI of a JSON asset list (quoted-string).
    public static let assetList = AttributeName("X-ASSET-LIST")
    /// `X-RESUME-OFFSET`: where the primary resumes, from the scheduled start
    /// (signed-decimal-floating-point).
    public static let resumeOffset = AttributeName("X-RESUME-OFFSET")
    /// `X-PLAYOUT-LIMIT`: the most the interstitial may play (decimal-floating-point).
    public static let playoutLimit = AttributeName("X-PLAYOUT-LIMIT")
    /// `X-SNAP`: segment-boundary alignment (quoted list of `OUT`, `IN`).
    public static let snap = AttributeName("X-SNAP")
    /// `X-RESTRICT`: navigation restrictions (quoted list of `SKIP`, `JUMP`).
    public static let restrict = AttributeName("X-RESTRICT")
    /// `X-CONTENT-MAY-VARY`: `"YES"` (default) or `"NO"`.
    public static let contentMayVary = AttributeName("X-CONTENT-MAY-VARY")
    /// `X-TIMELINE-OCCUPIES`: `"POINT"` (default) or `"RANGE"`.
    public static let timelineOccupies = AttributeName("X-TIMELINE-OCCUPIES")
    /// `X-TIMELINE-STYLE`: `"HIGHLIGHT"` (default) or `"PRIMARY"`.
    public static let timelineStyle = AttributeName("X-TIMELINE-STYLE")
    /// `X-SKIP-CONTROL-OFFSET`: seconds into the interstitial before skipping is offered
    /// (decimal-integer).
    public static let skipControlOffset = AttributeName("X-SKIP-CONTROL-OFFSET")
    /// `X-SKIP-CONTROL-DURATION`: how long skipping stays offered (decimal-integer).
    public static let skipControlDuration = AttributeName("X-SKIP-CONTROL-DURATION")
    /// `X-SKIP-CONTROL-LABEL-ID`: the key of the skip button's label (quoted-string of
    /// `[a-zA-Z-_]`).
    public static let skipControlLabelID = AttributeName("X-SKIP-CONTROL-LABEL-ID")
    /// `X-CUE`: the cue of earlier drafts, read when `CUE` is absent (same members as ``cue``).
    public static let legacyCue = AttributeName("X-CUE")

    /// The attribute names the interstitial class defines (Appendix D.2); other `X-` attributes of
    /// an interstitial are user-defined.
    public static let interstitialClassNames: Set<AttributeName> = [
        .assetURI, .assetList, .resumeOffset, .playoutLimit, .snap, .restrict, .contentMayVary,
        .timelineOccupies, .timelineStyle, .skipControlOffset, .skipControlDuration, .skipControlLabelID,
        .legacyCue,
    ]

    // MARK: The preload class

    /// `X-URI` of a `com.apple.hls.preload` date range (quoted-string).
    public static let preloadURI = AttributeName("X-URI")
    /// `X-TARGET-ID` of a `com.apple.hls.preload` date range (quoted-string).
    public static let preloadTargetID = AttributeName("X-TARGET-ID")
    /// `X-TARGET-CLASS` of a `com.apple.hls.preload` date range (quoted-string).
    public static let preloadTargetClass = AttributeName("X-TARGET-CLASS")

    // MARK: Allowed values

    /// The members or values an enumerated attribute allows, in the spec's order, the default
    /// first for the single-valued ones; `nil` for attributes that are not enumerated.
    ///
    /// Lists (`CUE`, `X-CUE`, `X-SNAP`, `X-RESTRICT`) take any subset of the members; the others
    /// take exactly one value. Values are case-sensitive.
    public var allowedValues: [String]? {
        switch self {
        case .cue, .legacyCue: [Value.pre, Value.post, Value.once]
        case .snap: [Value.out, Value.in]
        case .restrict: [Value.skip, Value.jump]
        case .contentMayVary: [Value.yes, Value.no]
        case .timelineOccupies: [Value.point, Value.range]
        case .timelineStyle: [Value.highlight, Value.primary]
        case .endOnNext: [Value.yes]
        default: nil
        }
    }

    /// Whether the value is a quoted comma-separated list of members (`CUE`, `X-CUE`, `X-SNAP`,
    /// `X-RESTRICT`).
    public var isMemberList: Bool {
        self == .cue || self == .legacyCue || self == .snap || self == .restrict
    }

    /// The spellings of the enumerated values of ``allowedValues``.
    public enum Value {
        /// `CUE` `PRE`: play before the primary starts.
        public static let pre = "PRE"
        /// `CUE` `POST`: play after the primary ends.
        public static let post = "POST"
        /// `CUE` `ONCE`: play at most once.
        public static let once = "ONCE"
        /// `X-SNAP` `OUT`: snap the start to a segment boundary.
        public static let out = "OUT"
        /// `X-SNAP` `IN`: snap the resumption to a segment boundary.
        public static let `in` = "IN"
        /// `X-RESTRICT` `SKIP`: no skipping forward.
        public static let skip = "SKIP"
        /// `X-RESTRICT` `JUMP`: no seeking past the event.
        public static let jump = "JUMP"
        /// `YES`.
        public static let yes = "YES"
        /// `NO`.
        public static let no = "NO"
        /// `X-TIMELINE-OCCUPIES` `POINT`.
        public static let point = "POINT"
        /// `X-TIMELINE-OCCUPIES` `RANGE`.
        public static let range = "RANGE"
        /// `X-TIMELINE-STYLE` `HIGHLIGHT`.
        public static let highlight = "HIGHLIGHT"
        /// `X-TIMELINE-STYLE` `PRIMARY`.
        public static let primary = "PRIMARY"
    }
}

extension AttributeList {
    /// The value of the first attribute named `name`; setting `nil` removes every attribute of that name.
    public subscript(name: AttributeName) -> AttributeValue? {
        get { self[name.rawValue] }
        set { self[name.rawValue] = newValue }
    }

    /// Whether an attribute with this name is present.
    public func contains(_ name: AttributeName) -> Bool {
        self.contains(name.rawValue)
    }

    /// Appends `NAME=VALUE` at the end.
    public mutating func append(_ name: AttributeName, _ value: AttributeValue) {
        self.append(name.rawValue, value)
    }
}
