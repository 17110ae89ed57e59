import Foundation
import HLSPlaylist
import InterstitialPlayback

/// Loads `file://` URLs from the disk (an offline copy) and hands every other URL to `network`.
///
/// Files are read only for a stream played from the disk: a stream fetched over HTTP(S) must not
/// make the player read local files it names (`X-ASSET-LIST="file:///etc/passwd"`, a schedule's
/// `X-URI`, an `X-ASSET-URI`, a beacon), so then every `file:` URL fails as `invalidURL`, as a
/// request that cannot be made.
///
/// The query and fragment of a file URL (the player adds `_HLS_primary_id` to interstitial
/// requests) are left out; a byte range reads that range; a missing file is a 404.
struct LocalFileLoader: ResourceLoader {
    /// Where other URLs go.
    let network: any ResourceLoader
    /// Whether `file:` URLs are read: only when the stream itself is a local file.
    let readsFiles: Bool

    func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        guard request.url.prefix(5).lowercased() == "file:" else {
            return await self.network.load(request, sessionID: sessionID)
        }
        guard self.readsFiles, request.url.hasPrefix("file://") else {
            return .failure(
                PlaybackError(
                    code: .invalidURL,
                    message: "a stream fetched over the network cannot name local files",
                    url: request.url
                )
            )
        }
        let started = ContinuousClock.now
        var path = String(request.url.dropFirst("file://".count))
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0") else {
            return .failure(PlaybackError(code: .invalidURL, message: "not a file path", url: request.url))
        }
        guard let handle = FileHandle(forReadingAtPath: decoded) else {
            return .success(LoadResponse(status: 404, body: [], byteCount: 0, elapsed: ContinuousClock.now - started))
        }
        defer { try? handle.close() }
        do {
            var status = 200
            let data: Data?
            if let range = request.byteRange {
                try handle.seek(toOffset: UInt64(max(0, range.offset ?? 0)))
                data = try handle.read(upToCount: max(0, range.length))
                status = 206
            } else {
                data = try handle.read(upToCount: request.maximumBodySize + 1)
            }
            let bytes = [UInt8](data ?? Data())
            guard bytes.count <= request.maximumBodySize else {
                return .failure(
                    PlaybackError(
                        code: .bodyTooLarge,
                        message: "the body is larger than \(request.maximumBodySize) bytes",
                        url: request.url
                    )
                )
            }
            return .success(
                LoadResponse(
                    status: status,
                    body: request.keepsBody ? bytes : [],
                    byteCount: bytes.count,
                    elapsed: ContinuousClock.now - started
                )
            )
        } catch {
            return .failure(PlaybackError(code: .transport, message: "\(error)", url: request.url))
        }
    }
}
