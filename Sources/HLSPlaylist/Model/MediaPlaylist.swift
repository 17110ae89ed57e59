/// The type of a media playlist, `EXT-X-PLAYLIST-TYPE` (§4.4.3.5).
public struct PlaylistType: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `EVENT` or `VOD`.
    public let rawValue: String

    /// Creates a playlist type from its spelling.
    public init?(rawValue: String) {
        guard rawValue == "EVENT" || rawValue == "VOD" else { return nil }
        self.rawValue = rawValue
    }

    /// `EVENT`: segments are only added at the end.
    public static let event = PlaylistType(rawValue: "EVENT")!
    /// `VOD`: the playlist never changes.
    public static let vod = PlaylistType(rawValue: "VOD")!

    /// The spelling.
    public var description: String { self.rawValue }
}

/// A media playlist (§4.4.3–4.4.5): its segments, date ranges and header, stored losslessly.
///
/// Parsing keeps every byte: ``serialized()`` returns the input unchanged until you edit, and an
/// edit re-renders only the lines it touches. Segment timing (durations, start times, dates
/// through `EXT-X-PROGRAM-DATE-TIME`) is read once at parse time and kept exact.
///
/// ```swift
/// var playlist = try MediaPlaylist(parsing: text)
/// playlist.segments.count
/// playlist.segments[0].duration          // MediaTime
/// playlist.time(at: someDate)            // where a date falls on the media timeline
/// playlist.insertDateRange(range, at: 3) // re-renders nothing else
/// String(decoding: playlist.serialized(), as: UTF8.self)
/// ```
public struct MediaPlaylist: Sendable {
    var store: LineStore
    var index: MediaIndex

    init(store: LineStore, index: MediaIndex) {
        self.store = store
        self.index = index
    }

    /// Parses a media playlist strictly: throws at the first error.
    ///
    /// - Throws: ``PlaylistParsingError``; also when the text is a multivariant playlist.
    public init(parsing text: String, file: String? = nil) throws {
        try self.init(bytes: Array(text.utf8), file: file)
    }

    /// Parses a media playlist from bytes strictly: throws at the first error.
    public init(bytes: [UInt8], file: String? = nil) throws {
        guard case .media(let playlist) = try PlaylistParser.parseStrictly(bytes, file: file) else {
            throw PlaylistParsingError(
                code: .mixedPlaylist,
                message: "this is a multivariant playlist, not a media playlist",
                location: SourceLocation(file: file, line: 1, column: 1),
                hint: "open one of the media playlists it references"
            )
        }
        self = playlist
    }

    /// A new, empty media playlist: `#EXTM3U`, a version and a target duration.
    public init(targetDuration: Int, version: Int? = nil) {
        var text = "#EXTM3U\n"
        if let version { text += "#EXT-X-VERSION:\(version)\n" }
        text += "#EXT-X-TARGETDURATION:\(targetDuration)\n"
        var sink = DiagnosticSink(file: nil)
        let store = LineParser.parse(Array(text.utf8), sink: &sink)
        self.init(store: store, index: MediaIndex.build(store, sink: &sink))
    }

    // MARK: - Header

    /// `EXT-X-VERSION`, or `nil` when absent (version 1).
    public var version: Int? {
        get { self.integer(at: self.index.versionLine) }
        set { self.setHeader(.version, line: self.index.versionLine, value: newValue.map(String.init)) }
    }

    /// `EXT-X-TARGETDURATION` in seconds.
    public var targetDuration: Int? {
        get { self.integer(at: self.index.targetDurationLine) }
        set { self.setHeader(.targetDuration, line: self.index.targetDurationLine, value: newValue.map(String.init)) }
    }

    /// `EXT-X-MEDIA-SEQUENCE` (0 when absent): the sequence number of the first segment.
    public var mediaSequence: Int {
        get { Int(self.index.mediaSequence) }
        set { self.setHeader(.mediaSequence, line: self.index.mediaSequenceLine, value: String(newValue)) }
    }

    /// `EXT-X-DISCONTINUITY-SEQUENCE` (0 when absent).
    public var discontinuitySequence: Int {
        get { Int(self.index.discontinuitySequence) }
        set {
            self.setHeader(.discontinuitySequence, line: self.index.discontinuitySequenceLine, value: String(newValue))
        }
    }

    /// `EXT-X-PLAYLIST-TYPE`.
    public var playlistType: PlaylistType? {
        get {
            let line = self.index.playlistTypeLine
            guard line >= 0 else { return nil }
            return self.store.tagValue(line).flatMap { PlaylistType(rawValue: $0) }
        }
        set { self.setHeader(.playlistType, line: self.index.playlistTypeLine, value: newValue?.rawValue) }
    }

    /// Whether `EXT-X-ENDLIST` is present: no more segments will be added.
    public var hasEndList: Bool {
        get { self.index.endListLine >= 0 }
        set {
            guard newValue != self.hasEndList else { return }
            if newValue {
                self.appendLine(Tag(name: .endList).rendered)
            } else {
                self.removeLines(at: [self.index.endListLine])
            }
        }
    }

    /// Whether `EXT-X-I-FRAMES-ONLY` is present.
    public var isIFramesOnly: Bool { self.index.iFramesOnlyLine >= 0 }

    /// Whether `EXT-X-INDEPENDENT-SEGMENTS` is present.
    public var hasIndependentSegments: Bool { self.index.independentSegmentsLine >= 0 }

    /// Whether the playlist is live: no `EXT-X-ENDLIST` and not of type VOD.
    public var isLive: Bool { !self.hasEndList && self.playlistType != .vod }

    /// `EXT-X-START`'s attributes.
    public var start: AttributeList? { self.attributes(at: self.index.startLine) }

    /// `EXT-X-PART-INF`'s attributes.
    public var partInformation: AttributeList? { self.attributes(at: self.index.partInformationLine) }

    /// `PART-TARGET` of `EXT-X-PART-INF`.
    public var partTarget: MediaTime? { self.partInformation?[.partTarget]?.decimal }

    /// `EXT-X-SERVER-CONTROL`'s attributes.
    public var serverControl: ServerControl? {
        self.attributes(at: self.index.serverControlLine).map(ServerControl.init(attributes:))
    }

    /// `EXT-X-SKIP`'s attributes, in a delta update.
    public var skip: AttributeList? { self.attributes(at: self.index.skipLine) }

    /// The number of segments an `EXT-X-SKIP` tag says were left out (0 without one).
    public var skippedSegmentCount: Int { Int(self.index.skippedSegments) }

    /// The IDs an `EXT-X-SKIP` tag lists in `RECENTLY-REMOVED-DATERANGES` (tab-separated).
    public var recentlyRemovedDateRangeIDs: [String] {
        guard let text = self.skip?[.recentlyRemovedDateRanges]?.quotedString, !text.isEmpty else { return [] }
        return text.split(separator: "\t").map(String.init)
    }

    /// `EXT-X-DEFINE` tags' attributes, in order.
    public var definitions: [AttributeList] { self.index.defineLines.compactMap { self.attributes(at: $0) } }

    /// `EXT-X-PRELOAD-HINT` tags' attributes.
    public var preloadHints: [AttributeList] { self.index.preloadHintLines.compactMap { self.attributes(at: $0) } }

    /// `EXT-X-RENDITION-REPORT` tags' attributes.
    public var renditionReports: [AttributeList] {
        self.index.renditionReportLines.compactMap { self.attributes(at: $0) }
    }

    /// The parts (`EXT-X-PART`) after the last segment: the segment still being produced.
    public var trailingParts: [PartialSegment] {
        self.index.trailingPartLines.compactMap { self.attributes(at: $0).map(PartialSegment.init(attributes:)) }
    }

    /// Whether the playlist has at least one `EXT-X-PROGRAM-DATE-TIME`.
    public var hasProgramDateTime: Bool { self.index.hasProgramDateTime }

    // MARK: - Segments

    /// The media segments, in order.
    public var segments: MediaSegments {
        MediaSegments(playlist: self)
    }

    /// The total duration of the segments.
    public var duration: MediaTime {
        guard let last = self.index.segments.last else { return .zero }
        return MediaTime(nanoseconds: last.start.saturatingPlus(last.duration))
    }

    /// Plain timing of every segment (start, duration, date, discontinuity), for fast scheduling.
    public var timings: SegmentTimings {
        SegmentTimings(records: self.index.segments, hasDates: self.index.hasProgramDateTime)
    }

    // MARK: - Date ranges

    /// Every `EXT-X-DATERANGE` tag with its position among the segments, in playlist order.
    public var dateRanges: [PlacedDateRange] { self.index.dateRanges }

    // MARK: - Lines

    /// Every line of the playlist, in order.
    public var lines: PlaylistLines { PlaylistLines(store: self.store) }

    /// The playlist's bytes: the input byte for byte where nothing was edited.
    public func serialized() -> [UInt8] {
        self.store.serialized()
    }

    /// The playlist as text.
    public var text: String {
        String(decoding: self.serialized(), as: UTF8.self)
    }

    // MARK: - Helpers

    func integer(at line: Int) -> Int? {
        guard line >= 0 else { return nil }
        let record = self.store.records[line]
        return record.valid ? Int(record.value) : nil
    }

    func attributes(at line: Int) -> AttributeList? {
        guard line >= 0 else { return nil }
        return self.store.attributes(line)
    }

    mutating func reindex() {
        var sink = DiagnosticSink(file: nil)
        self.index = MediaIndex.build(self.store, sink: &sink)
    }

    /// The diagnostics of the playlist as it is now (after edits too).
    public func diagnose(file: String? = nil) -> [PlaylistDiagnostic] {
        var sink = DiagnosticSink(file: file)
        let bytes = self.serialized()
        let store = LineParser.parse(bytes, sink: &sink)
        _ = MediaIndex.build(store, sink: &sink)
        return sink.items
    }
}

extension MediaPlaylist: Equatable, Hashable {
    /// Playlists are equal when they serialize to the same bytes.
    public static func == (lhs: MediaPlaylist, rhs: MediaPlaylist) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.serialized())
    }
}

extension MediaPlaylist: CustomStringConvertible {
    /// The playlist text.
    public var description: String { self.text }
}

/// `EXT-X-SERVER-CONTROL` (§4.4.3.8): what the server supports for live delivery.
public struct ServerControl: Sendable, Hashable {
    /// The attributes as written.
    public var attributes: AttributeList

    /// Creates the value from the tag's attributes.
    public init(attributes: AttributeList) {
        self.attributes = attributes
    }

    /// `CAN-SKIP-UNTIL`: delta updates may skip segments older than this.
    public var canSkipUntil: MediaTime? { self.attributes[.canSkipUntil]?.decimal }
    /// `CAN-SKIP-DATERANGES=YES`.
    public var canSkipDateRanges: Bool { self.attributes[.canSkipDateRanges]?.yesNo ?? false }
    /// `HOLD-BACK`.
    public var holdBack: MediaTime? { self.attributes[.holdBack]?.decimal }
    /// `PART-HOLD-BACK`.
    public var partHoldBack: MediaTime? { self.attributes[.partHoldBack]?.decimal }
    /// `CAN-BLOCK-RELOAD=YES`.
    public var canBlockReload: Bool { self.attributes[.canBlockReload]?.yesNo ?? false }
}

/// An `EXT-X-PART` (§4.4.4.9): a partial segment of a low-latency playlist.
public struct PartialSegment: Sendable, Hashable {
    /// The attributes as written.
    public var attributes: AttributeList

    /// Creates the value from the tag's attributes.
    public init(attributes: AttributeList) {
        self.attributes = attributes
    }

    /// `URI`.
    public var uri: String { self.attributes[.uri]?.text ?? "" }
    /// `DURATION`.
    public var duration: MediaTime { self.attributes[.duration]?.decimal ?? .zero }
    /// `INDEPENDENT=YES`.
    public var isIndependent: Bool { self.attributes[.independent]?.yesNo ?? false }
    /// `GAP=YES`.
    public var isGap: Bool { self.attributes[.gap]?.yesNo ?? false }
    /// `BYTERANGE`.
    public var byteRange: ByteRange? { self.attributes[.byteRange].flatMap { ByteRange($0.text) } }
}
