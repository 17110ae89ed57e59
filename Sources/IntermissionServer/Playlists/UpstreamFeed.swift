import AdInsertion
import GroupCoordination
import HLSPlaylist
import HTTPTypes
import IntermissionHTTP
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// One upstream playlist of a live channel, read in the background and kept decorated in the
/// response cache.
///
/// - A loop (``poll()``) reads the upstream every half target duration (a multivariant playlist:
///   every ``multivariantInterval``), and at once when a blocking reload asks for a segment it does
///   not have or the channel's breaks change (``wake()``). What it reads is parsed and decorated
///   only when it changed, and the answer is put in the ``ResponseCache`` under the playlist's path,
///   so viewers are answered from there and never wait for the upstream.
/// - A request that misses the cache (the first one, or after a break change) gets the feed's
///   answer: it reads the upstream itself only when the feed has nothing young enough, and
///   decorates again (without reading) when only the breaks changed.
/// - Nobody asking for ``idleTargetDurations`` target durations: the loop stops; the next request
///   starts it again.
/// - A failing upstream: the last good answer stands in while it is younger than its limit (three
///   target durations, or the channel's `lastGoodLimit`), then requests get `503`; the loop backs
///   off (twice the interval per failure in a row, up to ``maximumBackoff`` times).
///
/// An actor per feed, so that a heavy channel (a 24-hour window) stalls no other; parsing,
/// decorating and compressing run on NIO's thread pool, not on the threads every request shares.
actor UpstreamFeed {
    /// How many target durations without a request stop the loop.
    static let idleTargetDurations = 10
    /// How often a multivariant playlist is read, and how long its answer stands.
    static let multivariantInterval = MediaTime(seconds: 60)
    /// The most times the interval is doubled for failures in a row.
    static let maximumBackoff = 8
    /// The shortest pause between two reads when a blocking reload waits for a segment.
    static let shortestInterval = MediaTime(milliseconds: 100)

    /// The channel.
    nonisolated let channel: LiveChannel
    /// The upstream URL.
    nonisolated let url: String
    /// `{channel} {url}`: the feed's name among the feeds.
    nonisolated let key: String
    /// The response cache key (the canonical request path) the answer is kept under.
    nonisolated let cacheKey: String?
    /// The response cache scope of the channel.
    nonisolated let scope: String

    private let origin: OriginClient
    private let responses: ResponseCache
    private let clock: any WallClock
    private let logger: Logger
    private let playlists: PlaylistService
    private let feeds: UpstreamFeeds

    /// The last answer made from what the upstream sent.
    private struct Good {
        var raw: [UInt8]
        var response: CachedResponse
        var kind: PlaylistKind
        /// When the upstream last sent these bytes.
        var date: DateTime
        /// How long after ``date`` the answer may stand in for a failing upstream.
        var limit: MediaTime
        /// The break revision (the cache scope's generation) it was decorated with.
        var revision: Int
        /// The media sequence number of its last segment (`nil`: a multivariant playlist, or none).
        var lastSequence: Int?
        /// The target duration in seconds (a multivariant playlist: its interval).
        var targetDuration: Int { Int(UpstreamFeed.lifetime(of: self.kind).nanoseconds / 1_000_000_000) }
    }

    private var good: Good?
    private var failure: AdInsertionError?
    private var failures = 0
    /// The URI resolutions kept from one read to the next (see `SegmentURIResolver`), in a box so
    /// that the thread pool edits it in place.
    private let uris: Resolver
    private var reading: Task<Void, Never>?
    /// The clock the loop waits on (``ServerConfiguration/timerClock``).
    private let timer: ElapsedClock
    /// When a request last asked, on ``timer`` (the loop's pauses are measured on it too).
    private var lastAsked: Duration
    /// The cache's read count of the entry when the loop last looked.
    private var cacheReads = 0
    private var polling = false
    private var retired = false
    private var sleeper: CheckedContinuation<Void, Never>?
    private var wakeRequested = false
    private var waiters: [(sequence: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// How many times the upstream was read (for tests).
    private(set) var reads = 0

    /// A resolver shared with the thread pool, one read at a time.
    final class Resolver: Sendable {
        let state: Mutex<SegmentURIResolver>
        init(_ url: String) { self.state = Mutex(SegmentURIResolver(playlistURL: url)) }
    }

    /// A feed of `url` for `channel`, kept in the cache under `cacheKey`.
    init(
        channel: LiveChannel,
        url: String,
        cacheKey: String?,
        origin: OriginClient,
        responses: ResponseCache,
        clock: any WallClock,
        logger: Logger,
        playlists: PlaylistService,
        feeds: UpstreamFeeds
    ) {
        self.channel = channel
        self.url = url
        self.key = channel.id + " " + url
        self.cacheKey = cacheKey
        self.scope = "live:" + channel.id
        self.origin = origin
        self.responses = responses
        self.clock = clock
        self.logger = logger
        self.playlists = playlists
        self.feeds = feeds
        self.uris = Resolver(url)
        self.timer = feeds.timer
        self.lastAsked = feeds.timer.elapsed
    }

    /// How many URIs the feed resolved since it was made (for tests).
    var resolutions: Int { self.uris.state.withLock { $0.resolutions } }

    // MARK: - Requests

    /// The answer for a request that missed the response cache.
    ///
    /// - Parameter sequence: `_HLS_msn` of a blocking reload: the answer waits (up to three target
    ///   durations) until the playlist holds that segment, and the upstream is read at once.
    /// - Throws: The upstream's error (`502`) when it never answered; `503` with `Retry-After` when
    ///   it has failed for longer than its last answer may stand in; `400` for a blocking reload
    ///   more than two segments ahead.
    func current(blockingSequence sequence: Int?) async throws -> RenderedPlaylist {
        self.lastAsked = self.timer.elapsed
        if !self.polling && !self.retired {
            self.polling = true
            self.feeds.startPolling(self)
        }
        if let good = self.good, self.failure == nil, good.revision != self.responses.generation(of: self.scope) {
            // Only the breaks changed: decorate what was read with them.
            await self.read(fetching: false)
        } else if self.needsReading(at: self.clock.now()) {
            await self.read(fetching: true)
        }
        if let sequence { try await self.wait(for: sequence) }
        return try self.answer(at: self.clock.now())
    }

    private func needsReading(at now: DateTime) -> Bool {
        guard let good = self.good else { return true }
        return now - good.date >= Self.lifetime(of: good)
    }

    /// How long an answer stands after its read: a target duration (the loop reads again after
    /// half of it), a multivariant playlist a minute.
    private static func lifetime(of good: Good) -> MediaTime {
        Self.lifetime(of: good.kind)
    }

    private static func half(_ time: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: time.nanoseconds / 2)
    }

    private static func lifetime(of kind: PlaylistKind) -> MediaTime {
        switch kind {
        case .liveMedia(let target): return MediaTime(seconds: target)
        default: return Self.multivariantInterval
        }
    }

    /// The answer now: the last one while the upstream answers, a stand-in while it fails.
    private func answer(at now: DateTime) throws -> RenderedPlaylist {
        guard let good = self.good else {
            // Never answered: not a feed to keep (a rendition that does not exist, say).
            self.retired = true
            self.feeds.remove(self)
            throw self.failure ?? AdInsertionError(code: .upstream, message: "upstream has not answered")
        }
        guard let failure = self.failure else {
            return RenderedPlaylist(bytes: [], kind: good.kind, prepared: good.response)
        }
        let age = now - good.date
        if age <= good.limit && age >= .zero {
            // Kept until the next read may be made, or until it is too old to stand in.
            let next = now + Self.half(Self.lifetime(of: good))
            let end = good.date + good.limit
            return RenderedPlaylist(
                bytes: Array(good.response.body.readableBytesView),
                kind: good.kind,
                validUntil: next < end ? next : end
            )
        }
        var unavailable = APIError(
            .serviceUnavailable,
            code: "upstreamUnavailable",
            message:
                "live channel '\(self.channel.id)': \(failure.message); its last good playlist is \(age.decimalString(places: 3)) s old, older than the \(good.limit.decimalString(places: 3)) s it may be served"
        )
        unavailable.extraHeaders[.retryAfter] = String(good.targetDuration)
        throw unavailable
    }

    /// Waits until the playlist holds segment `sequence`, or three target durations.
    private func wait(for sequence: Int) async throws {
        guard let good = self.good, self.failure == nil, let last = good.lastSequence, sequence > last else { return }
        guard sequence <= last + 2 else {
            var error = APIError.badRequest(
                "_HLS_msn: \(sequence) is more than two segments past the last one of the playlist (\(last))"
            )
            error.field = "_HLS_msn"
            throw error
        }
        let limit = Duration.seconds(3 * good.targetDuration)
        self.wake()
        await withCheckedContinuation { continuation in
            self.waiters.append((sequence, continuation))
            // The waiter's limit: ends after `limit` (or with the feed, which holds no reference).
            let timer = self.timer
            Task { [weak self] in
                try? await timer.sleep(for: limit)
                await self?.releaseWaiters(all: true)
            }
        }
    }

    private func releaseWaiters(all: Bool) {
        let last = self.failure == nil ? self.good?.lastSequence ?? Int.min : Int.min
        var waiting: [(sequence: Int, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in self.waiters {
            if all || waiter.sequence <= last { waiter.continuation.resume() } else { waiting.append(waiter) }
        }
        self.waiters = waiting
    }

    // MARK: - The loop

    /// Reads the upstream every half target duration until nobody asks for it, the feed is retired
    /// or the task is cancelled.
    func poll() async {
        defer { self.polling = false }
        if let reading = self.reading { await reading.value }
        while !Task.isCancelled && !self.retired {
            await self.pause(for: self.interval())
            if Task.isCancelled || self.retired { break }
            if self.isIdle() {
                // The next request misses the cache, so it comes here and starts the loop again.
                if let cacheKey = self.cacheKey { self.responses.remove(cacheKey) }
                break
            }
            await self.read(fetching: true)
        }
        self.releaseWaiters(all: true)
    }

    /// Has the loop read the upstream at once.
    func wake() {
        if let sleeper = self.sleeper {
            self.sleeper = nil
            sleeper.resume()
        } else {
            self.wakeRequested = true
        }
    }

    /// Stops the loop for good.
    func retire() {
        self.retired = true
        self.wake()
    }

    private func interval() -> Duration {
        guard let good = self.good else { return .seconds(1) }
        var pause = Self.half(Self.lifetime(of: good))
        if self.failures > 0 { pause = pause * min(1 << min(self.failures, 8), Self.maximumBackoff) }
        if !self.waiters.isEmpty { pause = Self.shortestInterval }
        return .nanoseconds(pause.nanoseconds)
    }

    /// Whether nobody asked for ``idleTargetDurations`` target durations (real time), neither from
    /// the cache nor past it.
    private func isIdle() -> Bool {
        if let cacheKey = self.cacheKey, let reads = self.responses.reads(cacheKey), reads != self.cacheReads {
            self.cacheReads = reads
            self.lastAsked = self.timer.elapsed
        }
        let target = self.good.map { Self.lifetime(of: $0) } ?? MediaTime(seconds: 6)
        let idle = target * Self.idleTargetDurations
        return self.timer.elapsed - self.lastAsked > .nanoseconds(idle.nanoseconds)
    }

    /// Sleeps for `duration`, or until ``wake()`` or cancellation.
    private func pause(for duration: Duration) async {
        if self.wakeRequested {
            self.wakeRequested = false
            return
        }
        // The pause's timer, cancelled below when the pause ends; the poll loop that pauses is a
        // child task of ``UpstreamFeeds/run()``.
        let clock = self.timer
        let timer = Task { [weak self] in
            // Cancelled (woken early): no wake, or it would cut the next pause short.
            guard (try? await clock.sleep(for: duration)) != nil else { return }
            await self?.wake()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { self.sleeper = continuation }
            }
        } onCancel: {
            // A hop to this actor from the cancellation handler, which cannot await.
            Task { await self.wake() }
        }
        timer.cancel()
        self.wakeRequested = false
    }

    // MARK: - Reading

    /// Reads the upstream (or only decorates again what it sent last), one read at a time: a
    /// caller that finds a read under way waits for that one.
    private func read(fetching: Bool) async {
        if let reading = self.reading { return await reading.value }
        // Owned by the feed (`reading`) and awaited by every caller that shares the read.
        let task = Task {
            await self.performRead(fetching: fetching)
            self.reading = nil
        }
        self.reading = task
        await task.value
    }

    private func performRead(fetching: Bool) async {
        let now = self.clock.now()
        let raw: [UInt8]
        if !fetching, let good = self.good {
            raw = good.raw
        } else {
            self.reads += 1
            do {
                raw = try await self.origin.bytes(at: self.url)
            } catch {
                await self.failed(error as? AdInsertionError ?? AdInsertionError(code: .upstream, message: "\(error)"))
                return
            }
        }
        do {
            try await self.accept(raw, at: now)
        } catch {
            await self.failed(error as? AdInsertionError ?? AdInsertionError(code: .upstream, message: "\(error)"))
        }
        self.releaseWaiters(all: false)
    }

    /// What the upstream sent at `now`: the same bytes and breaks as before keep the answer (for a
    /// target duration more); anything else is parsed, decorated and kept.
    private func accept(_ raw: [UInt8], at now: DateTime) async throws {
        if var good = self.good, good.raw == raw, good.revision == self.responses.generation(of: self.scope) {
            good.date = now
            self.good = good
            try await self.succeeded(good, at: now, changed: false)
            return
        }
        let url = self.url
        let playlist = try await NIOThreadPool.singleton.runIfActive { try OriginClient.parse(raw, url: url) }
        let bytes: [UInt8]
        let kind: PlaylistKind
        let limit: MediaTime
        let revision: Int
        var lastSequence: Int?
        switch playlist {
        case .multivariant(let multivariant):
            revision = self.responses.generation(of: self.scope)
            bytes = try await NIOThreadPool.singleton.runIfActive {
                VODDecorator.decorate(multivariant: multivariant, playlistURL: url).serialized()
            }
            kind = .liveMultivariant
            limit = self.channel.lastGoodLimit ?? self.channel.staleAfter
        case .media(let media):
            await self.playlists.noteUpstream(channel: self.channel.id, media: media, now: now)
            // From outside: kept to 1 s ... 1 h so that three of them cannot overflow.
            let target = min(3600, max(1, media.targetDuration ?? 6))
            let breaks = try await self.playlists.upstreamBreaks(channel: self.channel, media: media, now: now)
            // Read after the SCTE-35 breaks were saved (each one a new revision).
            revision = self.responses.generation(of: self.scope)
            let (channel, uris) = (self.channel, self.uris)
            let locator = self.playlists.locator.publishing(self.channel)
            bytes = try await NIOThreadPool.singleton.runIfActive {
                uris.state.withLock { resolver in
                    LiveDecorator.decorate(
                        media,
                        uris: &resolver,
                        breaks: breaks,
                        lookahead: channel.lookahead,
                        locator: locator,
                        midRollsOnce: channel.marksMidRollsOnce,
                        preloadWindow: channel.preloadWindow(targetDuration: target)
                    )
                    .serialized()
                }
            }
            kind = .liveMedia(targetDuration: target)
            limit = self.channel.lastGoodLimit ?? MediaTime(seconds: 3 * target)
            if !media.timings.isEmpty { lastSequence = media.mediaSequence + media.timings.count - 1 }
        }
        // The first answer waits for this render: its gzip copy (40 ms for a 3.7 MB DVR playlist)
        // follows in the background. Later renders happen in the background anyway.
        let response = try await self.keep(
            bytes,
            kind: kind,
            date: now,
            revision: revision,
            deferringGzip: self.good == nil
        )
        let good = Good(
            raw: raw,
            response: response,
            kind: kind,
            date: now,
            limit: limit,
            revision: revision,
            lastSequence: lastSequence
        )
        self.good = good
        self.feeds.weigh(self, bytes: raw.count + response.weight)
        try await self.succeeded(good, at: now, changed: true)
    }

    /// The answer for `bytes`, made (compressed, tagged) on the thread pool and kept in the cache;
    /// with `deferringGzip`, a large playlist's gzip copy is made after the answer is kept.
    private func keep(
        _ bytes: [UInt8],
        kind: PlaylistKind,
        date: DateTime,
        revision: Int,
        deferringGzip: Bool = false
    ) async throws
        -> CachedResponse
    {
        let lifetime = Self.lifetime(of: kind)
        let rendered = RenderedPlaylist(bytes: bytes, kind: kind, validUntil: date + lifetime, staleFor: lifetime)
        let (responses, key, scope) = (self.responses, self.cacheKey, self.scope)
        return try await NIOThreadPool.singleton.runIfActive {
            responses.store(
                rendered,
                key: key.map { $0[...] },
                scope: scope,
                generation: revision,
                deferringGzip: deferringGzip
            )
        }
    }

    private func succeeded(_ good: Good, at now: DateTime, changed: Bool) async throws {
        let wasFailing = self.failure != nil
        self.failure = nil
        self.failures = 0
        if !changed, let cacheKey = self.cacheKey {
            let lifetime = Self.lifetime(of: good)
            let kept = self.responses.extend(
                cacheKey,
                scope: self.scope,
                generation: good.revision,
                validUntil: now + lifetime,
                staleUntil: now + lifetime * 2
            )
            if !kept {
                // Dropped from the cache meanwhile (full, or a stand-in replaced it): made again.
                self.good?.response = try await self.keep(
                    Array(good.response.body.readableBytesView),
                    kind: good.kind,
                    date: now,
                    revision: good.revision
                )
            }
        }
        if good.kind != .liveMultivariant || wasFailing {
            await self.playlists.upstreamAnswered(channel: self.channel.id, now: now)
        }
    }

    private func failed(_ error: AdInsertionError) async {
        self.failure = error
        self.failures += 1
        if self.good != nil || self.url == self.channel.upstreamURL {
            await self.playlists.upstreamFailed(channel: self.channel.id, message: error.message, now: self.clock.now())
        }
    }
}
