import AdInsertion

/// How the server signs beacon URLs and plan tokens, and forwards beacons to ad servers.
public struct TrackingConfiguration: Sendable {
    /// The HMAC-SHA256 key of beacon URLs and plan tokens (`tracking.key`).
    ///
    /// `nil`: a random key per
    /// run, so beacon URLs handed out before a restart are refused after it, and plan tokens cannot
    /// be minted.
    public var key: [UInt8]?
    /// Whether a multivariant or asset-list request without a plan token is refused with 403
    /// (`tracking.requirePlan`); when not, a request without one gets plan A.
    public var requirePlan: Bool = false
    /// Whether asset-list entries carry `X-AD-CREATIVE-SIGNALING` with signed `/v1/track` URLs
    /// (`tracking.beacons`).
    public var beacons: Bool = false
    /// Whether the playlists of a plan-B viewer carry no interstitial date ranges at all, nor
    /// schedule (Appendix H) or preload ones (`tracking.planBRemovesInterstitials`); when not,
    /// they keep them and the asset lists and schedules come back empty.
    public var planBRemovesInterstitials: Bool = false
    /// How many times a forward is tried in all (`tracking.forwardAttempts`, 1 to 20).
    public var forwardAttempts: Int = 6
    /// The wait before the first retry; each next wait doubles (`tracking.forwardRetryDelay`).
    public var forwardRetryDelay: Duration = .milliseconds(500)
    /// The most forwards waiting at once; past it, new ones are dropped and counted
    /// (`tracking.forwardQueue`).
    public var forwardQueueCapacity: Int = 10_000
    /// How long an ad server has to answer one forward.
    public var forwardTimeout: Duration = .seconds(5)
    /// Forwards per second to one destination host once its burst is used
    /// (`tracking.forwardRatePerHost`, 0.01 to 100,000; 100 by default); past it, new forwards to
    /// that host are dropped and counted, never queued.
    public var forwardRatePerHost: Double = 100
    /// Forwards one destination host may take at once before ``forwardRatePerHost`` holds
    /// (`tracking.forwardBurstPerHost`, 1 to 100,000; 200 by default).
    public var forwardBurstPerHost: Int = 200

    /// Creates a configuration with defaults.
    public init(key: [UInt8]? = nil) {
        self.key = key
    }
}
