import HLSPlaylist

/// A preload range placed on the schedule's primary timeline.
public struct ScheduledPreload: Sendable, Hashable {
    /// The preload range as read from the playlist.
    public var range: PreloadRange
    /// The window's start on the primary timeline (`nil` when the playlist has no
    /// PROGRAM-DATE-TIME to map it).
    public var start: MediaTime?
    /// The window's end on the primary timeline.
    public var end: MediaTime?
    /// The target event's start on the primary timeline, when the target is in the schedule and
    /// placed (`nil`: not known yet; the appendix says to assume it appears at the window's end).
    public var targetStart: MediaTime?

    /// Creates a placed preload range.
    public init(range: PreloadRange, start: MediaTime?, end: MediaTime?, targetStart: MediaTime?) {
        self.range = range
        self.start = start
        self.end = end
        self.targetStart = targetStart
    }
}

extension Schedule {
    /// The preload ranges (Appendix F) on the primary timeline, in playlist order: empty when the
    /// primary is not live (clients ignore preload ranges once `EXT-X-ENDLIST` is present).
    ///
    /// ``init(primary:configuration:)`` reads them from its playlist; a schedule built from events
    /// (such as a ``DateRangeTracker``'s) gets them with ``setPreloadRanges(_:)``.
    public var preloads: [ScheduledPreload] {
        guard self.isLive else { return [] }
        let reference = self.timeline.reference
        return self.preloadRanges.map { range in
            var targetStart: MediaTime?
            if let id = range.targetID, let event = self.event(id) { targetStart = event.startTime }
            return ScheduledPreload(
                range: range,
                start: reference.time(at: range.start),
                end: range.end.flatMap { reference.time(at: $0) },
                targetStart: targetStart
            )
        }
    }

    /// The preload ranges whose `X-TARGET-ID` is `eventID`.
    public func preloads(forEvent eventID: String) -> [ScheduledPreload] {
        self.preloads.filter { $0.range.targetID == eventID }
    }

    /// Replaces the preload ranges (after a live reload: the tracker's ``DateRangeTracker/preloadRanges``).
    public mutating func setPreloadRanges(_ ranges: [PreloadRange]) {
        self.preloadRanges = ranges
    }
}
