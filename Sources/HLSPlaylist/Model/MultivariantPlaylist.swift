/// A multivariant playlist (§4.4.6): variant streams, renditions, session data, stored losslessly.
///
/// ```swift
/// let playlist = try MultivariantPlaylist(parsing: text)
/// for variant in playlist.variants { print(variant.bandwidth, variant.uri) }
/// playlist.renditions.filter { $0.type == "AUDIO" }
/// ```
public struct MultivariantPlaylist: Sendable {
    var store: LineStore

    init(store: LineStore) {
        self.store = store
    }

    /// Parses a multivariant playlist strictly: throws at the first error.
    public init(parsing text: String, file: String? = nil) throws {
        guard case .multivariant(let playlist) = try PlaylistParser.parseStrictly(Array(text.utf8), file: file)
        else {
            throw PlaylistParsingError(
                code: .mixedPlaylist,
                message: "this is a media playlist, not a multivariant playlist",
                location: SourceLocation(file: file, line: 1, column: 1),
                hint: "parse it as a MediaPlaylist"
            )
        }
        self = playlist
    }

    /// Every line of the playlist, in order.
    public var lines: PlaylistLines { PlaylistLines(store: self.store) }

    /// The bytes: the input byte for byte where nothing was edited.
    public func serialized() -> [UInt8] { self.store.serialized() }

    /// The playlist as text.
    public var text: String { String(decoding: self.serialized(), as: UTF8.self) }

    private func lines(of tag: KnownTag) -> [Int] {
        self.store.records.indices.filter { self.store.records[$0].kind == .tag && self.store.records[$0].tag == tag }
    }

    /// `EXT-X-VERSION`.
    public var version: Int? {
        guard let line = self.lines(of: .version).first else { return nil }
        let record = self.store.records[line]
        return record.valid ? Int(record.value) : nil
    }

    /// Whether `EXT-X-INDEPENDENT-SEGMENTS` is present.
    public var hasIndependentSegments: Bool { !self.lines(of: .independentSegments).isEmpty }

    /// `EXT-X-START`'s attributes.
    public var start: AttributeList? { self.lines(of: .start).first.flatMap { self.store.attributes($0) } }

    /// `EXT-X-DEFINE` tags' attributes.
    public var definitions: [AttributeList] { self.lines(of: .define).compactMap { self.store.attributes($0) } }

    /// The variant streams (`EXT-X-STREAM-INF` and the URI after each), in order.
    public var variants: [VariantStream] {
        var result: [VariantStream] = []
        var pending: (line: Int, attributes: AttributeList)?
        for i in self.store.records.indices {
            let record = self.store.records[i]
            if record.kind == .tag, record.tag == .streamInformation {
                pending = self.store.attributes(i).map { (i, $0) }
            } else if record.kind == .uri, let p = pending {
                result.append(
                    VariantStream(attributes: p.attributes, uri: self.store.text(i).trimmingSpaces(), lineIndex: p.line)
                )
                pending = nil
            }
        }
        return result
    }

    /// The renditions (`EXT-X-MEDIA`), in order.
    public var renditions: [Rendition] {
        self.lines(of: .media).compactMap { line in
            self.store.attributes(line).map { Rendition(attributes: $0, lineIndex: line) }
        }
    }

    /// The I-frame streams (`EXT-X-I-FRAME-STREAM-INF`).
    public var iFrameStreams: [IFrameStream] {
        self.lines(of: .iFrameStreamInformation).compactMap { line in
            self.store.attributes(line).map { IFrameStream(attributes: $0, lineIndex: line) }
        }
    }

    /// `EXT-X-SESSION-DATA` tags' attributes.
    public var sessionData: [AttributeList] {
        self.lines(of: .sessionData).compactMap { self.store.attributes($0) }
    }

    /// `EXT-X-SESSION-KEY` tags' attributes.
    public var sessionKeys: [AttributeList] {
        self.lines(of: .sessionKey).compactMap { self.store.attributes($0) }
    }

    /// `EXT-X-CONTENT-STEERING`'s attributes.
    public var contentSteering: AttributeList? {
        self.lines(of: .contentSteering).first.flatMap { self.store.attributes($0) }
    }

    /// Every URI the playlist references: variants, renditions with a URI, I-frame streams.
    public var mediaPlaylistURIs: [String] {
        var uris: [String] = []
        var seen: Set<String> = []
        for uri in self.variants.map(\.uri) + self.renditions.compactMap(\.uri) + self.iFrameStreams.map(\.uri)
        where seen.insert(uri).inserted {
            uris.append(uri)
        }
        return uris
    }

    // MARK: - Editing

    /// Replaces line `index` with new text; only that line is re-rendered.
    public mutating func replaceLine(at index: Int, with text: String) {
        let terminator = self.store.records[index].terminator
        let newRecord = self.store.makeRecord(Array(text.utf8), terminator: terminator)
        self.store.records[index] = newRecord
    }

    /// Inserts lines before line `index`.
    public mutating func insertLines(_ texts: [String], at index: Int) {
        self.store.terminatePrevious(before: index)
        var records: [LineRecord] = []
        for text in texts { records.append(self.store.makeRecord(Array(text.utf8))) }
        self.store.records.insert(contentsOf: records, at: index)
    }

    /// Rewrites every URI (variant URIs and `URI` attributes) with `transform`; unchanged lines stay as written.
    public mutating func rewriteURIs(_ transform: (String) -> String) {
        for i in self.store.records.indices {
            let record = self.store.records[i]
            if record.kind == .uri {
                let old = self.store.text(i)
                let new = transform(old.trimmingSpaces())
                if new != old { self.replaceLine(at: i, with: new) }
            } else if record.kind == .tag, record.tag != .unknown, var list = self.store.attributes(i),
                let uri = list[.uri]?.quotedString
            {
                let new = transform(uri)
                if new != uri {
                    list[.uri] = .quoted(new)
                    self.replaceLine(at: i, with: Tag(name: record.tag.name, attributes: list).rendered)
                }
            }
        }
    }
}

extension MultivariantPlaylist: Equatable, Hashable, CustomStringConvertible {
    /// Equal when they serialize to the same bytes.
    public static func == (lhs: MultivariantPlaylist, rhs: MultivariantPlaylist) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.serialized()) }

    /// The text.
    public var description: String { self.text }
}

/// A variant stream: `EXT-X-STREAM-INF` and its URI (§4.4.6.2).
public struct VariantStream: Sendable, Hashable {
    /// The attributes as written.
    public var attributes: AttributeList
    /// The media playlist URI.
    public var uri: String
    /// The 0-based line of the `EXT-X-STREAM-INF` tag.
    public var lineIndex: Int

    /// Creates a variant.
    public init(attributes: AttributeList, uri: String, lineIndex: Int = -1) {
        self.attributes = attributes
        self.uri = uri
        self.lineIndex = lineIndex
    }

    /// `BANDWIDTH` in bit/s.
    public var bandwidth: Int { self.attributes[.bandwidth]?.integer ?? 0 }
    /// `AVERAGE-BANDWIDTH`.
    public var averageBandwidth: Int? { self.attributes[.averageBandwidth]?.integer }
    /// `CODECS`, split at commas.
    public var codecs: [String] { self.attributes[.codecs]?.stringList ?? [] }
    /// `RESOLUTION`.
    public var resolution: Resolution? { self.attributes[.resolution]?.resolution }
    /// `FRAME-RATE`.
    public var frameRate: Double? { self.attributes[.frameRate]?.double }
    /// `AUDIO` group ID.
    public var audioGroup: String? { self.attributes[.audio]?.quotedString }
    /// `VIDEO` group ID.
    public var videoGroup: String? { self.attributes[.video]?.quotedString }
    /// `SUBTITLES` group ID.
    public var subtitlesGroup: String? { self.attributes[.subtitles]?.quotedString }
    /// `CLOSED-CAPTIONS` group ID (or `NONE`).
    public var closedCaptions: String? { self.attributes[.closedCaptions]?.text }
    /// `PATHWAY-ID`.
    public var pathwayID: String? { self.attributes[.pathwayID]?.quotedString }
    /// `VIDEO-RANGE`.
    public var videoRange: String? { self.attributes[.videoRange]?.enumerated }
    /// `HDCP-LEVEL`.
    public var hdcpLevel: String? { self.attributes[.hdcpLevel]?.enumerated }
    /// `SCORE`.
    public var score: Double? { self.attributes[.score]?.double }
}

/// A rendition: `EXT-X-MEDIA` (§4.4.6.1).
public struct Rendition: Sendable, Hashable {
    /// The attributes as written.
    public var attributes: AttributeList
    /// The 0-based line of the tag.
    public var lineIndex: Int

    /// Creates a rendition.
    public init(attributes: AttributeList, lineIndex: Int = -1) {
        self.attributes = attributes
        self.lineIndex = lineIndex
    }

    /// `TYPE`: `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
    public var type: String { self.attributes[.type]?.text ?? "" }
    /// `GROUP-ID`.
    public var groupID: String { self.attributes[.groupID]?.text ?? "" }
    /// `NAME`.
    public var name: String { self.attributes[.name]?.text ?? "" }
    /// `LANGUAGE` (RFC 5646 tag).
    public var language: String? { self.attributes[.language]?.quotedString }
    /// `ASSOC-LANGUAGE`.
    public var associatedLanguage: String? { self.attributes[.associatedLanguage]?.quotedString }
    /// `URI`, absent for renditions carried in the variant.
    public var uri: String? { self.attributes[.uri]?.quotedString }
    /// `DEFAULT=YES`.
    public var isDefault: Bool { self.attributes[.`default`]?.yesNo ?? false }
    /// `AUTOSELECT=YES`.
    public var isAutoselect: Bool { self.attributes[.autoselect]?.yesNo ?? false }
    /// `FORCED=YES`.
    public var isForced: Bool { self.attributes[.forced]?.yesNo ?? false }
    /// `INSTREAM-ID`.
    public var instreamID: String? { self.attributes[.instreamID]?.quotedString }
    /// `CHARACTERISTICS`, split at commas.
    public var characteristics: [String] { self.attributes[.characteristics]?.stringList ?? [] }
    /// `CHANNELS`.
    public var channels: String? { self.attributes[.channels]?.quotedString }
}

/// An I-frame stream: `EXT-X-I-FRAME-STREAM-INF` (§4.4.6.3).
public struct IFrameStream: Sendable, Hashable {
    /// The attributes as written.
    public var attributes: AttributeList
    /// The 0-based line of the tag.
    public var lineIndex: Int

    /// Creates an I-frame stream.
    public init(attributes: AttributeList, lineIndex: Int = -1) {
        self.attributes = attributes
        self.lineIndex = lineIndex
    }

    /// `URI` of the I-frame playlist.
    public var uri: String { self.attributes[.uri]?.text ?? "" }
    /// `BANDWIDTH`.
    public var bandwidth: Int { self.attributes[.bandwidth]?.integer ?? 0 }
    /// `RESOLUTION`.
    public var resolution: Resolution? { self.attributes[.resolution]?.resolution }
}
