import Hummingbird

/// `GET /vod/{asset}/**` and `GET /live/{channel}/**`: decorated playlists.
///
/// Each answer is prepared once as a ``CachedResponse`` (gzip copy, `ETag`, `Last-Modified`,
/// computed `Cache-Control`) and kept in the ``ResponseCache``, which answers the next requests
/// before routing.
struct PlaylistController: Sendable {
    let playlists: PlaylistService
    let responses: ResponseCache

    /// Adds the routes.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("vod/{asset}/**") { request, context -> Response in
            let asset = try InputLimits.id(try context.parameters.require("asset"), field: "asset")
            let path = try Self.playlistPath(request)
            let scope = "vod:" + asset
            let generation = self.responses.generation(of: scope)
            let rendered = try await self.playlists.vodPlaylist(asset: asset, path: path)
            return self.answer(rendered, request, scope: scope, generation: generation)
        }
        router.getAndHead("live/{channel}/**") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let path = try Self.playlistPath(request)
            let scope = "live:" + channel
            let generation = self.responses.generation(of: scope)
            let rendered = try await self.playlists.livePlaylist(channel: channel, path: path)
            return self.answer(rendered, request, scope: scope, generation: generation)
        }
    }

    /// Keeps the answer (under the request path when it is spelled canonically) and answers.
    private func answer(_ rendered: RenderedPlaylist, _ request: Request, scope: String, generation: Int) -> Response {
        let key = ResponseCache.key(request.head.path).flatMap { Self.isCanonical($0) ? $0 : nil }
        return self.responses.store(rendered, key: key, scope: scope, generation: generation).response(to: request)
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
