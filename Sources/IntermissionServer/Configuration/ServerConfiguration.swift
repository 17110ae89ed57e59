import AdInsertion
import HLSPlaylist
import HTTPFetch
import IntermissionHTTP
import IntermissionStore
import Logging

/// Everything ``buildApplication(configuration:)`` needs: where to listen, what to serve, where to
/// store decisions, and the clock.
public struct ServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1` by default).
    public var hostname: String
    /// The port; `0` picks a free one (the start-up log and `onServerRunning` tell which).
    public var port: Int
    /// Where decisions and breaks are stored: a file path or `sqlite:PATH` for SQLite, `memory:` for
    /// an in-memory store, or a `postgres://` (or `postgresql://`) URL for PostgreSQL, which several
    /// instances can share.
    public var database: String
    /// The public base URL of the server (`https://ads.example.com`), written in `X-ASSET-LIST` and
    /// used to make asset-list URIs absolute.
    ///
    /// `nil`: `X-ASSET-LIST` is a server-relative path, and asset-list URIs are made absolute with
    /// the address the server listens on (never with the request's `Host`).
    public var publicBaseURL: String?
    /// The bearer token of `/v1/admin/`; `nil` disables the admin API.
    public var adminToken: String?
    /// Local folders served under `/media/{name}/`, by name.
    public var mounts: [String: String]
    /// Assets, channels, inventory and policy.
    public var adInsertion: AdInsertionConfiguration
    /// The largest upstream playlist accepted.
    public var maximumUpstreamBytes: Int
    /// How long an upstream has to answer: one deadline for the whole exchange.
    ///
    /// Held within 1 ms … 1 hour when used (a configuration file allows 0.1 to 300 seconds).
    public var upstreamTimeout: Duration
    /// The clock that dates live windows and decisions.
    public var clock: any WallClock
    /// The log level.
    public var logLevel: Logger.Level
    /// The date live loops start from when a channel sets none (midnight UTC of the start day when `nil`).
    public var defaultLiveStartDate: DateTime?
    /// Whether the coordinated-playback hub (`/v1/groups/{id}` WebSockets) runs (the default).
    public var groupHub: Bool
    /// How long a connection may stay silent (no request arriving, none being answered) before the
    /// server closes it; a client that connects and sends nothing holds no connection past this.
    ///
    /// Blocking playlist reloads and slow answers are not cut: the time counts only while no request
    /// is being answered. Kept to 0.1 s through one day.
    public var idleTimeout: Duration = .seconds(75)
    /// The most connections (HTTP and WebSocket together) open at once; a connection accepted above
    /// it is closed at once.
    ///
    /// `nil` (the default): the descriptor limit less a quarter of it, and at
    /// least 256 less (the rest stays for the store, outbound connections and the runtime).
    ///
    /// At start the server raises its soft descriptor limit to the hard one (and logs both); a
    /// configured cap above the automatic one is lowered to it, with a warning: a server whose
    /// connections take the whole descriptor table dies (libdispatch traps when it cannot open
    /// `/proc`). `intermission_connections_open` and `intermission_connections_refused_total` in
    /// `/metrics` count them.
    public var maximumConnections: Int?
    /// How long a request head may take to arrive whole, counted from the connection's start and
    /// from the first byte of each later request; then the connection is closed.
    ///
    /// Kept to at least
    /// 0.1 s.
    public var requestHeadTimeout: Duration = ServerConfiguration.defaultRequestHeadTimeout
    /// The default ``requestHeadTimeout``: 10 seconds.
    public static let defaultRequestHeadTimeout: Duration = ConnectionPolicy.defaultRequestHeadTimeout
    /// What the group hub's sockets are held to: deadlines, rates, queues and joins per address.
    public var groupLimits = GroupLimits()
    /// The clock the server waits on (the continuous clock by default); tests pass one they advance.
    ///
    /// Measured on it: the group hub's hello and write deadlines, refusal pauses, relayed joins,
    /// and the relay's heartbeats and silence limit (the hub's own instants read it too, unless
    /// groups are relayed: they then read the wall clock); the beacon forwarder's retries; the
    /// upstream feeds' polling pauses, blocking-reload limits and idle time; the pauses between the
    /// runs of the decision pruner (``DecisionRetention/interval``); the ad servers' time budget
    /// and the deadlines of their fetches. Dates (``clock``) are
    /// another matter: they say what time it is, this says how long has passed.
    public var timerClock: any Clock<Duration> = ContinuousClock()
    /// A store opened by the caller, used instead of ``database`` (for embedding and tests; it is
    /// migrated, and closed with `AdStore.close()` at shutdown like one the server opens).
    public var openedStore: (any ServerStore)?
    /// Tracking beacons and viewer plans (the `tracking:` section).
    public var tracking = TrackingConfiguration()
    /// Where requests for URLs from ad servers' documents may go (the `outbound:` section): VAST
    /// wrappers, redirects, tracking, impression and error URLs, beacon forwards.
    ///
    /// By default public addresses only: loopback, unspecified, link-local, private, CGNAT,
    /// multicast and reserved addresses (and their IPv4-mapped IPv6 forms) are refused after
    /// resolution. The configured ad servers' own `host:port` and the inventory's `tracking:` URLs
    /// are trusted as named; origins and upstreams are not checked.
    public var outbound = OutboundPolicy()
    /// How long stored decisions are kept and how many at most (the `storage:` section).
    public var retention = DecisionRetention()
    /// VMAP documents that place VOD assets' breaks at start, by asset ID (`vod[].vmap`; see
    /// ``VMAPSource``).
    public var vmapSources: [String: VMAPSource] = [:]
    /// How creatives without an HLS media file are conditioned into HLS (the `conditioning:`
    /// section); `nil` (the default): they are not, and an ad server's ad without one fails with
    /// VAST error 403.
    public var conditioning: ConditioningConfiguration?

    /// Creates a configuration with defaults: `127.0.0.1:8080`, SQLite in `intermission.sqlite`.
    public init(
        hostname: String = "127.0.0.1",
        port: Int = 8080,
        database: String = "intermission.sqlite",
        publicBaseURL: String? = nil,
        adminToken: String? = nil,
        mounts: [String: String] = [:],
        adInsertion: AdInsertionConfiguration = AdInsertionConfiguration(),
        maximumUpstreamBytes: Int = 4 * 1024 * 1024,
        upstreamTimeout: Duration = .seconds(5),
        clock: any WallClock = SystemWallClock(),
        logLevel: Logger.Level = .info,
        defaultLiveStartDate: DateTime? = nil,
        groupHub: Bool = true
    ) {
        self.hostname = hostname
        self.port = port
        self.database = database
        self.publicBaseURL = publicBaseURL
        self.adminToken = adminToken
        self.mounts = mounts
        self.adInsertion = adInsertion
        self.maximumUpstreamBytes = maximumUpstreamBytes
        self.upstreamTimeout = upstreamTimeout
        self.clock = clock
        self.logLevel = logLevel
        self.defaultLiveStartDate = defaultLiveStartDate
        self.groupHub = groupHub
    }
}
