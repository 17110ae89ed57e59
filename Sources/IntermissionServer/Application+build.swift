import AdInsertion
import GroupCoordination
import HLSPlaylist
import HTTPFetch
import Hummingbird
import IntermissionHTTP
import IntermissionSQLite
import IntermissionStore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

#if PostgreSQL
import IntermissionPostgres
#endif

/// Builds the server: the same application for `intermission serve` and the tests.
///
/// Opens the store (and migrates it), mounts local media folders, and routes:
/// `GET /` (a web page), `GET /openapi.yaml`, `GET /vod/{asset}/**`, `GET /live/{channel}/**`, `GET /v1/asset-lists/{scope}/{break}.json`,
/// `/v1/admin/...` (bearer token), `GET /media/{mount}/**`, `GET /health`, `GET /metrics`.
///
/// Run it with `try await app.runService()`: SIGTERM and SIGINT start a graceful shutdown that
/// finishes the requests in flight and then closes the store.
///
/// - Parameter configuration: What to serve and how.
/// - Returns: The application.
/// - Throws: ``ConfigurationError`` for an unusable database URL or a VMAP document that cannot be
///   read or places no break, or the store's error when it cannot be opened or migrated.
public func buildApplication(configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    // VOD breaks placed by VMAP documents, fetched once, before anything listens.
    let configuration = try await VMAPPlacement.place(configuration)
    var baseLogger = Logger(label: "intermission.server")
    baseLogger.logLevel = configuration.logLevel
    let logger = baseLogger
    let store = try await openStore(configuration.openedStore.map { .opened($0) } ?? .url(configuration.database))
    try await store.migrate()
    let parts = ServerApplicationParts(configuration: configuration, store: store, logger: logger)
    // Inventory changes the admin API acknowledged in earlier runs.
    await parts.inventory.apply(try await store.inventoryChanges())
    // Creatives' durations from their media: local ones now, remote ones once the services run.
    let inventory = configuration.adInsertion.inventory
    await parts.creativeDurations.measure(inventory.filter(CreativeDurations.isLocal), into: parts.inventory)
    let responder = parts.makeResponder()
    let answers = parts.eventLoopAnswers(serverName: "intermission")
    let hostname = configuration.hostname
    let assetCount = configuration.adInsertion.assets.count
    let channelCount = configuration.adInsertion.channels.count
    let vodIDs = configuration.adInsertion.assets.map(\.id)
    let channelIDs = configuration.adInsertion.channels.map(\.id)
    let database = URLRedaction.redact(configuration.database)
    let listening = parts.listening
    let groupHub = configuration.groupHub
    let policy = ConnectionPolicy.server(configuration: configuration, metrics: parts.metrics, logger: logger)
    // The feeds stop before the store closes (services shut down in reverse order), and the
    // store's background work (PostgreSQL's connection pool) after it.
    var services: [any Service] = store.capabilities.run.map { [StoreRunService(work: $0)] } ?? []
    services.append(StoreService(store: store))
    // After the store's service: it stops before the store closes.
    services.append(
        DecisionPruningService(
            pruner: parts.pruner(retention: configuration.retention),
            clock: configuration.clock,
            timer: configuration.timerClock,
            logger: logger
        )
    )
    services += BreakChangeService.services(
        store: store,
        playlists: parts.playlists,
        inventory: parts.inventory,
        logger: logger
    )
    if let relay = parts.groups.relay {
        services.append(GroupRelayService(transport: relay.transport, groups: parts.groups, instance: relay.instance))
    }
    services.append(UpstreamPollingService(feeds: parts.playlists.feeds))
    services.append(BeaconForwarderService(forwarder: parts.tracking.forwarder))
    services.append(
        CreativeDurationService(
            durations: parts.creativeDurations,
            creatives: inventory.filter { !CreativeDurations.isLocal($0) },
            registry: parts.inventory
        )
    )
    if let conditioner = parts.conditioner {
        // Before the store's service stops: a job running at shutdown is cancelled first.
        services.append(ConditioningService(conditioner: conditioner))
    }
    return Application(
        responder: responder,
        // With the group hub, connections start in the WebSocket upgrade channel; fresh cache entries
        // are answered on the event loop either way.
        server: groupHub
            ? .guardedHTTP1(groups: parts.groups, answers: answers, policy: policy, logger: logger)
            : .guardedHTTP1(answers: answers, policy: policy),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.hostname, port: configuration.port),
            serverName: answers.serverName
        ),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? 0
            let host = hostname == "0.0.0.0" ? "127.0.0.1" : hostname
            listening.bound(hostname: hostname, port: port)
            logger.info(
                "intermission serve is running",
                metadata: [
                    "address": "http://\(host):\(port)", "assets": "\(assetCount)", "channels": "\(channelCount)",
                    "database": "\(database)",
                ]
            )
            for id in vodIDs { logger.notice("VOD:  http://\(host):\(port)/vod/\(id)/main.m3u8") }
            for id in channelIDs {
                logger.notice(
                    "Live: http://\(host):\(port)/live/\(id)/main.m3u8 (hls.js: set interstitialAppendInPlace: false)"
                )
            }
        },
        logger: logger
    )
}

/// Where the store comes from: a database URL, or a store opened already (tests, embedders).
enum StoreSource {
    /// A path or `sqlite:PATH` (SQLite), or `memory:`.
    case url(String)
    /// A store opened by the caller.
    case opened(any ServerStore)
}

/// Opens the store: a database URL names a path or `sqlite:PATH` (SQLite),
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?OPTIONS]` (PostgreSQL, see `PostgresURL`, with
/// the package trait `PostgreSQL`), or `memory:`; another `scheme://` is refused.
///
/// A SQLite URL may end in `?synchronous=full` (every commit flushed to the disk) or
/// `?synchronous=normal` (the default); see `SQLiteAdStore.Durability`.
func openStore(_ source: StoreSource) async throws -> any ServerStore {
    let url: String
    switch source {
    case .opened(let store): return store
    case .url(let text): url = text
    }
    if url == "memory:" || url == ":memory:" { return InMemoryAdStore() }
    if DatabaseURL.namesPostgres(url) {
        #if PostgreSQL
        let settings = try PostgresURL(parsing: url)
        return try PostgresAdStore(settings: settings, remembering: PostgresAdStore.defaultRememberedDecisions)
        #else
        throw ConfigurationError(
            key: "database",
            message:
                "database URL '\(DatabaseURL.shown(url))': this build has no PostgreSQL store; build Intermission with its package trait 'PostgreSQL' (a default trait)"
        )
        #endif
    }
    if let scheme = url.firstRange(of: "://").map({ url[..<$0.lowerBound] }), scheme.lowercased() != "sqlite",
        scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    {
        throw ConfigurationError(
            key: "database",
            message:
                "database URL '\(DatabaseURL.shown(url))': unknown scheme '\(scheme.prefix(32))'; use a file path, sqlite:PATH, postgres://USER@HOST:PORT/DATABASE or memory:"
        )
    }
    var path = url
    if path.hasPrefix("sqlite://") {
        path = String(path.dropFirst("sqlite://".count))
    } else if path.hasPrefix("sqlite:") {
        path = String(path.dropFirst("sqlite:".count))
    }
    var durability = SQLiteAdStore.Durability.normal
    if let question = path.lastIndex(of: "?") {
        let option = path[path.index(after: question)...]
        let prefix = "synchronous="
        guard option.hasPrefix(prefix),
            let chosen = SQLiteAdStore.Durability(rawValue: option.dropFirst(prefix.count).lowercased())
        else {
            throw ConfigurationError(
                message:
                    "database URL '\(URLRedaction.redact(url))': the only option is ?synchronous=normal or ?synchronous=full"
            )
        }
        durability = chosen
        path = String(path[..<question])
    }
    guard !path.isEmpty else { throw ConfigurationError(message: "database URL '\(url)' names no file") }
    return try SQLiteAdStore(path: path, durability: durability)
}

/// The store's part in the service group: when the group shuts down gracefully, after the HTTP
/// server has finished its requests (services shut down in reverse order, and Hummingbird runs the
/// server last), the store is closed: the decision writer answers or fails every decision still
/// queued, refuses new ones, and the database is released.
///
/// Cancelled instead (a second signal, or the group failing), it closes the store too, so nothing
/// waits for a writer that is gone.
struct StoreService: Service {
    let store: any AdStore

    func run() async throws {
        try? await gracefulShutdown()
        try await self.store.close()
    }
}

/// What the store needs running while it is in use (PostgreSQL's connection pool): the first
/// service of the group, so it shuts down last, once the store has closed.
struct StoreRunService: Service {
    let work: @Sendable () async -> Void

    func run() async throws {
        await self.work()
    }
}

/// The address the server listens on, known once it is bound (port `0` picks one): asset-list
/// URIs are made absolute with it when no `publicBaseURL` is set, never with a request's `Host`.
final class ListeningAddress: Sendable {
    private let base = Mutex<String?>(nil)

    /// Records the bound address.
    ///
    /// A wildcard address (`0.0.0.0`, `::`) names no host a client can
    /// use, so URIs then stay path-absolute.
    func bound(hostname: String, port: Int) {
        guard !hostname.isEmpty, hostname != "0.0.0.0", hostname != "::", hostname != "[::]", port > 0 else { return }
        let host = hostname.contains(":") && !hostname.hasPrefix("[") ? "[\(hostname)]" : hostname
        self.base.withLock { $0 = "http://\(host):\(port)/" }
    }

    /// `http://host:port/`, or `nil` before binding or for a wildcard address.
    var url: String? { self.base.withLock { $0 } }
}

/// What the server knows about its storage: failed writes since the last good one, for `/health`.
final class StorageHealth: Sendable {
    private struct State {
        var failures = 0
        var lastFailure: (date: DateTime, message: String)?
        var failing = false
    }

    private let state = Mutex(State())

    /// A write that was acknowledged: the storage works again.
    func succeeded() {
        self.state.withLock { $0.failing = false }
    }

    /// A write that failed.
    func failed(_ message: String, at date: DateTime) {
        self.state.withLock {
            $0.failures += 1
            $0.failing = true
            $0.lastFailure = (date, message)
        }
    }

    /// Whether the last write failed, how many have, and the last failure.
    var snapshot: (failing: Bool, failures: Int, lastFailure: (date: DateTime, message: String)?) {
        self.state.withLock { ($0.failing, $0.failures, $0.lastFailure) }
    }
}

/// The pieces the routes share.
struct ServerApplicationParts: Sendable {
    let playlists: PlaylistService
    let decisions: DecisionPolicy
    let store: any AdStore
    let inventory: InventoryRegistry
    let metrics: ServerMetrics
    /// Complete playlist answers, served before routing.
    let responses: ResponseCache
    /// Small files of the media mounts, served before routing.
    let mediaFiles: MediaFileCache
    let clock: any WallClock
    let adminToken: String?
    let publicBaseURL: String?
    let mounts: [String: String]
    let logger: Logger
    /// Creative URIs resolved against the base the asset list is served from (few creatives, few
    /// hosts: resolving once per pair takes URI parsing off every asset-list request).
    let resolvedURIs = ResolvedURICache()
    /// The address the server is bound to, for asset-list URIs when there is no public base URL.
    let listening = ListeningAddress()
    /// The group hub's groups (`/v1/groups/{id}` WebSockets), relayed through the database when it
    /// is a shared PostgreSQL (`groups=relay`, the default there).
    let groups: GroupSessions
    /// Failed writes, for `/health`.
    let storageHealth = StorageHealth()
    /// Encoded asset lists by pod, shared by the controller and the event-loop answers.
    let assetListBodies = AssetListBodies()
    /// The metrics of the routes answered before routing, bound once.
    let vodMetrics: ServerMetrics.BoundRoute
    let liveMetrics: ServerMetrics.BoundRoute
    let mediaMetrics: ServerMetrics.BoundRoute
    /// Beacons and viewer plans.
    let tracking: TrackingService
    /// Asks the presentations' VAST ad servers, within the outbound policy.
    let adServers: AdServerClient
    /// Reads creatives' durations from their media.
    let creativeDurations: CreativeDurations
    /// Conditions creatives without HLS into HLS, when the configuration has a `conditioning:`.
    let conditioner: CreativeConditioner?

    init(configuration: ServerConfiguration, store: any ServerStore, logger: Logger) {
        let metrics = ServerMetrics()
        let responses = ResponseCache(clock: configuration.clock)
        let origin = OriginClient(
            mounts: configuration.mounts,
            httpClient: OriginClient.originHTTPClient,
            maximumBytes: configuration.maximumUpstreamBytes,
            timeout: configuration.upstreamTimeout
        )
        let now = configuration.clock.now()
        let day: Int64 = 86_400_000_000_000
        let midnight = DateTime(nanosecondsSince1970: now.nanosecondsSince1970 / day * day)
        self.playlists = PlaylistService(
            configuration: configuration.adInsertion,
            origin: origin,
            store: store,
            locator: AssetListLocator(baseURL: configuration.publicBaseURL),
            clock: configuration.clock,
            defaultStartDate: configuration.defaultLiveStartDate ?? midnight,
            logger: logger,
            metrics: metrics,
            responses: responses,
            timer: ElapsedClock(configuration.timerClock)
        )
        self.decisions = configuration.adInsertion.policy
        self.store = store
        self.inventory = InventoryRegistry(configuration.adInsertion.inventory)
        self.creativeDurations = CreativeDurations(origin: origin, logger: logger)
        self.metrics = metrics
        let capabilities = store.capabilities
        capabilities.journal?.observe(metrics.journalObserver())
        if let transport = capabilities.groupRelay {
            self.groups = GroupSessions(
                relay: GroupRelayLink(transport: transport, instance: GroupRelayLink.newInstanceID(), logger: logger),
                limits: configuration.groupLimits,
                clock: configuration.timerClock
            )
        } else {
            self.groups = GroupSessions(limits: configuration.groupLimits, clock: configuration.timerClock)
        }
        self.vodMetrics = metrics.bind(route: "/vod/{asset}/**")
        self.liveMetrics = metrics.bind(route: "/live/{channel}/**")
        self.mediaMetrics = metrics.bind(route: "/media/**")
        self.responses = responses
        // Conditioned renditions are a mount of their own (segments get the cache headers of
        // every mounted segment).
        var mounts = configuration.mounts
        if let conditioning = configuration.conditioning {
            mounts[ConditioningConfiguration.mountName] = conditioning.folder
        }
        self.mediaFiles = MediaFileCache(mounts: mounts, clock: configuration.clock)
        self.clock = configuration.clock
        self.adminToken = configuration.adminToken
        self.publicBaseURL = configuration.publicBaseURL
        self.mounts = mounts
        self.logger = logger
        let outbound = Self.outboundPolicy(configuration)
        self.tracking = TrackingService(
            configuration: configuration.tracking,
            store: capabilities.tracking ?? InMemoryTrackingStore(),
            decisions: store,
            inventory: self.inventory,
            clock: configuration.clock,
            fetch: BoundedFetch(client: BeaconForwarder.sharedHTTPClient, outbound: outbound),
            logger: logger,
            metrics: metrics,
            timer: configuration.timerClock
        )
        self.adServers = AdServerClient(
            fetch: BoundedFetch(
                client: AdServerClient.sharedHTTPClient,
                outbound: outbound,
                clock: configuration.timerClock
            ),
            metrics: metrics,
            timer: ElapsedClock(configuration.timerClock)
        )
        self.conditioner = configuration.conditioning.map {
            CreativeConditioner(
                configuration: $0,
                store: capabilities.conditioning ?? InMemoryConditioningStore(),
                clock: configuration.clock,
                fetch: BoundedFetch(client: AdServerClient.sharedHTTPClient, outbound: outbound),
                origin: origin,
                presentations: configuration.adInsertion,
                metrics: metrics,
                logger: logger
            )
        }
    }

    /// The configuration's outbound policy, with every configured ad server's `host:port` trusted
    /// as named (the operator chose them; the wrappers and tracking URLs they hand out are checked).
    static func outboundPolicy(_ configuration: ServerConfiguration) -> OutboundPolicy {
        var policy = configuration.outbound
        let settings =
            configuration.adInsertion.assets.compactMap(\.adServer)
            + configuration.adInsertion.channels.compactMap(\.adServer)
        for adServer in settings {
            if let endpoint = OutboundPolicy.endpoint(of: adServer.urlTemplate) { policy.allowedHosts.insert(endpoint) }
        }
        return policy
    }

    /// The pruner of the stored decisions, by `retention` and the repeat window.
    func pruner(retention: DecisionRetention) -> DecisionPruner {
        DecisionPruner(
            store: self.store,
            retention: retention,
            repeatWindow: self.decisions.repeatWindow,
            metrics: self.metrics
        )
    }

    /// The methods of every route (for `405` with `Allow`); `makeRouter()` registers the same.
    static let routeMethods: RouteMethods = {
        var routes = RouteMethods()
        routes.add("", .get)
        routes.add("openapi.yaml", .get)
        routes.add("health", .get)
        routes.add("metrics", .get)
        routes.add("vod/*/**", .get)
        routes.add("live/*/**", .get)
        routes.add("v1/asset-lists/*/*.json", .get)
        routes.add("v1/schedules/*/*.json", .get)
        routes.add("media/*/**", .get)
        routes.add("v1/admin/channels", .get)
        routes.add("v1/admin/channels/*/breaks", .get, .post)
        routes.add("v1/admin/channels/*/breaks/*/early-return", .post)
        routes.add("v1/admin/channels/*/breaks/*", .delete)
        routes.add("v1/admin/inventory", .get, .post)
        routes.add("v1/admin/inventory/*", .delete)
        routes.add("v1/track/*/error", .get, .post)
        routes.add("v1/track/*/*", .get, .post)
        routes.add("v1/admin/reports/breaks/*/*", .get)
        routes.add("v1/admin/reports/creatives/*", .get)
        routes.add("v1/admin/conditioning", .get)
        return routes
    }()

    /// A duration as NIO's time amount, kept to 0 through 1 day.
    ///
    /// A configured timeout comes from outside:
    /// a negative one would be a deadline in the past, and NIO adds a timeout to `now`, so one near
    /// `Int64.max` nanoseconds would overflow there.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        TimeAmount(min(max(duration, .zero), .seconds(86_400)))
    }

    /// ``ServerConfiguration/idleTimeout`` as NIO's time amount, kept to 0.1 s through one day.
    static func idleTimeAmount(_ duration: Duration) -> TimeAmount {
        self.timeAmount(max(duration, .milliseconds(100)))
    }

    /// What the connections answer on their event loop, before the responders: fresh entries of
    /// ``responses`` and ``mediaFiles``, counted in the same metrics as the responders count them.
    func eventLoopAnswers(serverName: String?) -> EventLoopAnswers {
        EventLoopAnswers(
            responses: self.responses,
            mediaFiles: self.mediaFiles,
            vodMetrics: self.vodMetrics,
            liveMetrics: self.liveMetrics,
            mediaMetrics: self.mediaMetrics,
            serverName: serverName,
            answered: self.metrics.eventLoopAnswerCounter(),
            assetLists: AssetListAnswers(
                playlists: self.playlists,
                store: self.store,
                metrics: self.metrics,
                route: self.metrics.bind(route: AssetListAnswers.routePattern),
                publicBaseURL: self.publicBaseURL,
                listening: self.listening,
                resolvedURIs: self.resolvedURIs,
                bodies: self.assetListBodies,
                tracking: self.tracking
            )
        )
    }

    /// The router behind the cache of complete playlist answers (see ``CachingResponder``).
    ///
    /// Small `/media/` files are answered before both, from ``mediaFiles`` (see ``MediaFileResponder``).
    func makeResponder() -> MediaFileResponder<CachingResponder<RouterResponder<ServerRequestContext>>> {
        MediaFileResponder(
            cache: self.mediaFiles,
            next: CachingResponder(
                cache: self.responses,
                next: self.makeRouter().buildResponder(),
                vodMetrics: self.vodMetrics,
                liveMetrics: self.liveMetrics
            ),
            metrics: self.mediaMetrics
        )
    }

    /// The router: the middleware every request passes (metrics, CORS outside the admin API, JSON
    /// errors, path and method guards), the media mounts, and one controller per area.
    func makeRouter() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: self.metrics))
        router.add(middleware: OpenCORSMiddleware())
        router.add(middleware: JSONErrorMiddleware(answer: { APIError.server($0) }))
        // Paths are decoded once and checked before anything else looks at them.
        router.add(middleware: PathGuardMiddleware())
        router.add(middleware: MethodGuardMiddleware(routes: Self.routeMethods))
        MediaController(mounts: self.mounts, logger: self.logger).addMiddleware(to: router)
        HealthController(
            playlists: self.playlists,
            store: self.store,
            storageHealth: self.storageHealth,
            metrics: self.metrics,
            clock: self.clock,
            adminToken: self.adminToken,
            conditioner: self.conditioner
        ).addRoutes(to: router)
        PlaylistController(playlists: self.playlists, responses: self.responses, tracking: self.tracking)
            .addRoutes(to: router)
        WebController(
            playlists: self.playlists,
            store: self.store,
            tracking: self.tracking.store,
            clock: self.clock,
            signer: self.tracking.signer,
            adminToken: self.adminToken,
            conditioner: self.conditioner
        ).addRoutes(to: router)
        let assetLists = AssetListController(
            playlists: self.playlists,
            inventory: self.inventory,
            decisions: self.decisions,
            store: self.store,
            metrics: self.metrics,
            storageHealth: self.storageHealth,
            clock: self.clock,
            publicBaseURL: self.publicBaseURL,
            listening: self.listening,
            resolvedURIs: self.resolvedURIs,
            bodies: self.assetListBodies,
            tracking: self.tracking,
            adServers: self.adServers,
            conditioner: self.conditioner
        )
        assetLists.addRoutes(to: router)
        ScheduleController(assetLists: assetLists).addRoutes(to: router)
        let admin = router.group("v1/admin").add(middleware: BearerTokenMiddleware(token: self.adminToken))
        AdminController(
            playlists: self.playlists,
            inventory: self.inventory,
            durations: self.creativeDurations,
            store: self.store,
            clock: self.clock
        )
        .addRoutes(to: admin)
        let trackingController = TrackingController(tracking: self.tracking)
        trackingController.addRoutes(to: router)
        trackingController.addAdminRoutes(to: admin)
        ConditioningController(conditioner: self.conditioner).addAdminRoutes(to: admin)
        return router
    }
}
