import AdInsertion
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import IntermissionSQLite
import IntermissionStore
import Logging
import NIOCore
import Synchronization

/// `GET /v1/asset-lists/{scope}/{break}.json`: the late-bound ad decision of one viewer and break.
struct AssetListController: Sendable {
    let playlists: PlaylistService
    let inventory: InventoryRegistry
    let decisions: DecisionPolicy
    let store: any AdStore
    let metrics: ServerMetrics
    let storageHealth: StorageHealth
    let clock: any WallClock
    let publicBaseURL: String?
    let listening: ListeningAddress
    let resolvedURIs: ResolvedURICache
    /// Encoded answers of the pods decided lately (shared with ``AssetListAnswers``).
    let bodies: AssetListBodies
    /// Plans and beacon URLs.
    let tracking: TrackingService
    /// Asks the presentations' VAST ad servers (see `AssetListController+AdServer.swift`).
    let adServers: AdServerClient
    /// Conditions ad servers' creatives without HLS (`nil`: conditioning is off).
    var conditioner: CreativeConditioner? = nil

    /// Adds the route.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("v1/asset-lists/{scope}/{break}.json") { request, context -> Response in
            try await self.assetList(try Self.input(request, context: context), request: request, context: context)
        }
    }

    /// The response header that says what became of the decision: `stored` (kept for the viewer),
    /// `anonymous` (no viewer named: decided for the break, not stored) or `not-stored` (the storage
    /// failed: an empty pod, so that the player resumes by the break's own rules at once).
    static let decisionHeader = HTTPField.Name("X-Intermission-Decision")!

    /// `GET /v1/asset-lists/{scope}/{break}.json`: the whole break's pod, arranged for the start
    /// offset; stored per viewer, decided on the spot for anonymous requests, an empty pod when the
    /// storage fails.
    func assetList(_ input: AssetListInput, request: Request, context: ServerRequestContext) async throws -> Response {
        let breakID = input.breakID
        guard let scope = AdScope(rawValue: input.scope) else {
            throw APIError.notFound("unknown scope: expected vod-{asset} or live-{channel}")
        }
        let plan = try self.tracking.plan(of: request)
        if let id = input.interstitialID, id != breakID {
            throw APIError.badRequest("_HLS_interstitial_id does not match the break of the path")
        }
        let startOffset = input.startOffset
        let viewer = input.viewer
        let now = self.clock.now()
        let duration: MediaTime
        switch scope.kind {
        case .vod:
            duration = try self.playlists.vodBreak(asset: scope.name, breakID: breakID).duration
        case .live:
            _ = try await self.playlists.channel(scope.name)
            guard let liveBreak = try await self.playlists.liveBreak(channel: scope.name, breakID: breakID),
                !liveBreak.cancelled
            else {
                throw APIError.notFound("channel '\(scope.name)' has no break '\(breakID)' within an hour of now")
            }
            duration = liveBreak.effectiveDuration
        }
        if plan == .b { return Self.noAds() }
        let sources = self.adSources(for: scope)
        if let settings = sources.adServer,
            let response = await self.adServerAnswer(
                request,
                context: context,
                settings: settings,
                scope: scope,
                breakID: breakID,
                viewer: viewer,
                duration: duration,
                startOffset: startOffset,
                plan: plan,
                now: now
            )
        {
            return response
        }
        let service = AdDecisionService(
            decider: await self.inventory.decider,
            policy: self.decisions,
            store: self.store,
            allowed: sources.inventory
        )
        let anonymous = (viewer ?? "").isEmpty
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
            let outcome = anonymous ? "anonymous" : "stored"
            self.metrics.decision(
                kind: scope.kind.rawValue,
                result: anonymous ? "anonymous" : (isNew ? "new" : "stored"),
                assets: decision.assets.count
            )
            if isNew && !anonymous {
                context.logger.debug(
                    "decision",
                    metadata: [
                        "scope": "\(scope)", "break": "\(breakID)", "ads": "\(decision.assets.map(\.creativeID))",
                    ]
                )
            }
            return self.answer(decision, plan: plan, outcome: outcome)
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
            var list = AssetList(assets: [])
            list.otherMembers = [("X-INTERMISSION-STORED", .bool(false))]
            var response = Response.bytes(
                list.encode(),
                contentType: "application/json",
                cacheControl: "private, no-store"
            )
            response.headers[Self.decisionHeader] = "not-stored"
            return response
        }
    }

    /// The fields of every asset-list answer (before the CORS middleware adds its own).
    static let answerFields: HTTPFields = [.contentType: "application/json", .cacheControl: "private, no-store"]

    /// The base creative URIs are made absolute against: `publicBaseURL` (with a final `/`), else
    /// the address the server is bound to, else `nil` (URIs as configured).
    static func base(publicBaseURL: String?, listening: ListeningAddress) -> String? {
        publicBaseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? listening.url
    }

    /// The SQLite result code of a storage error (`13` disk full, `8` read-only, …; `file` when the
    /// database file is no longer the one opened, `other` for the rest) and its message.
    static func storageFailure(_ error: any Error) -> (code: String, message: String) {
        if let failure = SQLiteAdStore.failure(error) { return failure }
        if let error = error as? AdInsertionError, error.code == .storage {
            return ("file", error.message)
        }
        return ("other", "\(error)")
    }

}

/// The encoded asset lists of the pods decided lately, by pod and base: many viewers get the same
/// pod, so each is resolved and encoded once, and an answer shares its bytes.
///
/// Bounded: it starts over past 1,024 pods.
final class AssetListBodies: Sendable {
    private struct Key: Hashable {
        var assets: [AdDecision.Asset]
        var base: String?
    }

    private let bodies = Mutex<[Key: ByteBuffer]>([:])

    /// The JSON asset list of `decision`, URIs resolved against `base` (as configured when `nil`).
    func body(of decision: AdDecision, base: String?, resolving cache: ResolvedURICache) -> ByteBuffer {
        let key = Key(assets: decision.assets, base: base)
        if let known = self.bodies.withLock({ $0[key] }) { return known }
        let list =
            base.map { decision.assetList(resolvingAgainst: $0, cache: cache) }
            ?? decision.assetList
        let body = ByteBuffer(bytes: list.encode())
        self.bodies.withLock { table in
            if table.count >= 1024 { table.removeAll(keepingCapacity: true) }
            table[key] = body
        }
        return body
    }
}

/// Returning viewers of VOD breaks, answered on the connection's event loop (see
/// ``EventLoopAnswers``): a viewer whose decision the store remembers gets it back with no hop to
/// the concurrency pool, no router and no database read.
///
/// Only requests whose answer cannot differ from the controller's are taken: `GET` of
/// `/v1/asset-lists/vod-{asset}/{break}.json` for a configured asset and break (a VOD break never
/// changes while the server runs), with `_HLS_primary_id` naming the viewer and every byte of the
/// path and query a letter, a digit or one of `-._~/?=&` (no percent-encoding to decode), each of
/// the three `_HLS_` parameters at most once and within its range, and no `X-Playback-Session-Id`.
/// Anything else, live breaks (an admin can cancel them at any time), and any viewer the store
/// does not remember, go to ``AssetListController`` as before. The answer carries the fields the
/// controller and the CORS middleware give, and is counted in the same metrics.
struct AssetListAnswers: Sendable {
    let playlists: PlaylistService
    let store: any AdStore
    let metrics: ServerMetrics
    /// The route's request metrics, bound once.
    let route: ServerMetrics.BoundRoute
    let publicBaseURL: String?
    let listening: ListeningAddress
    let resolvedURIs: ResolvedURICache
    let bodies: AssetListBodies
    let tracking: TrackingService

    /// The route pattern, as the router reports it to the metrics middleware.
    static let routePattern = "/v1/asset-lists/{scope}/{break}.json"

    /// The answer to a returning viewer of a VOD break, or `nil` to pass the request on.
    func answer(_ request: HTTPRequest) -> PreparedAnswer? {
        guard request.method == .get, let target = request.path, target.hasPrefix("/v1/asset-lists/vod-"),
            request.headerFields[Self.sessionField] == nil, let parsed = Self.parse(target),
            !self.tracking.configuration.beacons, !self.tracking.configuration.requirePlan,
            !target.contains(TrackingService.planParameter + "=")
        else { return nil }
        let start = ContinuousClock.now
        guard (try? self.playlists.vodBreak(asset: parsed.asset, breakID: parsed.breakID)) != nil,
            let decision = self.store.rememberedDecision(
                for: DecisionKey(viewer: parsed.viewer, scope: "vod-" + parsed.asset, breakID: parsed.breakID)
            )
        else { return nil }
        let base = AssetListController.base(publicBaseURL: self.publicBaseURL, listening: self.listening)
        let body = self.bodies.body(of: decision, base: base, resolving: self.resolvedURIs)
        var headers = AssetListController.answerFields
        headers[AssetListController.decisionHeader] = "stored"
        OpenCORS.add(to: &headers)
        headers[.contentLength] = String(body.readableBytes)
        // Nothing was written: the storage's health is left as the last write said.
        self.metrics.decision(kind: AdScope.Kind.vod.rawValue, result: "stored", assets: decision.assets.count)
        self.route.record(method: .get, status: .ok, duration: ContinuousClock.now - start)
        return PreparedAnswer(status: .ok, headers: headers, body: body)
    }

    private static let sessionField = HTTPField.Name("X-Playback-Session-Id")!

    /// The asset, break and viewer of a request target, or `nil` when it is not one this type takes:
    /// a plain path and query (nothing to percent-decode, see ``AssetListInput/isPlain``), inputs
    /// within their ranges, a viewer named by `_HLS_primary_id`, and `_HLS_interstitial_id` (when
    /// given) naming the break of the path.
    static func parse(_ target: String) -> (asset: String, breakID: String, viewer: String)? {
        guard target.utf8.count <= InputLimits.requestTargetBytes else { return nil }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0].utf8.allSatisfy({ AssetListInput.plain[Int($0)] }) else { return nil }
        let segments = parts[0].dropFirst("/v1/asset-lists/".count).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        guard segments.count == 2, segments[0].hasPrefix("vod-"), segments[1].hasSuffix(".json") else { return nil }
        guard
            let input = try? AssetListInput(
                scope: String(segments[0]),
                breakID: String(segments[1].dropLast(".json".count)),
                query: parts.count == 2 ? parts[1] : nil,
                sessionIDs: []
            ),
            input.isPlain, let viewer = input.primaryID, !viewer.isEmpty,
            input.interstitialID == nil || input.interstitialID == input.breakID
        else { return nil }
        return (String(input.scope.dropFirst("vod-".count)), input.breakID, viewer)
    }
}
