import HLSPlaylist

/// What an update changed in a schedule.
public struct ScheduleUpdate: Sendable, Hashable {
    /// The index of the first item that may differ from before; items before it are unchanged.
    ///
    /// `nil` when nothing changed.
    public var firstChangedItem: Int?
    /// Whether the whole schedule was recomputed (a sliding live window, a changed liveness,
    /// many changed events).
    public var isRebuilt: Bool

    /// Creates an update summary.
    public init(firstChangedItem: Int?, isRebuilt: Bool) {
        self.firstChangedItem = firstChangedItem
        self.isRebuilt = isRebuilt
    }
}

extension Schedule {
    /// The most changed events an update handles one by one before recomputing everything.
    static let incrementalLimit = 16

    /// Brings the schedule up to date after a playlist reload, recomputing only what changed.
    ///
    /// The common live reload (segments appended, an event or two added or updated) costs a few
    /// binary searches plus the walk over the events at and after the first change. Anything else
    /// (a sliding window that drops segments, liveness changing, many changed events) rebuilds.
    /// The start position resolved when the schedule was built is kept (through its date when the
    /// primary has PROGRAM-DATE-TIME), so a live join does not move with the live edge.
    ///
    /// - Parameters:
    ///   - primary: The reloaded primary playlist.
    ///   - events: All interstitial events, in playlist order (new tags after the old ones).
    /// - Returns: Which items may have changed.
    @discardableResult
    public mutating func update(primary: MediaPlaylist, events: [InterstitialEvent]) -> ScheduleUpdate {
        self.update(primary: [primary], events: events)
    }

    /// Brings the schedule up to date after reloading several primary playlists.
    ///
    /// - Parameters:
    ///   - primary: The reloaded primary playlists, in the same roles as before.
    ///   - events: All interstitial events, in playlist order.
    /// - Returns: Which items may have changed.
    @discardableResult
    public mutating func update(primary: [MediaPlaylist], events: [InterstitialEvent]) -> ScheduleUpdate {
        precondition(!primary.isEmpty, "a schedule needs at least one primary media playlist")
        let timeline = PrimaryTimeline(playlists: primary, isLive: self.configuration.isLive)
        let change = self.timeline.change(to: timeline)
        guard change != .other, self.timeline.isLive || change == .same,
            let changed = self.changedInputs(events)
        else {
            return self.rebuildAll(timeline: timeline, events: events)
        }
        let oldEnd = self.timeline.playlists.reduce(self.timeline.end) { MediaTime.min($0, $1.duration) }
        self.timeline = timeline
        self.inputs = events
        var recheck: [Int] = []
        var tailChanged = false
        var floor: Int?
        if change == .appended {
            tailChanged = true
            // Past the old end, dates were extrapolated and boundaries did not exist: events that
            // start there may map, snap or be dated differently, and resume points there may snap.
            let threshold = oldEnd - self.timeline.targetDuration
            // From the end back: the placed events that start at or after the threshold.
            var lowest: Int?
            var k = self.order.count - 1
            while k >= 0 {
                let input = self.order[k]
                let r = self.resolved[input]
                if r.section < 1 { break }
                if r.section == 1 {
                    if r.start < threshold { break }
                    recheck.append(input)
                    lowest = k
                }
                k -= 1
            }
            floor = self.firstResumingPast(threshold, before: lowest ?? (k + 1))
            // Without interstitials the events have no start, so none sets the floor.
            if floor == nil, let lowest, self.events[lowest].startTime != nil { floor = lowest }
        }
        return self.apply(changed: changed, recheck: recheck, tailChanged: tailChanged, floor: floor)
    }

    /// Replaces the events (same primary), recomputing only what changed.
    ///
    /// - Parameter events: All interstitial events, in playlist order.
    /// - Returns: Which items may have changed.
    @discardableResult
    public mutating func update(events: [InterstitialEvent]) -> ScheduleUpdate {
        guard let changed = self.changedInputs(events) else {
            return self.rebuildAll(timeline: self.timeline, events: events)
        }
        self.inputs = events
        return self.apply(changed: changed, tailChanged: false)
    }

    /// Records asset durations learned for an event (from its asset list or asset playlist) and
    /// recomputes what depends on them; `nil` forgets them.
    ///
    /// - Parameters:
    ///   - durations: One duration per asset, in play order.
    ///   - eventID: The event's identifier.
    /// - Returns: Which items may have changed.
    @discardableResult
    public mutating func setAssetDurations(_ durations: [MediaTime]?, forEvent eventID: String) -> ScheduleUpdate {
        self.configuration.assetDurations[eventID] = durations
        return self.apply(changed: self.inputIndices(of: eventID), tailChanged: false)
    }

    /// Records that an event played (its `CUE=ONCE` takes effect when playback starts) and
    /// recomputes what depends on it.
    ///
    /// - Parameter eventID: The event's identifier.
    /// - Returns: Which items may have changed.
    @discardableResult
    public mutating func markPlayed(_ eventID: String) -> ScheduleUpdate {
        guard self.configuration.playedEventIDs.insert(eventID).inserted else {
            return ScheduleUpdate(firstChangedItem: nil, isRebuilt: false)
        }
        return self.apply(changed: self.inputIndices(of: eventID), tailChanged: false)
    }

    /// Replaces the configuration and recomputes everything.
    ///
    /// - Parameter configuration: The new configuration; its start request is resolved again.
    public mutating func reconfigure(_ configuration: Configuration) {
        self.configuration = configuration
        self.timeline = PrimaryTimeline(playlists: self.timeline.playlists, isLive: configuration.isLive)
        self.resolveStart()
        self.rebuild()
    }

    // MARK: - Internals

    private func inputIndices(of eventID: String) -> [Int] {
        var result: [Int] = []
        for (i, event) in self.inputs.enumerated() where event.identifier == eventID { result.append(i) }
        return result
    }

    /// The input indices whose event changed or was appended; `nil` when events were removed or
    /// too many changed to handle one by one.
    private func changedInputs(_ events: [InterstitialEvent]) -> [Int]? {
        guard events.count >= self.inputs.count else { return nil }
        var changed: [Int] = []
        let tooMany = self.inputs.withUnsafeBufferPointer { old in
            events.withUnsafeBufferPointer { new in
                guard let a = old.baseAddress, let b = new.baseAddress else { return false }
                for i in old.indices where !InterstitialEvent.same(a + i, b + i) {
                    changed.append(i)
                    if changed.count > Schedule.incrementalLimit { return true }
                }
                return false
            }
        }
        if tooMany { return nil }
        if events.count - self.inputs.count + changed.count > Schedule.incrementalLimit { return nil }
        changed.append(contentsOf: self.inputs.count..<events.count)
        return changed
    }

    private mutating func rebuildAll(timeline: PrimaryTimeline, events: [InterstitialEvent]) -> ScheduleUpdate {
        self.timeline = timeline
        self.inputs = events
        if let date = self.startDate, let time = timeline.reference.time(at: date) {
            self.startTime = time
        } else {
            self.resolveStart()
        }
        self.rebuild()
        return ScheduleUpdate(firstChangedItem: 0, isRebuilt: true)
    }

    /// Re-resolves the changed inputs (appended ones included) and those to `recheck`, moves
    /// them to their new place in the order, and walks again from the last unchanged group.
    ///
    /// - Parameters:
    ///   - changed: Inputs whose event or configuration changed: always walked again.
    ///   - recheck: Inputs whose placement may have changed: walked again only if it did.
    ///   - tailChanged: Whether the primary's end moved (the last primary item changes).
    ///   - floor: A schedule position from which everything is walked again in any case.
    private mutating func apply(
        changed: [Int],
        recheck: [Int] = [],
        tailChanged: Bool,
        floor: Int? = nil
    ) -> ScheduleUpdate {
        var first = floor ?? Int.max
        let changedSet = Set(changed)
        for input in (changed + recheck.filter { !changedSet.contains($0) }).sorted() {
            let fresh = self.resolve(self.inputs[input])
            if input < self.resolved.count {
                if !changedSet.contains(input), self.resolved[input] == fresh { continue }
                guard let position = self.position(of: input) else { continue }
                first = min(first, position)
                self.order.remove(at: position)
                self.resolved[input] = fresh
            } else {
                self.resolved.append(fresh)
            }
            let position = self.insertionPosition(of: input)
            self.order.insert(input, at: position)
            first = min(first, position)
        }
        var midEnd = self.order.count
        while midEnd > 0, self.resolved[self.order[midEnd - 1]].section > 1 { midEnd -= 1 }
        if tailChanged { first = min(first, midEnd) }
        guard first != .max else {
            return ScheduleUpdate(firstChangedItem: nil, isRebuilt: false)
        }
        // Everything before `first` is unchanged, so the walk's state before any group that starts
        // at or before it is too: restart at the latest such group that has a checkpoint.
        var restart = min(first, midEnd)
        if restart < midEnd { restart = self.groupStart(of: restart) }
        while restart > 0, restart >= self.checkpoints.count || self.checkpoints[restart] == nil {
            restart = self.groupStart(of: restart - 1)
        }
        let resumable =
            restart >= midEnd
            || (self.resolved[self.order[restart]].section == 1
                && self.resolved[self.order[restart]].start >= self.walkOrigin)
        guard resumable, restart < self.checkpoints.count, let checkpoint = self.checkpoints[restart] else {
            self.walk(restartingAt: nil)
            return ScheduleUpdate(firstChangedItem: 0, isRebuilt: true)
        }
        self.walk(restartingAt: restart)
        return ScheduleUpdate(firstChangedItem: checkpoint.itemCount, isRebuilt: false)
    }

    /// The first schedule position before `limit` of an event with `X-SNAP IN` whose resume point
    /// is at or after `threshold` (it may snap differently once the primary grows), or `nil`.
    ///
    /// The walk's checkpoint at `limit` keeps the latest such resume point before it, so this
    /// scans only when one exists (or when `limit` has no checkpoint).
    private func firstResumingPast(_ threshold: MediaTime, before limit: Int) -> Int? {
        guard limit > 0 else { return nil }
        if limit < self.checkpoints.count, let checkpoint = self.checkpoints[limit] {
            guard let latest = checkpoint.latestSnappedResume, latest >= threshold else { return nil }
        }
        for position in 0..<min(limit, self.events.count) {
            let scheduled = self.events[position]
            if scheduled.event.alignsResumptionWithPrimarySegmentBoundary, let resume = scheduled.resumeTime,
                resume >= threshold
            {
                return position
            }
        }
        return nil
    }

    /// The schedule position of `input` (a binary search on its current resolution).
    private func position(of input: Int) -> Int? {
        let position = self.insertionPosition(of: input)
        if position < self.order.count, self.order[position] == input { return position }
        return self.order.firstIndex(of: input)
    }

    /// The first schedule position of the group (same section and start) holding `position`.
    private func groupStart(of position: Int) -> Int {
        let r = self.resolved[self.order[position]]
        var k = position
        while k > 0 {
            let previous = self.resolved[self.order[k - 1]]
            guard previous.section == r.section, previous.start == r.start else { break }
            k -= 1
        }
        return k
    }

    /// Where an input goes in the order (binary search; the order is sorted).
    private func insertionPosition(of input: Int) -> Int {
        var low = 0
        var high = self.order.count
        while low < high {
            let mid = (low + high) / 2
            if self.precedes(self.order[mid], input) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

extension InterstitialEvent {
    /// Whether the events at `p` and `q` are equal, comparing the cheap, most often changed fields
    /// first and text by its bytes, reading every field in place (same result as `==`, several
    /// times faster on the update path, which compares every event of a reload with the one before).
    @inline(__always)
    static func same(_ p: UnsafePointer<InterstitialEvent>, _ q: UnsafePointer<InterstitialEvent>) -> Bool {
        p.pointee.start == q.pointee.start && p.pointee.resumptionOffset == q.pointee.resumptionOffset
            && p.pointee.playoutLimit == q.pointee.playoutLimit
            && p.pointee.duration == q.pointee.duration && p.pointee.plannedDuration == q.pointee.plannedDuration
            && p.pointee.restrictions == q.pointee.restrictions && p.pointee.cue == q.pointee.cue
            && p.pointee.willPlayOnce == q.pointee.willPlayOnce
            && p.pointee.alignsStartWithPrimarySegmentBoundary == q.pointee.alignsStartWithPrimarySegmentBoundary
            && p.pointee.alignsResumptionWithPrimarySegmentBoundary
                == q.pointee.alignsResumptionWithPrimarySegmentBoundary
            && p.pointee.supplementsPrimaryContent == q.pointee.supplementsPrimaryContent
            && p.pointee.contentMayVary == q.pointee.contentMayVary
            && p.pointee.timelineOccupancy == q.pointee.timelineOccupancy
            && p.pointee.skipControl == q.pointee.skipControl
            && TextEquality.same(p.pointee.identifier, q.pointee.identifier)
            && TextEquality.same(p.pointee.assetListURI, q.pointee.assetListURI)
            && TextEquality.same(p.pointee.assetURIs, q.pointee.assetURIs)
            && TextEquality.same(p.pointee.userDefinedAttributes, q.pointee.userDefinedAttributes)
            && TextEquality.same(p.pointee.scheduleIdentifier, q.pointee.scheduleIdentifier)
            && (TextEquality.shareStorage(p.pointee.defects, q.pointee.defects)
                || p.pointee.defects == q.pointee.defects)
    }
}

/// String equality that compares UTF-8 bytes in place, a word at a time, before falling back to
/// `==` (which also finds canonically equivalent spellings equal) when the bytes differ.
///
/// Equal bytes are equal strings, so the result is always that of `==`; only the cost differs:
/// `==` on two large strings from different parses goes through several runtime calls.
enum TextEquality {
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        // Two copies of one string value, or two small strings (held inline, in one canonical
        // form) with the same bytes, have the same representation: equal at once.
        if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) {
            return true
        }
        let equalBytes = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in Self.same(x, y) }
        }
        if case .some(.some(true)) = equalBytes { return true }
        return a == b
    }

    @inline(__always)
    static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (.none, .none): true
        case (.some(let x), .some(let y)): Self.same(x, y)
        default: false
        }
    }

    static func same(_ a: [String], _ b: [String]) -> Bool {
        if Self.shareStorage(a, b) { return true }
        guard a.count == b.count else { return false }
        for k in a.indices where !Self.same(a[k], b[k]) { return false }
        return true
    }

    static func same(_ a: [Attribute], _ b: [Attribute]) -> Bool {
        if Self.shareStorage(a, b) { return true }
        guard a.count == b.count else { return false }
        for k in a.indices
        where !Self.same(a[k].name, b[k].name) || !Self.same(a[k].value.rawValue, b[k].value.rawValue) {
            return false
        }
        return true
    }

    /// Whether two arrays are one buffer (copies of one value, or both the shared empty array):
    /// then they are equal without looking at their elements.
    @inline(__always)
    static func shareStorage<Element>(_ a: [Element], _ b: [Element]) -> Bool {
        // An array's representation is one reference to its buffer.
        unsafeBitCast(a, to: UInt.self) == unsafeBitCast(b, to: UInt.self)
    }

    /// Whether two byte runs are equal: the same bytes in memory (two copies of one string), else
    /// eight bytes at a time, the last word overlapping the one before.
    @inline(__always)
    static func same(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = x.count
        guard count == y.count else { return false }
        guard count > 0, let p = x.baseAddress.map(UnsafeRawPointer.init),
            let q = y.baseAddress.map(UnsafeRawPointer.init)
        else { return true }
        if p == q { return true }
        return Self.sameBytes(p, q, count: count)
    }

    /// Whether `count` bytes (at least one) at two addresses are equal, eight at a time, the last
    /// word overlapping the one before.
    @inline(__always)
    static func sameBytes(_ p: UnsafeRawPointer, _ q: UnsafeRawPointer, count: Int) -> Bool {
        if count < 8 {
            for k in 0..<count
            where p.load(fromByteOffset: k, as: UInt8.self) != q.load(fromByteOffset: k, as: UInt8.self) {
                return false
            }
            return true
        }
        var k = 0
        while k < count - 8 {
            if p.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                != q.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            {
                return false
            }
            k += 8
        }
        return p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == q.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}
