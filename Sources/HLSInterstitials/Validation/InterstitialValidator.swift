import HLSPlaylist

/// Checks playlists against the interstitial rules of draft-pantos-hls-rfc8216bis (§4.4.5.1,
/// Appendix D and F) and reports each problem as a `PlaylistDiagnostic`.
///
/// Every diagnostic names an ``InterstitialRule`` (identifiers `INT-…`), has that rule's severity,
/// points at the tag's line and, where one attribute is at fault, at that attribute's column, and
/// says what to change. Same-ID tags are merged first, so rules about a whole range (both
/// `X-ASSET-URI` and `X-ASSET-LIST`, `END-DATE` against `START-DATE` + `DURATION`, …) see every
/// attribute its tags give.
///
/// ```swift
/// let validator = InterstitialValidator()
/// for diagnostic in validator.validate(playlist: bytes, file: "main.m3u8") {
///     print(diagnostic)   // main.m3u8:7:88: error[INT-ASSET-URI-RELATIVE]: X-ASSET-URI "ad.m3u8" is relative …
/// }
/// ```
public struct InterstitialValidator: Sendable {
    /// What the validator reports.
    public struct Configuration: Sendable, Hashable {
        /// Whether to report notes (``InterstitialRule/durationUnknown``,
        /// ``InterstitialRule/resumeOffsetDefault``).
        ///
        /// On by default.
        public var includesNotes: Bool

        /// Creates a configuration.
        public init(includesNotes: Bool = true) {
            self.includesNotes = includesNotes
        }
    }

    /// The configuration.
    public var configuration: Configuration

    /// Creates a validator.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: - Entry points

    /// Parses a playlist leniently and returns the parser's diagnostics together with the
    /// interstitial diagnostics, sorted by location.
    ///
    /// - Parameters:
    ///   - bytes: The playlist file.
    ///   - file: Its path or URL, for locations.
    /// - Returns: Every diagnostic, in line and column order (parser diagnostics first on ties).
    public func validate(playlist bytes: [UInt8], file: String? = nil) -> [PlaylistDiagnostic] {
        let parsed = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: file))
        var diagnostics = parsed.diagnostics
        if case .media(let playlist) = parsed.playlist {
            diagnostics += self.validate(playlist, file: file)
        }
        return Self.sorted(diagnostics)
    }

    /// Parses playlist text leniently and validates it (see ``validate(playlist:file:)-([UInt8],_)``).
    public func validate(playlist text: String, file: String? = nil) -> [PlaylistDiagnostic] {
        self.validate(playlist: Array(text.utf8), file: file)
    }

    /// The interstitial diagnostics of a parsed media playlist (not the parser's), in line order.
    ///
    /// - Parameters:
    ///   - playlist: The media playlist.
    ///   - file: Its path or URL, for locations.
    public func validate(_ playlist: MediaPlaylist, file: String? = nil) -> [PlaylistDiagnostic] {
        var run = PlaylistRun(playlist: playlist, file: file, includesNotes: self.configuration.includesNotes)
        run.check()
        return Self.sorted(run.diagnostics + DateRangeSchedule.tagDiagnostics(in: playlist, file: file))
    }

    /// Checks the media playlists of one presentation against each other (§6.2.4): every playlist
    /// that has date ranges carries the same ones (same IDs, attributes and values), and a relative
    /// `X-ASSET-LIST` resolves to the same URL from every playlist's URI.
    ///
    /// Each playlist on its own is not checked here; call ``validate(_:file:)`` for that.
    ///
    /// - Parameter presentation: The media playlists with their URIs (absolute URLs, or paths
    ///   relative to one directory). Diagnostics use the URIs as file names.
    public func validate(presentation: [(uri: String, playlist: MediaPlaylist)]) -> [PlaylistDiagnostic] {
        var check = PresentationCheck(presentation: presentation)
        return check.run()
    }

    /// Checks a whole presentation: the media playlists against each other
    /// (``validate(presentation:)``), and that every playable rendition combination of the
    /// multivariant playlist includes a media playlist with the date ranges (§6.2.4).
    ///
    /// - Parameters:
    ///   - multivariant: The multivariant playlist.
    ///   - file: Its path or URL, for locations.
    ///   - mediaPlaylists: The media playlists it references, keyed by the URI as written in it.
    ///     Missing entries are not checked.
    public func validate(
        multivariant: MultivariantPlaylist,
        file: String? = nil,
        mediaPlaylists: [String: MediaPlaylist]
    ) -> [PlaylistDiagnostic] {
        var presentation: [(uri: String, playlist: MediaPlaylist)] = []
        var seen: Set<String> = []
        for uri in InterstitialInserter.mediaPlaylistURIs(in: multivariant, includesIFramePlaylists: false)
        where seen.insert(uri).inserted {
            if let playlist = mediaPlaylists[uri] { presentation.append((uri, playlist)) }
        }
        var diagnostics = self.validate(presentation: presentation)
        let hasRanges: (String) -> Bool? = { uri in
            mediaPlaylists[uri].map { !$0.dateRanges.isEmpty }
        }
        guard presentation.contains(where: { !$0.playlist.dateRanges.isEmpty }) else { return diagnostics }
        let renditions = multivariant.renditions
        for variant in multivariant.variants {
            if hasRanges(variant.uri) != false { continue }
            // Covered when every choice of some group has a playlist with the ranges.
            var covered = false
            for (type, group) in [
                ("AUDIO", variant.audioGroup), ("VIDEO", variant.videoGroup), ("SUBTITLES", variant.subtitlesGroup),
            ] {
                guard let group else { continue }
                let members = renditions.filter { $0.type == type && $0.groupID == group }
                guard !members.isEmpty, members.allSatisfy({ $0.uri != nil }) else { continue }
                if members.allSatisfy({ hasRanges($0.uri!) != false }) {
                    covered = true
                    break
                }
            }
            if !covered {
                diagnostics.append(
                    InterstitialRule.presentationCoverage.diagnostic(
                        "the variant \(variant.uri) and its renditions carry no date ranges, but other media playlists do",
                        hint:
                            "add the same EXT-X-DATERANGE tags to \(variant.uri) (or to every rendition of one of its groups)",
                        at: SourceLocation(file: file, line: variant.lineIndex + 1, column: 1)
                    )
                )
            }
        }
        return Self.sorted(diagnostics)
    }

    /// Checks the media playlist of an interstitial asset: it must be VOD, and interstitials it
    /// schedules itself are ignored by clients.
    ///
    /// - Parameters:
    ///   - playlist: One media playlist of the asset (check each one of a multivariant asset).
    ///   - file: Its path or URL, for locations.
    public func validate(interstitialAsset playlist: MediaPlaylist, file: String? = nil) -> [PlaylistDiagnostic] {
        var diagnostics: [PlaylistDiagnostic] = []
        if playlist.isLive {
            let type = playlist.playlistType.map { "EXT-X-PLAYLIST-TYPE:\($0.rawValue) without EXT-X-ENDLIST" }
            diagnostics.append(
                InterstitialRule.assetNotVOD.diagnostic(
                    "the interstitial asset is not VOD (\(type ?? "no EXT-X-ENDLIST and no EXT-X-PLAYLIST-TYPE:VOD"))",
                    hint:
                        "interstitial assets must be VOD: add #EXT-X-ENDLIST at the end (or #EXT-X-PLAYLIST-TYPE:VOD)",
                    at: SourceLocation(file: file, line: 1, column: 1)
                )
            )
        }
        if let placed = playlist.dateRanges.first(where: { $0.dateRange.isInterstitial }) {
            diagnostics.append(
                InterstitialRule.assetNested.diagnostic(
                    "the interstitial asset schedules an interstitial (\"\(placed.dateRange.id)\"); players ignore interstitials inside interstitials",
                    hint: "schedule every interstitial in the primary playlist and remove this tag",
                    at: playlist.location(of: placed, file: file)
                )
            )
        }
        return diagnostics
    }

    static func sorted(_ diagnostics: [PlaylistDiagnostic]) -> [PlaylistDiagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let (x, y) = (a.element.location, b.element.location)
            if x.line != y.line { return x.line < y.line }
            if x.column != y.column { return x.column < y.column }
            return a.offset < b.offset
        }.map(\.element)
    }
}
