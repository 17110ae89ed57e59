import AdInsertion
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import NIOCore
import NIOFileSystem
import Synchronization

/// A file under `/media/` as the cache knows it: its size and modification time, when they were
/// last read, and, for a small file, its bytes with every header of its answers computed once.
struct MediaFile: Sendable {
    /// The file's bytes, or `nil` for a file over ``MediaFileCache/fileLimit`` (served by
    /// `FileMiddleware`; the cache keeps only its size, to check `Range` headers).
    let body: ByteBuffer?
    /// The size in bytes.
    let size: Int64
    /// The modification time (seconds and nanoseconds since 1970), which with the size tells a
    /// changed file.
    let modified: (seconds: Int, nanoseconds: Int)
    /// When the size and modification time were read, in nanoseconds of the server's wall clock.
    var checkedAt: Int64
    /// Headers of a `200` (`Content-Length` included).
    let headers: HTTPFields
    /// Headers of a `304`: validators, caching and CORS.
    let notModifiedHeaders: HTTPFields
    /// The strong entity tag (of the bytes: the same file gives the same tag on every server).
    let etag: String
    /// `Last-Modified`, whole seconds since 1970.
    let lastModified: Int64
    /// The bytes the entry holds.
    var weight: Int { self.body?.readableBytes ?? 0 }

    /// An entry for a file of `size` bytes modified at `modified`, named `name` (for its type and
    /// `Cache-Control`), holding `body` when it is small.
    init(name: String, type: String, body: ByteBuffer?, size: Int64, modified: (Int, Int), checkedAt: Int64) {
        self.body = body
        self.size = size
        self.modified = modified
        self.checkedAt = checkedAt
        self.lastModified = Int64(modified.0)
        self.etag = body.map { "\"" + ContentDigest.hex(Array($0.readableBytesView)) + "\"" } ?? ""
        var common: HTTPFields = [:]
        common[.cacheControl] = MediaFileTypes.cacheControl(of: name)
        common[.lastModified] = HTTPDate.format(secondsSince1970: self.lastModified)
        common[.eTag] = self.etag
        OpenCORS.add(to: &common)
        var plain = common
        plain[.contentType] = type
        plain[.contentLength] = String(size)
        plain[.acceptRanges] = "bytes"
        self.headers = plain
        self.notModifiedHeaders = common
    }

    /// Whether `other` read the same file (same size and modification time).
    func isSameFile(as other: MediaFile) -> Bool {
        self.size == other.size && self.modified == other.modified
    }

    /// The answer to `request` (GET or HEAD) from the kept bytes: `304` when its validators match,
    /// `206` with `Content-Range` for one satisfiable byte range (honouring `If-Range`), `416` for an
    /// unsatisfiable one, the whole file otherwise; HEAD gets the headers of GET and no body.
    func response(to request: HTTPRequest) -> Response {
        self.answer(to: request).response
    }

    /// The same answer, ready to be written on a channel (see ``EventLoopAnswerHandler``).
    func answer(to request: HTTPRequest) -> PreparedAnswer {
        guard let body = self.body else { return PreparedAnswer(status: .internalServerError, headers: [:]) }
        if CachedResponse.notModified(request.headerFields, etag: self.etag, lastModified: self.lastModified) {
            return PreparedAnswer(status: .notModified, headers: self.notModifiedHeaders)
        }
        if request.method == .head { return PreparedAnswer(status: .ok, headers: self.headers) }
        switch self.range(of: request) {
        case .whole:
            return PreparedAnswer(status: .ok, headers: self.headers, body: body)
        case .part(let range):
            var headers = self.headers
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(self.size)"
            headers[.contentLength] = String(range.count)
            let slice = body.getSlice(at: body.readerIndex + Int(range.lowerBound), length: Int(range.count))!
            return PreparedAnswer(status: .partialContent, headers: headers, body: slice)
        case .unsatisfiable:
            return Self.unsatisfiable(size: self.size)
        }
    }

    /// What the `Range` header of `request` asks of this file, `If-Range` considered: a range is
    /// honoured only when `If-Range` is absent or names this file's strong tag or exact date.
    func range(of request: HTTPRequest) -> MediaRange {
        let fields = request.headerFields[values: .range]
        guard fields.count == 1 else { return .whole }
        if let ifRange = request.headerFields[.ifRange] {
            let date = HTTPDate.format(secondsSince1970: self.lastModified)
            guard (!self.etag.isEmpty && ifRange == self.etag) || ifRange == date else { return .whole }
        }
        return MediaRange(fields[0], size: self.size)
    }

    /// A `416` for a file of `size` bytes: `Content-Range: bytes */size` and a JSON error, not
    /// stored (`no-store`, as every error).
    static func unsatisfiable(size: Int64) -> PreparedAnswer {
        var headers: HTTPFields = [:]
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentRange] = "bytes */\(size)"
        headers[.cacheControl] = "no-store"
        OpenCORS.add(to: &headers)
        let body = APIError.body(
            status: .rangeNotSatisfiable,
            code: "rangeNotSatisfiable",
            message: "the range asked for starts after the end of the file (\(size) bytes)"
        )
        headers[.contentLength] = String(body.readableBytes)
        return PreparedAnswer(status: .rangeNotSatisfiable, headers: headers, body: body)
    }
}

/// One `Range: bytes=…` header (RFC 9110 §14.1.2) resolved against a file's size.
///
/// One range only: several (`bytes=0-1,5-6`), another unit, or anything malformed is ignored and
/// the whole file served, as §14.2 allows. Numbers of any length are read: past `Int64.max` they
/// count as `Int64.max` (a first byte there is past the end; a last byte there is the end).
enum MediaRange: Equatable {
    /// Serve the whole file.
    case whole
    /// Serve these bytes (inclusive bounds, inside the file).
    case part(ClosedRange<Int64>)
    /// Nothing of the file is asked for: `416`.
    case unsatisfiable

    /// The range `header` asks of a file of `size` bytes.
    init(_ header: String, size: Int64) {
        let text = header.utf8
        guard text.count > 6, text.prefix(6).map({ $0 | 0x20 }) == Array("bytes=".utf8) else {
            self = .whole
            return
        }
        var spec = text.dropFirst(6)
        while let first = spec.first, first == 0x20 || first == 0x09 { spec = spec.dropFirst() }
        while let last = spec.last, last == 0x20 || last == 0x09 { spec = spec.dropLast() }
        let parts = spec.split(separator: UInt8(ascii: "-"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let first = Self.number(parts[0])
        let last = Self.number(parts[1])
        switch (parts[0].isEmpty, parts[1].isEmpty) {
        case (true, true):
            self = .whole
        case (true, false):
            // A suffix: the last N bytes; zero bytes, or an empty file, is nothing.
            guard let count = last else {
                self = .whole
                return
            }
            self = count == 0 || size <= 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
        case (false, _):
            guard let start = first, parts[1].isEmpty || last != nil else {
                self = .whole
                return
            }
            let end = last ?? Int64.max
            if end < start {
                self = .whole
            } else if start >= size {
                self = .unsatisfiable
            } else {
                self = .part(start...min(end, size - 1))
            }
        }
    }

    /// The value of a run of ASCII digits (saturating at `Int64.max`), or `nil` when it is empty or
    /// holds anything else.
    static func number(_ digits: Substring.UTF8View.SubSequence) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            value = overflow1 || overflow2 ? Int64.max : sum
        }
        return value
    }
}

/// Small files under `/media/` kept in memory, answered before routing (see
/// ``MediaFileResponder``).
///
/// Keyed by the raw request path, and only paths that pass every check of the router's media route
/// get in (``RequestPath/segments(_:)``, a mount, no hidden name, a media type), so a hit needs no
/// check again. Files up to ``fileLimit`` bytes are kept, at most ``byteCapacity`` in all; larger
/// files are kept as their size only. Each entry's size and modification time are read again at
/// most once every ``recheckInterval`` (by one request, the others meanwhile served the kept bytes):
/// a changed file is read again, a removed one forgotten.
///
/// A class with a `Mutex`: every request reads it without an actor hop; the lock is held only to
/// look up or change the dictionary, never across an `await`.
final class MediaFileCache: Sendable {
    /// The largest file kept in memory (1 MiB): segments of a few seconds, keys, init sections,
    /// playlists.
    static let fileLimit: Int64 = 1_048_576
    /// The most bytes kept.
    static let byteCapacity = 64 * 1_048_576
    /// The most entries kept.
    static let entryCapacity = 4096
    /// How often a kept file's size and modification time are read again (nanoseconds).
    static let recheckInterval: Int64 = 1_000_000_000

    /// What a lookup found.
    enum Lookup {
        /// A fresh entry.
        case hit(MediaFile)
        /// Nothing usable: the caller reads the file with ``load(_:)``.
        case load
    }

    private struct State {
        var entries: [String: MediaFile] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    private let mounts: [String: String]
    private let clock: any WallClock

    /// A cache of the files of `mounts` (folders by mount name), reading the time from `clock`.
    init(mounts: [String: String], clock: any WallClock) {
        self.mounts = mounts
        self.clock = clock
    }

    /// The key of a request target (up to `?`), or `nil` when it is not under `/media/`.
    static func key(_ target: String?) -> Substring? {
        guard let target else { return nil }
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        return path.hasPrefix("/media/") ? path : nil
    }

    /// The entry of `key` when it holds the file's bytes and was checked within the last
    /// ``recheckInterval``, or `nil`; unlike ``lookup(_:)`` it changes nothing (the request that
    /// goes through ``MediaFileResponder`` reads the file again).
    func fresh(_ key: Substring) -> MediaFile? {
        let now = self.clock.now().nanosecondsSince1970
        return self.state.withLock { state -> MediaFile? in
            guard let entry = state.entries[String(key)], entry.body != nil, now >= entry.checkedAt,
                now - entry.checkedAt < Self.recheckInterval
            else { return nil }
            return entry
        }
    }

    /// The entry of `key` when it was checked within the last ``recheckInterval``; otherwise
    /// ``MediaFileCache/Lookup/load``, and the entry's check time is moved on so that the other requests keep
    /// being served from it while this one reads the file again.
    func lookup(_ key: Substring) -> Lookup {
        let now = self.clock.now().nanosecondsSince1970
        return self.state.withLock { state -> Lookup in
            guard var entry = state.entries[String(key)] else { return .load }
            if now >= entry.checkedAt, now - entry.checkedAt < Self.recheckInterval { return .hit(entry) }
            entry.checkedAt = now
            state.entries[String(key)] = entry
            return .load
        }
    }

    /// The file a key names, when it passes the media route's checks: the path on disk, the name,
    /// the content type, and whether the key is the canonical spelling of the path (each segment as
    /// ``RequestPath/encoded(_:)`` writes it).
    func file(for key: Substring) -> (path: String, name: String, type: String, canonical: Bool)? {
        guard !key.hasSuffix("/"), let segments = try? RequestPath.segments(String(key)), segments.count >= 3,
            segments[0] == "media", let folder = self.mounts[segments[1]],
            segments.dropFirst(2).allSatisfy({ !$0.hasPrefix(".") }), let name = segments.last,
            let type = MediaFileTypes.contentType(of: name)
        else { return nil }
        let canonical = key == "/" + segments.map(RequestPath.encoded).joined(separator: "/")
        return (folder + "/" + segments.dropFirst(2).joined(separator: "/"), name, type, canonical)
    }

    /// Reads the size and modification time of the file `key` names (and its bytes when it is small
    /// and new or changed) through NIO's file system, keeps the entry and returns it; `nil` when the
    /// key names no regular file (the router then answers `400` or `404`).
    func load(_ key: Substring) async -> MediaFile? {
        guard let file = self.file(for: key) else { return nil }
        let name = String(key)
        let now = self.clock.now().nanosecondsSince1970
        guard let info = try? await FileSystem.shared.info(forFileAt: FilePath(file.path)), info.type == .regular
        else {
            self.remove(name)
            return nil
        }
        let modified = (info.lastDataModificationTime.seconds, info.lastDataModificationTime.nanoseconds)
        if var kept = self.state.withLock({ $0.entries[name] }), kept.size == info.size, kept.modified == modified {
            kept.checkedAt = now
            self.state.withLock { $0.entries[name]?.checkedAt = now }
            return kept
        }
        var body: ByteBuffer?
        var size = info.size
        if info.size <= Self.fileLimit {
            guard let bytes = await Self.read(file.path) else {
                // Grown past the limit or gone since its size was read: the router serves it.
                self.remove(name)
                return nil
            }
            body = bytes
            size = Int64(bytes.readableBytes)
        }
        let entry = MediaFile(
            name: file.name,
            type: file.type,
            body: body,
            size: size,
            modified: modified,
            checkedAt: now
        )
        // Only the canonical spelling is kept: other spellings of the same file cannot fill the cache.
        if file.canonical { self.keep(entry, name) }
        return entry
    }

    /// The bytes of a file, at most ``fileLimit``, read through NIO's file system (on its thread
    /// pool); `nil` when it cannot be read or holds more.
    private static func read(_ path: String) async -> ByteBuffer? {
        do {
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                try await handle.readToEnd(maximumSizeAllowed: .bytes(Self.fileLimit))
            }
        } catch {
            return nil
        }
    }

    private func remove(_ name: String) {
        self.state.withLock { state in
            if let old = state.entries.removeValue(forKey: name) { state.bytes -= old.weight }
        }
    }

    private func keep(_ entry: MediaFile, _ name: String) {
        self.state.withLock { state in
            if let old = state.entries.removeValue(forKey: name) { state.bytes -= old.weight }
            while !state.entries.isEmpty,
                state.entries.count >= Self.entryCapacity || state.bytes + entry.weight > Self.byteCapacity,
                let victim = state.entries.randomElement()
            {
                state.entries[victim.key] = nil
                state.bytes -= victim.value.weight
            }
            state.entries[name] = entry
            state.bytes += entry.weight
        }
    }

    /// How many entries are kept, and their bytes (for tests).
    var usage: (count: Int, bytes: Int) { self.state.withLock { ($0.entries.count, $0.bytes) } }
}

/// Answers `GET` and `HEAD` under `/media/` before the router: a small file from the
/// ``MediaFileCache`` (a dictionary lookup under a lock, no URI parsing, no actor hop, no
/// middleware); a large file through the router's `FileMiddleware`, with its `Range` header
/// resolved here first (one range rewritten as `bytes=first-last`, an unsatisfiable one answered
/// `416`, an ignored one removed), so every range is read the same way whatever the size.
///
/// Anything the cache does not know (a path the checks refuse, a missing file) goes to the router,
/// which answers it as before.
struct MediaFileResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == ServerRequestContext {
    let cache: MediaFileCache
    let next: Next
    let metrics: ServerMetrics.BoundRoute

    /// The answer to `request`.
    @Sendable func respond(to request: Request, context: ServerRequestContext) async throws -> Response {
        guard request.method == .get || request.method == .head, let key = MediaFileCache.key(request.head.path) else {
            return try await self.next.respond(to: request, context: context)
        }
        let start = ContinuousClock.now
        let entry: MediaFile
        switch self.cache.lookup(key) {
        case .hit(let found): entry = found
        case .load:
            guard let found = await self.cache.load(key) else {
                return try await self.next.respond(to: request, context: context)
            }
            entry = found
        }
        guard entry.body != nil else { return try await self.large(entry, request, context) }
        let response = entry.response(to: request.head)
        if response.status == .ok || response.status == .notModified {
            self.metrics.record(method: request.method, status: response.status, duration: ContinuousClock.now - start)
        }
        return response
    }

    /// A large file: its range resolved here, then the router's `FileMiddleware`.
    private func large(_ entry: MediaFile, _ request: Request, _ context: ServerRequestContext) async throws -> Response
    {
        guard !request.headers[values: .range].isEmpty else {
            return try await self.next.respond(to: request, context: context)
        }
        var head = request.head
        head.headerFields[.ifRange] = nil
        switch request.method == .get ? entry.range(of: request.head) : .whole {
        case .whole:
            head.headerFields[values: .range] = []
        case .part(let range):
            head.headerFields[values: .range] = ["bytes=\(range.lowerBound)-\(range.upperBound)"]
        case .unsatisfiable:
            return MediaFile.unsatisfiable(size: entry.size).response
        }
        return try await self.next.respond(to: Request(head: head, body: request.body), context: context)
    }
}
