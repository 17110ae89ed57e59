import AdInsertion
import GRDB
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import Logging

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

    /// Adds the route.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("v1/asset-lists/{scope}/{break}.json") { request, context -> Response in
            try Self.checkAssetListInput(request, context: context)
            return try await self.assetList(request, context: context)
        }
    }

    /// The response header that says what became of the decision: `stored` (kept for the viewer),
    /// `anonymous` (no viewer named: decided for the break, not stored) or `not-stored` (the storage
    /// failed: an empty pod, so that the player resumes by the break's own rules at once).
    static let decisionHeader = HTTPField.Name("X-Intermission-Decision")!

    /// `GET /v1/asset-lists/{scope}/{break}.json`: the whole break's pod, arranged for the start
    /// offset; stored per viewer, decided on the spot for anonymous requests, an empty pod when the
    /// storage fails.
    func assetList(_ request: Request, context: ServerRequestContext) async throws -> Response {
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
        if viewer == nil, let field = request.headers.first(where: { $0.name.canonicalName == "x-playback-session-id" })
        {
            viewer = field.value
        }
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
        let service = AdDecisionService(
            decider: await self.inventory.decider,
            policy: self.decisions,
            store: self.store
        )
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
            let base = self.publicBaseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? self.listening.url
            if let base {
                list = decision.assetList(resolvingAgainst: base, cache: self.resolvedURIs)
            } else {
                list = AssetList(
                    assets: decision.assets.map { AssetList.Asset(uri: $0.uri, duration: $0.duration.seconds) }
                )
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
            return (
                String(error.extendedResultCode.rawValue),
                "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
            )
        }
        if let error = error as? AdInsertionError, error.code == .storage {
            return ("file", error.message)
        }
        return ("other", "\(error)")
    }

}
