import Hummingbird
import IntermissionHTTP

/// `GET /vod/{asset}/**` and `GET /live/{channel}/**`: decorated playlists.
///
/// Each answer is prepared once as a ``CachedResponse`` (gzip copy, `ETag`, `Last-Modified`,
/// computed `Cache-Control`) and kept in the ``ResponseCache``, which answers the next requests
/// before routing.
struct PlaylistController: Sendable {
    let playlists: PlaylistService
    let responses: ResponseCache
    /// Viewer plans: a playlist requested with a plan token passes it on (see `PlanPlaylists`).
    let tracking: TrackingService

    /// Adds the routes.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("vod/{asset}/**") { request, context -> Response in
            try await self.serve(request, context, name: "asset", scope: "vod:") {
                try await self.playlists.vodPlaylist(asset: $0, path: $1)
            }
        }
        router.getAndHead("live/{channel}/**") { request, context -> Response in
            let sequence = try BlockingReload.sequence(request)
            return try await self.serve(request, context, name: "channel", scope: "live:") {
                try await self.playlists.livePlaylist(channel: $0, path: $1, blockingSequence: sequence)
            }
        }
    }

    /// Renders the playlist a request names and answers with it, kept in the response cache.
    ///
    /// - Parameters:
    ///   - name: The route parameter that names the asset or channel (an ID).
    ///   - prefix: The cache scope's prefix (`vod:` or `live:`), followed by the ID.
    ///   - render: Renders the playlist of an ID at a path below it.
    private func serve(
        _ request: Request,
        _ context: ServerRequestContext,
        name: String,
        scope prefix: String,
        render: (String, String) async throws -> RenderedPlaylist
    ) async throws -> Response {
        let id = try InputLimits.id(try context.parameters.require(name), field: name)
        let path = try Self.playlistPath(request)
        let scope = prefix + id
        // Read before rendering, so an invalidation while rendering keeps the answer out of the cache.
        let generation = self.responses.generation(of: scope)
        let plan = try self.tracking.plan(of: request)
        let rendered = try await render(id, path)
        if let token = request.uri.queryParameters[Substring(TrackingService.planParameter)] {
            return self.tracking.planPlaylist(rendered, token: String(token), plan: plan)
        }
        return self.answer(rendered, request, scope: scope, generation: generation)
    }

    private func answer(_ rendered: RenderedPlaylist, _ request: Request, scope: String, generation: Int) -> Response {
        if let prepared = rendered.prepared { return prepared.response(to: request.head) }
        let key = ResponseCache.key(request.head.path).flatMap { Self.isCanonical($0) ? $0 : nil }
        return self.responses.store(rendered, key: key, scope: scope, generation: generation, deferringGzip: true)
            .response(to: request.head)
    }

    /// Whether a path is spelled as the server spells it: every segment as ``RequestPath/encoded(_:)``
    /// encodes its decoded form.
    ///
    /// Other spellings of the same playlist are answered but not kept, so
    /// the cache holds one entry per playlist, not one per spelling.
    static func isCanonical(_ path: Substring) -> Bool {
        guard let segments = try? RequestPath.segments(String(path)), !segments.isEmpty else { return false }
        return "/" + segments.map(RequestPath.encoded).joined(separator: "/") == path
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
}
