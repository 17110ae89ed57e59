/// The tracking URLs of one ad as its ad server (and every wrapper before it) gave them: what the
/// tracking work forwards beacons to.
///
/// Encoded in JSON as
/// `{"impression":[url],"error":[url],"events":{"start":[url],"firstQuartile":[url],…},"clickThrough":url,"clickTracking":[url],"progress":[{"offset":"00:00:05.000","url":url}]}`
/// (`progress` only when there is one);
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
    /// `Tracking event="progress"` URLs, each with its `offset` (not in ``events``: a progress
    /// event is one per offset).
    public var progress: [Progress]

    /// A `progress` tracking URL and its moment.
    public struct Progress: Sendable, Hashable, Codable {
        /// When it fires: a time from the creative's start or a share of its duration.
        public var offset: VASTOffset
        /// The URL.
        public var url: String

        /// Creates a progress URL.
        public init(offset: VASTOffset, url: String) {
            self.offset = offset
            self.url = url
        }
    }

    /// Creates tracking URLs.
    public init(
        impression: [String] = [],
        error: [String] = [],
        events: [String: [String]] = [:],
        clickThrough: String? = nil,
        clickTracking: [String] = [],
        progress: [Progress] = []
    ) {
        self.impression = impression
        self.error = error
        self.events = events
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
        self.progress = progress
    }

    private enum CodingKeys: String, CodingKey {
        case impression, error, events, clickThrough, clickTracking, progress
    }

    /// Decodes tracking URLs; those stored before progress was kept have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            impression: try container.decode([String].self, forKey: .impression),
            error: try container.decode([String].self, forKey: .error),
            events: try container.decode([String: [String]].self, forKey: .events),
            clickThrough: try container.decodeIfPresent(String.self, forKey: .clickThrough),
            clickTracking: try container.decode([String].self, forKey: .clickTracking),
            progress: try container.decodeIfPresent([Progress].self, forKey: .progress) ?? []
        )
    }

    /// Encodes the URLs (`progress` only when there is one).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.impression, forKey: .impression)
        try container.encode(self.error, forKey: .error)
        try container.encode(self.events, forKey: .events)
        try container.encodeIfPresent(self.clickThrough, forKey: .clickThrough)
        try container.encode(self.clickTracking, forKey: .clickTracking)
        if !self.progress.isEmpty { try container.encode(self.progress, forKey: .progress) }
    }

    /// Whether there is nothing to track.
    public var isEmpty: Bool {
        self.impression.isEmpty && self.error.isEmpty && self.events.isEmpty && self.clickThrough == nil
            && self.clickTracking.isEmpty && self.progress.isEmpty
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
        result.progress += other.progress
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
            clickTracking: Array(self.clickTracking.prefix(cap)),
            progress: Array(self.progress.prefix(cap))
        )
    }

    /// The tracking URLs an ad itself gives: its impressions and errors, and those of its linear
    /// creatives (all of them for a wrapper, `creative` only for an InLine ad).
    static func of(_ ad: VASTAd, creatives: [VASTCreative]) -> AdTracking {
        var result = AdTracking(impression: ad.impressionURLs, error: ad.errorURLs)
        for creative in creatives {
            guard let linear = creative.linear else { continue }
            for item in linear.tracking {
                if item.event == "progress" {
                    if let offset = item.offset { result.progress.append(Progress(offset: offset, url: item.url)) }
                } else {
                    result.events[item.event, default: []].append(item.url)
                }
            }
            result.clickTracking += linear.clickTracking
            if let click = linear.clickThrough { result.clickThrough = click }
        }
        return result
    }
}
