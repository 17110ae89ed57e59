import ArgumentParser
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPFetch

#if canImport(Glibc)
import Glibc

/// `read(2)`, named apart from ``PlaylistInput/read(_:timeout:)``.
private func systemRead(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Glibc.read(descriptor, buffer, count)
}
#elseif canImport(Darwin)
import Darwin

/// `read(2)`, named apart from ``PlaylistInput/read(_:timeout:)``.
private func systemRead(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Darwin.read(descriptor, buffer, count)
}
#endif

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

    /// The request timeout in seconds when a command is not given `--timeout`.
    static let defaultTimeout: Double = 30

    /// Reads a file, standard input (`-`), or an http(s) URL.
    ///
    /// The head is read first: input whose first line does not start with `#EXTM3U` (after an
    /// optional BOM) is refused as soon as its first bytes show it, without reading the rest, so a
    /// 200 MB file or a pipe that stays open gets an answer at once. Larger than ``maximumSize``
    /// is refused too.
    static func read(_ location: String, timeout: Double = defaultTimeout) async throws -> PlaylistInput {
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            return try await self.fetch(location, timeout: timeout)
        }
        if location == "-" {
            return PlaylistInput(name: "<stdin>", bytes: try self.readFile(descriptor: 0, name: "<stdin>"))
        }
        guard FileManager.default.fileExists(atPath: location) else {
            throw Unusable(reason: "\(location): no such file")
        }
        let descriptor = open(location, O_RDONLY)
        guard descriptor >= 0 else {
            throw Unusable(reason: "\(location): cannot be read")
        }
        defer { close(descriptor) }
        return PlaylistInput(name: location, bytes: try self.readFile(descriptor: descriptor, name: location))
    }

    /// The reason given for input whose first line is not `#EXTM3U`.
    static func notAPlaylist(_ name: String) -> Unusable {
        Unusable(reason: "\(name): not a playlist (the first line is not #EXTM3U)")
    }

    /// Whether `head` (the first bytes read so far) already shows that the input is not a
    /// playlist: it differs from `#EXTM3U` (after an optional UTF-8 BOM) within its length.
    static func headRefuses(_ head: ArraySlice<UInt8>, complete: Bool) -> Bool {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        var bytes = head
        // A BOM is optional: drop it when present (or still possibly arriving).
        if bytes.starts(with: bom) {
            bytes = bytes.dropFirst(3)
        } else if bom.starts(with: bytes), !complete {
            return false
        }
        let magic = Array("#EXTM3U".utf8)
        let compared = min(bytes.count, magic.count)
        if !bytes.prefix(compared).elementsEqual(magic.prefix(compared)) { return true }
        return complete && bytes.count < magic.count
    }

    /// Reads a file descriptor (file, pipe, terminal) to its end, refusing it as soon as the head
    /// is not a playlist's and once it passes ``maximumSize``.
    ///
    /// `read(2)` returns what a pipe has,
    /// so a bad first line on a pipe that stays open is answered without waiting for its end.
    static func readHeadFirst(descriptor: CInt, name: String) throws -> [UInt8] {
        var collector = HeadFirstCollector(name: name)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Unusable(reason: "\(name): cannot be read (error \(errno))")
            }
            if count == 0 { break }
            try collector.append(chunk[0..<count])
        }
        return try collector.finish()
    }

    /// Collects input as it arrives and refuses it as soon as its head shows it is not a playlist
    /// or it grows past ``PlaylistInput/maximumSize``.
    struct HeadFirstCollector {
        let name: String
        private(set) var bytes: [UInt8] = []
        /// Whether the head has been seen in full (BOM and `#EXTM3U` fit in 10 bytes).
        private var decided = false

        init(name: String) {
            self.name = name
        }

        mutating func append(_ more: some Collection<UInt8>) throws {
            self.bytes.append(contentsOf: more)
            if !self.decided {
                if PlaylistInput.headRefuses(self.bytes[...], complete: false) {
                    throw PlaylistInput.notAPlaylist(self.name)
                }
                self.decided = self.bytes.count >= 10
            }
            if self.bytes.count > PlaylistInput.maximumSize {
                let mebibytes = PlaylistInput.maximumSize / 1024 / 1024
                throw Unusable(reason: "\(self.name): larger than \(mebibytes) MiB, the most a playlist may weigh")
            }
        }

        /// The bytes, once the input ended; refuses a head that ended too soon.
        func finish() throws -> [UInt8] {
            if PlaylistInput.headRefuses(self.bytes[...], complete: true) {
                throw PlaylistInput.notAPlaylist(self.name)
            }
            return self.bytes
        }
    }

    /// The HTTP client of this run: one per process, made on first use, for every playlist the
    /// command fetches (a refused connection fails at once; see ``BoundedFetch/makeClient(connectTimeout:maximumRedirects:)``).
    ///
    /// Process-wide and never shut down, like `HTTPClient.shared`.
    static let client: HTTPClient = BoundedFetch.makeClient(connectTimeout: .seconds(10))

    /// A client that fails at once when nothing listens, connecting within `timeout` (at most 10 s).
    static func makeClient(timeout: Double = defaultTimeout) -> HTTPClient {
        BoundedFetch.makeClient(connectTimeout: .nanoseconds(Int64(min(timeout, 10) * 1e9)))
    }

    /// Fetches a playlist with the run's client (see ``fetch(_:client:timeout:)``).
    static func fetch(_ url: String, timeout: Double = defaultTimeout) async throws -> PlaylistInput {
        try await self.fetch(url, client: self.client, timeout: timeout)
    }

    /// Fetches a playlist within `timeout` seconds for the whole exchange and ``maximumSize``
    /// bytes, refusing the body from its head (see ``read(_:timeout:)``); failures are said in
    /// words (``FetchError``).
    static func fetch(_ url: String, client: HTTPClient, timeout: Double = defaultTimeout) async throws -> PlaylistInput
    {
        let request = FetchRequest(
            url: url,
            headers: [("User-Agent", "intermission/0.1")],
            timeout: .nanoseconds(Int64(timeout * 1e9)),
            maximumBodySize: self.maximumSize
        )
        do {
            let response = try await BoundedFetch(client: client).get(request) { body, complete in
                PlaylistInput.headRefuses(body[...], complete: complete) ? PlaylistInput.notAPlaylist(url).reason : nil
            }
            return PlaylistInput(name: url, bytes: response.body)
        } catch let error where error.code == .bodyTooLarge {
            throw Unusable(
                reason: "\(url): larger than \(self.maximumSize / 1024 / 1024) MiB, the most a playlist may weigh"
            )
        } catch {
            throw Unusable(reason: error.message)
        }
    }

    /// Reads a playlist for a command: unusable input (unreadable, unreachable, not a playlist)
    /// prints a one-line reason and exits 2.
    static func readPlaylistOrExit(_ location: String, timeout: Double = defaultTimeout) async throws -> PlaylistInput {
        let input: PlaylistInput
        do {
            input = try await PlaylistInput.read(location, timeout: timeout)
        } catch {
            printError("intermission: \(error)")
            throw ExitCode(2)
        }
        guard input.looksLikePlaylist else {
            printError("intermission: \(input.name): not a playlist (the first line is not #EXTM3U)")
            throw ExitCode(2)
        }
        return input
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

/// `--timeout SECONDS` for every command that fetches: a decimal number of seconds from 0.001 to
/// 3600 (default 30), read with ``MediaTime/read(_:allowSign:)`` so exponents, hexadecimal, NaN,
/// infinities and signs are refused.
struct NetworkOptions: ParsableArguments {
    @Option(name: .customLong("timeout"), help: "Seconds a server has to answer a request (0.001 to 3600; default 30).")
    var timeoutText: String = "30"

    /// The most a timeout may be: an hour.
    static let maximum = MediaTime(seconds: 3600)

    /// The timeout in seconds (valid after ``validate()``).
    var timeout: Double {
        if case .time(let time) = MediaTime.read(self.timeoutText, allowSign: false) { return time.seconds }
        return PlaylistInput.defaultTimeout
    }

    func validate() throws {
        guard case .time(let time) = MediaTime.read(self.timeoutText, allowSign: false),
            time >= MediaTime(milliseconds: 1), time <= Self.maximum
        else {
            throw ValidationError("--timeout takes seconds from 0.001 to 3600, not '\(self.timeoutText.prefix(40))'")
        }
    }
}
