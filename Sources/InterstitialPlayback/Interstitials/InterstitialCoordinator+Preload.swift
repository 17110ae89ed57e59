import HLSInterstitials
import HLSPlaylist

/// The random source of preload moments: xorshift64* from a seed (tests and reproducible runs,
/// `Player.Configuration.preloadRandomSeed`) or from the system generator.
struct PreloadRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts from `seed`, or from a system-random seed when `nil`.
    init(seed: UInt64?) {
        let start = seed ?? UInt64.random(in: 1...UInt64.max)
        self.state = start == 0 ? 0x2545_F491_4F6C_DD1D : start
    }

    mutating func next() -> UInt64 {
        self.state ^= self.state >> 12
        self.state ^= self.state << 25
        self.state ^= self.state >> 27
        return self.state &* 0x2545_F491_4F6C_DD1D
    }
}

/// What the player knows of one preload range (Appendix F) it follows.
struct PreloadEntry: Sendable {
    /// Where the preload stands.
    enum State: Sendable {
        /// Waiting for the playhead to reach ``PreloadEntry/moment``.
        case scheduled
        /// The request is under way.
        case fetching
        /// The answer, kept for the target's break.
        case fetched(Result<LoadResponse, PlaybackError>)
    }

    /// The range as last read.
    var range: PreloadRange
    /// The stable primary time at which the player requests `X-URI`.
    var moment: MediaTime
    /// Where the preload stands.
    var state: State
}

/// Every preload range the player follows, by the range's `ID`.
struct PreloadBook: Sendable {
    /// The ranges scheduled, fetching or fetched.
    var entries: [String: PreloadEntry] = [:]
    /// Ranges already used, discarded or past: not scheduled again while their tag stays.
    var done: Set<String> = []
    /// Picks the moments.
    var random = PreloadRandom(seed: nil)

    /// The entry whose `X-TARGET-ID` is `eventID`.
    func entry(forTarget eventID: String) -> (id: String, entry: PreloadEntry)? {
        for (id, entry) in self.entries where entry.range.targetID == eventID { return (id, entry) }
        return nil
    }
}

/// What to do about an event's asset list when its break starts buffering and a preload exists.
enum PreloadUse: Sendable {
    /// No preload for this event: request the list as usual.
    case none
    /// The preload request is under way: wait for it rather than request again.
    case wait
    /// Use this answer as the event's asset-list answer.
    case use(Result<LoadResponse, PlaybackError>)
}

extension InterstitialCoordinator {
    // MARK: Preload ranges (Appendix F)

    /// Brings the preloads up to date with the schedule's preload ranges, after a reload or as the
    /// playhead moves.
    ///
    /// - With the primary no longer live (`EXT-X-ENDLIST`), every preload is dropped (the appendix:
    ///   ignore preload tags then); an answer fetched or under way is discarded.
    /// - A range whose tag disappeared is dropped; its answer, fetched or under way, is discarded.
    /// - A new range (usable, placed, its target not yet prepared) gets a moment drawn uniformly
    ///   from `PreloadRange.loadSpan(start:end:playhead:normalLoad:joined:reading:)`: its window
    ///   clamped to start at the playhead and to end no later than where the target's list would
    ///   be requested without the hint (the target's start minus `lead`; the window's end when the
    ///   target is not in the playlist yet, which the appendix says to assume appears at the reload
    ///   at the range's end). The window is not cut to the forward buffer: a range seen long before
    ///   its window opens (a server announcing breaks a minute ahead) would then put every viewer's
    ///   moment at the window's start, the stampede the range exists to spread.
    /// - A scheduled moment later than the target's usual request (the target appeared or moved)
    ///   is drawn again, uniformly between the later of the window's start and the playhead, and
    ///   that usual request.
    ///
    /// - Parameters:
    ///   - book: The preloads followed.
    ///   - preloads: The schedule's preload ranges (empty when not live).
    ///   - isLive: Whether the primary is live.
    ///   - offset: Stable primary time = schedule time + offset.
    ///   - playhead: The primary playhead (stable time).
    ///   - lead: How far ahead of the playhead the player requests an asset list without a hint
    ///     (its forward buffer, bounded by the live edge).
    ///   - prepared: Events whose list is known, loading, or whose break is past.
    ///   - random: Draws the moments (seeded in tests and reproducible runs).
    func updatePreloads<G: RandomNumberGenerator>(
        _ book: inout PreloadBook,
        preloads: [ScheduledPreload],
        isLive: Bool,
        offset: MediaTime,
        playhead: MediaTime,
        lead: MediaTime,
        prepared: Set<String>,
        using random: inout G
    ) -> [Action] {
        var actions: [Action] = []
        let present = Set(preloads.map(\.range.identifier))
        for id in book.entries.keys.sorted() {
            guard let entry = book.entries[id] else { continue }
            let reason: String
            if !isLive {
                reason = "the primary playlist has EXT-X-ENDLIST"
            } else if !present.contains(id) {
                reason = "the preload tag was removed"
            } else {
                continue
            }
            book.entries[id] = nil
            if case .scheduled = entry.state { continue }
            actions.append(.emit(.preloadDiscarded(rangeID: id, targetID: entry.range.targetID ?? "", reason: reason)))
        }
        book.done.formIntersection(present)
        guard isLive else { return actions }
        for preload in preloads {
            let range = preload.range
            let id = range.identifier
            guard range.isUsable, let target = range.targetID, let start = preload.start, let end = preload.end
            else { continue }
            let targetStart = preload.targetStart.map { $0 + offset }
            let normal = targetStart.map { $0 - lead } ?? (end + offset)
            if var entry = book.entries[id] {
                entry.range = range
                if case .scheduled = entry.state, entry.moment > normal {
                    // Drawn again inside what is left, not put on `normal`: every viewer whose
                    // moment fell after the usual request would otherwise ask at that one instant
                    // (2,000 viewers: 229 requests in one second against a mean of 62).
                    let lower = MediaTime.max(playhead, MediaTime.min(start + offset, normal))
                    let width = (normal - lower).nanoseconds
                    entry.moment =
                        width > 0 ? lower + MediaTime(nanoseconds: Int64.random(in: 0...width, using: &random)) : lower
                }
                book.entries[id] = entry
                continue
            }
            guard !book.done.contains(id), !prepared.contains(target) else { continue }
            let windowStart = start + offset
            guard
                let span = range.loadSpan(
                    start: windowStart,
                    end: end + offset,
                    playhead: playhead,
                    normalLoad: normal,
                    joined: playhead > windowStart
                )
            else {
                book.done.insert(id)
                continue
            }
            let width = (span.upperBound - span.lowerBound).nanoseconds
            let moment =
                span.lowerBound + MediaTime(nanoseconds: width > 0 ? Int64.random(in: 0...width, using: &random) : 0)
            book.entries[id] = PreloadEntry(range: range, moment: moment, state: .scheduled)
            actions.append(
                .emit(
                    .preloadScheduled(
                        rangeID: id,
                        targetID: target,
                        moment: moment,
                        windowStart: span.lowerBound,
                        windowEnd: span.upperBound
                    )
                )
            )
        }
        return actions
    }

    /// The preloads whose moment the playhead reached: the player requests them now.
    func duePreloads(_ book: PreloadBook, playhead: MediaTime) -> [String] {
        book.entries.filter { entry in
            if case .scheduled = entry.value.state { return entry.value.moment <= playhead }
            return false
        }.keys.sorted()
    }

    /// The earliest moment still to come (to wake the player then).
    func nextPreloadMoment(_ book: PreloadBook) -> MediaTime? {
        book.entries.values.compactMap { entry -> MediaTime? in
            if case .scheduled = entry.state { return entry.moment }
            return nil
        }.min()
    }

    /// An event's break starts buffering: use its preloaded answer, wait for it, or request the
    /// list as usual.
    ///
    /// An answer is discarded (logged, then the usual request) when the target's
    /// `CLASS` is not `X-TARGET-CLASS` or `X-URI` lacks the query of the target's `X-ASSET-LIST`
    /// (`PreloadRange.mismatch(with:)`); a failed preload is discarded too, so the usual request
    /// gets its chance. An entry scheduled but not requested yet is dropped: the usual request
    /// comes now, no later than without the hint.
    func preloadUse(
        _ book: inout PreloadBook,
        eventID: String,
        target: DateRange?
    ) -> (use: PreloadUse, actions: [Action]) {
        guard let (id, entry) = book.entry(forTarget: eventID) else { return (.none, []) }
        switch entry.state {
        case .fetching:
            return (.wait, [])
        case .scheduled:
            book.entries[id] = nil
            book.done.insert(id)
            return (.none, [])
        case .fetched(let result):
            book.entries[id] = nil
            book.done.insert(id)
            var reason =
                target.map { entry.range.mismatch(with: $0) } ?? "the target is not a date range of the playlist"
            if reason == nil, case .failure(let error) = result { reason = "the preload failed: \(error)" }
            if reason == nil, case .success(let response) = result, !(200..<300).contains(response.status) {
                reason = "the preload answered HTTP \(response.status)"
            }
            if let reason {
                return (.none, [.emit(.preloadDiscarded(rangeID: id, targetID: eventID, reason: reason))])
            }
            return (.use(result), [.emit(.preloadUsed(rangeID: id, targetID: eventID))])
        }
    }
}

extension InterstitialCoordinator {
    // MARK: The preloads the coordinator follows

    /// Draws the preload moments from `seed` (``Player/Configuration/preloadRandomSeed``), or from
    /// the system generator when `nil`.
    mutating func seedPreloads(_ seed: UInt64?) {
        self.preloads.random = PreloadRandom(seed: seed)
    }

    /// A primary playlist arrived with the preload ranges `ranges`: the schedule takes them, and
    /// the preloads are scheduled, moved or discarded
    /// (``updatePreloads(_:preloads:isLive:offset:playhead:lead:prepared:using:)``).
    ///
    /// - Parameters:
    ///   - ranges: The preload date ranges the playlists carry now.
    ///   - playhead: The primary playhead (stable time).
    ///   - forward: The forward buffer duration: how far ahead the player requests an asset list
    ///     without a hint, bounded by the live edge.
    mutating func preloadRangesRead(_ ranges: [PreloadRange], playhead: MediaTime, forward: MediaTime) -> [Action] {
        guard self.known.schedule != nil else { return [] }
        self.known.preloadRangesChanged(ranges)
        guard let schedule = self.known.schedule else { return [] }
        let edge = schedule.primaryDuration + self.known.offset
        let lead = MediaTime.min(forward, MediaTime.max(.zero, edge - playhead))
        var book = self.preloads
        var random = book.random
        let actions = self.updatePreloads(
            &book,
            preloads: schedule.preloads,
            isLive: schedule.isLive,
            offset: self.known.offset,
            playhead: playhead,
            lead: lead,
            prepared: Set(self.known.lists.keys).union(self.passed),
            using: &random
        )
        book.random = random
        self.preloads = book
        return actions
    }

    /// The preloads whose moment the playhead reached, now requested (each range once): their
    /// `X-URI`s, which the player resolves and requests.
    mutating func requestDuePreloads(playhead: MediaTime) -> [(rangeID: String, uri: String)] {
        guard !self.preloads.entries.isEmpty else { return [] }
        var due: [(rangeID: String, uri: String)] = []
        for id in self.duePreloads(self.preloads, playhead: playhead) {
            guard var entry = self.preloads.entries[id], let uri = entry.range.uri else { continue }
            entry.state = .fetching
            self.preloads.entries[id] = entry
            due.append((id, uri))
        }
        return due
    }

    /// The preload of `rangeID`, requested from `url`, answered: the answer is kept for the
    /// target's break (a range dropped meanwhile keeps nothing), and `url` is what the target's
    /// relative URIs resolve against.
    mutating func preloadAnswered(
        rangeID: String,
        url: String,
        _ result: Result<LoadResponse, PlaybackError>
    ) -> [Action] {
        if let target = self.preloads.entries[rangeID]?.range.targetID { self.listURLs[target] = url }
        guard var entry = self.preloads.entries[rangeID], case .fetching = entry.state else { return [] }
        entry.state = .fetched(result)
        self.preloads.entries[rangeID] = entry
        let status: Int?
        let error: PlaybackError.Code?
        switch result {
        case .success(let response): (status, error) = (response.status, nil)
        case .failure(let failure): (status, error) = (nil, failure.code)
        }
        return [
            .emit(.preloadFetched(rangeID: rangeID, targetID: entry.range.targetID ?? "", status: status, error: error))
        ]
    }

    /// The break of `eventID` (the playlist's date range `target`) buffers: a preloaded answer
    /// stands in for the usual request, or is awaited, or the list is requested as usual
    /// (``preloadUse(_:eventID:target:)``).
    ///
    /// A preload used marks the list as awaited.
    mutating func takePreload(for eventID: String, target: DateRange?) -> (use: PreloadUse, actions: [Action]) {
        guard !self.preloads.entries.isEmpty else { return (.none, []) }
        var book = self.preloads
        let decision = self.preloadUse(&book, eventID: eventID, target: target)
        self.preloads = book
        if case .use = decision.use { self.known.listRequested(eventID) }
        return decision
    }

    /// The earliest preload moment still to come.
    var nextPreloadMoment: MediaTime? { self.nextPreloadMoment(self.preloads) }

    /// The asset list of `eventID` was requested from `url`: its assets' and beacons' relative
    /// URIs resolve against it.
    mutating func assetListRequested(eventID: String, url: String) {
        self.known.listRequested(eventID)
        self.listURLs[eventID] = url
    }
}
