import HLSInterstitials
import HLSPlaylist

extension LiveBreak {
    /// The break as an interstitial event pointing at its asset list.
    ///
    /// - Parameters:
    ///   - locator: Builds the `X-ASSET-LIST` URL.
    ///   - midRollsOnce: Whether a mid-roll (a break with neither `PRE` nor `POST`) gets `ONCE` in
    ///     its `CUE` even when the break does not have it (``LiveChannel/marksMidRollsOnce``).
    public func interstitialEvent(locator: AssetListLocator, midRollsOnce: Bool = false) -> InterstitialEvent {
        var event = InterstitialEvent(identifier: self.id, date: self.startDate)
        if self.cue.contains(AttributeName.Value.pre) {
            event.cue = .join
        } else if self.cue.contains(AttributeName.Value.post) {
            event.cue = .leave
        }
        event.willPlayOnce = self.cue.contains(AttributeName.Value.once) || (midRollsOnce && event.cue == .none)
        event.duration = self.duration
        event.resumptionOffset = self.resumeOffset
        event.playoutLimit = self.playoutLimit
        event.restrictions = Restrictions(members: self.restrictions)
        event.alignsStartWithPrimarySegmentBoundary = self.snap.contains(AttributeName.Value.out)
        event.alignsResumptionWithPrimarySegmentBoundary = self.snap.contains(AttributeName.Value.in)
        event.assetListURI = locator.url(scope: AdScope(kind: .live, name: self.channel), breakID: self.id)
        return event
    }

    /// The break's `EXT-X-DATERANGE` line.
    ///
    /// - Parameters:
    ///   - locator: Builds the `X-ASSET-LIST` URL.
    ///   - midRollsOnce: Whether a mid-roll gets `ONCE` in its `CUE` (see
    ///     ``interstitialEvent(locator:midRollsOnce:)``).
    public func tagLine(locator: AssetListLocator, midRollsOnce: Bool = false) -> String {
        if locator.breakFormat == .schedule { return self.scheduleDateRange(locator: locator).tag.rendered }
        return self.interstitialEvent(locator: locator, midRollsOnce: midRollsOnce).dateRange()?.tag.rendered ?? ""
    }
}

extension LiveBreak {
    /// The break's preload range (spec Appendix F), so that players spread their asset-list
    /// requests over `window` seconds before the break instead of all asking at the break.
    ///
    /// `ID="preload-<break ID>"`, ending exactly at the break's `START-DATE`, `X-URI` the break's
    /// `X-ASSET-LIST` URL (the same URL, so its query matches), `X-TARGET-ID` the break's ID and
    /// `X-TARGET-CLASS="com.apple.hls.interstitial"`. `nil` when `window` is not positive, for breaks
    /// written as schedules (``LiveBreakFormat/schedule``), and for
    /// pre- and post-rolls (they play at join and at the end, not at a date to prepare for).
    public func preloadRange(locator: AssetListLocator, window: MediaTime) -> PreloadRange? {
        guard window > .zero, locator.breakFormat == .assetList, !self.cue.contains(AttributeName.Value.pre),
            !self.cue.contains(AttributeName.Value.post)
        else { return nil }
        return PreloadRange(
            identifier: "preload-" + self.id,
            start: self.startDate - window,
            end: self.startDate,
            uri: locator.url(scope: AdScope(kind: .live, name: self.channel), breakID: self.id),
            targetID: self.id,
            targetClass: DateRange.interstitialClass
        )
    }
}

/// Which live breaks a playlist window carries.
public enum LiveBreakSelection {
    /// The breaks to write in a window: not cancelled, ending at or after the window's first date
    /// (a range is never removed while it maps to a segment in the playlist) and starting no later
    /// than the window's end plus `lookahead` (announced ahead of time).
    ///
    /// Sorted by start date, then ID.
    public static func breaks(
        _ breaks: [LiveBreak],
        windowStart: DateTime,
        windowEnd: DateTime,
        lookahead: MediaTime
    ) -> [LiveBreak] {
        var selected = breaks.filter { b in
            !b.cancelled && b.startDate + b.duration >= windowStart && b.startDate <= windowEnd + lookahead
        }
        if selected.count > 1 {
            selected.sort { $0.startDate == $1.startDate ? $0.id < $1.id : $0.startDate < $1.startDate }
        }
        return selected
    }

    /// The breaks whose preload range (``LiveBreak/preloadRange(locator:window:)``) a window
    /// carries: not cancelled, not over before the window's first date, and whose preload window
    /// starts no later than the window's end plus `lookahead` (so players see the range before it
    /// opens).
    ///
    /// None when `window` is not positive.
    public static func preloaded(
        _ breaks: [LiveBreak],
        windowStart: DateTime,
        windowEnd: DateTime,
        lookahead: MediaTime,
        window: MediaTime
    ) -> [LiveBreak] {
        guard window > .zero else { return [] }
        return breaks.filter { b in
            !b.cancelled && b.startDate + b.duration >= windowStart && b.startDate - window <= windowEnd + lookahead
        }
        .sorted { $0.startDate == $1.startDate ? $0.id < $1.id : $0.startDate < $1.startDate }
    }

    /// The channel's breaks: planned ones in `[from, to]`, replaced by stored ones of the same ID
    /// (an early return or a cancel of a planned break is stored under its ID), plus the stored others.
    public static func merge(planned: [LiveBreak], stored: [LiveBreak]) -> [LiveBreak] {
        var byID: [String: LiveBreak] = [:]
        for b in planned { byID[b.id] = b }
        for b in stored { byID[b.id] = b }
        return Array(byID.values)
    }
}
