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
        /// Timeout of a playlist request, in real time.
        public var playlistTimeout: Duration
        /// Timeout of a segment request, in real time.
        public var segmentTimeout: Duration
        /// Timeout of interstitial requests (asset lists and asset playlists): generous, so the
        /// server can make its ad decisions (Appendix D.5), but bounded.
        public var interstitialRequestTimeout: Duration
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
        /// How a live break without `X-RESUME-OFFSET` resumes: the interstitial's duration from its
        /// start (the spec's default, D.2), or following the wall clock (AVFoundation's
        /// `.indefinite`, opt-in).
        public var liveResumption: LiveResumption = .eventDuration
        /// Whether the player follows preload date ranges (Appendix F, `com.apple.hls.preload`):
        /// it requests a target's asset list once at a random moment inside the range's window and
        /// uses that answer at the break (default `true`).
        public var followsPreloadRanges = true
        /// Whether the player follows scheduled date ranges (Appendix H of Apple's preliminary
        /// WWDC26 draft, `com.apple.hls.daterange-schedule`): it requests each schedule's `X-URI`
        /// once buffering reaches it and plays the interstitials it lists (default `true`).
        public var followsDateRangeSchedules = true
        /// The seed of the random moments picked inside preload windows; `nil` (the default)
        /// seeds from the system's random source.
        ///
        /// Tests and reproducible load runs set it.
        public var preloadRandomSeed: UInt64?
        /// The most entries ``Player/log`` keeps (default 100,000, at least 1): when one more
        /// arrives, the oldest eighth is dropped at once, so the log never holds more than this
        /// (``logHandler`` still sees every entry).
        public var maximumLogEntries: Int = 100_000 {
            didSet { self.maximumLogEntries = max(1, self.maximumLogEntries) }
        }
        /// The most unread notifications each ``Player/notifications()`` stream holds (default
        /// 1,024, at least 1); past it the oldest unread ones are dropped.
        public var notificationBufferLimit: Int = 1024 {
            didSet { self.notificationBufferLimit = max(1, self.notificationBufferLimit) }
        }

        /// Whether the player fires the beacons of `X-AD-CREATIVE-SIGNALING` (SVTA2053-2) in asset
        /// lists: ``BeaconMode/off`` (the default) leaves them to the server.
        public var beaconMode: BeaconMode = .off
        /// Tries per beacon (default 3, 1 to 20): a network failure, a timeout or an HTTP 5xx,
        /// 408 or 429 is tried again; any other answer ends it.
        public var beaconAttempts: Int = 3 {
            didSet { self.beaconAttempts = min(20, max(1, self.beaconAttempts)) }
        }
        /// The wait before a beacon's second try, on the playback clock, doubling after (default 0.5 s).
        public var beaconRetryDelay: MediaTime = MediaTime(milliseconds: 500)
        /// Timeout of one beacon request, in real time (default 5 s).
        public var beaconTimeout: Duration = .seconds(5)
        /// The most beacons waiting to be sent (default 256, at least 1): one more is logged as
        /// failed and dropped.
        public var beaconQueueLimit: Int = 256 {
            didSet { self.beaconQueueLimit = max(1, self.beaconQueueLimit) }
        }

        /// Creates a configuration with the defaults.
        public init(
            forwardBufferDuration: MediaTime = 30,
            resumeBufferDuration: MediaTime = 2,
            preferredLanguages: [String] = [],
            initialBandwidth: Double? = nil,
            playlistTimeout: Duration = .seconds(15),
            segmentTimeout: Duration = .seconds(20),
            interstitialRequestTimeout: Duration = .seconds(30),
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
    public internal(set) var rate: Double = 0
    /// The rate ``play()`` uses.
    public var defaultRate: Double = 1
    /// Playing, paused, or waiting to play.
    public internal(set) var timeControlStatus: TimeControlStatus = .paused
    /// Why the player waits, while ``timeControlStatus`` is `waitingToPlayAtSpecifiedRate`.
    public internal(set) var reasonForWaitingToPlay: WaitingReason? = .noItemToPlay
    /// The event log, when ``Configuration/keepsLog`` is set.
    public private(set) var log: [PlayerLogEntry] = []
    /// Whether the item played to its end.
    public internal(set) var hasEnded = false
    /// The error that stopped playback, if any.
    public internal(set) var error: PlaybackError?

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
    /// Set by a coordinator while the group waits for other participants.
    var waitsForCoordinatedPlayback = false
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
        self.interstitials.coordinator.configure(
            liveResumption: configuration.liveResumption,
            beaconPolicy: BeaconQueue.Policy(
                limit: configuration.beaconQueueLimit,
                attempts: configuration.beaconAttempts,
                retryDelay: configuration.beaconRetryDelay
            ),
            preloadSeed: configuration.preloadRandomSeed,
            firesBeacons: configuration.beaconMode == .client
        )
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
            self.emit(.rateRefused(rate: rate, reason: decision.reason))
            return decision
        }
        self.advancePlayback(to: self.clock.now)
        let old = self.rate
        self.rate = max(0, rate)
        if old > 0, self.rate == 0 {
            self.viewerDidAct("pause")
        } else if old == 0, self.rate > 0 {
            self.viewerDidAct("resume")
        }
        self.updateStatus()
        self.wake()
        return decision
    }

    /// Whether the sound is off.
    ///
    /// The player renders no sound; muting is followed for the beacons
    /// of the ad playing (VAST `mute` and `unmute`).
    public private(set) var isMuted = false

    /// Mutes or unmutes: a change fires the playing ad's `mute` or `unmute` beacons (client
    /// beacons); setting the same value again does nothing.
    public func setMuted(_ muted: Bool) {
        guard muted != self.isMuted else { return }
        self.isMuted = muted
        self.viewerDidAct(muted ? "mute" : "unmute")
        self.wake()
    }

    /// Seeks the primary to `time` (seconds on the primary timeline), through the navigation policy.
    ///
    /// A seek across a `JUMP`-restricted interstitial plays it first; inside an interstitial with
    /// `X-RESTRICT=SKIP` forward seeks are refused. Both the request and its resolution are logged.
    ///
    /// - Returns: What the seek came to.
    @discardableResult
    public func seek(to time: MediaTime) -> SeekResult {
        self.advancePlayback(to: self.clock.now)
        self.emit(.seekRequested(target: time, from: self.primaryPosition))
        let result = self.performSeek(to: time)
        self.emit(.seekResolved(result))
        self.wake()
        return result
    }

    /// The current time on the primary timeline (while an interstitial plays: where the primary
    /// paused), brought up to the playback clock's present: between the player's own wake-ups it
    /// still moves, as `AVPlayer.currentTime()` does.
    public var currentTime: MediaTime {
        self.advancePlayback(to: self.clock.now)
        return self.primaryPosition
    }

    /// The current time on the integrated timeline (point interstitials take no room; see
    /// ``integratedTimelineSnapshot()``).
    public var integratedTime: MediaTime { self.integratedPosition() }

    /// The primary's main media playlist as the player holds it: the latest load, with delta
    /// updates (`_HLS_skip`) merged into the version before them (§6.3.7); `nil` before it loads.
    public var primaryMediaPlaylist: MediaPlaylist? {
        self.primary?.mainTrack?.playlist
    }

    /// The asset URLs (absolute) of the asset list loaded for the interstitial `eventID`, in play
    /// order; `nil` while its list is not loaded (not asked yet, loading, failed or cleared).
    ///
    /// What AVFoundation's `assetListResponse` gives an app: the receiver checks each asset's
    /// format against its decoders before the break plays.
    public func loadedAssetURLs(forEvent eventID: String) -> [String]? {
        guard case .loaded(let slots, _)? = self.interstitials.lists[eventID] else { return nil }
        return slots.map(\.url)
    }

    /// How far the primary is buffered from the playhead.
    public var primaryBufferedTime: MediaTime {
        self.primary?.bufferedEnd(from: self.primaryPosition) ?? self.primaryPosition
    }

    /// A stream of what happens to the player, for monitors.
    ///
    /// It ends when playback ends.
    ///
    /// The stream holds at most ``Configuration/notificationBufferLimit`` notifications a
    /// subscriber has not read yet; past that the oldest unread ones are dropped, so a slow or
    /// absent reader cannot grow memory without bound.
    public func notifications() -> AsyncStream<PlayerNotification> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PlayerNotification.self,
            bufferingPolicy: .bufferingNewest(self.configuration.notificationBufferLimit)
        )
        let id = self.nextSubscriber
        self.nextSubscriber += 1
        if self.finished {
            continuation.finish()
        } else {
            self.subscribers[id] = continuation
        }
        return stream
    }

    // MARK: Log and notifications

    /// Writes `event` to the log and posts its notification, both derived from the one value.
    func emit(_ event: PlayerEvent) {
        if let entry = event.logEntry(at: self.clock.now) {
            if self.configuration.keepsLog {
                self.log.append(entry)
                // Bounded: past the limit the oldest eighth goes at once (amortised O(1) per entry).
                let limit = self.configuration.maximumLogEntries
                if self.log.count > limit {
                    self.log.removeFirst(min(self.log.count, self.log.count - limit + limit / 8))
                }
            }
            self.configuration.logHandler?(entry)
        }
        if let notification = event.notification {
            for continuation in self.subscribers.values { continuation.yield(notification) }
        }
        if self.configuration.beaconMode == .client { self.observeForBeacons(event) }
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
