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
    func assetListDidFail(_ eventID: String, event: InterstitialEvent?, error: PlaybackError, playing: Bool) -> [Action] {
        var actions: [Action] = [.cancelEvent(eventID), .emit(.assetListFailed(eventID: eventID, event: event, error: error))]
        if let event, !playing { actions.append(.emit(.eventWasUnscheduled(event, error))) }
        return actions
    }

    /// An asset failed: reported; an `X-ASSET-URI` event not playing yet is cancelled with resume
    /// offset 0 and unscheduled. An asset list's failed asset is skipped when its turn comes
    /// (``assetStep(_:slots:assetDuration:assetReady:)``).
    func assetDidFail(_ eventID: String, index: Int, event: InterstitialEvent?, error: PlaybackError, playing: Bool) -> [Action] {
        var actions: [Action] = [.emit(.interstitialAssetFailed(eventID: eventID, index: index, error: error))]
        guard event?.assetListURI == nil, !playing else { return actions }
        actions.append(.cancelEvent(eventID))
        if let event { actions.append(.emit(.eventWasUnscheduled(event, error))) }
        return actions
    }
}
