import AdInsertion
import AsyncHTTPClient
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

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
    let store = try await openStore(configuration.openedStore.map { .opened($0) } ?? .url(configuration.database))
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
    let database = URLRedaction.redact(configuration.database)
    let listening = parts.listening
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
            listening.bound(hostname: hostname, port: port)
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

/// Where the store comes from: a database URL, or a store opened already (tests, embedders).
enum StoreSource {
    /// A path or `sqlite:PATH` (SQLite), or `memory:`.
    case url(String)
    /// A store opened by the caller.
    case opened(any AdStore)
}

/// Opens the store: a database URL names a path or `sqlite:PATH` (SQLite), or `memory:`.
func openStore(_ source: StoreSource) async throws -> any AdStore {
    let url: String
    switch source {
    case .opened(let store): return store
    case .url(let text): url = text
    }
    if url == "memory:" || url == ":memory:" { return InMemoryAdStore() }
    if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
        throw ConfigurationError(message: "database '\(URLRedaction.redact(url))': PostgreSQL is not supported yet; use a file path or sqlite:PATH")
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
    /// Failed writes, for `/health`.
    let storageHealth = StorageHealth()

    init(configuration: ServerConfiguration, store: any AdStore, logger: Logger) {
        let metrics = ServerMetrics()
        let origin = OriginClient(
            mounts: configuration.mounts,
            httpClient: OriginClient.originHTTPClient,
            maximumBytes: configuration.maximumUpstreamBytes,
            timeout: Self.timeAmount(configuration.upstreamTimeout)
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

    /// A duration as NIO's time amount, clamped to 0 ...
    ///
    /// 1 day (a larger or negative configured
    /// timeout cannot overflow the nanosecond count).
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .zero }
        guard seconds < 86_400 else { return .seconds(86_400) }
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

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

        router.getAndHead("health") { request, context -> Response in
            try await self.health(request, context: context)
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

    /// The response header that says what became of the decision: `stored` (kept for the viewer),
    /// `anonymous` (no viewer named: decided for the break, not stored) or `not-stored` (the storage
    /// failed: an empty pod, so that the player resumes by the break's own rules at once).
    static let decisionHeader = HTTPField.Name("X-Intermission-Decision")!

    /// `GET /v1/asset-lists/{scope}/{break}.json`: the whole break's pod, arranged for the start
    /// offset; stored per viewer, decided on the spot for anonymous requests, an empty pod when the
    /// storage fails.
    func assetList(_ request: Request, context: BasicRequestContext, clock: any WallClock) async throws -> Response {
        let scopeText = try context.parameters.require("scope")
        let breakID = try context.parameters.require("break")
        guard let scope = AdScope(rawValue: scopeText) else {
            throw APIError.notFound("unknown scope: expected vod-{asset} or live-{channel}")
        }
        guard breakID.utf8.count <= 200 else { throw APIError.notFound("no break with an ID that long") }
        let query = request.uri.queryParameters
        if let id = query[Substring(InterstitialRequestURL.interstitialIDParameter)], id != breakID {
            throw APIError.badRequest("_HLS_interstitial_id does not match the break of the path")
        }
        var startOffset: MediaTime?
        if let text = query[Substring(InterstitialRequestURL.startOffsetParameter)] {
            // Checked by `checkAssetListInput` before the route runs; parsed again here.
            startOffset = try Self.startOffset(String(text))
        }
        var viewer = query[Substring(InterstitialRequestURL.primaryIDParameter)].map(String.init)
        if viewer == nil, let field = request.headers.first(where: { $0.name.canonicalName == "x-playback-session-id" }) {
            viewer = field.value
        }
        let now = clock.now()
        let duration: MediaTime
        switch scope.kind {
        case .vod:
            duration = try await self.playlists.vodBreak(asset: scope.name, breakID: breakID).duration
        case .live:
            _ = try await self.playlists.channel(scope.name)
            guard let liveBreak = try await self.playlists.liveBreak(channel: scope.name, breakID: breakID), !liveBreak.cancelled else {
                throw APIError.notFound("channel '\(scope.name)' has no break '\(breakID)' within an hour of now")
            }
            duration = liveBreak.effectiveDuration
        }
        let service = AdDecisionService(decider: await self.inventory.decider, policy: self.decisions, store: self.store)
        let anonymous = (viewer ?? "").isEmpty
        var list: AssetList
        let outcome: String
        do {
            let (decision, isNew) = try await service.decision(
                viewer: viewer,
                scope: scope,
                breakID: breakID,
                breakDuration: duration,
                startOffset: startOffset,
                now: now
            )
            if !anonymous { self.storageHealth.succeeded() }
            outcome = anonymous ? "anonymous" : "stored"
            self.metrics.decision(kind: scope.kind.rawValue, result: anonymous ? "anonymous" : (isNew ? "new" : "stored"), assets: decision.assets.count)
            if isNew && !anonymous {
                context.logger.debug(
                    "decision",
                    metadata: ["scope": "\(scope)", "break": "\(breakID)", "ads": "\(decision.assets.map(\.creativeID))"]
                )
            }
            let base = self.publicBaseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? self.listening.url
            if let base {
                list = decision.assetList(resolvingAgainst: base, cache: self.resolvedURIs)
            } else {
                list = AssetList(assets: decision.assets.map { AssetList.Asset(uri: $0.uri, duration: $0.duration.seconds) })
            }
        } catch {
            // The storage failed: say so loudly, and answer at once with an empty pod (the player
            // then resumes by the break's own rules), marked as not stored.
            let (code, text) = Self.storageFailure(error)
            self.storageHealth.failed(text, at: now)
            self.metrics.storageFailure(operation: "decision", code: code)
            self.metrics.decision(kind: scope.kind.rawValue, result: "fallback", assets: 0)
            context.logger.error(
                "storage failed: the decision was not stored; answered with an empty pod",
                metadata: ["sqlite_code": "\(code)", "error": "\(text)", "scope": "\(scope)", "break": "\(breakID)"]
            )
            list = AssetList(assets: [])
            list.otherMembers = [("X-INTERMISSION-STORED", .bool(false))]
            outcome = "not-stored"
        }
        var response = Response.bytes(list.encode(), contentType: "application/json", cacheControl: "private, no-store")
        response.headers[Self.decisionHeader] = outcome
        return response
    }

    /// The SQLite result code of a storage error (`13` disk full, `8` read-only, …; `file` when the
    /// database file is no longer the one opened, `other` for the rest) and its message.
    static func storageFailure(_ error: any Error) -> (code: String, message: String) {
        if let error = error as? DatabaseError {
            return (String(error.extendedResultCode.rawValue), "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")")
        }
        if let error = error as? AdInsertionError, error.code == .storage {
            return ("file", error.message)
        }
        return ("other", "\(error)")
    }

    // MARK: - Health

    /// `GET /health`: `{"status": "ok" | "degraded"}` for everyone; with the admin token (the same
    /// check as `/v1/admin`), the detail: channels (upstream URLs redacted), decisions, storage.
    func health(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let detail = try await self.healthDetail()
        let authorized: Bool
        do {
            _ = try await BearerTokenMiddleware<BasicRequestContext>(token: self.adminToken).handle(request, context: context) { _, _ in
                Response(status: .ok)
            }
            authorized = true
        } catch let error as APIError where error.status == .unauthorized || error.status == .forbidden {
            authorized = false
        }
        let body: JSONValue = authorized ? detail.body : .object([("status", .string(detail.degraded ? "degraded" : "ok"))])
        return .bytes(body.serialized(options: .pretty), contentType: "application/json", cacheControl: "no-store")
    }

    /// Everything `/health` knows, and whether any of it is degraded.
    func healthDetail() async throws -> (degraded: Bool, body: JSONValue) {
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
                entry.append(("upstream", .string(URLRedaction.redact(url))))
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
        var storage: [(String, JSONValue)] = []
        let written = self.storageHealth.snapshot
        let unavailable = await self.store.unavailability()
        let storageState = unavailable != nil ? "unavailable" : (written.failing ? "failing" : "ok")
        if storageState != "ok" { degraded = true }
        storage.append(("state", .string(storageState)))
        storage.append(("failedWrites", .number(Double(written.failures))))
        if let message = unavailable ?? written.lastFailure?.message { storage.append(("message", .string(message))) }
        if let date = written.lastFailure?.date { storage.append(("lastFailure", .string(date.iso8601))) }
        var fields: [(String, JSONValue)] = [("status", .string(degraded ? "degraded" : "ok")), ("time", .string(now.iso8601))]
        if let count = try? await self.store.decisionCount() { fields.append(("decisions", .number(Double(count)))) }
        fields.append(("storage", .object(storage)))
        fields.append(("channels", .array(channels)))
        return (degraded, .object(fields))
    }
}
