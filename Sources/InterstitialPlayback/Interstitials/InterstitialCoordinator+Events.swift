import HLSInterstitials
import HLSPlaylist

/// Where playback enters an event's assets partway (a live join, or a resume point inside it).
struct JoinPoint: Sendable, Equatable {
    /// The asset it lands in.
    var assetIndex: Int
    /// The playout of the assets before it.
    var playedBefore: MediaTime
    /// How far into that asset.
    var assetPosition: MediaTime
}

extension InterstitialCoordinator {
    // MARK: Entering an event partway

    /// The asset and the position a join `offset` into an event lands on: assets whose listed
    /// durations it passes are skipped; an asset without a duration is entered at the rest.
    func joinPoint(offset: MediaTime, slots: [AssetSlot]) -> JoinPoint {
        var remaining = offset
        var index = 0
        while index < slots.count, let duration = slots[index].duration, remaining >= duration {
            remaining = remaining - duration
            index += 1
        }
        return JoinPoint(assetIndex: index, playedBefore: offset - remaining, assetPosition: remaining)
    }

    /// The `_HLS_start_offset` of an event's asset-list request: on live, the join offset of the
    /// event a break entered partway (its first event only); `nil` otherwise.
    func assetListStartOffset(for eventID: String, playing: String?, in brk: BreakRun?, isLive: Bool) -> MediaTime? {
        guard isLive, playing == eventID, let brk, brk.joinOffset > .zero else { return nil }
        return brk.joinOffset
    }

    // MARK: Ending a break

    /// `cancelCurrentEvent(resumptionOffset:)`: the rest of the break is dropped; the primary
    /// resumes at the break's start + `offset`, or by the time spent when `offset` is `nil`.
    func cancel(_ brk: BreakRun, resumptionOffset offset: MediaTime?) -> BreakRun {
        var brk = brk
        brk.queue.removeAll()
        if let offset {
            brk.fixedResume = brk.start + offset
        } else {
            brk.resumeByElapsed = true
        }
        return brk
    }

    /// Where the primary resumes after `brk` at clock time `now`: its fixed point (a seek's target,
    /// a cancel's offset, a post-roll's end), the time spent (a cancel without offset), or
    /// ``resumption(start:finished:skippedSpan:joinOffset:isLive:segmentEdges:)``.
    func resumePoint(of brk: BreakRun, now: MediaTime, isLive: Bool, segmentEdges: [[MediaTime]]) -> MediaTime {
        if let fixed = brk.fixedResume { return fixed }
        if brk.resumeByElapsed { return brk.start + brk.skippedSpan + brk.joinOffset + (now - brk.startedAt) }
        return self.resumption(
            start: brk.start,
            finished: brk.finished,
            skippedSpan: brk.skippedSpan,
            joinOffset: brk.joinOffset,
            isLive: isLive,
            segmentEdges: segmentEdges
        )
    }

    // MARK: Failures (Appendix D.5)

    /// An event's asset list failed: the event is cancelled with resume offset 0 (the schedule is
    /// placed again without it), and, when it was not playing yet, unscheduled.
    func assetListDidFail(_ eventID: String, event: InterstitialEvent?, error: PlaybackError, playing: Bool) -> [Action]
    {
        var actions: [Action] = [
            .cancelEvent(eventID), .emit(.assetListFailed(eventID: eventID, event: event, error: error)),
        ]
        if let event, !playing { actions.append(.emit(.eventWasUnscheduled(event, error))) }
        return actions
    }

    /// An asset failed: it is reported.
    ///
    /// An `X-ASSET-URI` event not playing yet is cancelled with resume offset 0 and unscheduled.
    /// An asset list's failed asset is skipped when its turn comes
    /// (``assetStep(_:slots:assetDuration:assetReady:)``).
    func assetDidFail(
        _ eventID: String,
        index: Int,
        event: InterstitialEvent?,
        error: PlaybackError,
        playing: Bool
    ) -> [Action] {
        var actions: [Action] = [.emit(.interstitialAssetFailed(eventID: eventID, index: index, error: error))]
        guard event?.assetListURI == nil, !playing else { return actions }
        actions.append(.cancelEvent(eventID))
        if let event { actions.append(.emit(.eventWasUnscheduled(event, error))) }
        return actions
    }
}

/// What follows a break.
enum BreakEnd: Sendable {
    /// The break was the post-rolls at the primary's end: playback ends.
    case primaryEnded
    /// The resume point lands inside another interstitial: it begins partway.
    case enter(BreakPlan)
    /// The primary resumes at this time.
    case resume(MediaTime)
}

/// Events whose prepared assets no longer apply after the events changed.
struct StaleEvents: Sendable, Equatable {
    /// Removed before they played: their assets are dropped and they are reported unscheduled.
    var unscheduled: [InterstitialEvent] = []
    /// Replaced under the same identifier with other assets: what was loaded for the old one goes.
    var replaced: [InterstitialEvent] = []
}

extension InterstitialCoordinator {
    // MARK: Events of a break

    /// An event of `brk` finished as `record`: the break with it recorded, and the next event to
    /// play (`nil`: the break ends).
    func eventDidFinish(_ record: FinishedEvent, in brk: BreakRun) -> (run: BreakRun, next: String?) {
        var brk = brk
        brk.finished.append(record)
        let next = brk.queue.isEmpty ? nil : brk.queue.removeFirst()
        return (brk, next)
    }

    /// What an event's start reports: where the primary paused for the break, or for a live join
    /// (its first event), where the viewer joined (past the pod's events it landed after) and how
    /// far into the event that is.
    func eventStartReport(in brk: BreakRun?) -> (primaryTime: MediaTime?, joinedAt: MediaTime?) {
        guard let brk else { return (nil, nil) }
        guard brk.joinOffset > .zero, brk.finished.isEmpty else { return (brk.start, nil) }
        return (brk.start + brk.skippedSpan + brk.joinOffset, brk.joinOffset)
    }

    /// What follows `brk` when its last event ended at clock time `now` with the primary at
    /// `position`: the end of playback after the post-rolls, another interstitial the resume point
    /// lands in, or the primary at the resume point.
    func afterBreak(
        _ brk: BreakRun,
        in context: BreakContext?,
        now: MediaTime,
        position: MediaTime,
        primaryDuration: MediaTime?,
        postrollsStarted: Bool,
        segmentEdges: [[MediaTime]]
    ) -> BreakEnd {
        if postrollsStarted, let duration = primaryDuration, position >= duration - BufferedRanges.tolerance {
            return .primaryEnded
        }
        let resume = self.resumePoint(
            of: brk,
            now: now,
            isLive: context?.schedule.isLive ?? false,
            segmentEdges: segmentEdges
        )
        if let context, let plan = self.entry(in: context, resumingAt: resume, now: now) { return .enter(plan) }
        return .resume(resume)
    }

    // MARK: Events changed

    /// The events changed from `previous` to `events`: those removed before they played (not in
    /// `passed`) and those replaced with other assets (not the one `playing`), among the events
    /// with something `prepared` (a list requested or assets loaded).
    func staleEvents(
        previous: [InterstitialEvent],
        events: [InterstitialEvent],
        playing: String?,
        prepared: Set<String>,
        passed: Set<String>
    ) -> StaleEvents {
        var stale = StaleEvents()
        for old in previous where prepared.contains(old.identifier) && !passed.contains(old.identifier) {
            if !events.contains(where: { $0.identifier == old.identifier }) { stale.unscheduled.append(old) }
        }
        for event in events where event.identifier != playing && prepared.contains(event.identifier) {
            guard let old = previous.first(where: { $0.identifier == event.identifier }),
                old.assetURIs != event.assetURIs || old.assetListURI != event.assetListURI
            else { continue }
            stale.replaced.append(old)
        }
        return stale
    }

    // MARK: Loading ahead

    /// The assets of an event to buffer, in order from `first`: not failed, and not starting at or
    /// past its playout limit (counted over the listed durations from the event's first asset).
    func assetsToBuffer(_ slots: [AssetSlot], of event: InterstitialEvent?, from first: Int) -> [Int] {
        var indices: [Int] = []
        var before = MediaTime.zero
        for (index, slot) in slots.enumerated() {
            if let limit = event?.playoutLimit, before >= limit { break }
            before = before + (slot.duration ?? .zero)
            if index >= first, !slot.failed { indices.append(index) }
        }
        return indices
    }
}

/// How far ahead the primary may buffer around breaks.
struct PrimaryBuffering: Sendable {
    /// The forward buffer duration.
    var forward: MediaTime
    /// How much must be buffered to resume after a stall.
    var resume: MediaTime
}

extension InterstitialCoordinator {
    // MARK: Start and primary buffering

    /// Where the schedule starts playback: on live, the item's start time or the live join point
    /// (`nil`); on VOD, the item's start time or 0.
    func startRequest(isLive: Bool, startTime: MediaTime?) -> Schedule.StartRequest? {
        isLive ? startTime.map { .time($0) } : .time(startTime ?? .zero)
    }

    /// Where the primary is expected to resume after the break playing, `playing` being its
    /// current event: a fixed point, or the offsets of all its events.
    func expectedResume(
        of brk: BreakRun,
        playing: String,
        in context: BreakContext,
        loaded: [String: MediaTime]
    ) -> MediaTime {
        if let fixed = brk.fixedResume { return fixed }
        let ids = brk.finished.map(\.event.identifier) + [playing] + brk.queue
        return self.predictedResume(in: context, start: brk.start, ids: ids, loaded: loaded)
    }

    /// How far the primary may buffer from `position`.
    ///
    /// The forward buffer, but not past the next break's marker until that break's assets are
    /// buffered (`nextBuffered`); then from its expected resume point (`nextResume`). During a
    /// break with nothing after it (`playingBreakStart`), from the break's start.
    func primaryBufferLimit(
        position: MediaTime,
        buffering: PrimaryBuffering,
        next: (start: MediaTime, ids: [String])?,
        nextBuffered: Bool,
        nextResume: MediaTime?,
        playingBreakStart: MediaTime?
    ) -> MediaTime {
        guard let next else { return (playingBreakStart ?? position) + buffering.forward }
        if nextBuffered, let resume = nextResume {
            let left = buffering.forward - (next.start - position)
            return resume + MediaTime.max(left, buffering.resume * 2)
        }
        return MediaTime.min(position + buffering.forward, next.start)
    }
}

/// What the event playing does with its asset list as it stands.
enum ListStep: Sendable {
    /// Nothing asked yet: prepare its assets (an asset list request, or its `X-ASSET-URI`).
    case prepare
    /// The list is loading: the event stalls.
    case wait
    /// The list failed (D.5): the event ends, not played entire.
    case finish
    /// The assets are known: play them.
    case play([AssetSlot])
}

extension InterstitialCoordinator {
    // MARK: Playing an event

    /// What the event playing does with its asset list `list`.
    func listStep(_ list: AssetListState?) -> ListStep {
        switch list {
        case nil: .prepare
        case .loading?: .wait
        case .failed?: .finish
        case .loaded(let slots, _)?: .play(slots)
        }
    }

    /// How far the current asset may play: its buffer, its end, and the event's playout limit
    /// (counted from the event's start across its assets).
    func assetLimit(_ run: EventRun, bufferedEnd: MediaTime, duration: MediaTime?) -> MediaTime {
        var limit = bufferedEnd
        if let duration { limit = MediaTime.min(limit, duration) }
        if let playout = run.event.playoutLimit { limit = MediaTime.min(limit, playout - run.playedBefore) }
        return limit
    }

    /// The event time of the next skip-control change after the playhead (the window opening or
    /// closing), or `nil`.
    func nextSkipChange(_ report: SkipStateReport, after eventTime: MediaTime) -> MediaTime? {
        [report.eligibleFrom, report.eligibleUntil].compactMap { $0 }.filter { $0 > eventTime }.min()
    }

    /// The app set `events` (plan A/B): an empty list gives the playlist's events back; otherwise
    /// the playlist's events known now (`playlistIDs`) are suppressed, and later ones join.
    func controllerEvents(
        _ events: [InterstitialEvent],
        playlistIDs: Set<String>
    ) -> (events: [InterstitialEvent]?, suppressed: Set<String>) {
        events.isEmpty ? (nil, []) : (events, playlistIDs)
    }
}

extension InterstitialCoordinator {
    // MARK: Asset lists and records

    /// An asset list loaded for `event` from `base`: its slots (each URI resolved against the list's
    /// URL, with `_HLS_primary_id`; a refused URI's slot failed, ``assetURIRefusal(_:)``) and the skip control in force (the list's `SKIP-CONTROL` over the
    /// tag's attributes, label included).
    func assetListDidLoad(
        _ list: AssetList,
        for event: InterstitialEvent?,
        primaryID: String,
        base: String? = nil
    ) -> AssetListState {
        let slots = list.assets.map { asset in
            self.assetSlot(asset.uri, duration: asset.mediaDuration, base: base, primaryID: primaryID)
        }
        return .loaded(slots, event.flatMap { list.effectiveSkipControl(for: $0) })
    }

    /// The duration of an event's assets once every one not failed is loaded (`nil` in
    /// `durations`: not loaded yet), capped by its playout limit.
    func loadedDuration(_ durations: [MediaTime?], playoutLimit: MediaTime?) -> MediaTime? {
        var total = MediaTime.zero
        for duration in durations {
            guard let duration else { return nil }
            total = total + duration
        }
        return playoutLimit.map { MediaTime.min(total, $0) } ?? total
    }

    /// The record of an event that ended at clock time `now`: a copy of its attributes and of
    /// what the schedule said of it, so how its break ends does not depend on later changes.
    func record(of run: EventRun, now: MediaTime, cancelled: Bool) -> FinishedEvent {
        FinishedEvent(
            event: run.event,
            scheduledOffset: run.scheduledOffset,
            offsetSource: run.offsetSource,
            duration: run.duration,
            playout: run.eventTime,
            elapsed: now - run.startedAt,
            playedSomething: run.playedTime > .zero,
            cancelled: cancelled
        )
    }
}

extension InterstitialCoordinator {
    // MARK: Assets without a list, stalls

    /// The assets of an `X-ASSET-URI` event (`nil` for an asset-list event): each URI resolved
    /// against the primary's playlist `base`, with `_HLS_primary_id`, its duration unknown until
    /// it loads; the tag's skip control applies.
    func assetURIList(of event: InterstitialEvent, base: String, primaryID: String) -> AssetListState? {
        guard event.assetListURI == nil else { return nil }
        let slots = event.assetURIs.map { self.assetSlot($0, duration: nil, base: base, primaryID: primaryID) }
        return .loaded(slots, event.skipControl)
    }

    /// Whether the event playing is stalled after this check: a stalled event resumes once
    /// `resumeBuffer` (or the rest of its asset, when shorter) is buffered past the playhead; a
    /// playing one stalls when its buffer ran out.
    func isStalled(_ run: EventRun, bufferedEnd: MediaTime, assetDuration: MediaTime?, resumeBuffer: MediaTime) -> Bool
    {
        guard run.stalled else { return bufferedEnd <= run.assetPosition }
        var needed = resumeBuffer
        if let duration = assetDuration { needed = MediaTime.min(needed, duration - run.assetPosition) }
        return bufferedEnd - run.assetPosition < needed
    }
}
