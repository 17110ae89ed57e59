import Hummingbird

/// `GET /vod/{asset}/**` and `GET /live/{channel}/**`: decorated playlists.
struct PlaylistController: Sendable {
    let playlists: PlaylistService

    /// Adds the routes.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("vod/{asset}/**") { request, context -> Response in
            let asset = try InputLimits.id(try context.parameters.require("asset"), field: "asset")
            let path = try Self.playlistPath(request)
            let bytes = try await self.playlists.vodPlaylist(asset: asset, path: path)
            return .playlist(bytes, cacheControl: "max-age=300")
        }
        router.getAndHead("live/{channel}/**") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let path = try Self.playlistPath(request)
            let bytes = try await self.playlists.livePlaylist(channel: channel, path: path)
            return .playlist(bytes, cacheControl: "max-age=1")
        }
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
