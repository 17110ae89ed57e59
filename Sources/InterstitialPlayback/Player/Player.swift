import HLSInterstitials
import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A headless HLS player: it streams a primary asset over HTTP into a forward buffer, consumes the
/// buffer with a playback clock, and plays interstitial events as AVFoundation does.
///
/// The player is an actor; ``run(until:)`` drives playback and returns when the item ends (or the
/// clock reaches the given time). Control it from other tasks with ``play()``, ``pause()``,
/// ``setRate(_:)`` and ``seek(to:)``, or script requests at clock times with
/// ``schedule(_:at:)``. Observe it with an ``InterstitialEventMonitor`` or read the event log
/// (``log``, or ``Configuration/logHandler``).
///
/// ```swift
/// let player = Player(item: PlayerItem(url: "https://example.com/main.m3u8"), clock: VirtualPlaybackClock())
/// await player.play()
/// try await player.run()
/// for entry in await player.log { print(entry) }   // one JSON object per line
/// ```
///
/// Every request carries the header `X-PLAYBACK-SESSION-ID: <sessionID>`, and every interstitial
/// request the query parameter `_HLS_primary_id=<sessionID>`.
public actor Player {
    /// The settings a player streams with.
    public struct Configuration: Sendable {
        /// How far ahead of the playhead media is downloaded, in seconds of playout.
        public var forwardBufferDuration: MediaTime
        /// How much must be buffered before playback resumes after a stall.
        public var resumeBufferDuration: MediaTime
        /// Languages to prefer for audio and subtitle renditions, most preferred first.
        public var preferredLanguages: [String]
        /// The bandwidth assumed before any download (bits per second); `nil` starts with the
        /// lowest variant.
        public var initialBandwidth: Double?
        /// Timeout of a playlist request, in seconds.
        public var playlistTimeout: Double
        /// Timeout of a segment request, in seconds.
        public var segmentTimeout: Double
        /// Timeout of interstitial requests (asset lists and asset playlists): generous, so the
        /// server can make its ad decisions (Appendix D.5), but bounded.
        public var interstitialRequestTimeout: Double
        /// How long playback may stall before the player gives up, in seconds of the playback clock.
        public var stallTimeout: MediaTime
        /// How many times a failed segment or reload is retried.
        public var retryLimit: Int
        /// Body limits.
        public var maximumPlaylistSize: Int
        /// Body limit of asset lists.
        public var maximumAssetListSize: Int
        /// Body limit of segments.
        public var maximumSegmentSize: Int
        /// Whether the player keeps the event log in ``Player/log``.
        public var keepsLog: Bool
        /// Whether `request` entries are logged (they are the most numerous).
        public var logsRequests: Bool
        /// Called with each log entry as it happens (the CLI prints them).
        public var logHandler: (@Sendable (PlayerLogEntry) -> Void)?

        /// Creates a configuration with the defaults.
        public init(
            forwardBufferDuration: MediaTime = 30,
            resumeBufferDuration: MediaTime = 2,
            preferredLanguages: [String] = [],
            initialBandwidth: Double? = nil,
            playlistTimeout: Double = 15,
            segmentTimeout: Double = 20,
            interstitialRequestTimeout: Double = 30,
            stallTimeout: MediaTime = 60,
            retryLimit: Int = 3,
            keepsLog: Bool = true,
            logsRequests: Bool = true,
            logHandler: (@Sendable (PlayerLogEntry) -> Void)? = nil
        ) {
            self.forwardBufferDuration = forwardBufferDuration
            self.resumeBufferDuration = resumeBufferDuration
            self.preferredLanguages = preferredLanguages
            self.initialBandwidth = initialBandwidth
            self.playlistTimeout = playlistTimeout
            self.segmentTimeout = segmentTimeout
            self.interstitialRequestTimeout = interstitialRequestTimeout
            self.stallTimeout = stallTimeout
            self.retryLimit = retryLimit
            self.maximumPlaylistSize = 8 << 20
            self.maximumAssetListSize = 1 << 20
            self.maximumSegmentSize = 64 << 20
            self.keepsLog = keepsLog
            self.logsRequests = logsRequests
            self.logHandler = logHandler
        }

        var streaming: StreamingSettings {
            StreamingSettings(
                preferredLanguages: self.preferredLanguages,
                playlistTimeout: self.playlistTimeout,
                segmentTimeout: self.segmentTimeout,
                maximumPlaylistSize: self.maximumPlaylistSize,
                maximumSegmentSize: self.maximumSegmentSize,
                retryLimit: self.retryLimit
            )
        }
    }

    /// The playback session's ID: the `X-PLAYBACK-SESSION-ID` header and `_HLS_primary_id`.
    public nonisolated let sessionID: String
    /// The clock playback follows.
    public nonisolated let clock: any PlaybackClock
    let loader: any ResourceLoader
    /// The settings.
    public let configuration: Configuration

    /// The item being played.
    public private(set) var currentItem: PlayerItem?
    /// The rate playback runs at when it plays (1 = normal); 0 while paused.
    public private(set) var rate: Double = 0
    /// The rate ``play()`` uses.
    public var defaultRate: Double = 1
    /// Playing, paused, or waiting to play.
    public private(set) var timeControlStatus: TimeControlStatus = .paused
    /// Why the player waits, while ``timeControlStatus`` is `waitingToPlayAtSpecifiedRate`.
    public private(set) var reasonForWaitingToPlay: WaitingReason? = .noItemToPlay
    /// The event log, when ``Configuration/keepsLog`` is set.
    public private(set) var log: [PlayerLogEntry] = []
    /// Whether the item played to its end.
    public private(set) var hasEnded = false
    /// The error that stopped playback, if any.
    public private(set) var error: PlaybackError?

    // Streaming state.
    var primary: Presentation?
    var assets: [PresentationID: Presentation] = [:]
    var inFlight: [Int: (purpose: LoadPurpose, request: LoadRequest, holdsClock: Bool)] = [:]
    var pendingLoads: [PendingLoad] = []
    var nextLoadID = 0
    var bandwidthEstimate: Double?
    var lastTick: MediaTime = .zero
    /// The position on the primary's timeline (while an interstitial plays: where it paused).
    var primaryPosition: MediaTime = .zero
    var isStalled = true
    var stallStart: MediaTime?
    var lastBufferedReport: [PresentationID: MediaTime] = [:]
    var commands: [(time: MediaTime, order: Int, command: ScheduledCommand)] = []
    var commandCounter = 0
    var started = false
    var finished = false
    var subscribers: [Int: AsyncStream<PlayerNotification>.Continuation] = [:]
    var nextSubscriber = 0
    var wakeContinuation: AsyncStream<Void>.Continuation?

    // Interstitial state (Player+Interstitials).
    var interstitials = InterstitialState()

    /// Creates a player.
    ///
    /// - Parameters:
    ///   - item: The item to play; set one later with ``replaceCurrentItem(with:)``.
    ///   - clock: The playback clock: ``RealPlaybackClock`` or ``VirtualPlaybackClock``.
    ///   - loader: How resources are loaded; HTTP through AsyncHTTPClient by default.
    ///   - configuration: Buffer length, languages, timeouts, logging.
    ///   - sessionID: The session ID; a new UUID by default.
    public init(
        item: PlayerItem? = nil,
        clock: any PlaybackClock = RealPlaybackClock(),
        loader: any ResourceLoader = HTTPResourceLoader(),
        configuration: Configuration = Configuration(),
        sessionID: String = UUID().uuidString
    ) {
        self.currentItem = item
        self.clock = clock
        self.loader = loader
        self.configuration = configuration
        self.sessionID = sessionID
        self.bandwidthEstimate = configuration.initialBandwidth
    }

    /// Replaces the item; takes effect when ``run(until:)`` starts.
    public func replaceCurrentItem(with item: PlayerItem?) {
        self.currentItem = item
    }

    // MARK: Controls

    /// Plays at ``defaultRate``.
    public func play() {
        _ = self.setRate(self.defaultRate)
    }

    /// Pauses (rate 0; always allowed).
    public func pause() {
        _ = self.setRate(0)
    }

    /// Sets the rate, through the navigation policy: inside an interstitial with
    /// `X-RESTRICT=SKIP`, rates above 1 are refused (and logged as `rateRefused`).
    ///
    /// - Returns: Whether the rate was applied, and why.
    @discardableResult
    public func setRate(_ rate: Double) -> RateResult {
        let decision = self.decideRate(rate)
        if !decision.isAllowed {
            self.emit("rateRefused", [("rate", .number(rate)), ("reason", .string(decision.reason))])
            return decision
        }
        self.advancePlayback(to: self.clock.now)
        self.rate = max(0, rate)
        self.updateStatus()
        self.wake()
        return decision
    }

    /// Seeks the primary to `time` (seconds on the primary timeline), through the navigation policy:
    /// a seek across a `JUMP`-restricted interstitial plays it first; inside an interstitial with
    /// `X-RESTRICT=SKIP` forward seeks are refused.
    ///
    /// Both the request and its resolution are logged.
    ///
    /// - Returns: What the seek came to.
    @discardableResult
    public func seek(to time: MediaTime) -> SeekResult {
        self.advancePlayback(to: self.clock.now)
        self.emit("seekRequested", [("target", .seconds(time)), ("from", .seconds(self.primaryPosition))])
        let result = self.performSeek(to: time)
        self.emit(
            "seekResolved",
            [
                ("target", .seconds(time)), ("granted", .seconds(result.grantedTime)), ("allowed", .bool(result.isAllowed)),
                ("interstitials", .array(result.interstitials.map { .string($0) })), ("reason", .string(result.reason)),
            ]
        )
        self.wake()
        return result
    }

    /// Makes a request when the playback clock reaches `time` (deterministic with a virtual clock).
    public func schedule(_ command: ScheduledCommand, at time: MediaTime) {
        self.commandCounter += 1
        self.commands.append((time, self.commandCounter, command))
        self.commands.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        self.wake()
    }

    /// The current time on the primary timeline (while an interstitial plays: where the primary
    /// paused).
    public var currentTime: MediaTime { self.primaryPosition }

    /// The current time on the integrated timeline (point interstitials take no room; see
    /// ``integratedTimelineSnapshot()``).
    public var integratedTime: MediaTime { self.integratedPosition() }

    /// The primary's main media playlist as the player holds it: the latest load, with delta
    /// updates (`_HLS_skip`) merged into the version before them (§6.3.7); `nil` before it loads.
    public var primaryMediaPlaylist: MediaPlaylist? {
        self.primary?.mainTrack?.playlist
    }

    /// How far the primary is buffered from the playhead.
    public var primaryBufferedTime: MediaTime {
        self.primary?.bufferedEnd(from: self.primaryPosition) ?? self.primaryPosition
    }

    /// A stream of what happens to the player, for monitors.
    ///
    /// Ends when playback ends.
    public func notifications() -> AsyncStream<PlayerNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerNotification.self, bufferingPolicy: .unbounded)
        let id = self.nextSubscriber
        self.nextSubscriber += 1
        if self.finished {
            continuation.finish()
        } else {
            self.subscribers[id] = continuation
        }
        return stream
    }

    // MARK: Running

    enum Completion: Sendable {
        case loaded(Int, Result<LoadResponse, PlaybackError>)
        case timer(MediaTime)
        case wake
        case clockWait
    }

    /// Plays the current item until it ends, fails, or the playback clock reaches `limit`.
    ///
    /// Every request is made for real. With a ``VirtualPlaybackClock`` the player waits for the
    /// answers it needs and then jumps the clock to its next deadline, so playback runs as fast
    /// as the server answers. Cancelling the calling task stops playback.
    ///
    /// - Parameter limit: A playback-clock time to stop at (`intermission play --until`).
    /// - Throws: `CancellationError` when cancelled. Playback errors do not throw: they end
    ///   playback and are in ``error`` and the log.
    public func run(until limit: MediaTime? = nil) async throws {
        guard !self.finished else { return }
        let clock = self.clock
        let loader = self.loader
        let sessionID = self.sessionID
        let (wakeStream, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakeContinuation = wakeContinuation
        defer {
            self.wakeContinuation = nil
            wakeContinuation.finish()
        }
        try await withThrowingTaskGroup(of: Completion.self) { group in
            var timers: [MediaTime] = []
            var listening = false
            var watchingWaits = false
            var spins = 0
            let virtualClock = clock as? VirtualPlaybackClock
            if !self.started { self.start() }
            while !self.finished {
                try Task.checkCancellation()
                let now = clock.now
                self.step(now: now)
                for load in self.takePendingLoads() {
                    let id = self.nextLoadID
                    self.nextLoadID += 1
                    self.inFlight[id] = (load.purpose, load.request, !load.isBlocking)
                    let request = load.request
                    group.addTask {
                        let result = await loader.load(request, sessionID: sessionID)
                        return .loaded(id, result)
                    }
                }
                if self.finished { break }
                if let limit, now >= limit {
                    // Blocking reloads may wait for media that only a later clock brings: drop them
                    // (the next run asks again). Let the other loads under way finish, so a later
                    // run continues from a clean state.
                    for (id, entry) in self.inFlight where !entry.holdsClock {
                        self.inFlight[id] = nil
                        self.abandonReload(entry.purpose, now: now)
                    }
                    while !self.inFlight.isEmpty, let completion = try await group.next() {
                        if case .loaded(let id, let result) = completion, let entry = self.inFlight.removeValue(forKey: id) {
                            self.handleLoad(entry.purpose, entry.request, result, now: clock.now)
                        }
                    }
                    break
                }
                var deadline = self.nextDeadline(now: now)
                if let limit { deadline = deadline.map { MediaTime.min($0, limit) } ?? limit }
                var holding = self.inFlight.values.contains { $0.holdsClock }
                if let virtualClock, !holding, self.inFlight.values.contains(where: { !$0.holdsClock }) {
                    // A blocking reload is in flight. A server in this virtual time answers it once
                    // the clock reaches the time it waits for: go no further than that, then wait
                    // for the answer (or for the server to start waiting) instead of running ahead.
                    let waits = virtualClock.pendingWaits
                    if let earliest = waits.earliest {
                        deadline = deadline.map { MediaTime.min($0, earliest) } ?? earliest
                    } else {
                        holding = true
                        if !watchingWaits {
                            watchingWaits = true
                            group.addTask {
                                await virtualClock.waitForNewWait(after: waits.generation)
                                return .clockWait
                            }
                        }
                    }
                }
                if clock.isVirtual, !holding, let deadline, deadline <= now {
                    // Something is due now but nothing changed: let a moment pass rather than spin.
                    spins += 1
                    if spins > 50 {
                        spins = 0
                        clock.advance(to: now + MediaTime(milliseconds: 1))
                    }
                    if self.inFlight.isEmpty { continue }
                } else {
                    spins = 0
                }
                if clock.isVirtual {
                    if !holding {
                        if let deadline, deadline > now {
                            clock.advance(to: deadline)
                            continue
                        }
                        if self.inFlight.isEmpty {
                            if deadline != nil { continue }
                            self.fail(PlaybackError(code: .cancelled, message: "nothing left to wait for"))
                            break
                        }
                    }
                } else {
                    if let deadline, timers.allSatisfy({ deadline < $0 }) {
                        timers.append(deadline)
                        group.addTask {
                            try await clock.sleep(until: deadline)
                            return .timer(deadline)
                        }
                    }
                    if !listening {
                        listening = true
                        group.addTask {
                            for await _ in wakeStream { return .wake }
                            try await Task.sleep(for: .seconds(3600))
                            return .wake
                        }
                    }
                }
                guard let completion = try await group.next() else { break }
                switch completion {
                case .loaded(let id, let result):
                    guard let entry = self.inFlight.removeValue(forKey: id) else { continue }
                    self.handleLoad(entry.purpose, entry.request, result, now: clock.now)
                case .timer(let time):
                    timers.removeAll { $0 == time }
                case .wake:
                    listening = false
                case .clockWait:
                    watchingWaits = false
                }
            }
            group.cancelAll()
        }
        if self.finished { self.finishNotifications() }
    }

    func start() {
        self.started = true
        let now = self.clock.now
        self.lastTick = now
        guard let item = self.currentItem else {
            self.fail(PlaybackError(code: .invalidURL, message: "no item to play"))
            return
        }
        var presentation = Presentation(id: .primary, url: item.url)
        presentation.startTime = item.startTime ?? .zero
        self.primaryPosition = presentation.startTime
        self.primary = presentation
        self.isStalled = true
        self.stallStart = now
        self.updateStatus()
    }

    func wake() {
        self.wakeContinuation?.yield()
    }

    func takePendingLoads() -> [PendingLoad] {
        defer { self.pendingLoads.removeAll() }
        return self.pendingLoads
    }

    /// One pass: move the playhead to `now`, run due commands, react to what the position reached,
    /// and queue the loads that are due.
    func step(now: MediaTime) {
        self.advancePlayback(to: now)
        while let first = self.commands.first, first.time <= now {
            self.commands.removeFirst()
            switch first.command.action {
            case .seek(let time): self.seek(to: time)
            case .rate(let rate): self.setRate(rate)
            case .skipCurrentEvent: self.skipCurrentEvent()
            case .cancelCurrentEvent(let offset): self.cancelCurrentEvent(resumptionOffset: offset)
            }
        }
        guard !self.finished else { return }
        self.checkTransitions(now: now)
        guard !self.finished else { return }
        if let stall = self.stallStart, self.isStalled, self.rate > 0, now - stall >= self.configuration.stallTimeout {
            self.fail(PlaybackError(code: .timeout, message: "playback stalled for \(self.configuration.stallTimeout) s"))
            return
        }
        self.queueLoads(now: now)
    }

    /// Queues the loads of every presentation that wants one.
    func queueLoads(now: MediaTime) {
        let settings = self.configuration.streaming
        if var primary = self.primary {
            let limit = self.primaryBufferLimit()
            self.pendingLoads += primary.nextLoads(now: now, limit: limit, settings: settings)
            self.primary = primary
        }
        self.pendingLoads += self.interstitialLoads(now: now, settings: settings)
    }

    /// The next time something is due: a playback boundary, a reload, a command, a timeout.
    func nextDeadline(now: MediaTime) -> MediaTime? {
        var candidates: [MediaTime] = []
        if let boundary = self.playbackDeadline(now: now) { candidates.append(boundary) }
        if let time = self.primary?.nextDeadline { candidates.append(time) }
        // The forward buffer reaches the next segment as the playhead moves.
        if self.rate > 0, !self.isStalled, self.interstitials.current == nil, let start = self.primary?.nextSegmentStart {
            let limit = self.primaryBufferLimit()
            if start >= limit, let boundary = self.primaryBoundary().map({ $0 }) ?? Optional(start + 1), start < boundary || limit < self.primaryPosition + self.configuration.forwardBufferDuration {
                let reach = start - self.configuration.forwardBufferDuration
                if reach >= self.primaryPosition {
                    // Just past the point where the segment enters the forward buffer.
                    candidates.append(now + MediaTime(seconds: (reach - self.primaryPosition).seconds / self.rate) + MediaTime(milliseconds: 1))
                }
            }
        }
        for presentation in self.assets.values {
            if let time = presentation.nextDeadline { candidates.append(time) }
        }
        if let command = self.commands.first { candidates.append(command.time) }
        if let stall = self.stallStart, self.isStalled, self.rate > 0 { candidates.append(stall + self.configuration.stallTimeout) }
        if let time = self.interstitialDeadline(now: now) { candidates.append(time) }
        return candidates.map { MediaTime.max($0, now) }.min()
    }

    // MARK: Answers

    func handleLoad(_ purpose: LoadPurpose, _ request: LoadRequest, _ result: Result<LoadResponse, PlaybackError>, now: MediaTime) {
        self.advancePlayback(to: now)
        switch result {
        case .success(let response):
            if self.configuration.logsRequests {
                self.emit(
                    "request",
                    [
                        ("url", .string(request.url)), ("kind", .string(request.kind.description)),
                        ("status", .number(Double(response.status))), ("bytes", .number(Double(response.byteCount))),
                    ]
                )
            }
            if request.kind == .segment, response.byteCount > 16_384, (200..<300).contains(response.status) {
                let seconds = max(response.elapsed.seconds, 1e-4)
                let sample = Double(response.byteCount) * 8 / seconds
                self.bandwidthEstimate = self.bandwidthEstimate.map { 0.7 * $0 + 0.3 * sample } ?? sample
            }
        case .failure(let error):
            if self.configuration.logsRequests {
                self.emit(
                    "request",
                    [
                        ("url", .string(request.url)), ("kind", .string(request.kind.description)), ("status", .null),
                        ("bytes", .number(0)), ("error", .string(error.code.description)),
                    ]
                )
            }
        }
        if case .assetList(let eventID) = purpose {
            self.handleAssetList(eventID: eventID, result, now: now)
            return
        }
        guard let id = purpose.presentation else { return }
        let settings = self.configuration.streaming
        if id.isPrimary {
            guard var primary = self.primary else { return }
            let events = primary.handle(result, for: purpose, now: now, bandwidth: self.bandwidthEstimate, settings: settings)
            var adapted: [PresentationEvent] = []
            if case .segment = purpose, let bandwidth = self.bandwidthEstimate {
                adapted = primary.adapt(bandwidth: bandwidth, settings: settings)
            }
            self.primary = primary
            self.report(events + adapted, for: id, purpose: purpose, now: now)
        } else {
            guard var presentation = self.assets[id] else { return }
            let events = presentation.handle(result, for: purpose, now: now, bandwidth: self.bandwidthEstimate, settings: settings)
            self.assets[id] = presentation
            self.report(events, for: id, purpose: purpose, now: now)
        }
        self.checkTransitions(now: now)
    }

    /// Forgets a playlist reload whose answer will not be waited for; the next one is due now.
    func abandonReload(_ purpose: LoadPurpose, now: MediaTime) {
        guard case .mediaPlaylist(let id, let k, _) = purpose else { return }
        if id.isPrimary {
            self.primary?.abandonReload(track: k, now: now)
        } else {
            self.assets[id]?.abandonReload(track: k, now: now)
        }
    }

    func report(_ events: [PresentationEvent], for id: PresentationID, purpose: LoadPurpose, now: MediaTime) {
        for event in events {
            switch event {
            case .variantSelected(let url, let bandwidth, let audio, let subtitles):
                self.emit(
                    "variantSelected",
                    [
                        ("presentation", .string(id.description)), ("url", .string(url)), ("bandwidth", .number(Double(bandwidth))),
                        ("audioLanguage", .optional(audio)), ("subtitleLanguage", .optional(subtitles)),
                    ]
                )
            case .playlistLoaded(let track, let url, let segments, let isLive, let changed, let delta):
                self.emit(
                    "playlistLoaded",
                    [
                        ("presentation", .string(id.description)), ("track", .string(track.rawValue)), ("url", .string(url)),
                        ("segments", .number(Double(segments))), ("live", .bool(isLive)), ("changed", .bool(changed)),
                        ("delta", .bool(delta)),
                    ]
                )
                if id.isPrimary, track == .main, let playlist = self.primary?.mainTrack?.playlist {
                    self.primaryPlaylistDidLoad(playlist, now: now)
                }
            case .buffered:
                let from = id.isPrimary ? self.primaryPosition : self.assetStartPosition(id)
                let end = (id.isPrimary ? self.primary : self.assets[id])?.bufferedEnd(from: from) ?? from
                if self.lastBufferedReport[id].map({ end > $0 }) ?? true {
                    self.lastBufferedReport[id] = end
                    self.emit("bufferedTo", [("presentation", .string(id.description)), ("time", .seconds(end))])
                }
            case .failed(let error):
                if id.isPrimary {
                    self.fail(error)
                } else {
                    self.assetDidFail(id, error: error, now: now)
                }
            }
        }
    }

    // MARK: Playback clock

    /// Moves the playhead from the last tick to `now` at the current rate, up to the next boundary.
    func advancePlayback(to now: MediaTime) {
        defer { self.lastTick = now }
        guard now > self.lastTick, self.rate > 0, !self.finished, self.started else { return }
        let elapsed = now - self.lastTick
        let distance = MediaTime(seconds: elapsed.seconds * self.rate)
        if self.interstitials.current != nil {
            self.advanceInterstitial(by: distance)
            return
        }
        guard !self.isStalled else { return }
        guard let primary = self.primary else { return }
        var limit = primary.bufferedEnd(from: self.primaryPosition)
        if let boundary = self.primaryBoundary() { limit = MediaTime.min(limit, boundary) }
        if let duration = primary.duration { limit = MediaTime.min(limit, duration) }
        self.primaryPosition = MediaTime.min(self.primaryPosition + distance, MediaTime.max(limit, self.primaryPosition))
    }

    /// When the playhead next reaches something: the end of the buffer, an event, the end.
    func playbackDeadline(now: MediaTime) -> MediaTime? {
        guard self.rate > 0, !self.finished else { return nil }
        if self.interstitials.current != nil {
            return self.interstitialPlaybackDeadline(now: now)
        }
        guard !self.isStalled else { return nil }
        guard let primary = self.primary else { return nil }
        var target = primary.bufferedEnd(from: self.primaryPosition)
        if let boundary = self.primaryBoundary() { target = MediaTime.min(target, boundary) }
        if let duration = primary.duration { target = MediaTime.min(target, duration) }
        guard target > self.primaryPosition else { return now }
        return now + MediaTime(seconds: (target - self.primaryPosition).seconds / self.rate)
    }

    /// Reacts to where the playhead is: stalls, resumes, events, the end.
    func checkTransitions(now: MediaTime) {
        guard self.started, !self.finished else { return }
        if self.interstitials.current != nil {
            self.checkInterstitialTransitions(now: now)
            return
        }
        guard let primary = self.primary, primary.isReady else {
            self.setStalled(true, now: now)
            return
        }
        if self.checkPrimaryBoundary(now: now) {
            self.checkBreakJustStarted(now: now)
            return
        }
        if let duration = primary.duration, self.primaryPosition >= duration - BufferedRanges.tolerance {
            self.primaryDidEnd(now: now)
            self.checkBreakJustStarted(now: now)
            return
        }
        let end = primary.bufferedEnd(from: self.primaryPosition)
        if self.isStalled {
            var needed = self.configuration.resumeBufferDuration
            if let duration = primary.duration { needed = MediaTime.min(needed, duration - self.primaryPosition) }
            if let boundary = self.primaryBoundary() { needed = MediaTime.min(needed, boundary - self.primaryPosition) }
            if end - self.primaryPosition >= needed { self.setStalled(false, now: now) }
        } else if end <= self.primaryPosition {
            self.setStalled(true, now: now)
        }
        self.primary?.discard(before: self.primaryPosition - 10)
    }

    /// A break just began (a mid-roll or the post-rolls): its first event's assets may already be
    /// buffered, or its asset list fetched ahead may have come back empty or failed, with no load
    /// left to answer, so react to them now rather than at the next wake (on a real clock there
    /// may be none).
    func checkBreakJustStarted(now: MediaTime) {
        guard !self.finished, self.interstitials.current != nil else { return }
        self.checkInterstitialTransitions(now: now)
    }

    func setStalled(_ stalled: Bool, now: MediaTime) {
        guard stalled != self.isStalled else { return }
        self.isStalled = stalled
        self.stallStart = stalled ? now : nil
        if stalled, self.started, self.rate > 0 {
            self.emit("stalled", [("primaryTime", .seconds(self.primaryPosition))])
        } else if !stalled, self.rate > 0 {
            self.emit("playing", [("primaryTime", .seconds(self.primaryPosition))])
        }
        self.updateStatus()
    }

    func updateStatus() {
        let status: TimeControlStatus
        let reason: WaitingReason?
        if self.rate == 0 {
            status = .paused
            reason = nil
        } else if self.interstitials.current != nil {
            // The primary waits while the interstitial player plays.
            status = .waitingToPlayAtSpecifiedRate
            reason = .interstitialEvent
        } else if self.isStalled {
            status = .waitingToPlayAtSpecifiedRate
            reason = self.primary?.isReady == true ? .toMinimizeStalls : .noItemToPlay
        } else {
            status = .playing
            reason = nil
        }
        if status != self.timeControlStatus || reason != self.reasonForWaitingToPlay {
            self.timeControlStatus = status
            self.reasonForWaitingToPlay = reason
            self.notify(.timeControlStatusDidChange(status, reason))
        }
    }

    func primaryDidEnd(now: MediaTime) {
        if self.startPostRolls(now: now) { return }
        self.hasEnded = true
        self.emit("ended", [("primaryTime", .seconds(self.primaryPosition))])
        self.finish()
    }

    func fail(_ error: PlaybackError) {
        guard !self.finished else { return }
        self.error = error
        self.emit("error", [("code", .string(error.code.description)), ("message", .string(error.message)), ("url", .optional(error.url))])
        self.finish()
    }

    func finish() {
        self.finished = true
        self.rate = 0
        self.updateStatus()
    }

    func finishNotifications() {
        for continuation in self.subscribers.values { continuation.finish() }
        self.subscribers.removeAll()
    }

    // MARK: Log and notifications

    func emit(_ event: String, _ fields: [(String, JSONValue)] = []) {
        let entry = PlayerLogEntry(time: self.clock.now, event: event, fields: fields)
        if self.configuration.keepsLog { self.log.append(entry) }
        self.configuration.logHandler?(entry)
    }

    func notify(_ notification: PlayerNotification) {
        for continuation in self.subscribers.values { continuation.yield(notification) }
    }

    // MARK: Seeking the primary

    /// Moves the primary playhead to `time` and buffering with it.
    func jumpPrimary(to time: MediaTime, now: MediaTime) {
        self.primaryPosition = time
        self.primary?.reposition(to: time)
        self.lastBufferedReport[.primary] = nil
        let end = self.primary?.bufferedEnd(from: time) ?? time
        if end - time < MediaTime.min(self.configuration.resumeBufferDuration, (self.primary?.duration ?? end) - time) {
            self.setStalled(true, now: now)
        }
    }
}
