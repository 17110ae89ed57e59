import HLSInterstitials
import HLSPlaylist

/// What the player knows of its primary's scheduled date ranges (Appendix H of Apple's preliminary
/// WWDC26 draft): the schedule date ranges seen, those buffering reached, the documents fetched
/// and the interstitials they resolve to.
///
/// The pure part of the feature: it says which documents to request and what each answer means,
/// and the ``Player`` actor performs the requests and posts what it returns. A schedule is
/// requested late, like an asset list: once the primary's buffer (or the playhead) reaches the
/// schedule date range's `START-DATE`. Nested schedules are requested as soon as the document
/// that lists them arrives.
struct ScheduleBook: Sendable {
    /// One document to request.
    struct Request: Sendable, Hashable {
        /// The document's absolute URL (the key of its answer).
        var url: String
        /// `ID` of the schedule date range whose `X-URI` it is.
        var scheduleID: String
    }

    /// Resolves the documents into events (its readings are the HLSInterstitials defaults).
    var resolver = DateRangeScheduleResolver()
    /// Every schedule date range seen in the primary, in order of appearance, by `ID`.
    private(set) var references: [DateRangeScheduleResolver.Reference] = []
    /// Where each schedule date range starts on the stable primary timeline.
    private(set) var positions: [String: MediaTime] = [:]
    /// The `X-PLAYOUT-LIMIT` of each schedule date range that has one (an early return, added to
    /// the same `ID` by a later playlist), as its latest playlist reading gives it.
    private(set) var playoutLimits: [String: MediaTime] = [:]
    /// Schedule date ranges that buffering reached: their documents are requested.
    private(set) var reached: Set<String> = []
    /// The documents answered, by absolute URL.
    private(set) var documents: [String: DateRangeScheduleResolver.Document] = [:]
    /// Documents requested and not answered yet.
    private(set) var fetching: Set<String> = []
    /// The `ID` of the schedule date range that names each URL.
    private(set) var identifiers: [String: String] = [:]
    /// What the documents answered so far resolve to.
    private(set) var resolution = DateRangeScheduleResolver().resolve(references: [], documents: [:])
    /// Diagnostics already logged (each once).
    private var logged: Set<ScheduleDiagnostic> = []

    /// Whether the primary has any schedule date range.
    var isEmpty: Bool { self.references.isEmpty }

    /// The scheduled interstitials resolved so far, each with its `scheduleIdentifier`, cut at
    /// their playlist schedule date range's `X-PLAYOUT-LIMIT` (``cut(_:at:)``).
    var events: [InterstitialEvent] {
        guard !self.playoutLimits.isEmpty else { return self.resolution.events }
        return self.resolution.events.compactMap { event in
            guard let outer = self.resolution.playlistScheduleIDs[event.identifier],
                let limit = self.playoutLimits[outer],
                let start = self.references.first(where: { $0.id == outer })?.start
            else { return event }
            return Self.cut(event, at: start + limit)
        }
    }

    /// A scheduled interstitial of a schedule that ends early at `end` (its date range's
    /// `START-DATE` + `X-PLAYOUT-LIMIT`): `nil` when it starts at or after `end` (it does not play);
    /// when it is under way at `end`, its playout limit and resume offset cut to `end`, so that it
    /// stops there and the primary resumes there; otherwise as it is.
    static func cut(_ event: InterstitialEvent, at end: DateTime) -> InterstitialEvent? {
        guard let date = event.date else { return event }
        let left = end - date
        guard left > .zero else { return nil }
        let span = event.duration ?? event.resumptionOffset
        guard span.map({ left < $0 }) ?? true else { return event }
        var event = event
        event.playoutLimit = event.playoutLimit.map { MediaTime.min($0, left) } ?? left
        if let resume = event.resumptionOffset, resume > left { event.resumptionOffset = left }
        return event
    }

    /// A primary playlist arrived: takes its schedule date ranges (new ones are added; those
    /// already seen keep their first reading, so a live window that slides past one does not
    /// unschedule what it resolved), their positions on the stable timeline and their
    /// `X-PLAYOUT-LIMIT`s (an early return adds one to a date range already seen).
    ///
    /// - Parameters:
    ///   - playlist: The primary media playlist.
    ///   - playlistURL: Its absolute URL (the base of `X-URI`).
    ///   - offset: Stable primary time = the playlist's own time + offset.
    mutating func update(playlist: MediaPlaylist, playlistURL: String, offset: MediaTime) {
        for reference in DateRangeScheduleResolver.references(in: playlist, playlistURL: playlistURL) {
            if !self.references.contains(where: { $0.id == reference.id }) {
                self.references.append(reference)
                self.identifiers[reference.url] = self.identifiers[reference.url] ?? reference.id
            }
            if let time = playlist.time(at: reference.start) { self.positions[reference.id] = time + offset }
        }
        for placed in playlist.dateRanges where placed.dateRange.class == DateRangeSchedule.scheduleClass {
            if let limit = placed.dateRange.attributes[.playoutLimit]?.decimal, limit > .zero {
                self.playoutLimits[placed.dateRange.id] = limit
            }
        }
    }

    /// Marks the schedule date ranges that start at or before `reach` (the end of the primary's
    /// buffer, or the playhead) as reached.
    ///
    /// - Returns: Whether any was newly reached.
    mutating func reach(_ reach: MediaTime) -> Bool {
        var changed = false
        for reference in self.references where !self.reached.contains(reference.id) {
            guard let position = self.positions[reference.id], position <= reach else { continue }
            self.reached.insert(reference.id)
            changed = true
        }
        if changed { self.resolve() }
        return changed
    }

    /// The documents to request now (reached, not answered, not under way), each once; they are
    /// marked as under way.
    mutating func takeRequests() -> [Request] {
        var requests: [Request] = []
        for url in self.resolution.pendingURLs where self.fetching.insert(url).inserted {
            requests.append(Request(url: url, scheduleID: self.identifiers[url] ?? ""))
        }
        return requests
    }

    /// A document answered: its body, or why there is none.
    ///
    /// The answer is decoded (`DateRangeSchedule.decode(_:document:options:)` of HLSInterstitials),
    /// kept, and every reached schedule resolved again, which may ask for nested documents
    /// (``takeRequests()``).
    ///
    /// - Parameters:
    ///   - url: The document's absolute URL, as ``Request/url``.
    ///   - result: The body of a 2xx answer, or the error (a failed request, another status).
    ///   - response: The body received, whatever the status (`nil` when the request failed).
    /// - Returns: What to post (`scheduleRequestCompleted` first, then each new diagnostic) and
    ///   whether the resolved events changed.
    mutating func answer(
        url: String,
        _ result: Result<[UInt8], PlaybackError>,
        response: [UInt8]?
    ) -> (events: [PlayerEvent], changed: Bool) {
        guard self.fetching.remove(url) != nil else { return ([], false) }
        let scheduleID = self.identifiers[url] ?? ""
        var failed: PlaybackError?
        var posted: [PlayerEvent] = []
        switch result {
        case .failure(var failure):
            if failure.url == nil { failure.url = url }
            failed = failure
            self.documents[url] = .failure(
                DateRangeScheduleDecodingError(
                    code: ScheduleRule.unreadable.id,
                    message: failure.message,
                    location: ScheduleLocation(document: url, pointer: "")
                )
            )
        case .success(let bytes):
            do {
                let decoded = try DateRangeSchedule.decode(bytes, document: url)
                self.documents[url] = .success(decoded.schedule)
                self.nameNested(in: decoded.schedule, documentURL: url)
                posted += self.newDiagnostics(decoded.diagnostics)
            } catch {
                self.documents[url] = .failure(error)
                failed = PlaybackError(code: .invalidSchedule, message: error.message, url: url)
            }
        }
        let before = self.resolution.events
        self.resolve()
        posted.insert(
            .scheduleRequestCompleted(scheduleID: scheduleID, url: url, response: response, error: failed),
            at: 0
        )
        posted += self.newDiagnostics(self.resolution.diagnostics)
        return (posted, self.resolution.events != before)
    }

    /// The `X-AD-CREATIVE-SIGNALING` (SVTA2053-2) of the scheduled interstitial `eventID`, as its
    /// document's entry gives it (a JSON value, which has no attribute form on the event), and the
    /// URL of that document (the base of its beacon URLs); `nil` when the entry has none.
    func creativeSignaling(of eventID: String) -> (value: JSONValue, documentURL: String)? {
        for (url, document) in self.documents.sorted(by: { $0.key < $1.key }) {
            guard case .success(let schedule) = document else { continue }
            for entry in schedule.dateRanges where entry.id == eventID && entry.isInterstitial {
                if let value = entry[CreativeSignaling.key] { return (value, url) }
            }
        }
        return nil
    }

    /// Resolves the reached schedule date ranges from the documents answered so far.
    private mutating func resolve() {
        let reached = self.references.filter { self.reached.contains($0.id) }
        self.resolution = self.resolver.resolve(references: reached, documents: self.documents)
    }

    /// Records the `ID` of each nested schedule a document lists, by the URL it names.
    private mutating func nameNested(in schedule: DateRangeSchedule, documentURL: String) {
        let base =
            self.resolver.relativeURIBase == .playlist
            ? (self.references.first?.playlistURL ?? documentURL) : documentURL
        for entry in schedule.dateRanges where entry.isSchedule {
            guard case .string(let uri)? = entry["X-URI"] else { continue }
            let url = URIReference.resolve(uri, against: base)
            if self.identifiers[url] == nil { self.identifiers[url] = entry.id }
        }
    }

    /// The diagnostics not logged before, as log events.
    private mutating func newDiagnostics(_ diagnostics: [ScheduleDiagnostic]) -> [PlayerEvent] {
        var events: [PlayerEvent] = []
        for diagnostic in diagnostics where self.logged.insert(diagnostic).inserted {
            events.append(
                .scheduleIssue(
                    rule: diagnostic.rule.id.description,
                    message: diagnostic.message,
                    location: diagnostic.location.description
                )
            )
        }
        return events
    }
}
