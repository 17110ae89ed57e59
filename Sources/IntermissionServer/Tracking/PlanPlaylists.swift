import AdInsertion
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import NIOCore

/// Carries a viewer's plan token through the playlists: every playlist URI of a multivariant
/// playlist, and every `X-ASSET-LIST` of a media playlist and `X-URI` of its schedule (Appendix H)
/// and preload (Appendix F) date ranges gets `plan={token}`, so the request that decides the pod
/// knows the plan (and a preload's URI keeps the query of its target's, as Appendix F asks); for
/// plan B, when configured, interstitial and schedule date ranges are left out.
enum PlanPlaylists {
    /// `uri` with `plan={token}` added to its query.
    static func adding(_ token: String, to uri: Substring) -> String {
        String(uri) + (uri.contains("?") ? "&" : "?") + TrackingService.planParameter + "=" + token
    }

    /// Whether a URI (line or attribute) names a playlist.
    private static func isPlaylist(_ uri: Substring) -> Bool {
        let path = uri.prefix { $0 != "?" && $0 != "#" }
        return path.lowercased().hasSuffix(".m3u8") || path.lowercased().hasSuffix(".m3u")
    }

    /// Adds the token to the quoted value of `attribute` in a tag line, when it names a playlist
    /// (or, for `X-ASSET-LIST`, always).
    private static func rewrite(_ line: Substring, attribute: String, token: String, always: Bool) -> Substring {
        guard let start = line.firstRange(of: attribute + "=\"") else { return line }
        let rest = line[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return line }
        let value = rest[..<end]
        guard always || Self.isPlaylist(value) else { return line }
        return line[..<start.upperBound] + Self.adding(token, to: value) + line[end...]
    }

    /// The playlist text for a viewer of `plan` whose token is `token`.
    static func rewrite(_ text: String, token: String, plan: ViewerPlan, removeInterstitials: Bool) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#EXT-X-DATERANGE:") {
                let schedule = line.contains("CLASS=\"com.apple.hls.daterange-schedule\"")
                let interstitial =
                    line.contains("CLASS=\"com.apple.hls.interstitial\"") || line.contains("X-ASSET-LIST=\"")
                    || line.contains("X-ASSET-URI=\"") || schedule
                if interstitial && plan == .b && removeInterstitials { continue }
                var rewritten = Self.rewrite(line, attribute: "X-ASSET-LIST", token: token, always: true)
                if schedule || line.contains("CLASS=\"com.apple.hls.preload\"") {
                    rewritten = Self.rewrite(rewritten, attribute: "X-URI", token: token, always: true)
                }
                lines.append(rewritten)
            } else if line.hasPrefix("#EXT-X-MEDIA:") || line.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") {
                lines.append(Self.rewrite(line, attribute: "URI", token: token, always: false))
            } else if !line.hasPrefix("#"), case let uri = line.hasSuffix("\r") ? line.dropLast() : line,
                !uri.trimmingPrefixWhitespace.isEmpty, Self.isPlaylist(uri)
            {
                lines.append(Substring(Self.adding(token, to: uri) + (line.hasSuffix("\r") ? "\r" : "")))
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Substring {
    fileprivate var trimmingPrefixWhitespace: Substring { self.drop { $0 == " " || $0 == "\t" || $0 == "\r" } }
}

extension TrackingService {
    /// The answer to a playlist request that carries a plan token: the playlist rewritten for the
    /// plan, never cached or shared (`private, no-store`).
    func planPlaylist(_ rendered: RenderedPlaylist, token: String, plan: ViewerPlan) -> Response {
        var bytes = rendered.bytes
        if bytes.isEmpty, let prepared = rendered.prepared { bytes = Array(prepared.body.readableBytesView) }
        let text = PlanPlaylists.rewrite(
            String(decoding: bytes, as: UTF8.self),
            token: token,
            plan: plan,
            removeInterstitials: self.configuration.planBRemovesInterstitials
        )
        return Response.bytes(
            Array(text.utf8),
            contentType: "application/vnd.apple.mpegurl",
            cacheControl: "private, no-store"
        )
    }
}
