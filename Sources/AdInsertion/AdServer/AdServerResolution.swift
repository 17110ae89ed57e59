import HLSInterstitials
import HLSPlaylist

/// How a VAST response becomes a pod: a pure walk of the documents the ad server (and the wrappers
/// it leads to) answered; the caller fetches what the walk asks for.
///
/// InLine ads become ``ResolvedAd``s; a Wrapper becomes a ``Pending`` fetch carrying every URL to
/// track so far, followed at most ``maximumWrapperDepth`` deep. Each failure is a ``Failure`` whose
/// error URLs are to be fired with its VAST code. ``pod(_:)`` then plays the pod (ads with a
/// `sequence`) in order and fills what time is left with the stand-alone ads.
public struct AdServerResolution: Sendable, Hashable {
    /// The break's duration: the pod never plays longer.
    public var breakDuration: MediaTime
    /// The bitrate (kbit/s) the chosen media file should be nearest to; `nil` picks the highest.
    public var targetBitrate: Int?
    /// How many wrappers deep the walk follows (VAST suggests 5).
    public var maximumWrapperDepth: Int
    /// The parameters creatives are conditioned to when conditioning is on: a linear creative
    /// without an HLS media file then resolves to the progressive file to condition
    /// (``ConditioningPlan/sourceFile(_:for:)``), its ``ResolvedAd/source``; `nil` (the default):
    /// such a creative fails with VAST error 403.
    public var conditioning: ConditioningTarget?

    /// Creates a resolution.
    public init(breakDuration: MediaTime, targetBitrate: Int? = nil, maximumWrapperDepth: Int = 5) {
        self.breakDuration = breakDuration
        self.targetBitrate = targetBitrate
        self.maximumWrapperDepth = maximumWrapperDepth
    }

    /// A wrapper's response still to fetch.
    public struct Pending: Sendable, Hashable {
        /// `VASTAdTagURI`.
        public var url: String
        /// How many wrappers led here (1 for a wrapper of the first response).
        public var depth: Int
        /// The URLs of every wrapper on the way, to be carried to the final ad.
        public var inherited: AdTracking
        /// The pod place of the first response's ad this chain started from.
        public var sequence: Int?
        /// The ad's place in the walk, for a stable order.
        public var order: [Int]
        /// Whether the response may hold several ads.
        public var allowsMultipleAds: Bool
        /// Whether further wrappers may be followed.
        public var followsAdditionalWrappers: Bool
    }

    /// One ad ready to play.
    public struct ResolvedAd: Sendable, Hashable {
        /// `UniversalAdId`, else the creative's `id`, `adId`, the ad's `id`, else the media URL.
        public var creativeID: String
        /// The chosen HLS media file.
        public var uri: String
        /// `Linear/Duration`.
        public var duration: MediaTime
        /// The pod place (`sequence`), `nil` for a stand-alone ad.
        public var sequence: Int?
        /// Every URL to track, wrappers' first.
        public var tracking: AdTracking
        /// The ad's place in the walk.
        public var order: [Int]
        /// `Linear@skipoffset` as a time from the ad's start (a percentage taken of its duration),
        /// `nil` when the ad may not be skipped.
        public var skipOffset: MediaTime? = nil
        /// `UniversalAdId` as VAST 4.1 fills `[UNIVERSALADID]`: `idRegistry`, a space, the value
        /// (the value alone when no registry is named), `nil` without one.
        public var universalAdID: String? = nil
        /// The progressive media file to condition into HLS, `nil` when ``uri`` is HLS already.
        public var source: VASTMediaFile? = nil
    }

    /// Error URLs to fire with a code.
    public struct Failure: Error, Sendable, Hashable {
        /// The VAST error code.
        public var code: VASTErrorCode
        /// The `Error` URLs, macros not yet filled: at most ``AdTracking/maximumURLsPerEvent``.
        public var urls: [String]
        /// What went wrong.
        public var reason: String

        /// Creates a failure, keeping the first ``AdTracking/maximumURLsPerEvent`` of `urls`.
        public init(code: VASTErrorCode, urls: [String], reason: String) {
            self.code = code
            self.urls = Array(urls.prefix(AdTracking.maximumURLsPerEvent))
            self.reason = reason
        }

        /// The URLs with `[ERRORCODE]` (also percent-encoded) and `[CACHEBUSTING]` filled.
        public func filledURLs(cacheBuster: String) -> [String] {
            self.urls.map { AdServerResolution.fill($0, code: self.code, cacheBuster: cacheBuster) }
        }
    }

    /// What a walk of one document found.
    public struct Walk: Sendable, Hashable {
        /// The InLine ads.
        public var ads: [ResolvedAd] = []
        /// The wrappers to follow.
        public var pending: [Pending] = []
        /// The failures to report.
        public var failures: [Failure] = []

        /// Creates an empty walk.
        public init() {}
    }

    /// Walks a response: `parent` is the wrapper it answers, `nil` for the ad server's own answer.
    public func walk(_ document: VASTDocument, answering parent: Pending?) -> Walk {
        var walk = Walk()
        let inherited = parent?.inherited ?? AdTracking()
        var ads = Array(document.ads.enumerated())
        if let parent, !parent.allowsMultipleAds, ads.count > 1 {
            // Only the first stand-alone ad (else the first ad) answers a wrapper that allows one.
            ads = [ads.first { $0.element.sequence == nil } ?? ads[0]]
        }
        guard !ads.isEmpty else {
            walk.failures.append(
                Failure(
                    code: .noAdsAfterWrapper,
                    urls: inherited.error + document.errorURLs,
                    reason: parent == nil ? "the ad server answered no ad" : "a wrapper's response held no ad"
                )
            )
            return walk
        }
        for (index, ad) in ads {
            let order = (parent?.order ?? []) + [index]
            let sequence = parent?.sequence ?? ad.sequence
            switch ad.kind {
            case .wrapper(let wrapper):
                let carried = inherited.adding(AdTracking.of(ad, creatives: ad.creatives)).limited()
                let depth = (parent?.depth ?? 0) + 1
                if depth > self.maximumWrapperDepth {
                    walk.failures.append(
                        Failure(
                            code: .wrapperLimit,
                            urls: carried.error,
                            reason: "more than \(self.maximumWrapperDepth) wrappers"
                        )
                    )
                } else if let parent, !parent.followsAdditionalWrappers {
                    walk.failures.append(
                        Failure(
                            code: .wrapper,
                            urls: carried.error,
                            reason: "a wrapper that allows no further wrapper led to one"
                        )
                    )
                } else {
                    walk.pending.append(
                        Pending(
                            url: wrapper.adTagURI,
                            depth: depth,
                            inherited: carried,
                            sequence: sequence,
                            order: order,
                            allowsMultipleAds: wrapper.allowsMultipleAds,
                            followsAdditionalWrappers: wrapper.followsAdditionalWrappers
                        )
                    )
                }
            case .inLine:
                switch self.resolve(ad, inherited: inherited) {
                case .success(var resolved):
                    resolved.sequence = sequence
                    resolved.order = order
                    walk.ads.append(resolved)
                case .failure(let failure):
                    walk.failures.append(failure)
                }
            }
        }
        return walk
    }

    /// The failure of a wrapper whose response could not be had: `code` is 301 when it was
    /// unreachable or too slow, 100 when it was not XML.
    public func failed(_ pending: Pending, code: VASTErrorCode, reason: String) -> Failure {
        Failure(code: code, urls: pending.inherited.error, reason: reason)
    }

    private func resolve(_ ad: VASTAd, inherited: AdTracking) -> Result<ResolvedAd, Failure> {
        let own = AdTracking.of(ad, creatives: [])
        for creative in ad.creatives {
            guard let linear = creative.linear else { continue }
            var source: VASTMediaFile?
            if self.mediaFile(linear.mediaFiles) == nil, let target = self.conditioning {
                source = ConditioningPlan.sourceFile(linear.mediaFiles, for: target)
            }
            guard let file = self.mediaFile(linear.mediaFiles) ?? source else { continue }
            guard let duration = linear.duration, duration > .zero else {
                return .failure(
                    Failure(
                        code: .schemaValidation,
                        urls: inherited.error + ad.errorURLs,
                        reason: "a linear creative without a valid Duration"
                    )
                )
            }
            let tracking = inherited.adding(own).adding(AdTracking.of(ad, creatives: [creative]).droppingAdLevel())
                .limited()
            let id = creative.universalAdID ?? creative.id ?? creative.adID ?? ad.id ?? file.url
            return .success(
                ResolvedAd(
                    creativeID: id,
                    uri: file.url,
                    duration: duration,
                    sequence: nil,
                    tracking: tracking,
                    order: [],
                    skipOffset: linear.skipOffset.map { $0.moment(in: duration) },
                    universalAdID: creative.universalAdID.map { value in
                        creative.universalAdIDRegistry.map { $0 + " " + value } ?? value
                    },
                    source: source
                )
            )
        }
        // An ad of non-linear creatives only (overlays) is 201: an interstitial plays linear ads.
        if !ad.creatives.isEmpty, ad.creatives.allSatisfy({ $0.linear == nil }),
            ad.creatives.contains(where: \.hasNonLinear)
        {
            return .failure(
                Failure(
                    code: .unexpectedLinearity,
                    urls: inherited.error + ad.errorURLs,
                    reason: "only non-linear creatives (NonLinearAds): an interstitial plays linear ads"
                )
            )
        }
        return .failure(
            Failure(
                code: .noSupportedMediaFile,
                urls: inherited.error + ad.errorURLs,
                reason: self.conditioning == nil
                    ? "no HLS media file (application/x-mpegURL or application/vnd.apple.mpegurl)"
                    : "no HLS media file, and no progressive video file (video/mp4, video/quicktime, video/webm) to condition"
            )
        )
    }

    /// The HLS media file whose bitrate is nearest ``targetBitrate`` (the highest without a target);
    /// files without a bitrate come after those with one, ties go to the higher bitrate, then the
    /// URL: the document's order plays no part.
    public func mediaFile(_ files: [VASTMediaFile]) -> VASTMediaFile? {
        let candidates = files.filter(\.isHLS)
        return candidates.min { a, b in
            let ka = self.distance(a.bitrate)
            let kb = self.distance(b.bitrate)
            if ka != kb { return ka < kb }
            if (a.bitrate ?? -1) != (b.bitrate ?? -1) { return (a.bitrate ?? -1) > (b.bitrate ?? -1) }
            return a.url < b.url
        }
    }

    private func distance(_ bitrate: Int?) -> Int {
        guard let bitrate else { return Int.max }
        guard let target = self.targetBitrate else { return -bitrate }
        return abs(bitrate - target)
    }

    /// The pod to play: the ads with a `sequence` in its order, then the stand-alone ads in
    /// document order, each kept if it still fits in the break.
    public func pod(_ ads: [ResolvedAd]) -> [ResolvedAd] {
        let sequenced = ads.filter { $0.sequence != nil }.sorted { a, b in
            if a.sequence != b.sequence { return (a.sequence ?? 0) < (b.sequence ?? 0) }
            return a.order.lexicographicallyPrecedes(b.order)
        }
        let alone = ads.filter { $0.sequence == nil }.sorted { $0.order.lexicographicallyPrecedes($1.order) }
        var remaining = self.breakDuration
        var result: [ResolvedAd] = []
        for ad in sequenced + alone where ad.duration <= remaining {
            result.append(ad)
            remaining = remaining - ad.duration
        }
        return result
    }

    /// `url` with `[ERRORCODE]` and `[CACHEBUSTING]` (also written `%5B…%5D`) filled, and every
    /// other macro `-1` (`VASTMacros`: nothing the URL encodes is encoded again).
    public static func fill(_ url: String, code: VASTErrorCode, cacheBuster: String) -> String {
        VASTMacros(["ERRORCODE": code.description, "CACHEBUSTING": cacheBuster]).fill(url)
    }
}

extension AdTracking {
    /// Only the creative-level URLs (events, progress and clicks), for adding to tracking that
    /// already holds the ad's impressions and errors.
    func droppingAdLevel() -> AdTracking {
        AdTracking(
            events: self.events,
            clickThrough: self.clickThrough,
            clickTracking: self.clickTracking,
            progress: self.progress
        )
    }
}
