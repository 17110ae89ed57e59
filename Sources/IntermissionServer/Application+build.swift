import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the server: the same application for `intermission serve` and the tests.
///
/// Opens the store (and migrates it), mounts local media folders, and routes:
/// `GET /vod/{asset}/**`, `GET /live/{channel}/**`, `GET /v1/asset-lists/{scope}/{break}.json`,
/// `/v1/admin/...` (bearer token), `GET /media/{mount}/**`, `GET /health`, `GET /metrics`.
///
/// Run it with `try await app.runService()`: SIGTERM and SIGINT start a graceful shutdown that
/// finishes the requests in flight and then closes the store.
///
/// - Parameter configuration: What to serve and how.
/// - Returns: The application.
/// - Throws: ``ConfigurationError`` for an unusable database URL, or the store's error when it cannot
///   be opened or migrated.
public func buildApplication(configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    var baseLogger = Logger(label: "intermission.server")
    baseLogger.logLevel = configuration.logLevel
    let logger = baseLogger
    let store = try await openStore(configuration.database)
    try await store.migrate()
    let parts = ServerApplicationParts(configuration: configuration, store: store, logger: logger)
    // Inventory changes the admin API acknowledged in earlier runs.
    await parts.inventory.apply(try await store.inventoryChanges())
    let router = parts.makeRouter()
    let hostname = configuration.hostname
    let assetCount = configuration.adInsertion.assets.count
    let channelCount = configuration.adInsertion.channels.count
    let vodIDs = configuration.adInsertion.assets.map(\.id)
    let channelIDs = configuration.adInsertion.channels.map(\.id)
    let database = configuration.database
    return Application(
        router: router,
        server: .guardedHTTP1(),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.hostname, port: configuration.port),
            serverName: "intermission"
        ),
        services: [StoreService(store: store)],
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? 0
            let host = hostname == "0.0.0.0" ? "127.0.0.1" : hostname
            logger.info(
                "intermission serve is running",
                metadata: [
                    "address": "http://\(host):\(port)", "assets": "\(assetCount)", "channels": "\(channelCount)", "database": "\(database)",
                ]
            )
            for id in vodIDs { logger.notice("VOD:  http://\(host):\(port)/vod/\(id)/main.m3u8") }
            for id in channelIDs { logger.notice("Live: http://\(host):\(port)/live/\(id)/main.m3u8") }
        },
        logger: logger
    )
}

/// Opens the store a database URL names: a path or `sqlite:PATH` (SQLite), or `memory:`.
func openStore(_ url: String) async throws -> any AdStore {
    if url == "memory:" || url == ":memory:" { return InMemoryAdStore() }
    if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
        throw ConfigurationError(message: "database '\(url)': PostgreSQL is not supported yet; use a file path or sqlite:PATH")
    }
    var path = url
    if path.hasPrefix("sqlite://") {
        path = String(path.dropFirst("sqlite://".count))
    } else if path.hasPrefix("sqlite:") {
        path = String(path.dropFirst("sqlite:".count))
    }
    guard !path.isEmpty else { throw ConfigurationError(message: "database URL '\(url)' names no file") }
    return try SQLiteAdStore(path: path)
}

/// Closes the store once the server has shut down.
struct StoreService: Service {
    let store: any AdStore

    func run() async throws {
        try? await gracefulShutdown()
        if let sqlite = self.store as? SQLiteAdStore { try sqlite.close() }
    }
}

/// The pieces the routes share.
struct ServerApplicationParts: Sendable {
    let playlists: PlaylistService
    let decisions: DecisionPolicy
    let store: any AdStore
    let inventory: InventoryRegistry
    let metrics: ServerMetrics
    let clock: any WallClock
    let adminToken: String?
    let publicBaseURL: String?
    let mounts: [String: String]
    let logger: Logger
    /// Creative URIs resolved against the base the asset list is served from (few creatives, few
    /// hosts: resolving once per pair takes URI parsing off every asset-list request).
    let resolvedURIs = ResolvedURICache()

    init(configuration: ServerConfiguration, store: any AdStore, logger: Logger) {
        let metrics = ServerMetrics()
        let origin = OriginClient(
            mounts: configuration.mounts,
            httpClient: HTTPClient.shared,
            maximumBytes: configuration.maximumUpstreamBytes,
            timeout: .nanoseconds(Int64(configuration.upstreamTimeout.components.seconds) * 1_000_000_000 + configuration.upstreamTimeout.components.attoseconds / 1_000_000_000)
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
            metrics: metrics
        )
        self.decisions = configuration.adInsertion.policy
        self.store = store
        self.inventory = InventoryRegistry(configuration.adInsertion.inventory)
        self.metrics = metrics
        self.clock = configuration.clock
        self.adminToken = configuration.adminToken
        self.publicBaseURL = configuration.publicBaseURL
        self.mounts = configuration.mounts
        self.logger = logger
    }

    /// The methods of every route (for `405` with `Allow`); `makeRouter()` registers the same.
    static let routeMethods: RouteMethods = {
        var routes = RouteMethods()
        routes.add("health", .get)
        routes.add("metrics", .get)
        routes.add("vod/*/**", .get)
        routes.add("live/*/**", .get)
        routes.add("v1/asset-lists/*/*.json", .get)
        routes.add("media/*/**", .get)
        routes.add("v1/admin/channels", .get)
        routes.add("v1/admin/channels/*/breaks", .get, .post)
        routes.add("v1/admin/channels/*/breaks/*/early-return", .post)
        routes.add("v1/admin/channels/*/breaks/*", .delete)
        routes.add("v1/admin/inventory", .get, .post)
        routes.add("v1/admin/inventory/*", .delete)
        return routes
    }()

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: MetricsMiddleware(metrics: self.metrics))
        router.add(middleware: OpenCORSMiddleware())
        router.add(middleware: JSONErrorMiddleware())
        // Paths are decoded once and checked before anything else looks at them.
        router.add(middleware: PathGuardMiddleware())
        router.add(middleware: MethodGuardMiddleware(routes: Self.routeMethods))
        router.add(middleware: MediaFilesMiddleware())
        for (name, folder) in self.mounts.sorted(by: { $0.key < $1.key }) {
            router.add(
                middleware: FileMiddleware(folder, urlBasePath: "/media/\(name)", cacheControl: .init([(MediaType(type: .any), [.maxAge(60)])]), logger: self.logger)
            )
        }
        let playlists = self.playlists
        let metrics = self.metrics
        let clock = self.clock

        router.getAndHead("health") { _, _ -> Response in
            try await self.health()
        }
        router.getAndHead("metrics") { _, _ -> Response in
            .bytes(metrics.emit(), contentType: "text/plain; version=0.0.4; charset=utf-8", cacheControl: "no-store")
        }
        router.getAndHead("vod/{asset}/**") { request, context -> Response in
            let asset = try InputLimits.id(try context.parameters.require("asset"), field: "asset")
            let path = try Self.playlistPath(request)
            let bytes = try await playlists.vodPlaylist(asset: asset, path: path)
            return .playlist(bytes, cacheControl: "max-age=300")
        }
        router.getAndHead("live/{channel}/**") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let path = try Self.playlistPath(request)
            let bytes = try await playlists.livePlaylist(channel: channel, path: path)
            return .playlist(bytes, cacheControl: "max-age=1")
        }
        router.getAndHead("v1/asset-lists/{scope}/{break}.json") { request, context -> Response in
            try Self.checkAssetListInput(request, context: context)
            return try await self.assetList(request, context: context, clock: clock)
        }
        self.addAdminRoutes(to: router)
        return router
    }

    /// The playlist path after `/vod/{asset}/` or `/live/{channel}/`: segments decoded once (dot
    /// segments, control characters and encoded slashes are refused with `400`), a `.m3u8` name, and
    /// each segment encoded again for the origin (so a decoded `?` or `#` stays part of a name).
    static func playlistPath(_ request: Request) throws -> String {
        let segments = try RequestPath.segments(request.uri.path).dropFirst(2)
        guard let last = segments.last, !last.isEmpty, request.uri.path.last != "/" else {
            throw APIError.notFound("no such playlist")
        }
        guard last.lowercased().hasSuffix(".m3u8") else {
            throw APIError.notFound("only playlists (.m3u8) are served here; media comes from the origin")
        }
        return segments.map(RequestPath.encoded).joined(separator: "/")
    }

    // MARK: - Asset lists

    func assetList(_ request: Request, context: BasicRequestContext, clock: any WallClock) async throws -> Response {
        let scopeText = try context.parameters.require("scope")
        let breakID = try context.parameters.require("break")
        guard let scope = AdScope(rawValue: scopeText) else {
            throw APIError.notFound("unknown scope '\(scopeText)': expected vod-{asset} or live-{channel}")
        }
        let query = request.uri.queryParameters
        if let id = query[Substring(InterstitialRequestURL.interstitialIDParameter)].map(String.init), id != breakID {
            throw APIError.badRequest("_HLS_interstitial_id '\(id)' does not match the break '\(breakID)' of the path")
        }
        var startOffset: MediaTime?
        if let text = query[Substring(InterstitialRequestURL.startOffsetParameter)].map(String.init) {
            guard let value = MediaTime(text), value >= .zero else {
                throw APIError.badRequest("_HLS_start_offset must be a non-negative number of seconds, got '\(text)'")
            }
            startOffset = value
        }
        var viewer = query[Substring(InterstitialRequestURL.primaryIDParameter)].map(String.init)
        if viewer == nil, let field = request.headers.first(where: { $0.name.canonicalName == "x-playback-session-id" }) {
            viewer = field.value
        }
        if let viewer, viewer.utf8.count > 200 {
            throw APIError.badRequest("_HLS_primary_id is longer than 200 bytes")
        }
        let now = clock.now()
        let duration: MediaTime
        switch scope.kind {
        case .vod:
            duration = try await self.playlists.vodBreak(asset: scope.name, breakID: breakID).duration
        case .live:
            _ = try await self.playlists.channel(scope.name)
            guard let liveBreak = try await self.playlists.liveBreak(channel: scope.name, breakID: breakID), !liveBreak.cancelled else {
                throw APIError.notFound("channel '\(scope.name)' has no break '\(breakID)'")
            }
            duration = liveBreak.effectiveDuration
        }
        let service = AdDecisionService(decider: await self.inventory.decider, policy: self.decisions, store: self.store)
        let (decision, isNew) = try await service.decision(
            viewer: viewer,
            scope: scope,
            breakID: breakID,
            breakDuration: duration,
            startOffset: startOffset,
            now: now
        )
        self.metrics.decision(kind: scope.kind.rawValue, isNew: isNew, assets: decision.assets.count)
        if isNew {
            context.logger.debug(
                "decision",
                metadata: ["viewer": "\(decision.viewer)", "scope": "\(scope)", "break": "\(breakID)", "ads": "\(decision.assets.map(\.creativeID))"]
            )
        }
        let base = self.publicBaseURL ?? "http://\(request.head.authority ?? "localhost")"
        let list = decision.assetList(resolvingAgainst: base.hasSuffix("/") ? base : base + "/", cache: self.resolvedURIs)
        return .bytes(list.encode(), contentType: "application/json", cacheControl: "private, no-store")
    }

    // MARK: - Health

    func health() async throws -> Response {
        let now = self.clock.now()
        var channels: [JSONValue] = []
        var degraded = false
        let states = await self.playlists.health
        for channel in self.playlists.configuration.channels {
            var entry: [(String, JSONValue)] = [("id", .string(channel.id))]
            switch channel.source {
            case .loop:
                entry.append(("source", "loop"))
                entry.append(("state", "ok"))
            case .upstream(let url):
                entry.append(("source", "upstream"))
                entry.append(("upstream", .string(url)))
                let state = states[channel.id]
                let status: String
                if let error = state?.lastError {
                    status = "unreachable"
                    entry.append(("message", .string(error)))
                } else if let change = state?.lastChange {
                    let age = now - change
                    status = age > channel.staleAfter ? "stale" : "ok"
                    entry.append(("lastUpdate", .string(change.iso8601)))
                    entry.append(("secondsSinceUpdate", .number(age.seconds)))
                    if status == "stale" {
                        entry.append(("message", .string("the upstream playlist has not changed for \(Int(age.seconds)) s (limit \(Int(channel.staleAfter.seconds)) s)")))
                    }
                } else {
                    status = "unknown"
                }
                if status == "stale" || status == "unreachable" { degraded = true }
                entry.append(("state", .string(status)))
            }
            channels.append(.object(entry))
        }
        let body: JSONValue = .object([
            ("status", .string(degraded ? "degraded" : "ok")),
            ("time", .string(now.iso8601)),
            ("decisions", .number(Double(try await self.store.decisionCount()))),
            ("channels", .array(channels)),
        ])
        return .bytes(body.serialized(options: .pretty), contentType: "application/json", cacheControl: "no-store")
    }
}
