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
    /// `X-DURATION-AT-JOIN` of a `com.apple.hls.preload` date range (decimal-floating-point; Apple's
    /// preliminary WWDC 2026 draft).
    public static let preloadDurationAtJoin = AttributeName("X-DURATION-AT-JOIN")

    // MARK: EXT-X-START (§4.4.2.2)

    /// `TIME-OFFSET`: seconds from the start (or, negative, from the end) of the playlist.
    public static let timeOffset = AttributeName("TIME-OFFSET")
    /// `PRECISE`: `YES` or `NO`.
    public static let precise = AttributeName("PRECISE")

    // MARK: EXT-X-DEFINE (§4.4.2.3)

    /// `NAME`: the variable (or rendition) name.
    public static let name = AttributeName("NAME")
    /// `VALUE`: the variable's value (also of `EXT-X-SESSION-DATA`).
    public static let value = AttributeName("VALUE")
    /// `IMPORT`: a variable imported from the multivariant playlist.
    public static let `import` = AttributeName("IMPORT")
    /// `QUERYPARAM`: a variable read from the playlist URI's query.
    public static let queryParameter = AttributeName("QUERYPARAM")

    // MARK: EXT-X-PART-INF and EXT-X-SERVER-CONTROL (§4.4.3.7, §4.4.3.8)

    /// `PART-TARGET`: the part target duration.
    public static let partTarget = AttributeName("PART-TARGET")
    /// `CAN-SKIP-UNTIL`: the skip boundary in seconds.
    public static let canSkipUntil = AttributeName("CAN-SKIP-UNTIL")
    /// `CAN-SKIP-DATERANGES`: `YES` when date ranges can be skipped.
    public static let canSkipDateRanges = AttributeName("CAN-SKIP-DATERANGES")
    /// `HOLD-BACK`: the live edge distance in seconds.
    public static let holdBack = AttributeName("HOLD-BACK")
    /// `PART-HOLD-BACK`: the low-latency live edge distance.
    public static let partHoldBack = AttributeName("PART-HOLD-BACK")
    /// `CAN-BLOCK-RELOAD`: `YES` when blocking reloads are supported.
    public static let canBlockReload = AttributeName("CAN-BLOCK-RELOAD")

    // MARK: Media segments: EXT-X-KEY, EXT-X-MAP, EXT-X-PART (§4.4.4)

    /// `METHOD`: `NONE`, `AES-128`, `SAMPLE-AES`, ….
    public static let method = AttributeName("METHOD")
    /// `URI`: a URI (quoted-string).
    public static let uri = AttributeName("URI")
    /// `IV`: the initialization vector (hexadecimal-sequence).
    public static let initializationVector = AttributeName("IV")
    /// `KEYFORMAT`: how the key is represented.
    public static let keyFormat = AttributeName("KEYFORMAT")
    /// `KEYFORMATVERSIONS`: the key format versions.
    public static let keyFormatVersions = AttributeName("KEYFORMATVERSIONS")
    /// `BYTERANGE`: `length[@offset]` (quoted-string).
    public static let byteRange = AttributeName("BYTERANGE")
    /// `INDEPENDENT`: `YES` when the part starts with an independent frame.
    public static let independent = AttributeName("INDEPENDENT")
    /// `GAP`: `YES` when the part is unavailable.
    public static let gap = AttributeName("GAP")

    // MARK: EXT-X-SKIP, EXT-X-PRELOAD-HINT, EXT-X-RENDITION-REPORT (§4.4.5)

    /// `SKIPPED-SEGMENTS`: how many segments the delta update skipped.
    public static let skippedSegments = AttributeName("SKIPPED-SEGMENTS")
    /// `RECENTLY-REMOVED-DATERANGES`: tab-separated IDs of removed date ranges.
    public static let recentlyRemovedDateRanges = AttributeName("RECENTLY-REMOVED-DATERANGES")
    /// `TYPE`: `PART`/`MAP` of a preload hint; `AUDIO`/`VIDEO`/`SUBTITLES`/`CLOSED-CAPTIONS` of a rendition.
    public static let type = AttributeName("TYPE")
    /// `BYTERANGE-START`: the first byte of a preload hint.
    public static let byteRangeStart = AttributeName("BYTERANGE-START")
    /// `BYTERANGE-LENGTH`: the length of a preload hint.
    public static let byteRangeLength = AttributeName("BYTERANGE-LENGTH")
    /// `LAST-MSN`: the last media sequence number of a rendition report.
    public static let lastMediaSequenceNumber = AttributeName("LAST-MSN")
    /// `LAST-PART`: the last part index of a rendition report.
    public static let lastPart = AttributeName("LAST-PART")

    // MARK: EXT-X-MEDIA (§4.4.6.1)

    /// `GROUP-ID`: the rendition group.
    public static let groupID = AttributeName("GROUP-ID")
    /// `LANGUAGE`: an RFC 5646 language tag.
    public static let language = AttributeName("LANGUAGE")
    /// `ASSOC-LANGUAGE`: an associated language tag.
    public static let associatedLanguage = AttributeName("ASSOC-LANGUAGE")
    /// `STABLE-RENDITION-ID`: a stable identifier of the rendition.
    public static let stableRenditionID = AttributeName("STABLE-RENDITION-ID")
    /// `DEFAULT`: `YES` for the default rendition.
    public static let `default` = AttributeName("DEFAULT")
    /// `AUTOSELECT`: `YES` when the rendition may be chosen automatically.
    public static let autoselect = AttributeName("AUTOSELECT")
    /// `FORCED`: `YES` for forced subtitles.
    public static let forced = AttributeName("FORCED")
    /// `INSTREAM-ID`: the closed-caption channel.
    public static let instreamID = AttributeName("INSTREAM-ID")
    /// `BIT-DEPTH`: the audio bit depth.
    public static let bitDepth = AttributeName("BIT-DEPTH")
    /// `SAMPLE-RATE`: the audio sample rate.
    public static let sampleRate = AttributeName("SAMPLE-RATE")
    /// `CHARACTERISTICS`: media characteristic tags.
    public static let characteristics = AttributeName("CHARACTERISTICS")
    /// `CHANNELS`: the audio channel count and layout.
    public static let channels = AttributeName("CHANNELS")

    // MARK: EXT-X-STREAM-INF and EXT-X-I-FRAME-STREAM-INF (§4.4.6.2, §4.4.6.3)

    /// `BANDWIDTH`: the peak bit rate.
    public static let bandwidth = AttributeName("BANDWIDTH")
    /// `AVERAGE-BANDWIDTH`: the average bit rate.
    public static let averageBandwidth = AttributeName("AVERAGE-BANDWIDTH")
    /// `SCORE`: the variant's preference score.
    public static let score = AttributeName("SCORE")
    /// `CODECS`: the codecs (quoted list).
    public static let codecs = AttributeName("CODECS")
    /// `SUPPLEMENTAL-CODECS`: supplemental codec formats.
    public static let supplementalCodecs = AttributeName("SUPPLEMENTAL-CODECS")
    /// `RESOLUTION`: `<width>x<height>`.
    public static let resolution = AttributeName("RESOLUTION")
    /// `FRAME-RATE`: the maximum frame rate.
    public static let frameRate = AttributeName("FRAME-RATE")
    /// `HDCP-LEVEL`: `TYPE-0`, `TYPE-1` or `NONE`.
    public static let hdcpLevel = AttributeName("HDCP-LEVEL")
    /// `ALLOWED-CPC`: allowed content protection configurations.
    public static let allowedCPC = AttributeName("ALLOWED-CPC")
    /// `VIDEO-RANGE`: `SDR`, `HLG` or `PQ`.
    public static let videoRange = AttributeName("VIDEO-RANGE")
    /// `REQ-VIDEO-LAYOUT`: the required video layout.
    public static let requiredVideoLayout = AttributeName("REQ-VIDEO-LAYOUT")
    /// `STABLE-VARIANT-ID`: a stable identifier of the variant.
    public static let stableVariantID = AttributeName("STABLE-VARIANT-ID")
    /// `AUDIO`: the audio rendition group.
    public static let audio = AttributeName("AUDIO")
    /// `VIDEO`: the video rendition group.
    public static let video = AttributeName("VIDEO")
    /// `SUBTITLES`: the subtitles rendition group.
    public static let subtitles = AttributeName("SUBTITLES")
    /// `CLOSED-CAPTIONS`: the closed-captions group, or `NONE`.
    public static let closedCaptions = AttributeName("CLOSED-CAPTIONS")
    /// `PATHWAY-ID`: the content steering pathway.
    public static let pathwayID = AttributeName("PATHWAY-ID")

    // MARK: EXT-X-SESSION-DATA and EXT-X-CONTENT-STEERING (§4.4.6.4, §4.4.6.6)

    /// `DATA-ID`: the session data's identifier.
    public static let dataID = AttributeName("DATA-ID")
    /// `FORMAT`: `JSON` or `RAW`.
    public static let format = AttributeName("FORMAT")
    /// `SERVER-URI`: the steering server's URI.
    public static let serverURI = AttributeName("SERVER-URI")

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
