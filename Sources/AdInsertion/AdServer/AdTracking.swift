/// The tracking URLs of one ad as its ad server (and every wrapper before it) gave them: what the
/// tracking work forwards beacons to.
///
/// Encoded in JSON as
/// `{"impression":[url],"error":[url],"events":{"start":[url],"firstQuartile":[url],…},"clickThrough":url,"clickTracking":[url]}`;
/// URLs keep their macros (`[ERRORCODE]`, `[CACHEBUSTING]`, …) for the one who fires them to fill.
public struct AdTracking: Sendable, Hashable, Codable {
    /// `Impression` URLs.
    public var impression: [String]
    /// `Error` URLs (with `[ERRORCODE]`).
    public var error: [String]
    /// `Tracking` URLs by event name (`start`, `firstQuartile`, `midpoint`, `thirdQuartile`,
    /// `complete`, `skip`, …), each list in document order, wrappers' URLs first.
    public var events: [String: [String]]
    /// `ClickThrough`: where a click takes the viewer (the InLine ad's only).
    public var clickThrough: String?
    /// `ClickTracking` URLs.
    public var clickTracking: [String]

    /// Creates tracking URLs.
    public init(
        impression: [String] = [],
        error: [String] = [],
        events: [String: [String]] = [:],
        clickThrough: String? = nil,
        clickTracking: [String] = []
    ) {
        self.impression = impression
        self.error = error
        self.events = events
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
    }

    /// Whether there is nothing to track.
    public var isEmpty: Bool {
        self.impression.isEmpty && self.error.isEmpty && self.events.isEmpty && self.clickThrough == nil
            && self.clickTracking.isEmpty
    }

    /// These URLs followed by `other`'s (a wrapper's, then the ad it leads to); `other`'s click-through
    /// wins.
    public func adding(_ other: AdTracking) -> AdTracking {
        var result = self
        result.impression += other.impression
        result.error += other.error
        for (event, urls) in other.events { result.events[event, default: []] += urls }
        result.clickThrough = other.clickThrough ?? self.clickThrough
        result.clickTracking += other.clickTracking
        return result
    }

    /// The most URLs kept per event (and of impressions, errors and click tracking) of one ad,
    /// wrappers' included: the limit a creative's `tracking:` in the inventory has, so one beacon
    /// never becomes more than this many requests per event.
    public static let maximumURLsPerEvent = 16
    /// The most event names kept per ad (VAST defines fewer than 30).
    public static let maximumEventNames = 32

    /// These URLs with every list cut to its first ``maximumURLsPerEvent``, and the events to the
    /// first ``maximumEventNames`` names in name order.
    public func limited() -> AdTracking {
        let cap = Self.maximumURLsPerEvent
        var events: [String: [String]] = [:]
        for name in self.events.keys.sorted().prefix(Self.maximumEventNames) {
            events[name] = Array(self.events[name, default: []].prefix(cap))
        }
        return AdTracking(
            impression: Array(self.impression.prefix(cap)),
            error: Array(self.error.prefix(cap)),
            events: events,
            clickThrough: self.clickThrough,
            clickTracking: Array(self.clickTracking.prefix(cap))
        )
    }

    /// The tracking URLs an ad itself gives: its impressions and errors, and those of its linear
    /// creatives (all of them for a wrapper, `creative` only for an InLine ad).
    static func of(_ ad: VASTAd, creatives: [VASTCreative]) -> AdTracking {
        var result = AdTracking(impression: ad.impressionURLs, error: ad.errorURLs)
        for creative in creatives {
            guard let linear = creative.linear else { continue }
            for item in linear.tracking { result.events[item.event, default: []].append(item.url) }
            result.clickTracking += linear.clickTracking
            if let click = linear.clickThrough { result.clickThrough = click }
        }
        return result
    }
}
