/// An HLS playlist: either a media playlist or a multivariant playlist (§4).
public enum Playlist: Sendable, Hashable {
    /// A media playlist: segments.
    case media(MediaPlaylist)
    /// A multivariant playlist: variant streams and renditions.
    case multivariant(MultivariantPlaylist)

    /// Parses strictly: throws at the first error.
    ///
    /// - Throws: ``PlaylistParsingError``.
    public init(parsing text: String, file: String? = nil) throws {
        try self.init(bytes: Array(text.utf8), file: file)
    }

    /// Parses bytes strictly: throws at the first error.
    ///
    /// - Throws: ``PlaylistParsingError``.
    public init(bytes: [UInt8], file: String? = nil) throws {
        self = try PlaylistParser.parseStrictly(bytes, file: file)
    }

    /// The playlist's bytes: the input byte for byte where nothing was edited.
    public func serialized() -> [UInt8] {
        switch self {
        case .media(let p): p.serialized()
        case .multivariant(let p): p.serialized()
        }
    }

    /// Every line.
    public var lines: PlaylistLines {
        switch self {
        case .media(let p): p.lines
        case .multivariant(let p): p.lines
        }
    }

    /// The media playlist, if it is one.
    public var media: MediaPlaylist? {
        if case .media(let p) = self { return p }
        return nil
    }

    /// The multivariant playlist, if it is one.
    public var multivariant: MultivariantPlaylist? {
        if case .multivariant(let p) = self { return p }
        return nil
    }
}

/// The result of a lenient parse: the model and everything found wrong with it.
public struct ParsedPlaylist: Sendable {
    /// The playlist, as complete as the input allows.
    public var playlist: Playlist
    /// Errors, warnings and notes, in line order.
    public var diagnostics: [PlaylistDiagnostic]

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { self.diagnostics.contains { $0.severity == .error } }
}

/// Parses playlists.
///
/// Parsing never crashes and takes time linear in the input.
///
/// ```swift
/// let result = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: "main.m3u8"))
/// for d in result.diagnostics { print(d) }   // main.m3u8:7:1: error[HLS-SEGMENT-NO-EXTINF]: …
/// ```
///
/// ## Numbers
///
/// Every number is read with checked arithmetic into a documented range: decimal-integers
/// (`EXT-X-TARGETDURATION`, `EXT-X-MEDIA-SEQUENCE`, `EXT-X-BYTERANGE`, `BANDWIDTH`, …) in
/// `0...`\ ``maximumInteger``, times (`EXTINF`, `DURATION`, `TIME-OFFSET`, …) in
/// ``MediaTime/validRange``, dates in ``DateTime/validRange``, `RESOLUTION` sides in
/// `0...`\ ``maximumInteger``. A value that is well formed but out of range gets an error with
/// rule `HLS-NUMBER-RANGE` at its line and column: a lenient parse keeps the line (it round-trips)
/// but does not use the value, a strict parse throws ``PlaylistParsingError/Code/numberOutOfRange``.
public enum PlaylistParser {
    /// The largest decimal-integer the parser accepts: 999,999,999,999,999,999 (18 digits), so that
    /// sums such as a media sequence number plus a segment count never overflow `Int64`.
    public static let maximumInteger: Int64 = 999_999_999_999_999_999

    /// Parsing options.
    public struct Options: Sendable, Hashable {
        /// Lenient or strict.
        public struct Mode: Sendable, Hashable {
            let strict: Bool
            /// Keep going and return the model with every diagnostic.
            public static let lenient = Mode(strict: false)
            /// Stop at the first error (the diagnostics end with it).
            public static let strict = Mode(strict: true)
        }

        /// Lenient (default) or strict.
        public var mode: Mode
        /// The file or URL, for diagnostic locations.
        public var file: String?

        /// Creates options.
        public init(mode: Mode = .lenient, file: String? = nil) {
            self.mode = mode
            self.file = file
        }
    }

    /// Parses bytes into a media or multivariant playlist with diagnostics.
    public static func parse(_ bytes: [UInt8], options: Options = Options()) -> ParsedPlaylist {
        var sink = DiagnosticSink(file: options.file)
        let store = LineParser.parse(bytes, sink: &sink)
        let playlist = classify(store, sink: &sink)
        if store.mayReferenceVariables {
            VariableSubstitution.checkReferences(store, sink: &sink)
        }
        var diagnostics = sink.items
        // Line order (stable for equal lines), whichever pass found them.
        if diagnostics.count > 1 {
            diagnostics = diagnostics.enumerated().sorted { a, b in
                (a.element.location.line, a.element.location.column, a.offset)
                    < (b.element.location.line, b.element.location.column, b.offset)
            }.map(\.element)
        }
        if options.mode.strict, let first = diagnostics.firstIndex(where: { $0.severity == .error }) {
            diagnostics = Array(diagnostics[...first])
        }
        return ParsedPlaylist(playlist: playlist, diagnostics: diagnostics)
    }

    /// Parses text.
    public static func parse(_ text: String, options: Options = Options()) -> ParsedPlaylist {
        parse(Array(text.utf8), options: options)
    }

    /// Parses bytes strictly: the playlist, or its first error thrown.
    ///
    /// - Throws: ``PlaylistParsingError``.
    static func parseStrictly(_ bytes: [UInt8], file: String?) throws -> Playlist {
        let result = parse(bytes, options: Options(mode: .strict, file: file))
        if let error = result.diagnostics.first(where: { $0.severity == .error }) {
            throw PlaylistParsingError(error)
        }
        return result.playlist
    }

    static func classify(_ store: LineStore, sink: inout DiagnosticSink) -> Playlist {
        var mediaTags = 0
        var multivariantTags = 0
        for record in store.records where record.kind == .tag {
            if record.tag.isMultivariantPlaylistTag { multivariantTags += 1 }
            if record.tag.isMediaPlaylistTag { mediaTags += 1 }
        }
        if multivariantTags > 0 && multivariantTags >= mediaTags || (mediaTags == 0 && multivariantTags > 0) {
            checkMultivariant(store, sink: &sink)
            return .multivariant(MultivariantPlaylist(store: store))
        }
        let index = MediaIndex.build(store, sink: &sink)
        return .media(MediaPlaylist(store: store, index: index))
    }

    static func checkMultivariant(_ store: LineStore, sink: inout DiagnosticSink) {
        let records = store.records
        if records.isEmpty || records[0].kind != .tag || records[0].tag != .m3u {
            sink.reportMissingHeader()
        }
        var seen = Set<KnownTag>()
        var pendingVariant = -1
        for (i, record) in records.enumerated() {
            switch record.kind {
            case .tag:
                let tag = record.tag
                if tag == .unknown { continue }
                if tag.isUnique, !seen.insert(tag).inserted {
                    sink.reportDuplicateTag(tag, line: i)
                }
                if tag.isMediaPlaylistTag {
                    sink.report(
                        .error,
                        .mixedPlaylist,
                        line: i,
                        column: 0,
                        "#\(tag.name.rawValue) belongs in a media playlist, not a multivariant playlist",
                        hint: "move the tag to the media playlists or remove it"
                    )
                }
                if tag == .streamInformation {
                    if pendingVariant >= 0 {
                        sink.reportVariantWithoutURI(line: pendingVariant)
                    }
                    pendingVariant = i
                }
            case .uri:
                if pendingVariant < 0 {
                    sink.report(
                        .error,
                        .variantWithoutURI,
                        line: i,
                        column: 0,
                        "a URI without #EXT-X-STREAM-INF before it",
                        hint: "add #EXT-X-STREAM-INF:BANDWIDTH=… on the line before the URI"
                    )
                }
                pendingVariant = -1
            default:
                break
            }
        }
        if pendingVariant >= 0 {
            sink.reportVariantWithoutURI(line: pendingVariant)
        }
    }
}
