import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import NIOCore
import NIOFileSystem
import NIOHTTP1

/// Reads playlists from origins: local folders mounted under `/media/{mount}/`, or `http(s)://` URLs.
///
/// Failures are `AdInsertionError`s with code `upstream` (502) saying which
/// URL (redacted: see ``URLRedaction``) and why: unreachable, an HTTP error status, too large, too
/// slow, or not a playlist.
///
/// One deadline, ``timeout``, covers the whole exchange with a remote origin: connecting, the
/// headers and the last byte of the body. A refused connection fails at once (the client does not
/// retry connecting until the deadline).
struct OriginClient: Sendable {
    /// The client remote origins are read with: like `HTTPClient.shared`, process-wide and never
    /// shut down, but without retrying refused connections.
    static let originHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

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
        try Self.parse(try await self.bytes(at: url), url: url)
    }

    /// The bytes read from `url`, parsed: ``AdInsertionError/Code/upstream`` when they are not a
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
        let timeout = self.timeout
        let deadline = NIODeadline.now() + timeout
        // The fetch races a timer; the loser is cancelled (cancelling the fetch closes the
        // connection, also while the body is streaming).
        return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { try await self.fetch(url, shown: shown, deadline: deadline) }
            group.addTask {
                try await Task.sleep(for: Duration(timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                let seconds = MediaTime(nanoseconds: timeout.nanoseconds).decimalString(places: 3)
                throw AdInsertionError(
                    code: .upstream,
                    message: "upstream \(shown) did not send its whole answer within \(seconds) s"
                )
            }
            return bytes
        }
    }

    /// The bytes of a local file, read through NIO's file system (on its thread pool, so neither an
    /// event loop nor a thread of the cooperative pool waits for the disk), at most `maximumBytes`.
    private static func localBytes(_ file: String, shown: String, maximumBytes: Int) async throws -> [UInt8] {
        func tooLarge(_ size: Int64?) -> AdInsertionError {
            let count = size.map { "\($0) bytes" } ?? "more bytes"
            return AdInsertionError(code: .upstream, message: "\(shown) is too large (\(count), the limit is \(maximumBytes))")
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

    /// One exchange with a remote origin: the headers by `deadline`, then the body.
    private func fetch(_ url: String, shown: String, deadline: NIODeadline) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "intermission-server/0.1")
        let response: HTTPClientResponse
        do {
            response = try await self.httpClient.execute(request, deadline: deadline)
        } catch {
            throw AdInsertionError(
                code: .upstream,
                message: "upstream \(shown) is unreachable: \(Self.describe(error))"
            )
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            throw AdInsertionError(code: .upstream, message: "upstream \(shown) answered HTTP \(response.status.code)")
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > self.maximumBytes {
            throw AdInsertionError(
                code: .upstream,
                message: "upstream \(shown) is too large (\(length) bytes, the limit is \(self.maximumBytes))"
            )
        }
        do {
            let body = try await response.body.collect(upTo: self.maximumBytes)
            return Array(body.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw AdInsertionError(
                code: .upstream,
                message: "upstream \(shown) is too large (more than \(self.maximumBytes) bytes)"
            )
        } catch {
            throw AdInsertionError(
                code: .upstream,
                message: "upstream \(shown) failed while sending its body: \(Self.describe(error))"
            )
        }
    }

    /// A client error in words, without anything that could carry a URL's secrets.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "no connection within the timeout"
            case .deadlineExceeded, .readTimeout: return "no answer within the timeout"
            case .remoteConnectionClosed: return "the connection was closed"
            default: break
            }
        }
        if let error = error as? IOError { return "cannot connect (\(error.description))" }
        return URLRedaction.redactURLs(in: "\(error)")
    }
}

/// Hides what a configured URL may carry that is secret: the user and password, and the query
/// string (tokens often travel there).
///
/// Used wherever a URL is shown: `/health`, error messages,
/// logs.
enum URLRedaction {
    /// `https://user:pass@host/p.m3u8?token=x` → `https://REDACTED@host/p.m3u8?REDACTED`.
    ///
    /// Anything
    /// that is not an `http(s)` URL comes back without its query.
    static func redact(_ url: String) -> String {
        var text = Substring(url)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        var query = false
        if let mark = text.firstIndex(of: "?") {
            text = text[..<mark]
            query = true
        }
        var result = String(text)
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                result =
                    String(text.prefix(scheme.count)) + "REDACTED@" + String(authority[authority.index(after: at)...])
                    + String(rest[authorityEnd...])
            }
        }
        return query ? result + "?REDACTED" : result
    }

    /// Redacts every `http(s)://` URL inside a text (an error description, say).
    static func redactURLs(in text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: "http", options: .caseInsensitive) {
            output += rest[..<range.lowerBound]
            let candidate = rest[range.lowerBound...]
            let end =
                candidate.firstIndex { $0 == " " || $0 == "\"" || $0 == "'" || $0 == ")" || $0 == "," || $0.isNewline }
                ?? candidate.endIndex
            let word = candidate[..<end]
            if word.lowercased().hasPrefix("http://") || word.lowercased().hasPrefix("https://") {
                output += Self.redact(String(word))
            } else {
                output += word
            }
            rest = candidate[end...]
        }
        return output + rest
    }
}
