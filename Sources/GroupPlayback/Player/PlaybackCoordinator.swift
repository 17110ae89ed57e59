import Foundation
import GroupCoordination
import HLSInterstitials
import HLSPlaylist
import HummingbirdWSClient
import InterstitialPlayback
import Logging

/// Attaches a `Player` to a group on a hub (`intermission serve`'s `/v1/groups/{id}` WebSocket):
/// the player follows the group's commands, the viewer's commands go to the whole group, and the
/// player's own interstitials suspend it from the group (AVFoundation's
/// `AVPlayerPlaybackCoordinator`, over plain WebSockets).
///
/// ```swift
/// let player = Player(item: PlayerItem(url: streamURL))
/// let coordinator = PlaybackCoordinator(player: player, groupURL: "ws://127.0.0.1:8080/v1/groups/movie-night")
/// async let playing: Void = player.run()
/// async let coordinated: Void = coordinator.run()
/// await coordinator.play()          // every participant starts at the same instant
/// ```
///
/// The decisions are `ParticipantCoordination`'s; this actor only performs them: it probes the hub
/// clock, turns player positions into item positions (for live streams, program dates, so that
/// participants who joined at different times share one timeline), and applies seeks, rates and
/// pauses, starting playback at the group's instant.
public actor PlaybackCoordinator {
    /// The coordinator's settings.
    public struct Configuration: Sendable {
        /// The participant's identifier in the group: a new UUID by default.
        public var participantID: String
        /// The group's policy, used when this participant creates the group.
        public var policy: GroupPolicy
        /// How far the player may drift before it is moved back into step.
        public var syncTolerance: MediaTime
        /// How often the player's position is checked.
        public var observationInterval: Duration
        /// How often the hub clock is probed after the first probes.
        public var probeInterval: Duration
        /// Ranges of the participant's own item that are left out of the group's timeline (stitched
        /// ads the app knows of); stitched ranges found in the playlist are added.
        public var nonPrimaryRanges: [NonPrimaryTimeRange]
        /// Whether stitched ads are looked for in the playlist (`StitchedRanges`).
        public var findsStitchedRanges: Bool

        /// Creates settings.
        public init(
            participantID: String = UUID().uuidString,
            policy: GroupPolicy = GroupPolicy(),
            syncTolerance: MediaTime = MediaTime(milliseconds: 50),
            observationInterval: Duration = .milliseconds(50),
            probeInterval: Duration = .seconds(2),
            nonPrimaryRanges: [NonPrimaryTimeRange] = [],
            findsStitchedRanges: Bool = true
        ) {
            self.participantID = participantID
            self.policy = policy
            self.syncTolerance = syncTolerance
            self.observationInterval = observationInterval
            self.probeInterval = probeInterval
            self.nonPrimaryRanges = nonPrimaryRanges
            self.findsStitchedRanges = findsStitchedRanges
        }
    }

    /// The player coordinated.
    public let player: Player
    /// The hub's WebSocket URL (`ws://host:port/v1/groups/{id}`).
    public let groupURL: String
    /// The settings.
    public let configuration: Configuration

    var coordination: ParticipantCoordination
    /// The participant's own clock: its probes' instants, the group's start instants, and every
    /// interval the coordinator waits (the continuous clock unless the initializer was given one).
    let localClock: ElapsedClock
    var send: (@Sendable (GroupMessage) async -> Void)?
    /// The start at the group's instant that is waiting for it; owned by the coordinator, which
    /// cancels it on the next seek, pause or play and when ``run()`` ends.
    var pendingStart: Task<Void, Never>?
    /// Added to the player's primary time to give the item time the timeline uses: 0 for VOD, the
    /// program date of the primary's time 0 (seconds since 1970) for live.
    var itemOrigin: MediaTime = .zero
    var currentEvent: (event: InterstitialEvent, since: ClockInstant)?
    /// The status streams (``statusUpdates()``).
    nonisolated let statusStreams = StreamFanOut<ParticipantStatus>(buffer: 64)
    /// Told after every message from the hub once the group's time is known: what
    /// ``waitForGroupTime()`` waits on.
    nonisolated let groupTimeStreams = StreamFanOut<Void>(buffer: 1)
    var logger: Logger

    /// The group's last refusal, if the hub refused this participant.
    public private(set) var refusal: [String]?

    /// Creates a coordinator for a player; ``run()`` connects it.
    ///
    /// - Parameters:
    ///   - player: The player coordinated.
    ///   - groupURL: The hub's WebSocket URL.
    ///   - configuration: The settings.
    ///   - clock: The participant's own clock, on which it probes the hub, checks the player and
    ///     starts at the group's instants (the continuous clock by default; tests pass one they
    ///     advance).
    public init(
        player: Player,
        groupURL: String,
        configuration: Configuration = Configuration(),
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.player = player
        self.localClock = ElapsedClock(clock)
        self.groupURL = groupURL
        self.configuration = configuration
        self.coordination = ParticipantCoordination(
            participantID: configuration.participantID,
            timeline: CoordinatedTimeline(nonPrimaryRanges: configuration.nonPrimaryRanges),
            syncTolerance: configuration.syncTolerance
        )
        var logger = Logger(label: "intermission.group")
        logger.logLevel = .warning
        self.logger = logger
    }

    /// The participant's status now.
    public var status: ParticipantStatus { self.coordination.status }

    /// How long the group's wait in `status` is expected to last from now, when every participant it
    /// waits for has said when it will be ready; `nil` otherwise (zero once that moment has passed).
    public func expectedWait(_ status: ParticipantStatus) -> MediaTime? {
        guard case .waitingForCoordinatedPlayback(_, let until) = status, let until else { return nil }
        let left = until.nanoseconds.subtractingReportingOverflow(self.localNow().nanoseconds)
        return MediaTime(nanoseconds: left.overflow ? .max : max(0, left.partialValue))
    }

    /// The coordinated time the group is at now, once the hub clock and the group's state are known.
    public var groupTime: MediaTime? { self.coordination.groupTime(at: self.localNow()) }

    /// Waits until the group's time is known (the hub clock estimated and the group's state
    /// received), without polling: it is checked after every message from the hub.
    ///
    /// - Returns: The group's time then; `nil` when the task is cancelled first.
    public func waitForGroupTime() async -> MediaTime? {
        // Subscribed before the first check, on the actor: a message cannot slip in between.
        let told = self.groupTimeStreams.makeStream()
        if let time = self.groupTime { return time }
        for await _ in told {
            if let time = self.groupTime { return time }
        }
        return nil
    }

    /// The participant's own position on the group's timeline now.
    public func coordinatedTime() async -> MediaTime? {
        self.coordination.timeline.coordinatedTime(of: await self.position())
    }

    /// The group's participants as the hub last said (empty before joining).
    public var groupParticipants: [String] { self.coordination.groupState?.participants ?? [] }

    /// The estimate of the hub clock.
    public var clock: GroupClock { self.coordination.clock }

    /// A stream of status changes from now on.
    public func statusUpdates() -> AsyncStream<ParticipantStatus> { self.statusStreams.makeStream() }

    /// Asks the group to play at `rate` (1 by default).
    ///
    /// The viewer's own player judges the rate first, as it would a local one: inside this
    /// participant's own interstitial with `X-RESTRICT=SKIP`, a rate above 1 is refused and the
    /// group is not asked (the restriction binds the viewer whether the command is local or shared).
    ///
    /// - Returns: Granted (sent to the group) or refused, and why.
    @discardableResult
    public func play(rate: Double = 1) async -> GroupCommandReply {
        let check = await self.player.wouldSetRate(rate)
        guard check.isAllowed else { return GroupCommandReply(command: "play", allowed: false, reason: check.reason) }
        return await self.request(.play(rate: rate), named: "play")
    }

    /// Asks the group to pause.
    ///
    /// Never restricted (the spec lets a viewer pause any interstitial).
    ///
    /// - Returns: Granted (sent to the group), or refused before the group admitted this participant.
    @discardableResult
    public func pause() async -> GroupCommandReply { await self.request(.pause, named: "pause") }

    /// Asks the group to move to an item time of this participant's (snapped out of stitched ads).
    ///
    /// The viewer's own player judges the seek first, as it would a local one: from inside this
    /// participant's own interstitial with `X-RESTRICT=SKIP`, a seek forward is refused with the
    /// restriction's reason and the group does not move. A seek across a `JUMP`-restricted event of
    /// its own is granted: the group moves, and this participant plays that event on the way.
    ///
    /// - Returns: Granted (sent to the group) or refused, and why.
    @discardableResult
    public func seek(toItemTime time: MediaTime) async -> GroupCommandReply {
        let check = await self.player.wouldSeek(to: time)
        guard check.isAllowed else { return GroupCommandReply(command: "seek", allowed: false, reason: check.reason) }
        let actions = self.coordination.requestSeek(toItemTime: time + self.itemOrigin)
        guard !actions.isEmpty else {
            return GroupCommandReply(command: "seek", allowed: false, reason: "the time is not on the group's timeline")
        }
        guard self.send != nil, self.coordination.groupState != nil else {
            return GroupCommandReply(command: "seek", allowed: false, reason: "not in a group yet")
        }
        await self.perform(actions)
        return GroupCommandReply(command: "seek", allowed: true, reason: "sent to the group")
    }

    /// Sends a viewer's command to the hub when this participant is in the group.
    func request(_ command: GroupCommand, named name: String) async -> GroupCommandReply {
        guard self.send != nil, self.coordination.groupState != nil else {
            return GroupCommandReply(command: name, allowed: false, reason: "not in a group yet")
        }
        await self.perform(self.coordination.request(command))
        return GroupCommandReply(command: name, allowed: true, reason: "sent to the group")
    }

    /// Connects to the hub and coordinates until the socket closes or the task is cancelled.
    ///
    /// - Throws: The WebSocket client's error when the hub cannot be reached.
    public func run() async throws {
        // Subscribed first: an event that begins while the timeline is prepared (a pre-roll) is not missed.
        let notes = await InterstitialEventMonitor(player: self.player).notifications()
        try await self.prepareTimeline()
        try await WebSocketClient.connect(url: self.groupURL, logger: self.logger) { inbound, outbound, _ in
            let encoder = JSONEncoder()
            await self.attach { message in
                guard let data = try? encoder.encode(message) else { return }
                try? await outbound.writeTextMessage(String(decoding: data, as: UTF8.self))
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.probeAndJoin() }
                group.addTask { await self.observeLoop() }
                group.addTask {
                    for await note in notes { await self.playerNotified(note) }
                }
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message,
                            let decoded = try? JSONDecoder().decode(GroupMessage.self, from: Data(text.utf8))
                        else { continue }
                        await self.received(decoded)
                    }
                } catch {
                    await self.log("socket ended: \(error)")
                }
                group.cancelAll()
            }
        }
        self.send = nil
        self.pendingStart?.cancel()
    }

    func attach(_ send: @escaping @Sendable (GroupMessage) async -> Void) { self.send = send }

    func log(_ text: String) { self.logger.debug("\(text)") }

    /// The local clock's instant now.
    func localNow() -> ClockInstant { self.localClock.now() }

    /// Waits for the primary playlist, then builds the timeline: stitched ads found in it, and for a
    /// live stream the program-date origin.
    func prepareTimeline() async throws {
        var playlist = await self.player.primaryMediaPlaylist
        while playlist == nil {
            try await self.localClock.sleep(for: .milliseconds(20))
            playlist = await self.player.primaryMediaPlaylist
        }
        guard let playlist else { return }
        if playlist.isLive, let date = playlist.date(at: .zero) {
            self.itemOrigin = MediaTime(nanoseconds: date.nanosecondsSince1970)
        }
        var ranges = self.configuration.nonPrimaryRanges
        if self.configuration.findsStitchedRanges { ranges += StitchedRanges.ranges(in: playlist) }
        let shifted = ranges.map {
            NonPrimaryTimeRange(identifier: $0.identifier, start: $0.start + self.itemOrigin, duration: $0.duration)
        }
        self.coordination.timeline = CoordinatedTimeline(
            nonPrimaryRanges: shifted,
            sharedInterstitials: await self.sharedInterstitials()
        )
    }

    /// Interstitials everyone plays (`X-CONTENT-MAY-VARY="NO"`), from the player's schedule.
    func sharedInterstitials() async -> [SharedInterstitial] {
        let snapshot = await self.player.integratedTimelineSnapshot()
        return snapshot.segments.compactMap { segment in
            guard let event = segment.event, !event.contentMayVary else { return nil }
            return SharedInterstitial(
                identifier: event.identifier,
                primaryTime: segment.primary.start + self.itemOrigin,
                duration: segment.playout.duration,
                resumeOffset: segment.primary.duration
            )
        }
    }

    /// What this participant tells the group when it joins.
    func describe() async -> ParticipantDescription {
        let playlist = await self.player.primaryMediaPlaylist
        let isLive = playlist?.isLive ?? false
        let snapshot = await self.player.integratedTimelineSnapshot()
        let breaks = snapshot.segments.compactMap { segment -> ScheduledBreak? in
            guard let event = segment.event, event.contentMayVary,
                let time = self.coordination.timeline.coordinatedTime(
                    of: .primary(segment.primary.start + self.itemOrigin)
                )
            else { return nil }
            return ScheduledBreak(
                identifier: event.identifier,
                coordinatedTime: time,
                duration: segment.playout.duration
            )
        }
        return ParticipantDescription(
            isLive: isLive,
            itemDuration: isLive ? nil : playlist?.duration,
            nonPrimaryRanges: self.coordination.timeline.nonPrimaryRanges,
            interstitialBreaks: breaks,
            startTime: isLive ? self.coordination.timeline.coordinatedTime(of: await self.position()) : nil
        )
    }

    /// Four quick clock probes, the hello, then a probe every ``Configuration/probeInterval``.
    func probeAndJoin() async {
        for _ in 0..<4 {
            await self.perform([self.coordination.probe(at: self.localNow())])
            try? await self.localClock.sleep(for: .milliseconds(25))
        }
        let description = await self.describe()
        await self.perform(self.coordination.hello(description: description, policy: self.configuration.policy))
        while !Task.isCancelled {
            try? await self.localClock.sleep(for: self.configuration.probeInterval)
            await self.perform([self.coordination.probe(at: self.localNow())])
        }
    }

    func observeLoop() async {
        while !Task.isCancelled {
            try? await self.localClock.sleep(for: self.configuration.observationInterval)
            guard self.coordination.groupState != nil else { continue }
            let position = await self.position()
            await self.perform(self.coordination.observe(position: position, at: self.localNow()))
        }
    }

    /// The player's position as an item position (shifted by the live origin).
    func position() async -> ItemPosition {
        if let current = self.currentEvent, !current.event.contentMayVary {
            // Where the player is in the shared interstitial: its own media position, which a
            // pause holds (wall time since it began counted a pause as progress, and every
            // correction then restarted it).
            if let offset = await self.player.currentInterstitialTime,
                await self.player.currentInterstitialEventID == current.event.identifier
            {
                return .interstitial(current.event.identifier, offset: offset)
            }
            return .interstitial(current.event.identifier, offset: current.since.duration(to: self.localNow()))
        }
        return .primary(await self.player.currentTime + self.itemOrigin)
    }

    func received(_ message: GroupMessage) async {
        if case .refused(let reasons) = message { self.refusal = reasons }
        let position = await self.position()
        await self.perform(self.coordination.receive(message, at: self.localNow(), position: position))
        if self.groupTime != nil { self.groupTimeStreams.yield(()) }
    }

    func playerNotified(_ note: PlayerNotification) async {
        guard case .currentEventDidChange(let event) = note else { return }
        if let event {
            self.currentEvent = (event, self.localNow())
            guard event.contentMayVary else { return }
            let expected = event.duration ?? event.plannedDuration
            let position = ItemPosition.primary(await self.player.currentTime + self.itemOrigin)
            await self.perform(
                self.coordination.beginInterstitial(at: self.localNow(), position: position, expectedDuration: expected)
            )
        } else {
            let wasVarying = self.currentEvent?.event.contentMayVary ?? false
            self.currentEvent = nil
            guard wasVarying else { return }
            let position = await self.position()
            await self.perform(self.coordination.endInterstitial(at: self.localNow(), position: position))
        }
    }

    /// Carries out the decisions: messages to the hub, seeks, pauses and timed starts.
    func perform(_ actions: [ParticipantCoordination.Action]) async {
        for action in actions {
            switch action {
            case .send(let message):
                await self.send?(message)
            case .seek(let position):
                self.pendingStart?.cancel()
                let result: SeekResult
                switch position {
                case .primary(let itemTime): result = await self.player.seek(to: itemTime - self.itemOrigin)
                case .interstitial(let id, let offset):
                    // Already in it: an interstitial is not entered again (that restarts it); the
                    // group's rate and pauses keep it in step.
                    if await self.player.currentInterstitialEventID == id { continue }
                    // Joined inside it: to where it starts, entered where the group is in it.
                    guard
                        let shared = self.coordination.timeline.sharedInterstitials.first(where: { $0.identifier == id }
                        )
                    else { continue }
                    result = await self.player.seek(
                        to: shared.primaryTime - self.itemOrigin,
                        enteringInterstitial: id,
                        at: offset
                    )
                }
                if !result.isAllowed { self.log("group seek refused: \(result.reason)") }
            case .pause:
                self.pendingStart?.cancel()
                await self.player.pause()
            case .play(let rate, let at):
                self.pendingStart?.cancel()
                let (player, clock) = (self.player, self.localClock)
                // Owned by the coordinator (`pendingStart`): cancelled by the next action and when
                // `run()` ends.
                self.pendingStart = Task {
                    try? await clock.sleep(until: at)
                    guard !Task.isCancelled else { return }
                    await player.setRate(rate)
                }
            case .status(let status):
                if case .waitingForCoordinatedPlayback = status {
                    await self.player.setWaitingForCoordinatedPlayback(true)
                } else {
                    await self.player.setWaitingForCoordinatedPlayback(false)
                }
                self.statusStreams.yield(status)
            }
        }
    }
}

/// The answer to a viewer's group command (``PlaybackCoordinator/play(rate:)``,
/// ``PlaybackCoordinator/pause()``, ``PlaybackCoordinator/seek(toItemTime:)``): granted, which means
/// sent to the group (every participant then follows the hub's new state), or refused and why.
public struct GroupCommandReply: Sendable, Hashable, CustomStringConvertible {
    /// `play`, `pause` or `seek`.
    public var command: String
    /// Whether the command went to the group.
    public var allowed: Bool
    /// Why, in words (a refusal carries the restriction's reason).
    public var reason: String

    /// Creates a reply.
    public init(command: String, allowed: Bool, reason: String) {
        self.command = command
        self.allowed = allowed
        self.reason = reason
    }

    /// `seek granted: sent to the group`, `seek refused: …`.
    public var description: String { "\(self.command) \(self.allowed ? "granted" : "refused"): \(self.reason)" }
}
