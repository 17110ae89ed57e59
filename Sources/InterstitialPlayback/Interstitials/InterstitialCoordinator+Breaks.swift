import HLSInterstitials
import HLSPlaylist

/// What the coordinator reads of the player's bookkeeping to place breaks: the schedule, where
/// its times sit on the stable primary timeline, and the events already handled or cancelled.
struct BreakContext: Sendable {
    /// The schedule as it stands.
    var schedule: Schedule
    /// Stable primary time = schedule time + offset.
    var offset: MediaTime = .zero
    /// Events handled at their point in this pass.
    var passed: Set<String> = []
    /// Events cancelled before they played (D.5).
    var cancelled: Set<String> = []

    /// The stable primary time of a scheduled event's start.
    func stableStart(_ eventID: String) -> MediaTime? {
        self.schedule.event(eventID)?.startTime.map { $0 + self.offset }
    }
}

/// A break to begin: its run, the events it marks handled, and where the primary playhead sits.
struct BreakPlan: Sendable, Equatable {
    /// The break.
    var run: BreakRun
    /// The events marked handled at this point (the pod's scheduled events; those a live join
    /// lands after are before the start, which the schedule never plays).
    var passed: [String]
    /// The primary playhead while the break plays (its start).
    var position: MediaTime
}

/// Where playback starts: the primary position, and the break that plays first (pre-rolls, or
/// the interstitial a live join lands in).
struct StartPlan: Sendable {
    /// The position asked for (the primary buffers from there first).
    var requested: MediaTime
    /// Where the primary buffers from once the start is resolved.
    var reposition: MediaTime
    /// The primary playhead.
    var position: MediaTime
    /// The break that plays first, if any.
    var breakPlan: BreakPlan?
}

/// A seek the policy granted: where the primary goes, the break to play first (a `JUMP`-restricted
/// event crossed, or the interstitial the target lands in), and the events still handled.
struct SeekDecision: Sendable {
    /// The policy's plan.
    var plan: SeekPlan
    /// Where the primary continues, on the stable primary timeline.
    var granted: MediaTime
    /// The events still handled after the seek (those before the target).
    var passed: Set<String>
    /// The break to play before the primary continues.
    var breakPlan: BreakPlan?
}

/// What the current asset of the event playing must do next.
enum AssetStep: Sendable, Equatable {
    /// The event is over (its playout limit or its last asset): finish it; `endAsset` reports the
    /// asset playing as ended first.
    case finishEvent(entire: Bool, endAsset: Bool)
    /// The asset failed: go to the next one; `cancelEvent` cancels an `X-ASSET-URI` event whose
    /// assets all failed (D.5, resume offset 0).
    case skipFailedAsset(cancelEvent: Bool)
    /// The asset is not ready: the event stalls.
    case awaitAsset
    /// The asset begins.
    case startAsset
    /// The asset played to its end: the next one.
    case nextAsset
    /// The asset plays on.
    case play
}

extension InterstitialCoordinator {
    // MARK: Events (plans A and B)

    /// The events the schedule uses (plans A/B): the app's events (plus playlist events that
    /// appeared after it set them), or the playlist's; none of the playlist's when the item does
    /// not handle them (`automaticallyHandlesInterstitialEvents = false`).
    func effectiveEvents(
        playlist: [InterstitialEvent],
        controller: [InterstitialEvent]?,
        suppressed: Set<String>,
        automatic: Bool
    ) -> [InterstitialEvent] {
        let playlist = automatic ? playlist : []
        guard let controller else { return playlist }
        let ids = Set(controller.map(\.identifier))
        return controller + playlist.filter { !ids.contains($0.identifier) && !suppressed.contains($0.identifier) }
    }

    /// The events the schedule places: all but those cancelled (D.5: a failed asset list or asset
    /// URI cancels its event with resume offset 0), so an event inside a cancelled one's span plays.
    func schedulable(_ events: [InterstitialEvent], cancelled: Set<String>) -> [InterstitialEvent] {
        cancelled.isEmpty ? events : events.filter { !cancelled.contains($0.identifier) }
    }

    /// The new attributes of the event playing, when a reload changed them.
    ///
    /// An early return's `X-PLAYOUT-LIMIT` arrives this way; the run takes the new event. The
    /// app's events never change the one playing.
    func updatedCurrentEvent(
        _ current: InterstitialEvent?,
        events: [InterstitialEvent],
        controller: [InterstitialEvent]?
    ) -> InterstitialEvent? {
        guard let current, controller?.contains(where: { $0.identifier == current.identifier }) != true,
            let updated = events.first(where: { $0.identifier == current.identifier }), updated != current
        else { return nil }
        return updated
    }

    /// The renditions interstitials follow: the primary's audio language and its subtitle choice
    /// (subtitles off in the primary: off in the ads).
    func followedRenditions(primaryAudio: String?, primarySubtitles: String?) -> FollowedRenditions {
        FollowedRenditions(audio: primaryAudio, subtitles: primarySubtitles)
    }

    // MARK: Breaks

    /// The next break on the primary at or after `position`: its start and its events in order
    /// (pre- and post-rolls are not breaks on the primary).
    func nextBreak(in context: BreakContext, at position: MediaTime) -> (start: MediaTime, ids: [String])? {
        var best: (start: MediaTime, ids: [String])?
        for scheduled in context.schedule.events where scheduled.isScheduled && scheduled.event.cue == .none {
            let id = scheduled.identifier
            guard let time = scheduled.startTime, !context.passed.contains(id), !context.cancelled.contains(id) else {
                continue
            }
            let start = time + context.offset
            guard start >= position - BufferedRanges.tolerance else { continue }
            if let current = best, start >= current.start {
                if start == current.start { best = (start, current.ids + [id]) }
            } else {
                best = (start, [id])
            }
        }
        return best
    }

    /// The clock brought the primary to `position`: the break that begins there, if any.
    func breakDue(in context: BreakContext, at position: MediaTime, now: MediaTime) -> BreakPlan? {
        guard let next = self.nextBreak(in: context, at: position), position >= next.start - BufferedRanges.tolerance
        else { return nil }
        return BreakPlan(
            run: BreakRun(queue: next.ids, start: next.start, startedAt: now),
            passed: next.ids,
            position: next.start
        )
    }

    /// The post-rolls the schedule plays when the primary ends, in order.
    func postrolls(in schedule: Schedule) -> [String] {
        schedule.events.filter { $0.event.cue == .leave && $0.isScheduled }.map(\.identifier)
    }

    /// The primary ended at `position`: the post-roll break, which resumes nowhere but there.
    func postrollBreak(in context: BreakContext, at position: MediaTime, now: MediaTime) -> BreakPlan? {
        let ids = self.postrolls(in: context.schedule)
        guard !ids.isEmpty else { return nil }
        var run = BreakRun(queue: ids, start: position, startedAt: now)
        run.fixedResume = position
        return BreakPlan(run: run, passed: ids, position: position)
    }

    /// Where playback starts (the schedule's start position): the pre-rolls, or the pod a live join
    /// lands in (entered at the event joined, the earlier events' resume offsets still counted).
    func start(in context: BreakContext, now: MediaTime) -> StartPlan? {
        let schedule = context.schedule
        guard let start = schedule.start else { return nil }
        let requested = start.requestedTime + context.offset
        var plan = StartPlan(requested: requested, reposition: requested, position: requested)
        if !start.prerollEventIDs.isEmpty {
            let run = BreakRun(queue: start.prerollEventIDs, start: requested, startedAt: now)
            plan.breakPlan = BreakPlan(run: run, passed: start.prerollEventIDs, position: requested)
            return plan
        }
        if let eventID = start.eventID, let eventStart = schedule.event(eventID)?.startTime {
            let coinciding = schedule.events.filter { $0.startTime == eventStart && $0.event.cue == .none }
            let pod = coinciding.filter(\.isScheduled).map(\.identifier)
            var run = BreakRun(
                queue: Array(pod.drop { $0 != eventID }),
                start: eventStart + context.offset,
                startedAt: now
            )
            run.joinOffset = start.startOffset ?? .zero
            for skipped in coinciding.prefix(while: { $0.identifier != eventID }) {
                run.skippedSpan = run.skippedSpan + skipped.resumeOffset
            }
            plan.position = run.start
            plan.breakPlan = BreakPlan(run: run, passed: pod, position: run.start)
            return plan
        }
        plan.position = start.primaryTime + context.offset
        plan.reposition = plan.position
        return plan
    }

    /// A resume point inside another interstitial's span (after a pre-roll, a cancel, a seek or a
    /// failed list) enters it partway, as a live join does: the break to begin, or `nil`.
    func entry(in context: BreakContext, resumingAt time: MediaTime, now: MediaTime) -> BreakPlan? {
        let candidates = context.schedule.events.compactMap { scheduled -> SpanCandidate? in
            let id = scheduled.identifier
            guard scheduled.event.cue == .none, let start = scheduled.startTime else { return nil }
            let enterable =
                (scheduled.status == .scheduled || scheduled.status == .skippedByResumption)
                && !context.passed.contains(id) && !context.cancelled.contains(id)
            return SpanCandidate(
                id: id,
                start: start + context.offset,
                // D.5: a cancelled event resumes with offset 0, so it covers none of the primary.
                span: context.cancelled.contains(id) ? .zero : scheduled.duration ?? scheduled.resumeOffset,
                enterable: enterable
            )
        }
        guard let entry = self.interstitial(containing: time, among: candidates) else { return nil }
        let pod = candidates.filter { $0.start == entry.start && $0.enterable }.map(\.id)
        var run = BreakRun(queue: Array(pod.drop { $0 != entry.id }), start: entry.start, startedAt: now)
        run.joinOffset = entry.offset
        run.skippedSpan = entry.skippedSpan
        return BreakPlan(run: run, passed: pod, position: entry.start)
    }

    /// The playhead as the navigation policy sees it: inside the event playing (counted from its
    /// break's start), or on the primary.
    func playhead(current: EventRun?, breakStart: MediaTime?, position: MediaTime, offset: MediaTime) -> Playhead {
        guard let current else { return .primary(position - offset) }
        return .interstitial(current.eventID, at: current.eventTime, primaryTime: (breakStart ?? position) - offset)
    }

    /// A seek to `time` (stable primary timeline) from `playhead`.
    ///
    /// Refused with the policy's reason, or where the primary goes and the break to play first
    /// (JUMP: the restricted event nearest the target, then the target). Events at or after the
    /// target may play again.
    func seek(
        to time: MediaTime,
        from playhead: Playhead,
        in context: BreakContext,
        position: MediaTime,
        now: MediaTime
    ) -> Result<SeekDecision, NavigationRefusal> {
        let plan = NavigationPolicy(schedule: context.schedule).resolveSeek(
            to: .primary(time - context.offset),
            from: playhead
        )
        guard plan.isAllowed else { return .failure(NavigationRefusal(reason: plan.reason)) }
        let granted = (plan.primaryTime ?? (time - context.offset)) + context.offset
        var passed = context.passed.filter { id in
            guard let start = context.stableStart(id) else { return true }
            return start < time
        }
        var decision = SeekDecision(plan: plan, granted: granted, passed: passed)
        if let first = plan.interstitials.first {
            let start = context.stableStart(first) ?? position
            passed.formUnion(plan.interstitials)
            decision.passed = passed
            var run = BreakRun(queue: plan.interstitials, start: start, startedAt: now)
            run.fixedResume = granted
            decision.breakPlan = BreakPlan(run: run, passed: plan.interstitials, position: start)
        }
        return .success(decision)
    }

    // MARK: Loading ahead

    /// The events whose assets buffer now: the break playing (`playing`), else the next break's
    /// once the primary is buffered to its marker, else the post-rolls once it is buffered to its
    /// end (so a slow ad server does not stall the transition).
    func breakToBuffer(
        in context: BreakContext,
        playing: [String]?,
        position: MediaTime,
        bufferedEnd: MediaTime?,
        primaryDuration: MediaTime?,
        postrollsStarted: Bool
    ) -> [String]? {
        if let playing { return playing }
        guard let buffered = bufferedEnd else { return nil }
        if let next = self.nextBreak(in: context, at: position) {
            return buffered >= next.start - BufferedRanges.tolerance ? next.ids : nil
        }
        guard !postrollsStarted, let duration = primaryDuration, buffered >= duration - BufferedRanges.tolerance else {
            return nil
        }
        let ids = self.postrolls(in: context.schedule)
        return ids.isEmpty ? nil : ids
    }

    /// Where the primary is expected to resume after the break of `ids` starting at `start`, to
    /// buffer it ahead: each event's resume offset, or what its loaded assets last when the
    /// playlist tells nothing; cancelled events count 0.
    func predictedResume(
        in context: BreakContext,
        start: MediaTime,
        ids: [String],
        loaded: [String: MediaTime]
    ) -> MediaTime {
        var total = MediaTime.zero
        for id in ids where !context.cancelled.contains(id) {
            let scheduled = context.schedule.event(id)
            if scheduled?.resumeOffsetSource == .unknown, let duration = loaded[id] {
                total = total + duration
            } else {
                total = total + (scheduled?.resumeOffset ?? .zero)
            }
        }
        return start + total
    }

    // MARK: Assets

    /// What the current asset of `run` does next, given the event's slots and what is known of the
    /// asset's presentation (its duration, and whether it is ready to play).
    func assetStep(_ run: EventRun, slots: [AssetSlot], assetDuration: MediaTime?, assetReady: Bool) -> AssetStep {
        let tolerance = BufferedRanges.tolerance
        if let limit = run.event.playoutLimit, run.eventTime >= limit - tolerance,
            run.eventTime > .zero || limit == .zero
        {
            // The limit cut the event short when asset material is left (an early return).
            var left = run.assetIndex < slots.count - 1
            if run.assetIndex < slots.count, let duration = assetDuration ?? slots[run.assetIndex].duration,
                run.assetPosition < duration - tolerance
            {
                left = true
            }
            return .finishEvent(entire: !left, endAsset: run.assetStarted)
        }
        guard run.assetIndex < slots.count else {
            let entire = run.eventTime > .zero || slots.isEmpty || slots.allSatisfy { !$0.failed }
            return .finishEvent(entire: entire, endAsset: false)
        }
        if slots[run.assetIndex].failed {
            let allFailed = slots[run.assetIndex...].allSatisfy(\.failed)
            return .skipFailedAsset(cancelEvent: allFailed && run.event.assetListURI == nil)
        }
        guard assetReady else { return .awaitAsset }
        guard run.assetStarted else { return .startAsset }
        if let duration = assetDuration, run.assetPosition >= duration - tolerance { return .nextAsset }
        return .play
    }
}

/// A navigation request refused, with the policy's reason.
struct NavigationRefusal: Error, Sendable, Equatable {
    /// Why.
    var reason: String
}
