import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import NIOCore
import NIOHTTP1

/// Reads playlists from origins: local folders mounted under `/media/{mount}/`, or `http(s)://` URLs.
///
/// Failures are ``AdInsertionError``s with code ``AdInsertionError/Code/upstream`` (502) saying which
/// URL and why: unreachable, an HTTP error status, too large, or not a playlist.
struct OriginClient: Sendable {
    /// Local folders by mount name.
    var mounts: [String: String]
    /// The HTTP client for remote origins.
    var httpClient: HTTPClient
    /// The most a playlist may weigh.
    var maximumBytes: Int
    /// How long a remote origin has to answer.
    var timeout: TimeAmount

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
        let bytes = try await self.bytes(at: url)
        var view = bytes[...]
        if view.starts(with: [0xEF, 0xBB, 0xBF]) { view = view.dropFirst(3) }
        guard view.starts(with: Array("#EXTM3U".utf8)) else {
            throw AdInsertionError(code: .upstream, message: "\(url) is not a playlist (it does not start with #EXTM3U)")
        }
        do {
            return try Playlist(bytes: bytes, file: url)
        } catch {
            throw AdInsertionError(code: .upstream, message: "\(url) is not a valid playlist: \(error)")
        }
    }

    /// The bytes at `url`.
    func bytes(at url: String) async throws -> [UInt8] {
        if url.hasPrefix("/media/") {
            guard let file = self.localFile(for: url) else {
                throw AdInsertionError(code: .notFound, message: "\(url) names no mounted media folder")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw AdInsertionError(code: .notFound, message: "\(url) does not exist")
            }
            guard data.count <= self.maximumBytes else {
                throw AdInsertionError(code: .upstream, message: "\(url) is too large (\(data.count) bytes, the limit is \(self.maximumBytes))")
            }
            return [UInt8](data)
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw AdInsertionError(code: .upstream, message: "\(url) is neither an http(s) URL nor a /media/ path")
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "intermission-server/0.1")
        let response: HTTPClientResponse
        do {
            response = try await self.httpClient.execute(request, timeout: self.timeout)
        } catch {
            throw AdInsertionError(code: .upstream, message: "upstream \(url) is unreachable: \(error)")
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            throw AdInsertionError(code: .upstream, message: "upstream \(url) answered HTTP \(response.status.code)")
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > self.maximumBytes {
            throw AdInsertionError(code: .upstream, message: "upstream \(url) is too large (\(length) bytes, the limit is \(self.maximumBytes))")
        }
        do {
            let body = try await response.body.collect(upTo: self.maximumBytes)
            return Array(body.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw AdInsertionError(code: .upstream, message: "upstream \(url) is too large (more than \(self.maximumBytes) bytes)")
        } catch {
            throw AdInsertionError(code: .upstream, message: "upstream \(url) failed while sending its body: \(error)")
        }
    }
}
