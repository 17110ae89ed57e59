import HLSPlaylist

/// Resolves the scheduled date ranges of a playlist into interstitial events, from the schedule
/// documents fetched so far (Appendix H of Apple's preliminary WWDC26 draft).
///
/// The resolver does no I/O: the caller fetches each URL of ``Resolution/pendingURLs``, decodes
/// it with ``DateRangeSchedule/decode(_:document:options:)-([UInt8],_,_)``, adds it to the documents keyed by
/// its absolute URL and resolves again. Entries of class `com.apple.hls.interstitial` become
/// ``InterstitialEvent``s read exactly as the same date range in the playlist would be (through
/// ``InterstitialEvent/init(dateRange:draftNames:)``), so the integrated ``Schedule`` applies restrictions,
/// resume offsets, `CUE` and skip control to them unchanged: pass
/// `InterstitialEvent.events(in:)` followed by ``Resolution/events`` to
/// ``Schedule/init(primary:events:configuration:)-(MediaPlaylist,_,_)``.
///
/// ```swift
/// let resolver = DateRangeScheduleResolver()
/// var documents: [String: DateRangeScheduleResolver.Document] = [:]
/// var resolution = resolver.resolve(playlist: playlist, playlistURL: url, documents: documents)
/// // fetch resolution.pendingURLs, add them to documents, resolve again
/// ```
public struct DateRangeScheduleResolver: Sendable {
    /// The deepest nesting of schedules followed: a playlist's schedule is depth 1, a schedule it
    /// lists depth 2, and so on.
    ///
    /// Deeper schedules are refused with ``ScheduleRule/tooDeep``.
    ///
    /// 8 is what the one shipping implementation described in the secondary sources uses.
    public static let maximumNestingDepth = 8

    /// The largest `X-SCHEDULE-OFFSET` accepted, in seconds (the whole seconds of
    /// `MediaTime.maximum`, so every offset converts exactly).
    public static let maximumOffsetSeconds = 9_223_372_036

    /// Which schedule date range's `ID` a scheduled event carries as
    /// ``InterstitialEvent/scheduleIdentifier`` when schedules nest.
    public enum ScheduleIdentifierSource: Sendable, Hashable {
        /// The schedule whose document lists the event (the nearest one).
        case innermost
        /// The schedule date range in the playlist.
        case outermost
    }

    /// The reading chosen for ``ScheduleIdentifierSource``: ``ScheduleIdentifierSource/innermost``
    /// (AVFoundation documents `scheduleIdentifier` as the ID of the schedule date range the event
    /// came from; see the spec notes, "Appendix H").
    public static let defaultIdentifierSource = ScheduleIdentifierSource.innermost

    /// The fetch result of one schedule URL: a decoded document or why it could not be read.
    public typealias Document = Result<DateRangeSchedule, DateRangeScheduleDecodingError>

    /// What relative URIs inside a schedule document (`X-URI` of a nested schedule,
    /// `X-ASSET-URI`, `X-ASSET-LIST`) resolve against.
    public enum RelativeURIBase: Sendable, Hashable {
        /// The URL of the document that holds them (RFC 3986 §5.1.3: the retrieval URI).
        case document
        /// The playlist's URL (``Reference/playlistURL``; the document's URL when not given).
        case playlist
    }

    /// The reading chosen for ``RelativeURIBase``: ``RelativeURIBase/document``, as for asset
    /// lists and as RFC 3986 gives for any retrieved document (the secondary sources say nothing).
    public static let defaultRelativeURIBase = RelativeURIBase.document

    /// Which `ID` scheduled events carry when schedules nest.
    public var identifierSource: ScheduleIdentifierSource
    /// What relative URIs in documents resolve against.
    public var relativeURIBase: RelativeURIBase

    /// Creates a resolver.
    public init(
        identifierSource: ScheduleIdentifierSource = DateRangeScheduleResolver.defaultIdentifierSource,
        relativeURIBase: RelativeURIBase = DateRangeScheduleResolver.defaultRelativeURIBase
    ) {
        self.identifierSource = identifierSource
        self.relativeURIBase = relativeURIBase
    }

    /// A schedule date range of a playlist: its `ID`, the absolute URL of its document and its
    /// start, from which the document's `X-SCHEDULE-OFFSET`s count.
    public struct Reference: Sendable, Hashable {
        /// `ID` of the schedule date range.
        public var id: String
        /// `X-URI`, resolved against the playlist's URL.
        public var url: String
        /// `START-DATE` of the schedule date range.
        public var start: DateTime
        /// The playlist's URL, for ``RelativeURIBase/playlist``.
        public var playlistURL: String?

        /// Creates a reference.
        public init(id: String, url: String, start: DateTime, playlistURL: String? = nil) {
            self.id = id
            self.url = url
            self.start = start
            self.playlistURL = playlistURL
        }
    }

    /// What resolution produced so far.
    public struct Resolution: Sendable, Hashable {
        /// The scheduled interstitials, in schedule order (depth first), each with its
        /// ``InterstitialEvent/scheduleIdentifier``.
        public var events: [InterstitialEvent] = []
        /// The scheduled date ranges of other classes, as playlist date ranges with their start
        /// dates resolved (JSON-valued `X-` attributes stay in the documents).
        public var otherDateRanges: [DateRange] = []
        /// The schedule URLs still to fetch (playlist schedules and nested ones), each once.
        public var pendingURLs: [String] = []
        /// Unreadable documents, nesting too deep, cycles.
        public var diagnostics: [ScheduleDiagnostic] = []
        /// For each scheduled interstitial's `ID`, the `ID` of the playlist's schedule date range
        /// it came from (through any nesting), whichever ``ScheduleIdentifierSource`` names its
        /// ``InterstitialEvent/scheduleIdentifier``: what a change to that date range (such as an
        /// added `X-PLAYOUT-LIMIT`) applies to.
        public var playlistScheduleIDs: [String: String] = [:]

        /// Whether every schedule reached has been fetched.
        public var isComplete: Bool { self.pendingURLs.isEmpty }
    }

    /// The schedule date ranges of a playlist that have a start date and a string `X-URI`.
    ///
    /// - Parameters:
    ///   - playlist: The media playlist.
    ///   - playlistURL: Its absolute URL, the base of relative `X-URI`s.
    public static func references(in playlist: MediaPlaylist, playlistURL: String) -> [Reference] {
        var seen: Set<String> = []
        var result: [Reference] = []
        for placed in playlist.dateRanges where placed.dateRange.class == DateRangeSchedule.scheduleClass {
            let range = placed.dateRange
            guard let start = range.startDate, let uri = range.attributes[.preloadURI]?.quotedString, !uri.isEmpty,
                seen.insert(range.id).inserted
            else { continue }
            result.append(
                Reference(
                    id: range.id,
                    url: URIReference.resolve(uri, against: playlistURL),
                    start: start,
                    playlistURL: playlistURL
                )
            )
        }
        return result
    }

    /// Resolves the schedule date ranges of a playlist (see ``resolve(references:documents:)``).
    public func resolve(playlist: MediaPlaylist, playlistURL: String, documents: [String: Document]) -> Resolution {
        self.resolve(references: Self.references(in: playlist, playlistURL: playlistURL), documents: documents)
    }

    /// Resolves schedule references into events from the documents fetched so far.
    ///
    /// - Parameters:
    ///   - references: The playlist's schedule date ranges.
    ///   - documents: The fetched documents, keyed by absolute URL.
    /// - Returns: The events, other date ranges, URLs still to fetch and diagnostics.
    public func resolve(references: [Reference], documents: [String: Document]) -> Resolution {
        var walk = Walk(identifierSource: self.identifierSource, documents: documents)
        for reference in references {
            walk.playlistURL = self.relativeURIBase == .playlist ? reference.playlistURL : nil
            walk.visit(
                url: reference.url,
                start: reference.start,
                depth: 1,
                path: [],
                outerID: reference.id,
                innerID: reference.id,
                from: ScheduleLocation(document: nil, pointer: "")
            )
        }
        return walk.resolution
    }
}

/// The depth-first walk of one resolution.
private struct Walk {
    let identifierSource: DateRangeScheduleResolver.ScheduleIdentifierSource
    let documents: [String: DateRangeScheduleResolver.Document]
    var resolution = DateRangeScheduleResolver.Resolution()
    var pending: Set<String> = []
    /// The base of relative URIs in documents; `nil` for each document's own URL.
    var playlistURL: String?

    init(
        identifierSource: DateRangeScheduleResolver.ScheduleIdentifierSource,
        documents: [String: DateRangeScheduleResolver.Document]
    ) {
        self.identifierSource = identifierSource
        self.documents = documents
    }

    mutating func report(_ rule: ScheduleRule, _ location: ScheduleLocation, _ message: String, _ hint: String) {
        self.resolution.diagnostics.append(
            ScheduleDiagnostic(rule: rule, location: location, message: message, hint: hint)
        )
    }

    // swift-format-ignore: FunctionParameterCount
    mutating func visit(
        url: String,
        start: DateTime,
        depth: Int,
        path: [String],
        outerID: String,
        innerID: String,
        from location: ScheduleLocation
    ) {
        guard depth <= DateRangeScheduleResolver.maximumNestingDepth else {
            self.report(
                .tooDeep,
                location,
                "schedule \"\(innerID)\" (\(url)) is nested \(depth) deep, more than \(DateRangeScheduleResolver.maximumNestingDepth); it is not followed",
                "flatten the schedules"
            )
            return
        }
        guard !path.contains(url) else {
            self.report(
                .cycle,
                location,
                "schedule \"\(innerID)\" (\(url)) is already being resolved: the schedules form a cycle; it is not followed",
                "remove the nested schedule that points back"
            )
            return
        }
        guard let document = self.documents[url] else {
            if self.pending.insert(url).inserted { self.resolution.pendingURLs.append(url) }
            return
        }
        let schedule: DateRangeSchedule
        switch document {
        case .success(let value): schedule = value
        case .failure(let error):
            self.report(
                .unreadable,
                error.location.document == nil
                    ? ScheduleLocation(document: url, pointer: error.location.pointer) : error.location,
                "schedule \"\(innerID)\" (\(url)) cannot be read: \(error.message)",
                "serve a JSON object {\"DATERANGES\": [...]} at X-URI"
            )
            return
        }
        for entry in schedule.dateRanges {
            let entryStart: DateTime
            switch entry.start {
            case .date(let date): entryStart = date
            case .offset(let offset): entryStart = start + offset
            }
            if entry.isSchedule {
                guard case .string(let uri)? = entry["X-URI"] else { continue }
                self.visit(
                    url: URIReference.resolve(uri, against: self.playlistURL ?? url),
                    start: entryStart,
                    depth: depth + 1,
                    path: path + [url],
                    outerID: outerID,
                    innerID: entry.id,
                    from: ScheduleLocation(document: url, pointer: entry.location.pointer)
                )
                continue
            }
            let range = entry.dateRange(start: entryStart, documentURL: self.playlistURL ?? url)
            if entry.isInterstitial, var event = InterstitialEvent(dateRange: range) {
                event.scheduleIdentifier = self.identifierSource == .innermost ? innerID : outerID
                self.resolution.events.append(event)
                self.resolution.playlistScheduleIDs[event.identifier] = outerID
            } else {
                self.resolution.otherDateRanges.append(range)
            }
        }
    }
}

extension ScheduledDateRange {
    /// The entry as a playlist date range starting at `start`: numbers as decimals, strings as
    /// quoted strings (`X-ASSET-URI`, `X-ASSET-LIST` and `X-URI` resolved against the document's
    /// URL), `CUE`/`X-SNAP`/`X-RESTRICT` as string lists, `END-ON-NEXT` as `YES`.
    ///
    /// `X-` values that
    /// are not strings or numbers have no attribute form and are left out.
    ///
    /// - Parameters:
    ///   - start: The resolved `START-DATE`.
    ///   - documentURL: The absolute URL of the document that lists the entry.
    public func dateRange(start: DateTime, documentURL: String) -> DateRange {
        var range = DateRange(id: self.id, startDate: start, class: self.class)
        for member in self.attributes {
            if let value = Self.attributeValue(member, documentURL: documentURL) {
                range.attributes[member.name] = value
            }
        }
        return range
    }

    static func attributeValue(_ member: Member, documentURL: String) -> AttributeValue? {
        let name = member.name
        switch member.value {
        case .number(let number):
            if case .time(let time) = number.mediaTimeReading { return .decimal(time) }
            return AttributeValue(rawValue: number.text)
        case .string(let text):
            if DateRangeSchedule.listKeys.contains(name) {
                return .stringList(text.split(separator: ",").map(String.init))
            }
            if name == "END-ON-NEXT" { return .enumerated(text) }
            if name == "X-ASSET-URI" || name == "X-ASSET-LIST" || name == "X-URI" {
                return .quoted(URIReference.resolve(text, against: documentURL))
            }
            return .quoted(text)
        case .array(let items) where DateRangeSchedule.listKeys.contains(name):
            return .stringList(items.compactMap(\.stringValue))
        case .bool(true) where name == "END-ON-NEXT":
            return .enumerated("YES")
        default:
            return nil
        }
    }
}

extension DateRangeSchedule {
    /// The diagnostics of the playlist's `com.apple.hls.daterange-schedule` tags: `X-URI` missing
    /// or not a non-empty quoted-string, and `CUE` / `END-ON-NEXT` on a schedule.
    ///
    /// ``InterstitialValidator`` includes them in its results.
    ///
    /// - Parameters:
    ///   - playlist: The media playlist.
    ///   - file: Its path or URL, for locations.
    public static func tagDiagnostics(in playlist: MediaPlaylist, file: String? = nil) -> [PlaylistDiagnostic] {
        var diagnostics: [PlaylistDiagnostic] = []
        for placed in playlist.dateRanges where placed.dateRange.class == scheduleClass {
            let range = placed.dateRange
            let location = SourceLocation(file: file, line: placed.lineIndex + 1, column: 1)
            func add(_ rule: ScheduleRule, _ message: String, _ hint: String) {
                diagnostics.append(
                    PlaylistDiagnostic(
                        severity: rule.severity,
                        rule: rule.id,
                        message: message,
                        hint: hint,
                        location: location
                    )
                )
            }
            if let uri = range.attributes[.preloadURI] {
                if (uri.quotedString ?? "").isEmpty {
                    add(
                        .tagURIType,
                        "X-URI=\(uri.rawValue) of schedule \"\(range.id)\" is not a non-empty quoted-string",
                        "write X-URI=\"schedule.json\""
                    )
                }
            } else {
                add(
                    .tagURIMissing,
                    "schedule \"\(range.id)\" has no X-URI, so it schedules nothing",
                    "add X-URI=\"schedule.json\" naming the {\"DATERANGES\": [...]} document"
                )
            }
            if range.attributes[.cue] != nil || range.attributes[.endOnNext] != nil {
                add(
                    .tagCue,
                    "schedule \"\(range.id)\" has CUE or END-ON-NEXT, which apply to its entries, not to it",
                    "move CUE to the scheduled interstitials"
                )
            }
        }
        return diagnostics
    }
}
