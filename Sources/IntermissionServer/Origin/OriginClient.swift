import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import HTTPFetch
import IntermissionStore
import NIOCore
import NIOFileSystem

/// Reads playlists from origins: local folders mounted under `/media/{mount}/`, or `http(s)://` URLs.
///
/// Failures are `AdInsertionError`s with code `upstream` (502) saying which
/// URL (redacted: see `URLRedaction`) and why: unreachable, an HTTP error status, too large, too
/// slow, or not a playlist.
///
/// Remote origins are read with `HTTPFetch`'s `BoundedFetch`, the one bounded fetch the CLI and
/// the player use too: one deadline, ``timeout``, covers the whole exchange (connecting, the
/// headers and the last byte of the body), and a refused connection fails at once.
struct OriginClient: Sendable {
    /// The client remote origins are read with: like `HTTPClient.shared`, process-wide and never
    /// shut down, but without retrying refused connections (see
    /// `BoundedFetch.makeClient(connectTimeout:maximumRedirects:)`).
    static let originHTTPClient: HTTPClient = BoundedFetch.makeClient()

    /// Local folders by mount name.
    var mounts: [String: String]
    /// The HTTP client for remote origins.
    var httpClient: HTTPClient
    /// The most a playlist may weigh.
    var maximumBytes: Int
    /// How long a remote origin has to answer; `BoundedFetch` holds it within
    /// `FetchRequest.minimumTimeout` … `FetchRequest.maximumTimeout`.
    var timeout: Duration

    /// The local file a server path names (`/media/{mount}/{path}`), or `nil` when it is not one.
    func localFile(for url: String) -> String? {
        guard url.hasPrefix("/media/") else { return nil }
        let rest = url.dropFirst("/media/".count)
        let path = rest.split(separator: "?", maxSplits: 1).first.map(String.init) ?? String(rest)
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let mount = parts.first, let folder = self.mounts[mount], parts.count > 1 else { return nil }
        guard parts.allSatisfy({ $0 != ".." && $0 != "." }) else { return nil }
        return ([folder] + parts.dropFirst()).joined(separator: "/")
    }

    /// The playlist at `url`, parsed.
    func playlist(at url: String) async throws -> Playlist {
        try Self.parse(try await self.bytes(at: url), url: url)
    }

    /// The bytes read from `url`, parsed: `AdInsertionError.Code.upstream` when they are not a
    /// playlist or not a valid one.
    static func parse(_ bytes: [UInt8], url: String) throws -> Playlist {
        var view = bytes[...]
        if view.starts(with: [0xEF, 0xBB, 0xBF]) { view = view.dropFirst(3) }
        guard view.starts(with: Array("#EXTM3U".utf8)) else {
            throw AdInsertionError(
                code: .upstream,
                message: "\(URLRedaction.redact(url)) is not a playlist (it does not start with #EXTM3U)"
            )
        }
        do {
            return try Playlist(bytes: bytes, file: URLRedaction.redact(url))
        } catch {
            throw AdInsertionError(
                code: .upstream,
                message: "\(URLRedaction.redact(url)) is not a valid playlist: \(error)"
            )
        }
    }

    /// The bytes at `url`.
    func bytes(at url: String) async throws -> [UInt8] {
        if url.hasPrefix("/media/") {
            guard let file = self.localFile(for: url) else {
                throw AdInsertionError(
                    code: .notFound,
                    message: "\(URLRedaction.redact(url)) names no mounted media folder"
                )
            }
            return try await Self.localBytes(file, shown: URLRedaction.redact(url), maximumBytes: self.maximumBytes)
        }
        let shown = URLRedaction.redact(url)
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw AdInsertionError(code: .upstream, message: "\(shown) is neither an http(s) URL nor a /media/ path")
        }
        let request = FetchRequest(
            url: url,
            shownURL: shown,
            headers: [("User-Agent", "intermission-server/0.1")],
            timeout: self.timeout,
            maximumBodySize: self.maximumBytes
        )
        do {
            return try await BoundedFetch(client: self.httpClient).get(request).body
        } catch {
            throw self.upstreamError(error, shown: shown)
        }
    }

    /// A failed fetch as the server's 502: what the origin did, in words that carry no secret.
    func upstreamError(_ error: FetchError, shown: String) -> AdInsertionError {
        let message: String
        switch error.code {
        case .timeout:
            let bounded = min(max(self.timeout, FetchRequest.minimumTimeout), FetchRequest.maximumTimeout)
            // At most an hour, so the nanoseconds fit an Int64.
            let (whole, attoseconds) = bounded.components
            let seconds = MediaTime(nanoseconds: whole * 1_000_000_000 + attoseconds / 1_000_000_000)
                .decimalString(places: 3)
            message = "upstream \(shown) did not send its whole answer within \(seconds) s"
        case .httpStatus:
            message = "upstream \(shown) answered HTTP \(error.status ?? 0)"
        case .bodyTooLarge:
            message = "upstream \(shown) is too large (more than \(self.maximumBytes) bytes)"
        default:
            message = "upstream \(shown) is unreachable: \(URLRedaction.redactURLs(in: error.message))"
        }
        return AdInsertionError(code: .upstream, message: message)
    }

    /// The bytes of a local file, read through NIO's file system (on its thread pool, so neither an
    /// event loop nor a thread of the cooperative pool waits for the disk), at most `maximumBytes`.
    private static func localBytes(_ file: String, shown: String, maximumBytes: Int) async throws -> [UInt8] {
        func tooLarge(_ size: Int64?) -> AdInsertionError {
            let count = size.map { "\($0) bytes" } ?? "more bytes"
            return AdInsertionError(
                code: .upstream,
                message: "\(shown) is too large (\(count), the limit is \(maximumBytes))"
            )
        }
        do {
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(file)) { handle in
                let size = try await handle.info().size
                guard size <= Int64(maximumBytes) else { throw tooLarge(size) }
                do {
                    let buffer = try await handle.readToEnd(maximumSizeAllowed: .bytes(Int64(maximumBytes)))
                    return Array(buffer.readableBytesView)
                } catch let error as FileSystemError where error.code == .resourceExhausted {
                    // The file grew past the limit since its size was read.
                    throw tooLarge(nil)
                }
            }
        } catch let error as AdInsertionError {
            throw error
        } catch {
            // Missing, a folder, unreadable: as far as a client is concerned, there is no such file.
            throw AdInsertionError(code: .notFound, message: "\(shown) does not exist")
        }
    }
}
