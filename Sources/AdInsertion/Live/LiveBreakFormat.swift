import HLSInterstitials
import HLSPlaylist

/// How a live channel publishes its breaks in its playlist.
public enum LiveBreakFormat: String, Sendable, Hashable, CaseIterable {
    /// One `com.apple.hls.interstitial` date range per break, whose `X-ASSET-LIST` names the pod
    /// (the default).
    case assetList
    /// One `com.apple.hls.daterange-schedule` date range per break (Appendix H, preliminary), whose
    /// `X-URI` names a schedule with one interstitial per ad, so that each ad has its own skip
    /// control and its own tracking.
    case schedule
}

extension AssetListLocator {
    /// The schedule URL of a break:
    /// `{base}/v1/schedules/{scope}/{break}.json?_HLS_interstitial_id={ID}`.
    public func scheduleURL(scope: AdScope, breakID: String) -> String {
        let path = "\(self.baseURL ?? "")/v1/schedules/\(scope.rawValue)/\(breakID).json"
        return InterstitialRequestURL.withInterstitialID(breakID, in: path)
    }

    /// This locator with the break format of `channel`.
    public func publishing(_ channel: LiveChannel) -> AssetListLocator {
        var locator = self
        locator.breakFormat = channel.breakFormat
        return locator
    }
}

extension LiveBreak {
    /// The break as a scheduled-date-range document's date range (Appendix H):
    /// `CLASS="com.apple.hls.daterange-schedule"`, `START-DATE` the break's start, `DURATION` the
    /// break's, and `X-URI` the break's schedule URL.
    ///
    /// A break that returned early also has `X-PLAYOUT-LIMIT` (seconds from `START-DATE`, as on an
    /// interstitial): the same `ID` with an added attribute, so that players that fetched the
    /// schedule before the return cut its interstitials there (the ads from the return on do not
    /// play; the one under way ends at the return and the primary resumes there).
    public func scheduleDateRange(locator: AssetListLocator) -> DateRange {
        var range = DateRange(id: self.id, startDate: self.startDate, class: DateRangeSchedule.scheduleClass)
        range.duration = self.duration
        range.attributes[.preloadURI] = .quoted(
            locator.scheduleURL(scope: AdScope(kind: .live, name: self.channel), breakID: self.id)
        )
        if let limit = self.playoutLimit { range.attributes[.playoutLimit] = .decimal(limit) }
        return range
    }
}
