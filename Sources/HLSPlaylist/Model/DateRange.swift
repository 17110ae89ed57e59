/// An `EXT-X-DATERANGE` tag (§4.4.5.1): a range of dates with attributes, typed over its
/// attribute list.
///
/// The attribute list keeps the original order and spelling; the typed properties read and write
/// it in place. Client attributes (`X-…`) stay in order in ``clientAttributes``.
///
/// ```swift
/// var range = DateRange(id: "ad1", startDate: DateTime(iso8601: "2021-01-04T05:00:05.000Z")!)
/// range.class = "com.apple.hls.interstitial"
/// range.duration = 15
/// range.attributes[.assetURI] = .quoted("https://example.com/ad1/main.m3u8")
/// range.tag.rendered
/// ```
public struct DateRange: Sendable, Hashable {
    /// Every attribute in written order.
    public var attributes: AttributeList

    /// Creates a date range from its attribute list.
    public init(attributes: AttributeList) {
        self.attributes = attributes
    }

    /// Creates a date range with an ID and (usually) a start date.
    public init(id: String, startDate: DateTime?, class: String? = nil) {
        var list = AttributeList([Attribute(name: AttributeName.id.rawValue, value: .quoted(id))])
        if let `class` { list.append(.`class`, .quoted(`class`)) }
        if let startDate { list.append(.startDate, .quoted(startDate.iso8601)) }
        self.attributes = list
    }

    /// Parses a tag line or the attribute text after `#EXT-X-DATERANGE:`.
    public init(parsing text: String) throws {
        let body: String
        if text.hasPrefix("#EXT-X-DATERANGE:") {
            body = String(text.dropFirst("#EXT-X-DATERANGE:".count))
        } else {
            body = text
        }
        self.attributes = try AttributeList(parsing: body)
    }

    /// The tag to write into a playlist.
    public var tag: Tag {
        Tag(name: .dateRange, attributes: self.attributes)
    }

    /// `ID`: identifies the range; `""` when absent (an error).
    public var id: String {
        get { self.attributes[.id]?.text ?? "" }
        set { self.attributes[.id] = .quoted(newValue) }
    }

    /// `CLASS`.
    public var `class`: String? {
        get { self.attributes[.`class`]?.text }
        set { self.attributes[.`class`] = newValue.map { .quoted($0) } }
    }

    /// `START-DATE`, or `nil` when absent or not a date.
    public var startDate: DateTime? {
        get { self.attributes[.startDate].flatMap { DateTime(iso8601: $0.text) } }
        set { self.attributes[.startDate] = newValue.map { .quoted($0.iso8601) } }
    }

    /// `END-DATE`.
    public var endDate: DateTime? {
        get { self.attributes[.endDate].flatMap { DateTime(iso8601: $0.text) } }
        set { self.attributes[.endDate] = newValue.map { .quoted($0.iso8601) } }
    }

    /// `DURATION`, in seconds.
    public var duration: MediaTime? {
        get { self.attributes[.duration]?.decimal }
        set { self.attributes[.duration] = newValue.map { .decimal($0) } }
    }

    /// `PLANNED-DURATION`, in seconds.
    public var plannedDuration: MediaTime? {
        get { self.attributes[.plannedDuration]?.decimal }
        set { self.attributes[.plannedDuration] = newValue.map { .decimal($0) } }
    }

    /// `END-ON-NEXT=YES`.
    public var endOnNext: Bool {
        get { self.attributes[.endOnNext]?.rawValue == AttributeName.Value.yes }
        set { self.attributes[.endOnNext] = newValue ? .enumerated(AttributeName.Value.yes) : nil }
    }

    /// The members of `CUE` (`PRE`, `POST`, `ONCE`), or of the legacy `X-CUE` when `CUE` is absent.
    public var cue: [String]? {
        (self.attributes[.cue] ?? self.attributes[.legacyCue])?.stringList
    }

    /// `SCTE35-CMD` as bytes.
    public var scte35Command: [UInt8]? {
        get { self.attributes[.scte35Command]?.hexadecimal }
        set { self.attributes[.scte35Command] = newValue.map { .hexadecimal($0) } }
    }

    /// `SCTE35-OUT` as bytes.
    public var scte35Out: [UInt8]? {
        get { self.attributes[.scte35Out]?.hexadecimal }
        set { self.attributes[.scte35Out] = newValue.map { .hexadecimal($0) } }
    }

    /// `SCTE35-IN` as bytes.
    public var scte35In: [UInt8]? {
        get { self.attributes[.scte35In]?.hexadecimal }
        set { self.attributes[.scte35In] = newValue.map { .hexadecimal($0) } }
    }

    /// The client-defined `X-` attributes, in written order.
    public var clientAttributes: [Attribute] {
        self.attributes.attributes.filter { $0.name.hasPrefix("X-") }
    }

    /// The duration from `DURATION`, or from `END-DATE − START-DATE`; `nil` when unknown.
    public var resolvedDuration: MediaTime? {
        if let duration { return duration }
        if let start = self.startDate, let end = self.endDate { return end - start }
        return nil
    }

    /// Whether `CLASS` is `com.apple.hls.interstitial`.
    public var isInterstitial: Bool {
        self.class == DateRange.interstitialClass
    }

    /// `com.apple.hls.interstitial`.
    public static let interstitialClass = "com.apple.hls.interstitial"
    /// `com.apple.hls.preload` (Appendix F).
    public static let preloadClass = "com.apple.hls.preload"
}

/// A date range with where it stands in a media playlist.
public struct PlacedDateRange: Sendable, Hashable {
    /// The date range.
    public var dateRange: DateRange
    /// The index of the segment whose tags it stands among, or the segment count when it comes
    /// after the last segment.
    public var position: Int
    /// The 0-based line index of the tag in the playlist.
    public var lineIndex: Int

    /// Creates a placed date range.
    public init(dateRange: DateRange, position: Int, lineIndex: Int) {
        self.dateRange = dateRange
        self.position = position
        self.lineIndex = lineIndex
    }
}

/// An `EXT-X-DATERANGE` line rendered and read back once, to insert into many playlists
/// (``MediaPlaylist/insertDateRanges(rendered:)``) without rendering or reading it again.
///
/// A live channel's break is written into every reload of its playlist: rendering it once per
/// change of the break, not once per reload, is most of the cost of decorating a small window.
public struct RenderedDateRange: Sendable, Hashable {
    /// The date range as given.
    public let dateRange: DateRange
    /// The line's bytes, without a terminator.
    let line: [UInt8]
    /// The line as the parser records it.
    let record: LineRecord
    /// What a playlist's index holds for the line: its attributes as read back from it, or `nil`
    /// when they do not parse (then the index leaves it out, as a parse would).
    let indexed: DateRange?

    /// Renders `dateRange` as its tag line.
    public init(_ dateRange: DateRange) {
        self.dateRange = dateRange
        let line = Array(dateRange.tag.rendered.utf8)
        self.line = line
        (self.record, self.indexed) = line.withUnsafeBufferPointer { b in
            let record = LineParser.record(forEdited: b, terminator: .lineFeed)
            guard record.kind == .tag, record.tag == .dateRange else { return (record, nil) }
            return (record, LineStore.attributes(ofLine: b).map(DateRange.init(attributes:)))
        }
    }

    /// The line's text.
    public var text: String { String(decoding: self.line, as: UTF8.self) }
}
