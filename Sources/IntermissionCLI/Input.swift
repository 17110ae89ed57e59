import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import NIOCore
import NIOHTTP1

/// A playlist read from a path or an http(s) URL.
struct PlaylistInput {
    /// Where it came from, as the user wrote it.
    var name: String
    /// Its bytes.
    var bytes: [UInt8]

    /// Why an input could not be used; the CLI exits 2 with this one-line reason.
    struct Unusable: Error, CustomStringConvertible {
        var reason: String
        var description: String { self.reason }
    }

    /// The most a playlist may weigh (64 MiB).
    static let maximumSize = 64 * 1024 * 1024

    /// Reads a file, standard input (`-`), or an http(s) URL.
    static func read(_ location: String) async throws -> PlaylistInput {
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            return try await self.fetch(location)
        }
        if location == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return PlaylistInput(name: "<stdin>", bytes: [UInt8](data))
        }
        guard FileManager.default.fileExists(atPath: location) else {
            throw Unusable(reason: "\(location): no such file")
        }
        guard let data = FileManager.default.contents(atPath: location) else {
            throw Unusable(reason: "\(location): cannot be read")
        }
        return PlaylistInput(name: location, bytes: [UInt8](data))
    }

    /// A client that fails at once when nothing listens (no connection retries until the deadline).
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func fetch(_ url: String) async throws -> PlaylistInput {
        let client = self.makeClient()
        do {
            let input = try await self.fetch(url, client: client)
            try await client.shutdown()
            return input
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func fetch(_ url: String, client: HTTPClient) async throws -> PlaylistInput {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "intermission/0.1")
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            guard (200..<300).contains(Int(response.status.code)) else {
                throw Unusable(reason: "\(url): HTTP \(response.status.code) \(response.status.reasonPhrase)")
            }
            let body = try await response.body.collect(upTo: self.maximumSize)
            return PlaylistInput(name: url, bytes: Array(body.readableBytesView))
        } catch let error as Unusable {
            throw error
        } catch {
            throw Unusable(reason: "\(url): \(error)")
        }
    }

    /// Whether the bytes look like a playlist at all: `#EXTM3U` first (after an optional BOM).
    var looksLikePlaylist: Bool {
        var bytes = self.bytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.starts(with: Array("#EXTM3U".utf8))
    }
}

extension PlaylistInput {
    /// A URI from this playlist, resolved against where the playlist came from (URL or file path).
    func resolve(_ uri: String) -> String {
        if URIReference.isAbsolute(uri) { return uri }
        if self.name.hasPrefix("http://") || self.name.hasPrefix("https://") {
            return URIReference.resolve(uri, against: self.name)
        }
        let base = self.name == "<stdin>" ? FileManager.default.currentDirectoryPath + "/x" : self.name
        let directory = (base as NSString).deletingLastPathComponent
        let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
        return ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(path)
    }
}
