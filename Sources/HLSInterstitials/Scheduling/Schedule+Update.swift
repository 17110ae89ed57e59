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
            var k = self.order.count - 1
            while k >= 0 {
                let input = self.order[k]
                let r = self.resolved[input]
                if r.section < 1 { break }
                if r.section == 1 {
                    if r.start < threshold { break }
                    recheck.append(input)
                }
                k -= 1
            }
            for (position, scheduled) in self.events.enumerated() {
                let section = self.resolved[self.order[position]].section
                if section > 1 { break }
                if section == 1, let start = scheduled.startTime, start >= threshold {
                    floor = position
                    break
                }
                if scheduled.event.alignsResumptionWithPrimarySegmentBoundary, let resume = scheduled.resumeTime,
                    resume >= threshold
                {
                    floor = position
                    break
                }
            }
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
                for i in old.indices where !InterstitialEvent.same(old[i], new[i]) {
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
                guard let position = self.order.firstIndex(of: input) else { continue }
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
    /// Whether two events are equal, comparing the cheap, most often changed fields first
    /// (same result as `==`, faster on the update path).
    @inline(__always)
    static func same(_ a: borrowing InterstitialEvent, _ b: borrowing InterstitialEvent) -> Bool {
        a.start == b.start && a.resumptionOffset == b.resumptionOffset && a.playoutLimit == b.playoutLimit
            && a.duration == b.duration && a.plannedDuration == b.plannedDuration
            && a.restrictions == b.restrictions && a.cue == b.cue && a.willPlayOnce == b.willPlayOnce
            && a.alignsStartWithPrimarySegmentBoundary == b.alignsStartWithPrimarySegmentBoundary
            && a.alignsResumptionWithPrimarySegmentBoundary == b.alignsResumptionWithPrimarySegmentBoundary
            && a.supplementsPrimaryContent == b.supplementsPrimaryContent && a.contentMayVary == b.contentMayVary
            && a.identifier == b.identifier && a.timelineOccupancy == b.timelineOccupancy
            && a.assetListURI == b.assetListURI && a.assetURIs == b.assetURIs && a.skipControl == b.skipControl
            && a.userDefinedAttributes == b.userDefinedAttributes && a.defects == b.defects
    }
}
