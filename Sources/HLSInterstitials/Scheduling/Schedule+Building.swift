import HLSPlaylist

/// What the scheduler works out for one event on its own, before the walk places it.
struct ResolvedEvent: Sendable, Hashable {
    /// 0: `CUE=PRE`; 1: placed at its start; 2: `CUE=POST`; 3: its date cannot be mapped;
    /// 4: unusable (its date range has defects).
    var section: UInt8
    /// The mapped start before `X-SNAP OUT` (section 1 only).
    var scheduled: MediaTime?
    /// The start used to order events: after snapping (section 1); zero in the other sections,
    /// which play at the start position (0) and the primary end (2) in playlist order.
    var start: MediaTime
    var duration: MediaTime?
    var durationSource: ScheduledEvent.DurationSource
    var playout: MediaTime
    var offset: MediaTime
    var offsetSource: ScheduledEvent.ResumeOffsetSource
    /// `CUE=ONCE` and already played.
    var hasPlayedOnce: Bool
}

/// The walk's state before a group of events at one start, so a later update can resume there.
struct WalkCheckpoint: Sendable {
    var itemCount: Int
    var cursor: MediaTime
    var lastEventID: String?
    var playoutEnd: MediaTime
    var integratedEnd: MediaTime
    /// The latest resume point of an `X-SNAP IN` event before the group (`nil`: none), so an
    /// update knows without a scan whether a longer primary can move one.
    var latestSnappedResume: MediaTime?
}

extension Schedule {
    // MARK: - Resolution

    /// Resolves the requested start position on the primary timeline.
    mutating func resolveStart() {
        let request = self.configuration.start ?? (self.timeline.isLive ? .liveJoin : .beginning)
        switch request.base {
        case .beginning: self.startTime = .zero
        case .liveJoin: self.startTime = self.timeline.liveJoinTime
        case .time(let time): self.startTime = time
        case .date(let date): self.startTime = self.timeline.reference.time(at: date) ?? .zero
        }
        self.startDate = self.timeline.date(at: self.startTime)
    }

    /// Works out an event's placement, duration and own resume offset.
    func resolve(_ event: InterstitialEvent) -> ResolvedEvent {
        var duration: MediaTime?
        var durationSource = ScheduledEvent.DurationSource.unknown
        if let assets = self.configuration.assetDurations[event.identifier] {
            duration = assets.reduce(MediaTime.zero, +)
            durationSource = .assets
        } else if let value = event.duration {
            duration = value
            durationSource = .dateRange
        } else if let value = event.plannedDuration {
            duration = value
            durationSource = .planned
        }
        var playout = duration ?? .zero
        if let limit = event.playoutLimit, duration != nil, limit < playout { playout = limit }

        let played = event.willPlayOnce && self.configuration.playedEventIDs.contains(event.identifier)
        let offset: MediaTime
        let offsetSource: ScheduledEvent.ResumeOffsetSource
        if let given = event.resumptionOffset {
            (offset, offsetSource) = (given, .given)
        } else if self.timeline.isLive {
            // Keep pace with the wall clock: the time spent in the break (nothing when it does not play).
            (offset, offsetSource) = (played ? .zero : playout, .elapsed)
        } else if let duration {
            if let limit = event.playoutLimit, limit < duration {
                (offset, offsetSource) = (limit, .playoutLimit)
            } else {
                (offset, offsetSource) = (duration, .duration)
            }
        } else {
            (offset, offsetSource) = (.zero, .unknown)
        }

        var section: UInt8 = 1
        var scheduled: MediaTime?
        var start = MediaTime.zero
        if !event.isUsable {
            section = 4
        } else if event.cue == .join {
            section = 0
        } else if event.cue == .leave {
            section = 2
        } else if let time = self.timeline.time(of: event.start) {
            scheduled = time
            start = event.alignsStartWithPrimarySegmentBoundary ? self.timeline.snap(time, latest: false) : time
        } else {
            section = 3
        }
        return ResolvedEvent(
            section: section,
            scheduled: scheduled,
            start: start,
            duration: duration,
            durationSource: durationSource,
            playout: playout,
            offset: offset,
            offsetSource: offsetSource,
            hasPlayedOnce: played
        )
    }

    /// Whether the event at input index `a` comes before the one at `b` in schedule order.
    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let x = self.resolved[a]
        let y = self.resolved[b]
        if x.section != y.section { return x.section < y.section }
        if x.start != y.start { return x.start < y.start }
        return a < b
    }

    /// How many events the arrays built for `count` events make room for.
    static func capacity(for count: Int) -> Int {
        count + count / 8 + 8
    }

    /// Resolves every event, orders them and walks the whole timeline.
    mutating func rebuild() {
        // Room for the events of the next few live reloads, so that updates append in place.
        let capacity = Schedule.capacity(for: self.inputs.count)
        var resolved: [ResolvedEvent] = []
        resolved.reserveCapacity(capacity)
        for event in self.inputs { resolved.append(self.resolve(event)) }
        self.resolved = resolved
        var order: [Int] = []
        order.reserveCapacity(capacity)
        order.append(contentsOf: self.inputs.indices)
        order.sort { self.precedes($0, $1) }
        self.order = order
        self.walk(restartingAt: nil)
    }

    // MARK: - The walk

    /// Lays out the items from the ordered events.
    ///
    /// With `restartingAt` (a schedule position that
    /// has a checkpoint), keeps everything before it and walks from there.
    mutating func walk(restartingAt restart: Int?) {
        var walker = Walker(schedule: self)
        let count = self.order.count
        var preEnd = 0
        while preEnd < count, self.resolved[self.order[preEnd]].section == 0 { preEnd += 1 }
        var midEnd = preEnd
        // Sections are sorted, so binary search for the end of the placed events.
        var high = count
        while midEnd < high {
            let mid = (midEnd + high) / 2
            if self.resolved[self.order[mid]].section <= 1 { midEnd = mid + 1 } else { high = mid }
        }
        var postEnd = midEnd
        while postEnd < count, self.resolved[self.order[postEnd]].section == 2 { postEnd += 1 }

        var position: Int
        if let restart, restart < self.checkpoints.count, let checkpoint = self.checkpoints[restart] {
            // Move the arrays into the walker so truncating them does not copy.
            swap(&walker.items, &self.items)
            swap(&walker.events, &self.events)
            swap(&walker.checkpoints, &self.checkpoints)
            walker.restore(checkpoint, position: restart, count: count)
            position = restart
        } else {
            walker.reset(count: count)
            if !self.configuration.handlesInterstitialEvents {
                self.walkDisabled(&walker)
                walker.store(into: &self)
                return
            }
            position = self.walkStart(&walker, preEnd: preEnd, midEnd: midEnd)
        }

        // Groups of events at one start, in order.
        while position < midEnd {
            let groupStart = self.resolved[self.order[position]].start
            var groupEnd = position + 1
            while groupEnd < midEnd, self.resolved[self.order[groupEnd]].start == groupStart { groupEnd += 1 }
            walker.checkpoints[position] = walker.checkpoint
            if !self.timeline.isLive, groupStart > self.timeline.end {
                for k in position..<groupEnd {
                    walker.appendEvent(
                        self,
                        position: k,
                        status: .afterPrimaryEnd,
                        start: groupStart,
                        cumulative: .zero,
                        resume: nil,
                        pod: (k - position, groupEnd - position)
                    )
                }
            } else if groupStart < walker.cursor {
                for k in position..<groupEnd {
                    let played = self.resolved[self.order[k]].hasPlayedOnce
                    walker.appendEvent(
                        self,
                        position: k,
                        status: played ? .alreadyPlayed : .skippedByResumption,
                        start: groupStart,
                        cumulative: .zero,
                        resume: nil,
                        pod: (k - position, groupEnd - position)
                    )
                }
            } else {
                self.walkGroup(&walker, range: position..<groupEnd, at: groupStart, landing: nil)
            }
            position = groupEnd
        }

        // The rest of the primary, then post-rolls.
        walker.checkpoints[midEnd] = walker.checkpoint
        walker.flushPrimary(to: self.timeline.end)
        if postEnd > midEnd {
            if self.timeline.isLive {
                for k in midEnd..<postEnd {
                    walker.appendEvent(
                        self,
                        position: k,
                        status: .awaitingPrimaryEnd,
                        start: nil,
                        cumulative: .zero,
                        resume: nil,
                        pod: (k - midEnd, postEnd - midEnd)
                    )
                }
            } else {
                self.walkGroup(&walker, range: midEnd..<postEnd, at: self.timeline.end, landing: nil, isPost: true)
            }
        }
        for k in postEnd..<count {
            let unusable = self.resolved[self.order[k]].section == 4
            walker.appendEvent(
                self,
                position: k,
                status: unusable ? .unusable : .unplaceable,
                start: nil,
                cumulative: .zero,
                resume: nil,
                pod: (0, 1)
            )
        }
        walker.store(into: &self)
    }

    /// Interstitials off: the primary alone from the start position.
    private func walkDisabled(_ walker: inout Walker) {
        for k in self.order.indices {
            let unusable = self.resolved[self.order[k]].section == 4
            walker.appendEvent(
                self,
                position: k,
                status: unusable ? .unusable : .disabled,
                start: nil,
                cumulative: .zero,
                resume: nil,
                pod: (0, 1)
            )
        }
        walker.cursor = self.startTime
        walker.origin = self.startTime
        walker.flushPrimary(to: self.timeline.end)
        walker.start = self.startPosition(primaryTime: self.startTime, prerolls: [], landing: nil)
    }

    /// Pre-rolls, then where the start position lands; returns the schedule position where the
    /// ordinary walk continues.
    private func walkStart(_ walker: inout Walker, preEnd: Int, midEnd: Int) -> Int {
        walker.cursor = self.startTime
        var prerolls: [String] = []
        if preEnd > 0 {
            self.walkGroup(&walker, range: 0..<preEnd, at: self.startTime, landing: nil)
            for k in 0..<preEnd where walker.events[k].status == .scheduled {
                prerolls.append(walker.events[k].identifier)
            }
        }
        let p = walker.cursor
        walker.origin = p

        // Groups that start before p: behind the start, unless p falls inside one.
        var position = preEnd
        var landing: (position: Int, offset: MediaTime)?
        var landingGroup: Range<Int>?
        while position < midEnd {
            let start = self.resolved[self.order[position]].start
            if start >= p { break }
            var end = position + 1
            while end < midEnd, self.resolved[self.order[end]].start == start { end += 1 }
            if landing == nil, let found = self.landing(at: p, in: position..<end, start: start) {
                landing = found
                landingGroup = position..<end
                break
            }
            for k in position..<end {
                let played = self.resolved[self.order[k]].hasPlayedOnce
                walker.appendEvent(
                    self,
                    position: k,
                    status: played ? .alreadyPlayed : .beforeStart,
                    start: start,
                    cumulative: .zero,
                    resume: nil,
                    pod: (k - position, end - position)
                )
            }
            position = end
        }
        if let landing, let group = landingGroup {
            self.walkGroup(
                &walker,
                range: group,
                at: self.resolved[self.order[group.lowerBound]].start,
                landing: landing
            )
            position = group.upperBound
        }
        walker.start = self.startPosition(primaryTime: p, prerolls: prerolls, landing: landing)
        return position
    }

    /// The event of a group whose replaced span (start to its resume point, or its playout for a
    /// `RANGE` event) contains `p`, and how far into it `p` is.
    private func landing(at p: MediaTime, in group: Range<Int>, start: MediaTime) -> (position: Int, offset: MediaTime)?
    {
        var cumulative = MediaTime.zero
        for k in group {
            let input = self.order[k]
            let r = self.resolved[input]
            let from = start + cumulative
            // An event that does not play does not move the primary (SchedulingModel.md).
            if r.hasPlayedOnce { continue }
            cumulative = cumulative + r.offset
            var to = start + cumulative
            if self.inputs[input].alignsResumptionWithPrimarySegmentBoundary {
                to = self.timeline.snap(to, latest: true)
            }
            if self.inputs[input].timelineOccupancy == .range { to = MediaTime.max(to, from + r.playout) }
            if from <= p && p < to { return (k, p - from) }
        }
        return nil
    }

    private func startPosition(
        primaryTime: MediaTime,
        prerolls: [String],
        landing: (position: Int, offset: MediaTime)?
    ) -> StartPosition? {
        guard self.configuration.start != nil || self.timeline.isLive else { return nil }
        var start = StartPosition(requestedTime: self.startTime, primaryTime: primaryTime, prerollEventIDs: prerolls)
        if let landing {
            start.eventID = self.inputs[self.order[landing.position]].identifier
            start.offsetIntoEvent = landing.offset
            start.startOffset = self.timeline.isLive ? landing.offset : .zero
        }
        return start
    }

    /// Places one group of events at one start: their items, cumulative offsets and resume point.
    private func walkGroup(
        _ walker: inout Walker,
        range: Range<Int>,
        at start: MediaTime,
        landing: (position: Int, offset: MediaTime)?,
        isPost: Bool = false
    ) {
        var pending: [ScheduleItem] = []
        var cumulative = MediaTime.zero
        var resume = start
        let size = range.count
        for k in range {
            let input = self.order[k]
            let event = self.inputs[input]
            let r = self.resolved[input]
            // A `CUE=ONCE` event that already played is not triggered, so its resume offset does
            // not apply: the primary it would have replaced is shown (SchedulingModel.md).
            if !r.hasPlayedOnce {
                cumulative = cumulative + r.offset
                resume = start + cumulative
                if event.alignsResumptionWithPrimarySegmentBoundary {
                    resume = self.timeline.snap(resume, latest: true)
                }
            }
            if isPost { resume = start }
            var status = ScheduledEvent.Status.scheduled
            if r.hasPlayedOnce {
                status = .alreadyPlayed
            } else if let landing, k < landing.position {
                status = .beforeStart
            }
            walker.appendEvent(
                self,
                position: k,
                status: status,
                start: start,
                cumulative: cumulative,
                resume: resume,
                pod: (k - range.lowerBound, size)
            )
            guard status == .scheduled else { continue }
            var startOffset = MediaTime.zero
            var playout = r.playout
            if let landing, k == landing.position, self.timeline.isLive {
                startOffset = landing.offset
                playout = MediaTime.max(.zero, playout - landing.offset)
            }
            let integrated = event.timelineOccupancy == .range ? playout : .zero
            pending.append(
                ScheduleItem(
                    id: .interstitial(event.identifier),
                    kind: .interstitial,
                    eventID: event.identifier,
                    primary: .init(start: start, end: resume),
                    playout: .init(start: .zero, end: playout),
                    integrated: .init(start: .zero, end: integrated),
                    startOffset: startOffset,
                    restrictions: event.restrictions
                )
            )
        }
        guard !pending.isEmpty || resume != start else { return }
        walker.flushPrimary(to: start)
        for item in pending { walker.appendInterstitial(item) }
        walker.lastEventID = self.inputs[self.order[range.upperBound - 1]].identifier
        walker.cursor = resume
    }
}

/// The mutable state of one walk over the ordered events.
struct Walker {
    var items: [ScheduleItem]
    var events: [ScheduledEvent]
    var checkpoints: [WalkCheckpoint?]
    var cursor: MediaTime = .zero
    var lastEventID: String?
    var playoutEnd: MediaTime = .zero
    var integratedEnd: MediaTime = .zero
    var latestSnappedResume: MediaTime?
    var start: Schedule.StartPosition?
    var origin: MediaTime

    init(schedule: Schedule) {
        self.origin = schedule.walkOrigin
        self.items = []
        self.events = []
        self.checkpoints = []
        self.start = schedule.start
    }

    mutating func reset(count: Int) {
        let capacity = Schedule.capacity(for: count)
        self.items.reserveCapacity(2 * capacity + 1)
        self.events.reserveCapacity(capacity)
        self.checkpoints.reserveCapacity(capacity + 1)
        self.checkpoints.append(contentsOf: repeatElement(nil, count: count + 1))
    }

    mutating func restore(_ checkpoint: WalkCheckpoint, position: Int, count eventCount: Int) {
        self.items.removeSubrange(checkpoint.itemCount...)
        self.events.removeSubrange(position...)
        let count = eventCount + 1
        if self.checkpoints.count > count {
            self.checkpoints.removeSubrange(count...)
        }
        for k in position..<self.checkpoints.count { self.checkpoints[k] = nil }
        while self.checkpoints.count < count { self.checkpoints.append(nil) }
        self.cursor = checkpoint.cursor
        self.lastEventID = checkpoint.lastEventID
        self.playoutEnd = checkpoint.playoutEnd
        self.integratedEnd = checkpoint.integratedEnd
        self.latestSnappedResume = checkpoint.latestSnappedResume
    }

    var checkpoint: WalkCheckpoint {
        WalkCheckpoint(
            itemCount: self.items.count,
            cursor: self.cursor,
            lastEventID: self.lastEventID,
            playoutEnd: self.playoutEnd,
            integratedEnd: self.integratedEnd,
            latestSnappedResume: self.latestSnappedResume
        )
    }

    /// Appends primary content from the cursor up to `end` (nothing when empty).
    mutating func flushPrimary(to end: MediaTime) {
        guard end > self.cursor else { return }
        let width = end - self.cursor
        self.items.append(
            ScheduleItem(
                id: self.lastEventID.map { .primary(after: $0) } ?? .primaryAtStart,
                kind: .primary,
                eventID: nil,
                primary: .init(start: self.cursor, end: end),
                playout: .init(start: self.playoutEnd, end: self.playoutEnd + width),
                integrated: .init(start: self.integratedEnd, end: self.integratedEnd + width)
            )
        )
        self.playoutEnd = self.playoutEnd + width
        self.integratedEnd = self.integratedEnd + width
        self.cursor = end
    }

    /// Appends an interstitial item whose playout and integrated spans are given as widths.
    mutating func appendInterstitial(_ item: ScheduleItem) {
        var item = item
        let playout = item.playout.end
        let integrated = item.integrated.end
        item.playout = .init(start: self.playoutEnd, end: self.playoutEnd + playout)
        item.integrated = .init(start: self.integratedEnd, end: self.integratedEnd + integrated)
        self.playoutEnd = item.playout.end
        self.integratedEnd = item.integrated.end
        self.items.append(item)
    }

    mutating func appendEvent(
        _ schedule: Schedule,
        position: Int,
        status: ScheduledEvent.Status,
        start: MediaTime?,
        cumulative: MediaTime,
        resume: MediaTime?,
        pod: (position: Int, size: Int)
    ) {
        let input = schedule.order[position]
        let event = schedule.inputs[input]
        let r = schedule.resolved[input]
        var startDate: DateTime?
        if let start {
            if r.section == 1, let date = event.date, r.scheduled == start {
                startDate = date
            } else {
                startDate = schedule.timeline.date(at: start)
            }
        } else {
            startDate = event.date
        }
        if event.alignsResumptionWithPrimarySegmentBoundary, let resume {
            self.latestSnappedResume = self.latestSnappedResume.map { MediaTime.max($0, resume) } ?? resume
        }
        self.events.append(
            ScheduledEvent(
                event: event,
                startTime: start,
                startDate: startDate,
                scheduledTime: r.section == 1 ? r.scheduled : start,
                duration: r.duration,
                durationSource: r.durationSource,
                playoutDuration: r.playout,
                resumeOffset: r.offset,
                resumeOffsetSource: r.offsetSource,
                cumulativeResumeOffset: cumulative,
                resumeTime: resume,
                status: status,
                podPosition: pod.position,
                podSize: pod.size
            )
        )
    }

    func store(into schedule: inout Schedule) {
        schedule.items = self.items
        schedule.events = self.events
        schedule.checkpoints = self.checkpoints
        schedule.start = self.start
        schedule.walkOrigin = self.origin
        schedule.isLive = schedule.timeline.isLive
        schedule.primaryDuration = schedule.timeline.end
    }
}
