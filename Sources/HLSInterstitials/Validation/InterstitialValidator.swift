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
        return Self.sorted(run.diagnostics)
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
            for (type, group) in [("AUDIO", variant.audioGroup), ("VIDEO", variant.videoGroup), ("SUBTITLES", variant.subtitlesGroup)] {
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
                        hint: "add the same EXT-X-DATERANGE tags to \(variant.uri) (or to every rendition of one of its groups)",
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
                    hint: "interstitial assets must be VOD: add #EXT-X-ENDLIST at the end (or #EXT-X-PLAYLIST-TYPE:VOD)",
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

// MARK: - One playlist

/// A date range merged from its same-ID tags, with where each attribute came from.
struct MergedDateRange {
    var id: String
    var attributes: AttributeList
    /// Index into the playlist's date ranges of the first tag.
    var first: Int
    /// For each attribute name, the index of the tag that gave it.
    var source: [String: Int]

    var `class`: String? { self.attributes["CLASS"]?.quotedString }
    var startDate: DateTime? { self.attributes["START-DATE"]?.quotedString.flatMap { DateTime(iso8601: $0) } }
    var endDate: DateTime? { self.attributes["END-DATE"]?.quotedString.flatMap { DateTime(iso8601: $0) } }
    var duration: MediaTime? { self.attributes["DURATION"].flatMap { Syntax.decimal($0.rawValue, signed: false) } }
    var endOnNext: Bool { self.attributes["END-ON-NEXT"] != nil }

    /// The end, when START-DATE and DURATION or END-DATE give one.
    var end: DateTime? {
        if let endDate { return endDate }
        if let start = self.startDate, let duration { return start + duration }
        return nil
    }
}

/// The checks of one media playlist.
struct PlaylistRun {
    let playlist: MediaPlaylist
    let placed: [PlacedDateRange]
    let file: String?
    let includesNotes: Bool
    var diagnostics: [PlaylistDiagnostic] = []
    var merged: [MergedDateRange] = []
    /// For each tag, the index of its merged range.
    var owner: [Int] = []

    /// Attribute values that reference a variable the playlist does not define by value (`IMPORT`,
    /// `QUERYPARAM` or undefined), keyed by tag index and name: they cannot be checked.
    var unresolved: Set<String> = []

    init(playlist: MediaPlaylist, file: String?, includesNotes: Bool) {
        self.playlist = playlist
        self.file = file
        self.includesNotes = includesNotes
        var placed = playlist.dateRanges
        // Variable substitution (§4.4.2.3) before checking values.
        var variables: [String: String] = [:]
        for definition in playlist.definitions {
            if let name = definition["NAME"]?.quotedString, let value = definition["VALUE"]?.quotedString {
                variables[name] = value
            }
        }
        for k in placed.indices {
            for a in placed[k].dateRange.attributes.indices where placed[k].dateRange.attributes[a].value.rawValue.contains("{$") {
                let attribute = placed[k].dateRange.attributes[a]
                let result = VariableContext.substitute(in: attribute.value.rawValue, values: variables)
                placed[k].dateRange.attributes[a].value = AttributeValue(rawValue: result.text)
                if !result.unresolved.isEmpty { self.unresolved.insert("\(k)\u{0}\(attribute.name)") }
            }
        }
        self.placed = placed
    }

    func isUnresolved(tag k: Int, _ name: String) -> Bool {
        !self.unresolved.isEmpty && self.unresolved.contains("\(k)\u{0}\(name)")
    }

    mutating func report(_ rule: InterstitialRule, tag k: Int, attribute: String? = nil, _ message: String, hint: String) {
        if rule.severity == .note && !self.includesNotes { return }
        self.diagnostics.append(
            rule.diagnostic(message, hint: hint, at: self.playlist.location(of: self.placed[k], attribute: attribute, file: self.file))
        )
    }

    /// Reports at the tag that gave `attribute` to merged range `m`.
    mutating func report(_ rule: InterstitialRule, range m: Int, attribute: String? = nil, _ message: String, hint: String) {
        let range = self.merged[m]
        let tag = attribute.flatMap { range.source[$0] } ?? range.first
        self.report(rule, tag: tag, attribute: attribute.flatMap { range.source[$0] != nil ? $0 : nil }, message, hint: hint)
    }

    mutating func check() {
        self.merge()
        for k in self.placed.indices {
            self.checkAttributes(ofTag: k)
        }
        for m in self.merged.indices {
            self.checkRange(m)
        }
        self.checkEndOnNextOverlaps()
    }

    // MARK: Merging

    mutating func merge() {
        var byID: [String: Int] = [:]
        for (k, placed) in self.placed.enumerated() {
            let attributes = placed.dateRange.attributes
            let id = attributes["ID"]?.text
            if let id, !id.isEmpty, let m = byID[id] {
                self.owner.append(m)
                let (added, conflicts) = DateRangeMerge.merge(attributes, into: &self.merged[m].attributes)
                for name in added { self.merged[m].source[name] = k }
                for conflict in conflicts {
                    self.diagnostics.append(
                        DateRangeMerge.diagnostic(
                            conflict,
                            id: id,
                            location: self.playlist.location(of: placed, attribute: conflict.name, file: self.file)
                        )
                    )
                }
                continue
            }
            var source: [String: Int] = [:]
            var unique = AttributeList()
            for attribute in attributes.attributes where source[attribute.name] == nil {
                source[attribute.name] = k
                unique.append(attribute)
            }
            if let id, !id.isEmpty { byID[id] = self.merged.count }
            self.owner.append(self.merged.count)
            self.merged.append(MergedDateRange(id: id ?? "", attributes: unique, first: k, source: source))
        }
    }

    // MARK: Attribute values (per tag)

    mutating func checkAttributes(ofTag k: Int) {
        let range = self.merged[self.owner[k]]
        let isInterstitial = range.class == DateRange.interstitialClass
        let isPreload = range.class == DateRange.preloadClass
        let id = range.id
        var seen: Set<String> = []
        for attribute in self.placed[k].dateRange.attributes.attributes where seen.insert(attribute.name).inserted {
            if self.isUnresolved(tag: k, attribute.name) { continue }
            let name = attribute.name
            let value = attribute.value
            let raw = value.rawValue
            switch name {
            case "ID":
                if value.quotedString == nil {
                    self.report(.attributeType, tag: k, attribute: name, "ID=\(raw) is not a quoted-string", hint: "write ID=\"\(raw)\"")
                } else if value.quotedString == "" {
                    self.report(.idEmpty, tag: k, attribute: name, "the date range has an empty ID", hint: "give the range a unique, non-empty ID")
                }
            case "CLASS":
                if value.quotedString == nil {
                    self.report(.attributeType, tag: k, attribute: name, "CLASS=\(raw) is not a quoted-string", hint: "write CLASS=\"\(raw)\"")
                }
            case "START-DATE", "END-DATE":
                if value.quotedString.flatMap({ DateTime(iso8601: $0) }) == nil {
                    self.report(
                        .dateValue, tag: k, attribute: name,
                        "\(name)=\(raw) of date range \"\(id)\" is not a quoted ISO-8601 date",
                        hint: "write a date with time zone and milliseconds, e.g. \(name)=\"2024-01-01T00:00:00.000Z\"")
                }
            case "DURATION", "PLANNED-DURATION":
                if Syntax.decimal(raw, signed: false) == nil {
                    let negative = raw.hasPrefix("-") && MediaTime.read(raw) != .notANumber
                    let outOfRange = !negative && MediaTime.read(raw, allowSign: false) == .outOfRange
                    self.report(
                        .durationValue, tag: k, attribute: name,
                        negative
                            ? "\(name)=\(raw) of date range \"\(id)\" is negative"
                            : outOfRange
                                ? "\(name)=\(raw) of date range \"\(id)\" is out of range (at most \(MediaTime.maximum) s)"
                                : "\(name)=\(raw) of date range \"\(id)\" is not a decimal number",
                        hint: "write the \(name == "DURATION" ? "duration" : "expected duration") in seconds as a non-negative decimal, e.g. \(name)=30.0")
                }
            case "END-ON-NEXT":
                if raw != "YES" {
                    self.report(.attributeType, tag: k, attribute: name, "END-ON-NEXT=\(raw) is not allowed; its only value is YES", hint: "write END-ON-NEXT=YES or remove it")
                }
            case "CUE":
                self.checkList(tag: k, attribute: attribute, allowed: ["PRE", "POST", "ONCE"])
            case "X-CUE" where isInterstitial && !range.attributes.contains("CUE"):
                self.checkList(tag: k, attribute: attribute, allowed: ["PRE", "POST", "ONCE"])
            case "SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN":
                if value.hexadecimal == nil {
                    self.report(.attributeType, tag: k, attribute: name, "\(name)=\(raw) is not a hexadecimal-sequence", hint: "write the splice_info_section as 0x… hexadecimal")
                }
            default:
                guard name.hasPrefix("X-") else { continue }
                if isInterstitial, InterstitialEvent.classAttributeNames.contains(name) {
                    self.checkInterstitialAttribute(tag: k, attribute: attribute, id: id)
                } else if isPreload, name == "X-URI" || name == "X-TARGET-ID" || name == "X-TARGET-CLASS" {
                    if value.quotedString == nil {
                        self.report(.attributeType, tag: k, attribute: name, "\(name)=\(raw) is not a quoted-string", hint: "write \(name)=\"\(raw)\"")
                    }
                } else if !Syntax.isClientAttributeValue(raw) {
                    self.report(
                        .clientAttributeType, tag: k, attribute: name,
                        "client attribute \(name)=\(raw) is not a quoted-string, hexadecimal-sequence or signed decimal number",
                        hint: "quote the value: \(name)=\"\(raw)\"")
                }
            }
        }
    }

    mutating func checkList(tag k: Int, attribute: Attribute, allowed: [String]) {
        let name = attribute.name
        guard let members = attribute.value.stringList else {
            self.report(
                .attributeType, tag: k, attribute: name,
                "\(name)=\(attribute.value.rawValue) is not a quoted list",
                hint: "quote the comma-separated members: \(name)=\"\(attribute.value.rawValue)\"")
            return
        }
        let unknown = members.filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            self.report(
                .unknownMember, tag: k, attribute: name,
                "\(name) has unknown member\(unknown.count > 1 ? "s" : "") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")), which clients ignore",
                hint: "use only \(allowed.joined(separator: ", ")) (members are case-sensitive)")
        }
    }

    mutating func checkInterstitialAttribute(tag k: Int, attribute: Attribute, id: String) {
        let name = attribute.name
        let value = attribute.value
        let raw = value.rawValue
        switch name {
        case "X-ASSET-URI", "X-ASSET-LIST":
            if value.quotedString == nil {
                self.report(.attributeType, tag: k, attribute: name, "\(name)=\(raw) is not a quoted-string", hint: "write \(name)=\"\(raw)\"")
            }
        case "X-RESUME-OFFSET":
            if Syntax.decimal(raw, signed: true) == nil {
                let outOfRange = MediaTime.read(raw) == .outOfRange
                self.report(
                    .resumeOffsetValue, tag: k, attribute: name,
                    outOfRange
                        ? "X-RESUME-OFFSET=\(raw) of interstitial \"\(id)\" is out of range (at most \(MediaTime.maximum) s either way)"
                        : "X-RESUME-OFFSET=\(raw) of interstitial \"\(id)\" is not a signed decimal number",
                    hint: "write seconds from the scheduled start, unquoted, e.g. X-RESUME-OFFSET=0 or X-RESUME-OFFSET=-2.5")
            }
        case "X-PLAYOUT-LIMIT":
            if let limit = Syntax.decimal(raw, signed: true), limit > .zero, !raw.hasPrefix("-") {
                break
            }
            self.report(
                .playoutLimitValue, tag: k, attribute: name,
                "X-PLAYOUT-LIMIT=\(raw) of interstitial \"\(id)\" is not a number of seconds greater than 0",
                hint: "write a positive duration such as X-PLAYOUT-LIMIT=30, or remove it to play the assets to their end")
        case "X-SNAP":
            self.checkList(tag: k, attribute: attribute, allowed: ["OUT", "IN"])
        case "X-RESTRICT":
            self.checkList(tag: k, attribute: attribute, allowed: ["SKIP", "JUMP"])
        case "X-CONTENT-MAY-VARY", "X-TIMELINE-OCCUPIES", "X-TIMELINE-STYLE":
            let allowed: [String] =
                switch name {
                case "X-CONTENT-MAY-VARY": ["YES", "NO"]
                case "X-TIMELINE-OCCUPIES": ["POINT", "RANGE"]
                default: ["HIGHLIGHT", "PRIMARY"]
                }
            guard let text = value.quotedString else {
                self.report(
                    .attributeType, tag: k, attribute: name,
                    "\(name)=\(raw) is not a quoted-string, so clients treat it as absent",
                    hint: "quote the value: \(name)=\"\(raw)\"")
                return
            }
            if !allowed.contains(text) {
                self.report(
                    .unknownValue, tag: k, attribute: name,
                    "\(name)=\"\(text)\" is not a known value and is treated as absent (default \"\(allowed[0])\")",
                    hint: "use \(allowed.map { "\"\($0)\"" }.joined(separator: " or ")) (values are case-sensitive)")
            }
        case "X-SKIP-CONTROL-OFFSET", "X-SKIP-CONTROL-DURATION":
            if value.integer == nil {
                self.report(
                    .skipControlValue, tag: k, attribute: name,
                    "\(name)=\(raw) of interstitial \"\(id)\" is not a decimal integer",
                    hint: "write whole seconds without a fraction or quotes, e.g. \(name)=5")
            }
        case "X-SKIP-CONTROL-LABEL-ID":
            guard let label = value.quotedString else {
                self.report(.skipLabelID, tag: k, attribute: name, "X-SKIP-CONTROL-LABEL-ID=\(raw) is not a quoted-string", hint: "write X-SKIP-CONTROL-LABEL-ID=\"\(raw)\"")
                return
            }
            let bad = label.unicodeScalars.filter { c in
                !(("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "-" || c == "_")
            }
            if !bad.isEmpty || label.isEmpty {
                let shown = bad.map { $0 == " " ? "space" : "'\($0)'" }
                self.report(
                    .skipLabelID, tag: k, attribute: name,
                    label.isEmpty
                        ? "X-SKIP-CONTROL-LABEL-ID is empty"
                        : "X-SKIP-CONTROL-LABEL-ID \"\(label)\" contains \(shown.joined(separator: ", ")), outside [a-zA-Z-_]",
                    hint: "use only letters, '-' and '_' in the label key, e.g. \"Skip-Ad\"")
            }
        default:
            break
        }
    }

    // MARK: Whole ranges

    mutating func checkRange(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        if range.first >= 0, !attributes.contains("START-DATE") {
            self.report(
                .startDateMissing, range: m,
                "date range \"\(id)\" has no START-DATE in its first tag",
                hint: "add START-DATE=\"…\" to the first EXT-X-DATERANGE with ID=\"\(id)\"")
        }
        if let start = range.startDate, let end = range.endDate {
            if end < start {
                self.report(
                    .endDateBeforeStart, range: m, attribute: "END-DATE",
                    "END-DATE \(end.iso8601) of date range \"\(id)\" is before its START-DATE \(start.iso8601)",
                    hint: "set END-DATE at or after START-DATE, or use DURATION")
            } else if let duration = range.duration, start + duration != end {
                self.report(
                    .endDateMismatch, range: m, attribute: "END-DATE",
                    "END-DATE \(end.iso8601) of date range \"\(id)\" is not START-DATE + DURATION (\((start + duration).iso8601))",
                    hint: "make END-DATE \((start + duration).iso8601) or DURATION \((end - start).description), or drop one of them")
            }
        }
        if let cue = (attributes["CUE"] ?? (range.class == DateRange.interstitialClass ? attributes["X-CUE"] : nil))?.stringList,
            cue.contains("PRE"), cue.contains("POST")
        {
            let name = attributes.contains("CUE") ? "CUE" : "X-CUE"
            self.report(
                .cuePreAndPost, range: m, attribute: name,
                "\(name) of date range \"\(id)\" contains both PRE and POST",
                hint: "keep PRE (play before the primary) or POST (play after it); use two date ranges for both")
        }
        if range.endOnNext {
            if range.class == nil {
                self.report(
                    .endOnNextWithoutClass, range: m, attribute: "END-ON-NEXT",
                    "date range \"\(id)\" has END-ON-NEXT but no CLASS",
                    hint: "add CLASS=\"…\": END-ON-NEXT ends the range at the next range of the same class")
            }
            for name in ["DURATION", "END-DATE"] where attributes.contains(name) {
                self.report(
                    .endOnNextWithEnd, range: m, attribute: name,
                    "date range \"\(id)\" has END-ON-NEXT and \(name)",
                    hint: "remove \(name): an END-ON-NEXT range ends where the next range of its class starts")
            }
        }
        switch range.class {
        case DateRange.interstitialClass?:
            self.checkInterstitial(m)
        case DateRange.preloadClass?:
            self.checkPreload(m)
        default:
            self.checkLookalike(m)
        }
    }

    mutating func checkInterstitial(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let uri = attributes["X-ASSET-URI"]
        let list = attributes["X-ASSET-LIST"]
        switch (uri, list) {
        case (nil, nil):
            self.report(
                .assetMissing, range: m,
                "interstitial \"\(id)\" has neither X-ASSET-URI nor X-ASSET-LIST",
                hint: "add X-ASSET-URI=\"https://…/asset.m3u8\" for one asset, or X-ASSET-LIST=\"…json\" for a list")
        case (_?, _?):
            self.report(
                .assetBoth, range: m, attribute: "X-ASSET-LIST",
                "interstitial \"\(id)\" has both X-ASSET-URI and X-ASSET-LIST",
                hint: "keep one: X-ASSET-URI for a single asset or X-ASSET-LIST for a list of assets")
        default:
            break
        }
        if let text = uri?.quotedString, !URIReference.isAbsolute(text),
            !self.isUnresolved(tag: range.source["X-ASSET-URI"] ?? range.first, "X-ASSET-URI")
        {
            self.report(
                .assetURIRelative, range: m, attribute: "X-ASSET-URI",
                "X-ASSET-URI \"\(text)\" of interstitial \"\(id)\" is relative",
                hint: "write the absolute URI (https://…); only X-ASSET-LIST may be relative")
        }
        let cue = (attributes["CUE"] ?? attributes["X-CUE"])?.stringList ?? []
        let isPreOrPost = cue.contains("PRE") || cue.contains("POST")
        if !attributes.contains("DURATION"), !attributes.contains("END-DATE"), !range.endOnNext {
            let planned = attributes["PLANNED-DURATION"].map { " (PLANNED-DURATION=\($0.rawValue) is only an estimate)" } ?? ""
            self.report(
                .durationUnknown, range: m,
                "interstitial \"\(id)\" has no DURATION, so its duration is unknown until its assets load\(planned)",
                hint: "add DURATION=<seconds of the assets> so players can lay out the timeline early")
        }
        if !self.playlist.isLive {
            if !attributes.contains("X-RESUME-OFFSET"), !cue.contains("POST") {
                self.report(
                    .resumeOffsetDefault, range: m,
                    "interstitial \"\(id)\" has no X-RESUME-OFFSET, so it replaces as much primary content as it plays",
                    hint: "add X-RESUME-OFFSET=0 to resume the primary where it paused (usual for VOD ad insertion)")
            }
            if !isPreOrPost, let start = range.startDate, let time = self.playlist.time(at: start),
                time > self.playlist.duration
            {
                self.report(
                    .afterEnd, range: m, attribute: "START-DATE",
                    "interstitial \"\(id)\" starts at \(time.description) s, after the end of the VOD primary (\(self.playlist.duration.description) s), so it never plays",
                    hint: "move START-DATE inside the primary, or add CUE=\"POST\" to play it after the primary ends")
            }
        }
    }

    mutating func checkPreload(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let missing = ["X-URI", "X-TARGET-ID", "X-TARGET-CLASS"].filter { !attributes.contains($0) }
        if !missing.isEmpty {
            self.report(
                .preloadAttributeMissing, range: m,
                "preload range \"\(id)\" lacks \(missing.joined(separator: ", "))",
                hint: "add \(missing.map { "\($0)=\"…\"" }.joined(separator: ",")): the URI to preload and the ID and CLASS of the range it is for")
        }
        if !attributes.contains("DURATION"), !attributes.contains("END-DATE") {
            self.report(
                .preloadDurationMissing, range: m,
                "preload range \"\(id)\" has neither DURATION nor END-DATE",
                hint: "add DURATION=<seconds> ending at or just before the target's scheduled start")
        }
        for name in ["CUE", "END-ON-NEXT"] where attributes.contains(name) {
            self.report(
                .preloadCue, range: m, attribute: name,
                "preload range \"\(id)\" has \(name)",
                hint: "remove \(name) from the preload range")
        }
    }

    mutating func checkLookalike(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let hasAsset = attributes.contains("X-ASSET-URI") || attributes.contains("X-ASSET-LIST")
        let raw = attributes["CLASS"]?.text
        let normalised = raw.map { String($0.unicodeScalars.filter { $0 != " " && $0 != "\t" }).lowercased() }
        if let raw, normalised == DateRange.interstitialClass {
            self.report(
                .classValue, range: m, attribute: "CLASS",
                "date range \"\(id)\" has CLASS=\"\(raw)\", which is not exactly \"\(DateRange.interstitialClass)\", so it is not an interstitial",
                hint: "write CLASS=\"\(DateRange.interstitialClass)\" (the value is case-sensitive)")
        } else if hasAsset, raw == nil {
            self.report(
                .classValue, range: m,
                "date range \"\(id)\" has interstitial attributes (X-ASSET-…) but no CLASS, so it is not an interstitial",
                hint: "add CLASS=\"\(DateRange.interstitialClass)\"")
        }
    }

    // MARK: END-ON-NEXT overlaps

    mutating func checkEndOnNextOverlaps() {
        var classes: [String] = []
        for range in self.merged where range.endOnNext {
            if let c = range.class, !classes.contains(c) { classes.append(c) }
        }
        for c in classes {
            let members = self.merged.indices.filter { self.merged[$0].class == c && self.merged[$0].startDate != nil }
                .sorted { self.merged[$0].startDate! < self.merged[$1].startDate! }
            for (a, b) in zip(members, members.dropFirst()) {
                let x = self.merged[a]
                let y = self.merged[b]
                let nextStart = y.startDate!
                let overlaps: Bool
                if nextStart == x.startDate! {
                    overlaps = true
                } else if let end = x.end, !x.endOnNext {
                    overlaps = end > nextStart
                } else {
                    overlaps = false
                }
                if overlaps {
                    self.report(
                        .endOnNextOverlap, range: b, attribute: "START-DATE",
                        "date range \"\(y.id)\" starts at \(nextStart.iso8601), inside date range \"\(x.id)\" of the same CLASS \"\(c)\", which uses END-ON-NEXT",
                        hint: "ranges of a class with END-ON-NEXT must not overlap: start \"\(y.id)\" after \"\(x.id)\" ends, or shorten \"\(x.id)\"")
                }
            }
        }
    }
}

// MARK: - Syntax helpers

/// Attribute value syntax (§4.2), without Foundation.
enum Syntax {
    /// A decimal-floating-point (`signed: false`) or signed-decimal-floating-point number: digits
    /// with at most one `.`, and for signed values an optional leading `-`.
    static func decimal(_ text: String, signed: Bool) -> MediaTime? {
        var bytes = Substring(text).utf8[...]
        if signed, bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var digits = 0
        var dots = 0
        for c in bytes {
            if c >= 48 && c <= 57 {
                digits += 1
            } else if c == UInt8(ascii: ".") {
                dots += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        return MediaTime(text)
    }

    /// A quoted-string without `"` inside, a hexadecimal-sequence, or a signed decimal number.
    static func isClientAttributeValue(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        if bytes.first == UInt8(ascii: "\"") {
            return bytes.count >= 2 && bytes.last == UInt8(ascii: "\"") && !bytes.dropFirst().dropLast().contains(UInt8(ascii: "\""))
        }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "x") || bytes[1] == UInt8(ascii: "X") {
            return bytes[2...].allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
            }
        }
        return decimal(raw, signed: true) != nil
    }
}
