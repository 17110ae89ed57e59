import AdInsertion
import GroupCoordination
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import IntermissionHTTP
import Logging

/// The state of one upstream channel, as `/health` reports it.
struct UpstreamHealth: Sendable {
    var lastFetch: DateTime?
    var lastChange: DateTime?
    var lastSignature: [Int] = []
    var lastError: String?
}

/// Serves decorated playlists: VOD presentations, simulated live channels and upstream channels.
///
/// An actor because it keeps caches (decorators per asset, loops per channel, rendered live
/// playlists) and the channels' breaks and health, shared by every request. Upstream channels are
/// not served here: each upstream playlist has an ``UpstreamFeed`` of its own (see ``feeds``), which
/// only comes here for the channel's breaks and to report its health.
actor PlaylistService {
    let configuration: AdInsertionConfiguration
    let origin: OriginClient
    let store: any AdStore
    let locator: AssetListLocator
    let clock: any WallClock
    let defaultStartDate: DateTime
    let logger: Logger
    let metrics: ServerMetrics
    /// The cache of complete answers: a break change forgets the channel's entries.
    let responses: ResponseCache

    private var vodDecorators: [String: VODDecorator] = [:]
    private var vodPlaylists: [String: [UInt8]] = [:]
    private var loops: [String: LiveLoop] = [:]
    private var rendered: [String: (completed: Int, revision: Int, bytes: [UInt8])] = [:]
    private var storedBreaks: [String: [String: LiveBreak]] = [:]
    private var revisions: [String: Int] = [:]
    private(set) var health: [String: UpstreamHealth] = [:]
    /// The upstream playlists read in the background, each an actor of its own.
    let feeds: UpstreamFeeds
    /// How far from now a planned break may be for its asset list to be answered (before its start
    /// or after its end): an hour, as the admin API lists.
    static let plannedBreakWindow = MediaTime(seconds: 3600)

    init(
        configuration: AdInsertionConfiguration,
        origin: OriginClient,
        store: any AdStore,
        locator: AssetListLocator,
        clock: any WallClock,
        defaultStartDate: DateTime,
        logger: Logger,
        metrics: ServerMetrics,
        responses: ResponseCache,
        timer: ElapsedClock = ElapsedClock()
    ) {
        self.feeds = UpstreamFeeds(timer: timer)
        self.configuration = configuration
        self.origin = origin
        self.store = store
        self.locator = locator
        self.clock = clock
        self.defaultStartDate = defaultStartDate
        self.logger = logger
        self.metrics = metrics
        self.responses = responses
    }

    // MARK: - VOD

    /// A decorated playlist of a VOD asset: `path` is relative to the asset's origin folder.
    func vodPlaylist(asset id: String, path: String) async throws -> RenderedPlaylist {
        guard let asset = self.configuration.asset(id) else {
            throw AdInsertionError(code: .notFound, message: "no VOD asset '\(id)'")
        }
        let cacheKey = id + "/" + path
        if let cached = self.vodPlaylists[cacheKey] { return RenderedPlaylist(bytes: cached, kind: .vod) }
        let url = OriginPath.resolve(path, against: asset.origin)
        let playlist: Playlist
        do {
            playlist = try await self.origin.playlist(at: url)
        } catch {
            self.metrics.originFailure(scope: "vod-" + id)
            throw error
        }
        let bytes: [UInt8]
        switch playlist {
        case .multivariant(let multivariant):
            bytes = VODDecorator.decorate(multivariant: multivariant, playlistURL: url).serialized()
        case .media(let media):
            let decorator = try await self.vodDecorator(for: asset, fallback: media, at: url)
            bytes = decorator.decorate(media, playlistURL: url).serialized()
        }
        // Local origins do not change while the server runs; remote ones are re-read after a restart.
        self.vodPlaylists[cacheKey] = bytes
        return RenderedPlaylist(bytes: bytes, kind: .vod)
    }

    /// The decorator of an asset, planned from its first variant (or its main playlist when that is a
    /// media playlist), so that every media playlist gets the same tags.
    private func vodDecorator(for asset: VODAsset, fallback: MediaPlaylist, at url: String) async throws -> VODDecorator
    {
        if let decorator = self.vodDecorators[asset.id] { return decorator }
        var reference = fallback
        // The asset's main playlist is often the very media playlist asked for (`fallback`, parsed
        // already): reading and parsing it again doubled a cold render of a large VOD playlist.
        switch url == asset.playlistURL ? .media(fallback) : try await self.origin.playlist(at: asset.playlistURL) {
        case .media(let media):
            reference = media
        case .multivariant(let multivariant):
            if let first = InterstitialInserter.mediaPlaylistURIs(in: multivariant, resolvingAgainst: asset.playlistURL)
                .first,
                case .media(let media) = try await self.origin.playlist(at: first)
            {
                reference = media
            }
        }
        let decorator = VODDecorator(asset: asset, reference: reference, locator: self.locator)
        self.vodDecorators[asset.id] = decorator
        return decorator
    }

    /// A VOD break's duration (from the configuration, which never changes: no hop to the actor).
    nonisolated func vodBreak(asset id: String, breakID: String) throws -> VODBreak {
        guard let asset = self.configuration.asset(id) else {
            throw AdInsertionError(code: .notFound, message: "no VOD asset '\(id)'")
        }
        guard let plan = asset.breaks.first(where: { $0.id == breakID }) else {
            throw AdInsertionError(code: .notFound, message: "VOD asset '\(id)' has no break '\(breakID)'")
        }
        return plan
    }

    // MARK: - Live

    /// The channel of an ID: `404` when there is none.
    func channel(_ id: String) throws -> LiveChannel {
        try self.configuredChannel(id)
    }

    /// The channel of an ID without a hop to the actor (the configuration does not change).
    nonisolated func configuredChannel(_ id: String) throws -> LiveChannel {
        guard let channel = self.configuration.channel(id) else {
            throw AdInsertionError(code: .notFound, message: "no live channel '\(id)'")
        }
        return channel
    }

    /// The date of a channel's segment 0 (a loop) and of its planned breaks' grid.
    nonisolated func startDate(of channel: LiveChannel) -> DateTime {
        channel.startDate ?? self.defaultStartDate
    }

    /// A decorated live playlist: `path` is relative to the channel's source folder.
    ///
    /// - Parameters:
    ///   - id: The channel's ID.
    ///   - path: The playlist's path within the channel's source.
    ///   - blockingSequence: `_HLS_msn` of a blocking reload (upstream channels wait for it; a loop
    ///     answers at once).
    nonisolated func livePlaylist(
        channel id: String,
        path: String,
        blockingSequence: Int? = nil
    ) async throws -> RenderedPlaylist {
        let channel = try self.configuredChannel(id)
        switch channel.source {
        case .loop(let origin, _):
            return try await self.loopPlaylist(channel: channel, url: OriginPath.resolve(path, against: origin))
        case .upstream(let upstream):
            let folder = String(upstream[...(upstream.lastIndex(of: "/") ?? upstream.startIndex)])
            var url = path.isEmpty ? upstream : OriginPath.resolve(path, against: folder)
            // The configured playlist itself keeps its query (a token, say).
            if url == upstream.split(separator: "?", maxSplits: 1).first.map(String.init) { url = upstream }
            let feed = self.feeds.feed(key: channel.id + " " + url) {
                UpstreamFeed(
                    channel: channel,
                    url: url,
                    cacheKey: "/live/" + id + "/" + path,
                    origin: self.origin,
                    responses: self.responses,
                    clock: self.clock,
                    logger: self.logger,
                    playlists: self,
                    feeds: self.feeds
                )
            }
            return try await feed.current(blockingSequence: blockingSequence)
        }
    }

    private func loopPlaylist(channel: LiveChannel, url: String) async throws -> RenderedPlaylist {
        // Per channel and source: two channels may loop the same media with other breaks or formats.
        let key = channel.id + "\n" + url
        if let loop = self.loops[key] {
            return try await self.render(loop, channel: channel, key: key)
        }
        switch try await self.origin.playlist(at: url) {
        case .multivariant(let multivariant):
            // A local folder: it does not change while the server runs.
            return RenderedPlaylist(
                bytes: VODDecorator.decorate(multivariant: multivariant, playlistURL: url).serialized(),
                kind: .liveMultivariant
            )
        case .media(let media):
            let loop = try LiveLoop(
                source: media,
                sourceURL: url,
                startDate: self.startDate(of: channel),
                windowSize: channel.windowSegments
            )
            self.loops[key] = loop
            return try await self.render(loop, channel: channel, key: key)
        }
    }

    private func render(_ loop: LiveLoop, channel: LiveChannel, key: String) async throws -> RenderedPlaylist {
        let now = self.clock.now()
        let completed = loop.completedSegments(at: now)
        // The window changes when the next segment completes: until then this answer stands.
        let next = loop.date(ofSegment: completed) + loop.segments[completed % loop.segments.count].duration
        let kind = PlaylistKind.liveMedia(targetDuration: loop.targetDuration)
        let breaks = try await self.breaks(of: channel, around: loop.window(at: now))
        let revision = self.revisions[channel.id, default: 0]
        if let cached = self.rendered[key], cached.completed == completed, cached.revision == revision {
            return RenderedPlaylist(bytes: cached.bytes, kind: kind, validUntil: next)
        }
        let bytes = loop.render(
            at: now,
            breaks: breaks,
            lookahead: channel.lookahead,
            locator: self.locator.publishing(channel),
            midRollsOnce: channel.marksMidRollsOnce,
            preloadWindow: channel.preloadWindow(targetDuration: loop.targetDuration)
        )
        self.rendered[key] = (completed, revision, bytes)
        return RenderedPlaylist(bytes: bytes, kind: kind, validUntil: next)
    }

    /// The channel's breaks near a window: planned ones, overridden and completed by stored ones.
    private func breaks(of channel: LiveChannel, around window: LiveLoop.Window) async throws -> [LiveBreak] {
        let stored = try await self.storedBreaks(channel: channel.id)
        let planned =
            channel.breakPlan?.breaks(
                channel: channel.id,
                startDate: self.startDate(of: channel),
                from: window.startDate,
                to: window.endDate + channel.lookahead
            ) ?? []
        return LiveBreakSelection.merge(planned: planned, stored: Array(stored.values))
    }

    /// The breaks to decorate an upstream media playlist with: SCTE-35 out/in ranges turned into
    /// breaks (and stored), merged with the channel's planned breaks over the playlist's dates.
    func upstreamBreaks(channel: LiveChannel, media: MediaPlaylist, now: DateTime) async throws -> [LiveBreak] {
        var stored = try await self.storedBreaks(channel: channel.id)
        let changes = SCTE35Translator.breaks(
            in: media,
            channel: channel.id,
            known: stored,
            defaultDuration: channel.defaultSCTE35Duration,
            reader: channel.scte35Signals,
            now: now
        )
        for change in changes {
            try await self.saveBreak(change)
            stored[change.id] = change
            self.logger.info("SCTE-35 break", metadata: ["channel": "\(channel.id)", "break": "\(change.id)"])
        }
        var breaks = Array(stored.values)
        if let plan = channel.breakPlan, let first = media.timings.first?.date, let last = media.timings.last?.date {
            breaks = LiveBreakSelection.merge(
                planned: plan.breaks(
                    channel: channel.id,
                    startDate: self.startDate(of: channel),
                    from: first,
                    to: last + channel.lookahead
                ),
                stored: breaks
            )
        }
        return breaks
    }

    /// Records that an upstream media playlist was read, and whether it changed.
    func noteUpstream(channel: String, media: MediaPlaylist, now: DateTime) {
        var entry = self.health[channel, default: UpstreamHealth()]
        let signature = [media.mediaSequence, media.timings.count, media.hasEndList ? 1 : 0]
        if signature != entry.lastSignature {
            entry.lastSignature = signature
            entry.lastChange = now
        }
        entry.lastFetch = now
        entry.lastError = nil
        self.health[channel] = entry
    }

    /// Records that a channel's upstream answered (the same bytes as before, or after failing).
    func upstreamAnswered(channel: String, now: DateTime) {
        self.health[channel, default: UpstreamHealth()].lastFetch = now
        self.health[channel, default: UpstreamHealth()].lastError = nil
    }

    /// Records that a channel's upstream failed.
    func upstreamFailed(channel: String, message: String, now: DateTime) {
        self.health[channel, default: UpstreamHealth()].lastError = message
        self.health[channel, default: UpstreamHealth()].lastFetch = now
        self.metrics.originFailure(scope: "live-" + channel)
        self.logger.warning("upstream failed", metadata: ["channel": "\(channel)", "error": "\(message)"])
    }

    // MARK: - Breaks

    /// The stored breaks of a channel, read once from the store and then kept in step with it.
    ///
    /// The actor is reentrant: while one request waits for the store, another may fill the cache
    /// and save a break into it. What the store answered then is older than the cache, so the cache
    /// wins and the answer is dropped (writing it would forget the break just saved).
    /// A read that began before the channel's breaks changed elsewhere (the revision moved while it
    /// waited, see ``breaksChangedElsewhere(channel:)``) is answered but not kept.
    func storedBreaks(channel: String) async throws -> [String: LiveBreak] {
        if let cached = self.storedBreaks[channel] { return cached }
        let revision = self.revisions[channel, default: 0]
        var byID: [String: LiveBreak] = [:]
        for b in try await self.store.breaks(channel: channel) { byID[b.id] = b }
        if let cached = self.storedBreaks[channel] { return cached }
        if self.revisions[channel, default: 0] == revision { self.storedBreaks[channel] = byID }
        return byID
    }

    /// Stores a break (new or changed) and makes the next playlist show it.
    func saveBreak(_ liveBreak: LiveBreak) async throws {
        _ = try await self.storedBreaks(channel: liveBreak.channel)
        try await self.store.save(liveBreak)
        // Not kept when the channel's breaks were forgotten meanwhile: the next read has them all.
        if self.storedBreaks[liveBreak.channel] != nil {
            self.storedBreaks[liveBreak.channel]?[liveBreak.id] = liveBreak
        }
        self.revisions[liveBreak.channel, default: 0] += 1
        self.responses.invalidate(scope: "live:" + liveBreak.channel)
        self.feeds.breaksChanged(channel: liveBreak.channel)
        self.metrics.breakChanged(origin: liveBreak.origin.rawValue)
    }

    /// Forgets a channel's stored breaks and its cached playlists because another server instance
    /// changed its breaks in the shared store: the next playlist reads them again.
    func breaksChangedElsewhere(channel: String) {
        self.storedBreaks[channel] = nil
        self.revisions[channel, default: 0] += 1
        self.responses.invalidate(scope: "live:" + channel)
        self.feeds.breaksChanged(channel: channel)
    }

    /// A live break by ID: stored, or planned (`auto-N`, computed in constant time and answered only
    /// within ``plannedBreakWindow`` of now).
    func liveBreak(channel id: String, breakID: String) async throws -> LiveBreak? {
        let channel = try self.channel(id)
        if let stored = try await self.storedBreaks(channel: id)[breakID] { return stored }
        guard let plan = channel.breakPlan,
            let planned = plan.plannedBreak(id: breakID, channel: id, startDate: self.startDate(of: channel))
        else { return nil }
        let now = self.clock.now()
        // Compared as distances, so that dates near the ends of the range cannot wrap.
        let untilStart = planned.startDate.nanosecondsSince1970.subtractingReportingOverflow(now.nanosecondsSince1970)
        let sinceEnd = now.nanosecondsSince1970.subtractingReportingOverflow(planned.endDate.nanosecondsSince1970)
        let window = Self.plannedBreakWindow.nanoseconds
        guard !untilStart.overflow, !sinceEnd.overflow, untilStart.partialValue <= window,
            sinceEnd.partialValue <= window
        else {
            return nil
        }
        return planned
    }

    /// The breaks of a channel between two dates (planned and stored), for the admin API.
    func breaks(channel id: String, from: DateTime, to: DateTime) async throws -> [LiveBreak] {
        let channel = try self.channel(id)
        let stored = try await self.storedBreaks(channel: id)
        let planned =
            channel.breakPlan?.breaks(channel: id, startDate: self.startDate(of: channel), from: from, to: to) ?? []
        return LiveBreakSelection.merge(planned: planned, stored: Array(stored.values))
            .filter { $0.startDate + $0.duration >= from && $0.startDate <= to || $0.origin != .scheduled }
            .sorted { $0.startDate == $1.startDate ? $0.id < $1.id : $0.startDate < $1.startDate }
    }
}
