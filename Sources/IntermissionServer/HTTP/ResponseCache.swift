import AdInsertion
import CompressNIO
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import NIOCore
import Synchronization

/// A decorated playlist as the playlist service rendered it, with how long it stays right.
struct RenderedPlaylist: Sendable {
    /// The playlist's bytes.
    var bytes: [UInt8]
    /// What kind of playlist it is, for its `Cache-Control`.
    var kind: PlaylistKind
    /// The date until which these bytes are the answer (the next segment boundary of a live
    /// channel), or `nil` when they stay right until the server restarts (local VOD).
    var validUntil: DateTime?
    /// How long after ``validUntil`` the answer may still be served while one request reads the
    /// source again in the background (stale while revalidate), or `nil` for not at all.
    var staleFor: MediaTime?
    /// Whether the answer may be kept at all: a stand-in for a failing upstream may not (it is
    /// served only while it is young enough, which each request checks).
    var cacheable = true
    /// The answer made and kept already (an upstream channel's reader keeps its entry itself):
    /// the controller answers with it instead of making it again.
    var prepared: CachedResponse?
}

/// The kinds of playlist, each with its own `Cache-Control`.
enum PlaylistKind: Sendable, Equatable {
    /// A VOD media or multivariant playlist: it does not change while the server runs.
    case vod
    /// A live channel's multivariant playlist: it lists the renditions, which rarely change.
    case liveMultivariant
    /// A live media playlist with its target duration (seconds, 1 to 3600).
    case liveMedia(targetDuration: Int)

    /// `Cache-Control` of the kind: VOD `max-age=3600`; a live multivariant playlist `max-age=60`;
    /// a live media playlist `max-age` of half its target duration (rounded down, at least 1 s), as
    /// the HLS authoring guidance and CDN vendors advise, so a CDN never serves a window more than
    /// half a segment old.
    var cacheControl: String {
        switch self {
        case .vod: return "max-age=3600"
        case .liveMultivariant: return "max-age=60"
        case .liveMedia(let target): return "max-age=\(max(1, min(3600, target) / 2))"
        }
    }
}

/// One complete answer, kept to be served many times: the body in one shared buffer, its gzip copy,
/// and every header computed once (a strong `ETag` per encoding, `Last-Modified`, `Cache-Control`,
/// `Vary`, CORS).
struct CachedResponse: Sendable {
    /// The playlist bytes.
    let body: ByteBuffer
    /// The gzip copy, when it is smaller.
    let gzipBody: ByteBuffer?
    /// Headers of the plain answer (`Content-Length` included).
    let headers: HTTPFields
    /// Headers of the gzip answer.
    let gzipHeaders: HTTPFields
    /// Headers of a `304` (validators, caching and CORS; no length, no type): of the plain answer,
    /// and of the gzip answer (which differs by its `ETag`).
    let notModifiedHeaders: HTTPFields
    let gzipNotModifiedHeaders: HTTPFields
    /// Strong entity tags: plain and gzip.
    let etag: String
    let gzipETag: String
    /// `Last-Modified`, whole seconds since 1970.
    let lastModified: Int64
    /// Until when the entry answers (`nil`: until the server restarts).
    var validUntil: DateTime?
    /// Until when the entry may be served while it is being rendered again (see
    /// ``RenderedPlaylist/staleFor``).
    var staleUntil: DateTime?
    /// The bytes the entry holds (both bodies).
    var weight: Int { self.body.readableBytes + (self.gzipBody?.readableBytes ?? 0) }

    /// Prepares the answer for `rendered`, modified at `lastModified` (seconds since 1970); with
    /// `compressing` false it has no gzip copy (see ``ResponseCache/gzipDeferralThreshold``).
    init(_ rendered: RenderedPlaylist, tag: String, lastModified: Int64, compressing: Bool = true) {
        let body = ByteBuffer(bytes: rendered.bytes)
        var gzip: ByteBuffer?
        var input = body
        // Level 9 for the usual playlist; zlib's default (6) past 1 MiB, where 9 takes four times
        // as long for 10% less (a 3.9 MB DVR playlist: 17 ms for 261 KB against 74 ms for 232 KB).
        let level: ZlibConfiguration.CompressionLevel =
            body.readableBytes > 1_048_576 ? .defaultCompressionLevel : .bestCompression
        if compressing,
            let compressed = try? input.compress(with: .gzip(configuration: .init(compressionLevel: level))),
            compressed.readableBytes < body.readableBytes
        {
            gzip = compressed
        }
        self.etag = "\"" + tag + "\""
        self.gzipETag = "\"" + tag + "-gz\""
        self.lastModified = lastModified
        self.validUntil = rendered.validUntil
        self.staleUntil = rendered.validUntil.flatMap { until in rendered.staleFor.map { until + $0 } }
        self.body = body
        self.gzipBody = gzip
        var common: HTTPFields = [:]
        common[.cacheControl] = rendered.kind.cacheControl
        common[.lastModified] = HTTPDate.format(secondsSince1970: lastModified)
        common[.vary] = "Accept-Encoding"
        OpenCORS.add(to: &common)
        var plain = common
        plain[.contentType] = "application/vnd.apple.mpegurl"
        plain[.eTag] = self.etag
        plain[.contentLength] = String(body.readableBytes)
        var zipped = common
        zipped[.contentType] = "application/vnd.apple.mpegurl"
        zipped[.eTag] = self.gzipETag
        zipped[.contentEncoding] = "gzip"
        zipped[.contentLength] = String(gzip?.readableBytes ?? 0)
        self.headers = plain
        self.gzipHeaders = gzip == nil ? plain : zipped
        var notModified = common
        notModified[.eTag] = self.etag
        self.notModifiedHeaders = notModified
        notModified[.eTag] = self.gzipETag
        self.gzipNotModifiedHeaders = notModified
    }

    /// The answer to `request` (GET or HEAD): `304` when its validators match, the gzip copy when it
    /// accepts gzip, the whole body otherwise; HEAD gets the same headers and no body.
    func response(to request: HTTPRequest) -> Response {
        self.answer(to: request).response
    }

    /// The same answer, ready to be written on a channel (see ``EventLoopAnswerHandler``).
    func answer(to request: HTTPRequest) -> PreparedAnswer {
        let gzip = self.gzipBody != nil && AcceptEncoding.acceptsGzip(request.headerFields[values: .acceptEncoding])
        let tag = gzip ? self.gzipETag : self.etag
        if Self.notModified(request.headerFields, etag: tag, lastModified: self.lastModified) {
            return PreparedAnswer(
                status: .notModified,
                headers: gzip ? self.gzipNotModifiedHeaders : self.notModifiedHeaders
            )
        }
        let headers = gzip ? self.gzipHeaders : self.headers
        if request.method == .head { return PreparedAnswer(status: .ok, headers: headers) }
        return PreparedAnswer(status: .ok, headers: headers, body: gzip ? self.gzipBody : self.body)
    }

    /// Whether a request's header fields make its answer a `304` (RFC 9110 §13.1).
    ///
    /// For an answer with the entity tag `etag` and `Last-Modified` `lastModified` (seconds since
    /// 1970): `If-None-Match` (weak comparison, `*`, lists) decides when present; otherwise
    /// `If-Modified-Since` (an IMF-fixdate) at or after `Last-Modified`. The `/media/` files use it
    /// too.
    static func notModified(_ headers: HTTPFields, etag: String, lastModified: Int64) -> Bool {
        let noneMatch = headers[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            return noneMatch.contains { EntityTags.matches($0, etag) }
        }
        guard let since = headers[.ifModifiedSince], let date = HTTPDate.parse(since) else { return false }
        return lastModified <= date
    }
}

/// The cache of complete playlist answers, checked before routing (see ``CachingResponder``).
///
/// Keyed by the raw request path without its query (nothing else changes a playlist: the
/// encoding is chosen per request from the entry's two bodies). Only paths the playlist controller
/// checked and answered get in, and only in their canonical spelling (each segment encoded as
/// ``RequestPath/encoded(_:)`` would), so other spellings of the same playlist are served, just not
/// kept. An entry lives until its ``CachedResponse/validUntil`` (the next segment boundary of a live
/// channel) or until its channel's break revision changes (``invalidate(scope:)``).
///
/// When an entry is missing, the first request renders it and the others wait for that one
/// (single flight).
///
/// A class with a `Mutex`: every request of every channel reads it, without an actor hop; the lock
/// is held only to look up or change the dictionaries, never across an `await`.
final class ResponseCache: Sendable {
    /// The most entries kept.
    static let entryCapacity = 4096
    /// The most bytes kept (bodies and gzip copies).
    static let byteCapacity = 128 * 1024 * 1024

    /// What a lookup found.
    enum Lookup {
        /// A fresh entry, or a stale one another request is rendering again.
        case hit(CachedResponse)
        /// A stale entry the caller serves, then renders again (in the background), then calls
        /// ``finish(_:)``.
        case refresh(CachedResponse)
        /// No entry and nobody rendering it: the caller renders it, then calls ``finish(_:)``.
        case render
        /// Another request is rendering it: wait with ``wait(_:)``.
        case wait
    }

    private struct Stored {
        var response: CachedResponse
        var scope: String
        /// How many requests got this entry and the ones it replaced (an upstream channel nobody
        /// asks for stops being read).
        var reads = 0
    }

    private struct State {
        var entries: [String: Stored] = [:]
        var bytes = 0
        var rendering: [String: [CheckedContinuation<CachedResponse?, Never>]] = [:]
        var generations: [String: Int] = [:]
        /// The last tag and `Last-Modified` given per key: the same bytes keep their date, and a
        /// changed answer always gets a later one.
        var validators: [String: (tag: String, lastModified: Int64)] = [:]
    }

    private let state = Mutex(State())
    private let clock: any WallClock

    /// A cache reading the time from `clock`.
    init(clock: any WallClock) {
        self.clock = clock
    }

    /// The key of a request path (the request target up to `?`), or `nil` when the path is not a
    /// playlist route (`/vod/...`, `/live/...`).
    ///
    /// A blocking reload of a live playlist (`_HLS_msn` or `_HLS_part` in the query, RFC 8216bis §6.2.5.2) is not
    /// answered from the cache either: it may ask for a segment the entry does not have yet, which
    /// only the channel can wait for.
    static func key(_ target: String?) -> Substring? {
        guard let target else { return nil }
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            return target.hasPrefix("/live/") || target.hasPrefix("/vod/") ? target[...] : nil
        }
        let path = target[..<mark]
        // A playlist for a viewer plan carries the plan's token on: never shared.
        if target[mark...].contains(TrackingService.planParameter + "=") { return nil }
        if path.hasPrefix("/live/") {
            let query = target[mark...]
            return query.contains("_HLS_msn=") || query.contains("_HLS_part=") ? nil : path
        }
        return path.hasPrefix("/vod/") ? path : nil
    }

    /// The fresh entry of `key`, or what to do without one.
    func lookup(_ key: Substring) -> Lookup {
        let now = self.clock.now()
        return self.state.withLock { state -> Lookup in
            let name = String(key)
            if let index = state.entries.index(forKey: name) {
                let stored = state.entries.values[index]
                state.entries.values[index].reads &+= 1
                if stored.response.validUntil.map({ now < $0 }) ?? true { return .hit(stored.response) }
                if let staleUntil = stored.response.staleUntil, now < staleUntil {
                    if state.rendering[name] != nil { return .hit(stored.response) }
                    state.rendering[name] = []
                    return .refresh(stored.response)
                }
                state.entries[name] = nil
                state.bytes -= stored.response.weight
            }
            if state.rendering[name] != nil { return .wait }
            state.rendering[name] = []
            return .render
        }
    }

    /// The entry of `key` when it is fresh, or `nil`; unlike ``lookup(_:)`` it changes nothing (a
    /// stale or missing entry is left to the request that goes through ``CachingResponder``).
    func fresh(_ key: Substring) -> CachedResponse? {
        let now = self.clock.now()
        return self.state.withLock { state -> CachedResponse? in
            guard let stored = state.entries[String(key)], stored.response.validUntil.map({ now < $0 }) ?? true
            else { return nil }
            return stored.response
        }
    }

    /// Waits for the request rendering `key`: its entry, or `nil` when it kept none (an error, an
    /// answer that may not be kept), in which case the caller answers on its own.
    func wait(_ key: Substring) async -> CachedResponse? {
        let name = String(key)
        return await withCheckedContinuation { continuation in
            let queued = self.state.withLock { state -> Bool in
                guard state.rendering[name] != nil else { return false }
                state.rendering[name]!.append(continuation)
                return true
            }
            if !queued { continuation.resume(returning: self.state.withLock { $0.entries[name]?.response }) }
        }
    }

    /// Ends a render started by ``lookup(_:)``: the requests waiting get the entry kept, if any.
    func finish(_ key: Substring) {
        let name = String(key)
        let (waiting, entry) = self.state.withLock { state in
            (state.rendering.removeValue(forKey: name) ?? [], state.entries[name]?.response)
        }
        for continuation in waiting { continuation.resume(returning: entry) }
    }

    /// The break revision of a scope (a live channel), to pass back to ``store(_:key:scope:generation:deferringGzip:)``.
    func generation(of scope: String) -> Int {
        self.state.withLock { $0.generations[scope, default: 0] }
    }

    /// Forgets every entry of a scope (a live channel whose breaks changed), and refuses entries
    /// rendered before now.
    func invalidate(scope: String) {
        self.state.withLock { state in
            state.generations[scope, default: 0] += 1
            for (key, stored) in state.entries where stored.scope == scope {
                state.entries[key] = nil
                state.bytes -= stored.response.weight
            }
        }
    }

    /// Prepares the answer of a rendered playlist and keeps it under `key` when it may be kept and
    /// the scope's revision is still `generation`.
    ///
    /// - Returns: The answer (kept or not).
    func store(
        _ rendered: RenderedPlaylist,
        key: Substring?,
        scope: String,
        generation: Int,
        deferringGzip: Bool = false
    ) -> CachedResponse {
        let now = self.clock.now()
        let second = now.nanosecondsSince1970 / 1_000_000_000 - (now.nanosecondsSince1970 % 1_000_000_000 < 0 ? 1 : 0)
        let name = key.map(String.init)
        let previous = name.flatMap { name in self.state.withLock { $0.validators[name] } }
        let tag = ContentDigest.hex(rendered.bytes)
        var modified = second
        if let previous {
            if previous.tag == tag {
                modified = previous.lastModified
            } else if modified <= previous.lastModified {
                modified = previous.lastModified + 1
            }
        }
        let deferred = deferringGzip && rendered.bytes.count > Self.gzipDeferralThreshold
        let response = CachedResponse(rendered, tag: tag, lastModified: modified, compressing: !deferred)
        guard let name, rendered.cacheable, response.validUntil.map({ now < $0 }) ?? true else { return response }
        let kept = self.state.withLock { state -> Bool in
            guard state.generations[scope, default: 0] == generation else { return false }
            let old = state.entries.removeValue(forKey: name)
            if let old { state.bytes -= old.response.weight }
            if state.entries.count >= Self.entryCapacity || state.bytes + response.weight > Self.byteCapacity {
                // Full: the expired ones go first, then any others until the new one fits.
                for (key, stored) in state.entries where stored.response.validUntil.map({ now >= $0 }) ?? false {
                    state.entries[key] = nil
                    state.bytes -= stored.response.weight
                }
                while !state.entries.isEmpty,
                    state.entries.count >= Self.entryCapacity || state.bytes + response.weight > Self.byteCapacity,
                    let victim = state.entries.randomElement()
                {
                    state.entries[victim.key] = nil
                    state.bytes -= victim.value.response.weight
                }
            }
            guard response.weight <= Self.byteCapacity else { return false }
            state.entries[name] = Stored(response: response, scope: scope, reads: old?.reads ?? 0)
            state.bytes += response.weight
            if state.validators.count >= 4 * Self.entryCapacity { state.validators.removeAll() }
            state.validators[name] = (tag, modified)
            return true
        }
        if deferred && kept {
            // Unowned by design, and short: one compression of a body already answered; it ends by
            // itself, and the entry is complete without it.
            Task.detached(priority: .utility) {
                self.addGzipCopy(rendered, tag: tag, lastModified: modified, key: name)
            }
        }
        return response
    }

    /// Bodies larger than this (bytes) rendered on a request's path are answered before their gzip
    /// copy is made: compressing a 3.9 MB playlist takes longer than rendering it a second time would
    /// allow (issue 16: the first byte of a cold render within 2x of `intermission format`).
    ///
    /// The copy
    /// is made in the background and joins the entry; requests in between get the plain body
    /// (`Vary: Accept-Encoding` is on both).
    static let gzipDeferralThreshold = 256 * 1024

    /// Makes the gzip copy of an entry stored without one, and puts it in the entry when the entry
    /// still holds the same bytes (`tag`) and the copy fits.
    func addGzipCopy(_ rendered: RenderedPlaylist, tag: String, lastModified: Int64, key name: String) {
        let full = CachedResponse(rendered, tag: tag, lastModified: lastModified)
        guard full.gzipBody != nil else { return }
        self.state.withLock { state in
            guard let index = state.entries.index(forKey: name) else { return }
            let stored = state.entries.values[index].response
            guard stored.etag == full.etag, stored.gzipBody == nil,
                state.bytes - stored.weight + full.weight <= Self.byteCapacity
            else { return }
            var replacement = full
            replacement.validUntil = stored.validUntil
            replacement.staleUntil = stored.staleUntil
            state.entries.values[index].response = replacement
            state.bytes += replacement.weight - stored.weight
        }
    }

    /// Keeps the entry of `key` until `validUntil` (and stale until `staleUntil`) when its source
    /// was read again and had not changed, without making it again.
    ///
    /// - Returns: Whether there was an entry (of the scope's revision `generation`) to keep.
    func extend(_ key: String, scope: String, generation: Int, validUntil: DateTime, staleUntil: DateTime?) -> Bool {
        self.state.withLock { state in
            guard state.generations[scope, default: 0] == generation, let index = state.entries.index(forKey: key)
            else { return false }
            state.entries.values[index].response.validUntil = validUntil
            state.entries.values[index].response.staleUntil = staleUntil
            return true
        }
    }

    /// Forgets the entry of `key`.
    func remove(_ key: String) {
        self.state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.response.weight }
        }
    }

    /// How many requests got the entry of `key` (and those it replaced) from the cache, or `nil`
    /// when it has none.
    func reads(_ key: String) -> Int? {
        self.state.withLock { $0.entries[key]?.reads }
    }

    /// How many entries are kept (for tests).
    var count: Int { self.state.withLock { $0.entries.count } }
}

/// Answers playlist requests from the ``ResponseCache`` before the router sees them: a hit costs a
/// dictionary lookup under a lock, no URI parsing, no actor hop and no middleware; the request is
/// counted in the route's metrics, bound once.
///
/// A miss goes to the router (guards, metrics, the
/// controller, which fills the cache); concurrent misses of one key wait for the first.
struct CachingResponder<Next: HTTPResponder>: HTTPResponder where Next.Context == ServerRequestContext {
    let cache: ResponseCache
    let next: Next
    let vodMetrics: ServerMetrics.BoundRoute
    let liveMetrics: ServerMetrics.BoundRoute

    /// The answer to `request`.
    @Sendable func respond(to request: Request, context: ServerRequestContext) async throws -> Response {
        guard request.method == .get || request.method == .head, let key = ResponseCache.key(request.head.path) else {
            return try await self.next.respond(to: request, context: context)
        }
        let start = ContinuousClock.now
        switch self.cache.lookup(key) {
        case .hit(let entry):
            return self.answer(entry, request, key, start)
        case .refresh(let entry):
            // Stale while revalidate: this answer at once, the new one rendered in the background
            // (through the router, as a request of its own), for the next requests.
            let next = self.next
            let cache = self.cache
            let owned = String(key)
            // Owned by the cache's single flight for `key` (``ResponseCache/finish(_:)`` ends it);
            // one request through the router, bounded by its deadlines.
            Task {
                _ = try? await next.respond(to: request, context: context)
                cache.finish(owned[...])
            }
            return self.answer(entry, request, key, start)
        case .wait:
            if let entry = await self.cache.wait(key) { return self.answer(entry, request, key, start) }
            return try await self.next.respond(to: request, context: context)
        case .render:
            do {
                let response = try await self.next.respond(to: request, context: context)
                self.cache.finish(key)
                return response
            } catch {
                self.cache.finish(key)
                throw error
            }
        }
    }

    private func answer(
        _ entry: CachedResponse,
        _ request: Request,
        _ key: Substring,
        _ start: ContinuousClock.Instant
    ) -> Response {
        let response = entry.response(to: request.head)
        let metrics = key.hasPrefix("/live/") ? self.liveMetrics : self.vodMetrics
        metrics.record(method: request.method, status: response.status, duration: ContinuousClock.now - start)
        return response
    }
}

/// A 64-bit FNV-1a digest of a body with its length, in hex: the strong `ETag` of an answer (the
/// same bytes always give the same tag, across restarts and servers behind one CDN).
package enum ContentDigest {
    /// `{fnv1a-64 hex}-{length hex}`.
    package static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16) + "-" + String(bytes.count, radix: 16)
    }
}

/// `If-None-Match` lists (RFC 9110 §13.1.2), compared weakly as that section says.
enum EntityTags {
    /// Whether a field value (`*`, or a comma-separated list of tags, each maybe `W/`) names `etag`.
    static func matches(_ field: String, _ etag: String) -> Bool {
        // Field values are at most 8 KiB (the header guard); a tag holds no comma.
        for item in field.split(separator: ",") {
            var tag = item.drop { $0 == " " || $0 == "\t" }
            while let last = tag.last, last == " " || last == "\t" { tag = tag.dropLast() }
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }
}

/// `Accept-Encoding` (RFC 9110 §12.5.3).
enum AcceptEncoding {
    /// Whether the values accept `gzip` (or `x-gzip`, or `*`) with a quality above zero.
    ///
    /// A
    /// malformed quality counts as not accepted.
    static func acceptsGzip(_ values: [String]) -> Bool {
        var accepted = false
        var refusedByName = false
        for value in values {
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ";")
                guard let first = parts.first else { continue }
                let name = first.trimmingSpaces.lowercased()
                guard name == "gzip" || name == "x-gzip" || name == "*" else { continue }
                var quality = true
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" else { continue }
                    quality = Self.positiveQuality(pair[1].trimmingSpaces)
                }
                if name == "*" {
                    accepted = accepted || quality
                } else if quality {
                    return true
                } else {
                    refusedByName = true
                }
            }
        }
        return accepted && !refusedByName
    }

    /// A `qvalue` (`0`, `0.5`, `1.000`: at most three decimals) above zero.
    static func positiveQuality(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0] == "0" || parts[0] == "1", parts.count == 1 || parts[1].utf8.count <= 3,
            parts.dropFirst().allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return false }
        if parts[0] == "1" { return true }
        return parts.count == 2 && parts[1].utf8.contains { $0 != 0x30 }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}

/// HTTP dates in the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7).
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of a second since 1970 (years 0 to 9999; others are clamped to those).
    static func format(secondsSince1970 value: Int64) -> String {
        let seconds = min(max(value, -62_167_219_200), 253_402_300_799)
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - day * 86_400
        let (year, month, dayOfMonth) = Self.civil(fromDays: day)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        let weekday = Self.days[Int(((day % 7) + 7) % 7)]
        return
            "\(weekday), \(two(dayOfMonth)) \(Self.months[Int(month) - 1]) \(yearText) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) GMT"
    }

    /// The second since 1970 of an IMF-fixdate, or `nil` for anything else (the obsolete forms
    /// included: a recipient may ignore them).
    static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29 else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            Self.days.contains(String(parts[0].dropLast())),
            parts[5] == "GMT", let month = Self.months.firstIndex(of: String(parts[2]))
        else { return nil }
        func number(_ s: Substring, _ digits: Int) -> Int64? {
            guard s.utf8.count == digits, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(s)
        }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard let day = number(parts[1], 2), let year = number(parts[3], 4), time.count == 3,
            let hour = number(time[0], 2), let minute = number(time[1], 2), let second = number(time[2], 2),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = Self.days(fromCivil: year, Int64(month) + 1, day)
        return days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day since 1970-01-01.
    static func civil(fromDays value: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = value + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
