import HLSPlaylist

/// The error ``InterstitialInserter/insert(_:into:file:)`` throws when it refuses an event.
public struct InsertionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is.
    ///
    /// Compare codes, not message text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case duplicateID, invalidEvent, noSegments
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The playlist already has a date range with the event's ID.
        public static let duplicateID = Code(.duplicateID)
        /// The tag the event makes breaks an error rule (see ``InsertionError/diagnostics``).
        public static let invalidEvent = Code(.invalidEvent)
        /// The playlist has no segments and no PROGRAM-DATE-TIME, so the start cannot be placed.
        public static let noSegments = Code(.noSegments)

        /// The code's name.
        public var description: String { self.base.rawValue }
    }

    /// What kind of error.
    public var code: Code
    /// What is wrong and what to change.
    public var message: String
    /// Where: the existing tag for ``Code/duplicateID``, the tag as it would have been inserted for
    /// ``Code/invalidEvent``.
    public var location: SourceLocation
    /// For ``Code/invalidEvent``: the error diagnostics of the tag.
    public var diagnostics: [PlaylistDiagnostic]

    /// Creates an error.
    public init(code: Code, message: String, location: SourceLocation, diagnostics: [PlaylistDiagnostic] = []) {
        self.code = code
        self.message = message
        self.location = location
        self.diagnostics = diagnostics
    }

    /// `location: message`, then one line per diagnostic.
    public var description: String {
        ([("\(self.location): \(self.message)")] + self.diagnostics.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// Adds interstitial `EXT-X-DATERANGE` tags to media playlists, changing nothing else.
///
/// The tag goes among the tags of the segment whose span contains the event's start (after the last
/// segment when it starts later). An event scheduled at a media time gets the `START-DATE` that time
/// maps to through PROGRAM-DATE-TIME. A playlist without any PROGRAM-DATE-TIME first gets one before
/// its first segment (and after each discontinuity), dated from
/// ``Configuration/programDateTimeOrigin``. Every other byte stays as it was.
///
/// The result is validated; an event that would make an invalid tag is refused.
///
/// ```swift
/// var event = InterstitialEvent(identifier: "ad1", time: 10)
/// event.assetURIs = ["https://ads.example.com/ad1/main.m3u8"]
/// event.resumptionOffset = .zero
/// let decorated = try InterstitialInserter().insert(event, into: playlist)
/// ```
public struct InterstitialInserter: Sendable {
    /// How the inserter dates playlists and what it checks.
    public struct Configuration: Sendable, Hashable {
        /// The date given to media time 0 when the playlist has no PROGRAM-DATE-TIME.
        ///
        /// Defaults to
        /// `2000-01-01T00:00:00.000Z`: any fixed date works, because only differences between
        /// dates place the interstitial.
        public var programDateTimeOrigin: DateTime

        /// Creates a configuration.
        public init(programDateTimeOrigin: DateTime = InterstitialInserter.defaultOrigin) {
            self.programDateTimeOrigin = programDateTimeOrigin
        }
    }

    /// `2000-01-01T00:00:00.000Z`.
    public static let defaultOrigin = DateTime(nanosecondsSince1970: 946_684_800_000_000_000)

    /// The configuration.
    public var configuration: Configuration

    /// Creates an inserter.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Returns the playlist with the event's interstitial tag added.
    ///
    /// - Parameters:
    ///   - event: The event. Its start is a date, or a media time mapped through PROGRAM-DATE-TIME.
    ///     It needs one asset URI or an asset-list URI.
    ///   - playlist: The media playlist.
    ///   - file: The playlist's path or URL, for error locations.
    /// - Returns: The playlist with the tag (and PROGRAM-DATE-TIME when it had none).
    /// - Throws: ``InsertionError``.
    ///
    /// ### Errors
    /// ``InsertionError/Code/duplicateID`` when a date range already uses the ID;
    /// ``InsertionError/Code/invalidEvent`` when the tag would break an error rule of
    /// ``InterstitialValidator`` or the parser (for example no asset, a relative `X-ASSET-URI`, two
    /// asset URIs, or a `"` in a value); ``InsertionError/Code/noSegments`` when the start cannot be
    /// placed.
    public func insert(
        _ event: InterstitialEvent,
        into playlist: MediaPlaylist,
        file: String? = nil
    ) throws
        -> MediaPlaylist
    {
        if let existing = playlist.dateRanges.first(where: { $0.dateRange.attributes[.id]?.text == event.identifier }) {
            throw InsertionError(
                code: .duplicateID,
                message: "the playlist already has a date range with ID \"\(event.identifier)\"",
                location: SourceLocation(file: file, line: existing.lineIndex + 1, column: 1)
            )
        }
        if event.assetURIs.count > 1 {
            throw InsertionError(
                code: .invalidEvent,
                message:
                    "an interstitial tag carries one X-ASSET-URI, but the event has \(event.assetURIs.count) asset URIs; serve them in an asset list (X-ASSET-LIST)",
                location: SourceLocation(file: file, line: 1, column: 1)
            )
        }
        var result = playlist
        if !result.hasProgramDateTime {
            guard result.addProgramDateTimeIfMissing(startingAt: self.configuration.programDateTimeOrigin) else {
                throw InsertionError(
                    code: .noSegments,
                    message:
                        "the playlist has no segments and no EXT-X-PROGRAM-DATE-TIME, so the interstitial cannot be placed",
                    location: SourceLocation(file: file, line: 1, column: 1)
                )
            }
        }
        let count = result.timings.count
        let date: DateTime
        let position: Int
        switch event.start {
        case .date(let d):
            date = d
            position = min(result.timeMapping(at: d)?.segment ?? count, count)
        case .time(let t):
            guard let d = result.date(at: t) else {
                throw InsertionError(
                    code: .noSegments,
                    message: "the playlist has no segments, so media time \(t) has no date",
                    location: SourceLocation(file: file, line: 1, column: 1)
                )
            }
            date = d
            position = result.segmentIndex(containing: t) ?? (t < .zero ? 0 : count)
        }
        guard let range = event.dateRange(startDate: date) else {
            preconditionFailure("a start date was given")
        }
        let line = result.insertionLine(forSegment: position)
        result.insertDateRange(range, at: position)
        let diagnostics = InterstitialValidator().validate(playlist: result.serialized(), file: file)
            .filter { $0.severity == .error && $0.location.line == line + 1 }
        let location = SourceLocation(file: file, line: line + 1, column: 1)
        if !diagnostics.isEmpty {
            throw InsertionError(
                code: .invalidEvent,
                message: "the interstitial tag for \"\(event.identifier)\" would be invalid",
                location: location,
                diagnostics: diagnostics
            )
        }
        guard result.dateRanges.contains(where: { $0.lineIndex == line && $0.dateRange.id == event.identifier }) else {
            throw InsertionError(
                code: .invalidEvent,
                message:
                    "the interstitial tag for \"\(event.identifier)\" does not parse; values must not contain '\"', CR or LF",
                location: location
            )
        }
        return result
    }

    /// The media playlists a multivariant playlist references, each to receive the same tag
    /// (§6.2.4 requires the same date ranges in every media playlist).
    ///
    /// - Parameters:
    ///   - multivariant: The multivariant playlist.
    ///   - base: The multivariant playlist's URI; when given, the URIs are resolved against it.
    ///   - includesIFramePlaylists: Whether to list I-frame playlists too (default `true`).
    /// - Returns: Variant, rendition and (optionally) I-frame playlist URIs, each once, in order.
    public static func mediaPlaylistURIs(
        in multivariant: MultivariantPlaylist,
        resolvingAgainst base: String? = nil,
        includesIFramePlaylists: Bool = true
    ) -> [String] {
        var uris = multivariant.variants.map(\.uri) + multivariant.renditions.compactMap(\.uri)
        if includesIFramePlaylists { uris += multivariant.iFrameStreams.map(\.uri) }
        var seen: Set<String> = []
        var result: [String] = []
        for uri in uris {
            let resolved = base.map { URIReference.resolve(uri, against: $0) } ?? uri
            if seen.insert(resolved).inserted { result.append(resolved) }
        }
        return result
    }
}
