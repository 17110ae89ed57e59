import AsyncHTTPClient
import Foundation
import GroupCoordination
import HLSInterstitials
import HLSPlaylist
import HTTPFetch
import InterstitialPlayback

/// What a receiver is doing, for a sender that asks.
public struct ReceiverState: Sendable, Hashable, Codable {
    /// The primary URL of the session, or `nil` before a handoff.
    public var url: String?
    /// The plan in force.
    public var plan: ServicePlan?
    /// The position on the primary timeline, in seconds.
    public var primaryTime: Double?
    /// The interstitial event playing, if any.
    public var currentEvent: String?
    /// `playing`, `paused` or `waitingToPlayAtSpecifiedRate`.
    public var status: String?
    /// Whether the session played to its end.
    public var ended: Bool
    /// The receiver profile's name, if it has one.
    public var profile: String?
    /// The session's number (from 1, one per handoff), which its events carry
    /// (``ReceiverEvent/session``); `nil` before a handoff.
    public var session: Int?
}

/// A headless receiver (the AirPlay talk's TV): it takes a ``ReceiverSession`` from a sender, plays
/// it with a `Player`, and answers each remote command exactly as the local player would, since
/// the player itself decides (its `X-RESTRICT` enforcement for seeks, rates and skips).
///
/// Before an interstitial plays, a receiver with a ``ReceiverProfile`` compares the interstitial's
/// variant with the primary's and posts a `transitionRisk` event. Everything it does is numbered in
/// its event log, which senders read with ``events(after:waitingUpTo:)``.
public actor Receiver {
    /// What the receiver can decode; `nil` skips the transition checks.
    public nonisolated let profile: ReceiverProfile?
    /// The player's settings (its clock, buffer and timeouts); languages come from the session.
    let playerConfiguration: Player.Configuration
    let clock: any PlaybackClock
    /// The clock of the event log: the `t` of each event and the long polls' waits.
    let eventClock: ElapsedClock
    let fetch: BoundedFetch

    var session: ReceiverSession?
    var player: Player?
    /// The session's tasks (its player, its notifications, its transition checks); owned by the
    /// receiver, which cancels them in ``stop()``.
    var tasks: [Task<Void, Never>] = []
    var generation = 0
    /// When the session started, on ``eventClock``.
    var started: Duration = .zero
    var log: [ReceiverEvent] = []
    var nextSequence = 1
    var assessed: Set<String> = []
    /// The session's primary multivariant playlist as read for the transition checks, by
    /// generation: read once per session, not again for each interstitial checked (`nil` inside:
    /// unreadable, or a media playlist).
    var primaryMultivariant: (generation: Int, playlist: MultivariantPlaylist?)?
    var overridden: Set<String> = []
    var lastScheduled: [String] = []
    var ended = false
    /// The event streams (``updates()``).
    nonisolated let subscribers = StreamFanOut<ReceiverEvent>(buffer: 1024)

    /// The most events kept; older ones are dropped.
    public static let maximumLogEntries = 10_000

    /// Creates a receiver.
    ///
    /// - Parameters:
    ///   - profile: What it decodes (`Examples/receiver-low-end.json`); `nil` checks no transitions.
    ///   - clock: The playback clock of each session's player (real time by default).
    ///   - playerConfiguration: Buffering and timeouts of each session's player.
    ///   - httpClient: The client the transition checks fetch multivariant playlists with.
    ///   - eventClock: The clock that times the event log (each event's `t`) and the long polls of
    ///     ``events(after:waitingUpTo:)`` (the continuous clock by default).
    public init(
        profile: ReceiverProfile? = nil,
        clock: any PlaybackClock = RealPlaybackClock(),
        playerConfiguration: Player.Configuration = Player.Configuration(keepsLog: false),
        httpClient: HTTPClient = ReceiverClient.sharedHTTPClient,
        eventClock: some Clock<Duration> = ContinuousClock()
    ) {
        self.profile = profile
        self.clock = clock
        self.eventClock = ElapsedClock(eventClock)
        self.playerConfiguration = playerConfiguration
        self.fetch = BoundedFetch(client: httpClient)
    }

    // MARK: Sessions

    /// Takes over a session: stops the one playing, starts playing this one at its position, and
    /// applies its plan and client-side events.
    public func start(_ session: ReceiverSession) async {
        // A session still under way is replaced: its sender is told, under its own number.
        if self.session != nil, !self.ended {
            var replaced = ReceiverEvent(
                kind: "replaced",
                message: "another sender handed over a new session (\(self.generation + 1)); this one has ended"
            )
            replaced.session = self.generation
            self.post(replaced)
        }
        self.stop()
        self.generation += 1
        let generation = self.generation
        self.session = session
        self.started = self.eventClock.elapsed
        self.assessed = []
        self.overridden = []
        self.lastScheduled = []
        self.ended = false
        var configuration = self.playerConfiguration
        configuration.preferredLanguages = [session.audioLanguage, session.subtitleLanguage].compactMap { $0 }
        let player = Player(
            item: PlayerItem(
                url: session.url,
                automaticallyHandlesInterstitialEvents: session.playsPlaylistEvents,
                startTime: session.position.map { MediaTime(seconds: $0) },
                interstitialStart: session.interstitial.map {
                    InterstitialStart(eventID: $0.eventID, offset: MediaTime(seconds: $0.offset))
                }
            ),
            clock: self.clock,
            configuration: configuration
        )
        self.player = player
        self.post(
            ReceiverEvent(
                kind: "session",
                primaryTime: session.position ?? 0,
                message: "plan \(session.effectivePlan.rawValue); "
                    + (session.playsPlaylistEvents ? "playlist interstitials play" : "playlist interstitials off")
                    + (session.interstitial.map { interstitial in
                        "; continuing \(interstitial.eventID) at \(MediaTime(seconds: interstitial.offset).decimalString(places: 3)) s"
                            + (interstitial.restrictions.map { " (X-RESTRICT=\($0.joined(separator: ",")))" } ?? "")
                    } ?? "")
            )
        )
        // The client's events are set at once: without the playlist's events they are the whole
        // schedule; with them, the playlist's are merged in when they arrive (`eventsDidChange`).
        // A primary with no interstitials of its own never says its schedule changed, so waiting
        // for that left the client's events out.
        let clientEvents = session.clientEvents()
        if session.effectivePlan != .b, !clientEvents.isEmpty {
            let events = Self.applying(session.effectivePlan, to: clientEvents)
            self.overridden = Set(events.map(\.identifier))
            await InterstitialEventController(player: player).setEvents(events)
        }
        let notifications = await player.notifications()
        await player.play()
        // Both owned by the receiver (`tasks`), cancelled by `stop()`.
        self.tasks.append(
            Task {
                for await note in notifications { await self.handle(note, generation: generation) }
            }
        )
        self.tasks.append(
            Task {
                do {
                    try await player.run()
                    await self.finish(generation: generation, error: await player.error.map { "\($0)" })
                } catch {
                    await self.finish(generation: generation, error: "\(error)")
                }
            }
        )
    }

    /// Stops the session playing, if any.
    public func stop() {
        for task in self.tasks { task.cancel() }
        self.tasks = []
        self.player = nil
    }

    func finish(generation: Int, error: String?) async {
        guard generation == self.generation else { return }
        self.ended = true
        let time = await self.player?.currentTime.seconds
        if let error {
            self.post(ReceiverEvent(kind: "error", primaryTime: time, message: String(error.prefix(500))))
        } else {
            self.post(ReceiverEvent(kind: "ended", primaryTime: time))
        }
    }

    /// What the receiver is doing now.
    public func state() async -> ReceiverState {
        var state = ReceiverState(url: self.session?.url, plan: self.session?.effectivePlan, ended: self.ended)
        state.profile = self.profile?.name
        state.session = self.session == nil ? nil : self.generation
        if let player {
            state.primaryTime = await player.currentTime.seconds
            state.currentEvent = await player.currentInterstitialEventID
            state.status = await player.timeControlStatus.description
        }
        return state
    }

    // MARK: Remote commands

    /// Carries out a remote command through the player's own policy and answers it; the answer is
    /// also posted as a `command` event.
    ///
    /// - Throws: ``ReceiverError`` `noSession` before a handoff.
    public func perform(_ command: ReceiverCommand) async throws(ReceiverError) -> ReceiverReply {
        guard let player = self.player else {
            throw ReceiverError(code: "noSession", message: "no session has been handed over yet")
        }
        let reply: ReceiverReply
        switch command.command {
        case .play:
            reply = Self.reply(.play, await player.setRate(await player.defaultRate))
        case .pause:
            reply = Self.reply(.pause, await player.setRate(0))
        case .rate:
            reply = Self.reply(.rate, await player.setRate(command.rate ?? 1))
        case .seek:
            let result = await player.seek(to: MediaTime(seconds: command.time ?? 0))
            reply = ReceiverReply(
                command: .seek,
                allowed: result.isAllowed,
                reason: result.reason,
                grantedTime: result.grantedTime?.seconds,
                interstitials: result.interstitials.isEmpty ? nil : result.interstitials
            )
        case .skip:
            let eventID = await player.currentInterstitialEventID
            let decision: NavigationDecision
            if let plan = self.session?.effectivePlan, let asset = await player.currentInterstitialAsset,
                !plan.keepsRestrictions(atPositionInPod: asset.index)
            {
                // Plan C inside a pod given as one asset list: the first ad is restricted, the later
                // ones may be skipped, one ad at a time, as with a pod of separate events.
                decision = await player.skipCurrentAsset()
            } else {
                decision = await InterstitialEventController(player: player).skipCurrentEvent()
            }
            reply = ReceiverReply(
                command: .skip,
                allowed: decision.isAllowed,
                reason: eventID.map { "\($0): " + decision.reason } ?? decision.reason
            )
        }
        self.post(ReceiverEvent(kind: "command", primaryTime: await player.currentTime.seconds, reply: reply))
        return reply
    }

    static func reply(_ kind: ReceiverCommand.Kind, _ result: RateResult) -> ReceiverReply {
        ReceiverReply(command: kind, allowed: result.isAllowed, reason: result.reason)
    }

    // MARK: Plans

    /// The events with a plan applied: under plan C every event after the first of its pod (those
    /// that start together) loses its restrictions, so it can be skipped once the first has played.
    public static func applying(_ plan: ServicePlan, to events: [InterstitialEvent]) -> [InterstitialEvent] {
        var earlierInPod: [InterstitialEvent.Start: Int] = [:]
        return events.map { event in
            var event = event
            let position = earlierInPod[event.start, default: 0]
            earlierInPod[event.start] = position + 1
            if !plan.keepsRestrictions(atPositionInPod: position) { event.restrictions = [] }
            return event
        }
    }

    /// The schedule the session asks for, given the player's events: the client's events replace
    /// those with their IDs or join them, then the plan applies.
    static func desired(_ events: [InterstitialEvent], session: ReceiverSession) -> [InterstitialEvent] {
        var merged = events
        for client in session.clientEvents() {
            if let index = merged.firstIndex(where: { $0.identifier == client.identifier }) {
                merged[index] = client
            } else {
                merged.append(client)
            }
        }
        return Self.applying(session.effectivePlan, to: merged)
    }

    // MARK: Events

    func handle(_ note: PlayerNotification, generation: Int) async {
        guard generation == self.generation, let player = self.player, let session = self.session else { return }
        switch note {
        case .eventsDidChange(let events):
            let ids = events.map(\.identifier)
            // The plan and the client's events first, so that once `scheduled` is posted every
            // command meets the schedule the session asked for.
            if session.effectivePlan != .b, session.playsPlaylistEvents, !Set(ids).isSubset(of: self.overridden) {
                let desired = Self.desired(events, session: session)
                self.overridden.formUnion(desired.map(\.identifier))
                if desired != events { await InterstitialEventController(player: player).setEvents(desired) }
            }
            if ids != self.lastScheduled, generation == self.generation {
                self.lastScheduled = ids
                self.post(ReceiverEvent(kind: "scheduled", events: ids))
            }
            let fresh = events.filter { !self.assessed.contains($0.identifier) && !$0.assetURIs.isEmpty }
            if self.profile != nil, !fresh.isEmpty {
                self.assessed.formUnion(fresh.map(\.identifier))
                // Owned by the receiver (`tasks`), cancelled by `stop()`.
                self.tasks.append(Task { await self.assess(fresh, generation: generation) })
            }
        case .currentEventDidChange(let event):
            if let event {
                self.post(ReceiverEvent(kind: "interstitialStarted", eventID: event.identifier))
            } else {
                self.post(ReceiverEvent(kind: "primaryResumed", primaryTime: await player.currentTime.seconds))
            }
        case .eventDidFinish(let event, let playoutTime, let entire):
            self.post(
                ReceiverEvent(
                    kind: "eventFinished",
                    eventID: event.identifier,
                    message: "played \(playoutTime.decimalString(places: 3)) s" + (entire ? ", entire" : "")
                )
            )
        case .currentEventSkipped(let event):
            self.post(ReceiverEvent(kind: "skipped", eventID: event.identifier))
        case .currentEventSkippableStateDidChange(let event, let state, _):
            self.post(ReceiverEvent(kind: "skippable", eventID: event.identifier, message: "\(state)"))
        case .timeControlStatusDidChange(let status, let reason):
            self.post(ReceiverEvent(kind: "status", message: reason.map { "\(status) (\($0))" } ?? "\(status)"))
        case .assetListResponseStatusDidChange(let event, let status, let error):
            self.post(
                ReceiverEvent(
                    kind: "assetList",
                    eventID: event.identifier,
                    message: error.map { "\(status): \($0)" } ?? "\(status)"
                )
            )
            // The list's assets are known now, before the break plays: check them.
            if self.profile != nil, status == .available, !self.assessed.contains(event.identifier),
                let urls = await player.loadedAssetURLs(forEvent: event.identifier), !urls.isEmpty
            {
                self.assessed.insert(event.identifier)
                let item = (eventID: event.identifier, urls: urls)
                // Owned by the receiver (`tasks`), cancelled by `stop()`.
                self.tasks.append(Task { await self.assess([item], generation: generation) })
            }
        case .eventWasUnscheduled(let event, let error):
            self.post(ReceiverEvent(kind: "unscheduled", eventID: event.identifier, message: error.map { "\($0)" }))
        case .scheduleRequestCompleted(let id, _, let error):
            self.post(ReceiverEvent(kind: "schedule", eventID: id, message: error.map { "\($0)" }))
        }
    }

    /// Numbers an event, keeps it (bounded) and hands it to every stream.
    func post(_ event: ReceiverEvent) {
        var event = event
        if event.session == nil { event.session = self.generation }
        event.sequence = self.nextSequence
        self.nextSequence += 1
        let elapsed = self.eventClock.elapsed - self.started
        event.t = Double(Int64((elapsed / .milliseconds(1)).rounded())) / 1000
        self.log.append(event)
        if self.log.count > Self.maximumLogEntries { self.log.removeFirst(self.log.count - Self.maximumLogEntries) }
        self.subscribers.yield(event)
    }

    /// The events numbered above `sequence`, at most 500; when there are none yet, waits for some
    /// up to `timeout` (a long poll).
    ///
    /// The wait ends as soon as an event is posted (it is not polled), when `timeout` passes on the
    /// receiver's ``eventClock``, or when the task is cancelled.
    public func events(after sequence: Int, waitingUpTo timeout: Duration = .zero) async -> [ReceiverEvent] {
        if timeout > .zero, !self.log.contains(where: { $0.sequence > sequence }) {
            // Subscribed before this actor is left: an event posted during the wait is not missed.
            let posted = self.updates()
            let clock = self.eventClock
            await withTaskGroup(of: Void.self) { waits in
                waits.addTask {
                    for await _ in posted { return }
                }
                waits.addTask { try? await clock.sleep(for: timeout) }
                await waits.next()
                waits.cancelAll()
            }
        }
        return Array(self.log.drop { $0.sequence <= sequence }.prefix(500))
    }

    /// A stream of the receiver's events from now on (the CLI prints them).
    public func updates() -> AsyncStream<ReceiverEvent> { self.subscribers.makeStream() }

    // MARK: Transition risk

    /// Fetches a multivariant playlist, or `nil` when it cannot be read or is a media playlist.
    func multivariant(_ url: String) async -> MultivariantPlaylist? {
        let request = FetchRequest(url: url, timeout: .seconds(10), maximumBodySize: 1 << 20)
        guard let response = try? await self.fetch.get(request),
            let text = String(validating: response.body, as: UTF8.self),
            let playlist = try? MultivariantPlaylist(parsing: text), !playlist.variants.isEmpty
        else { return nil }
        return playlist
    }

    /// Compares each interstitial's variant with the primary's on the profile and posts the risks
    /// (events with `X-ASSET-URI`; those with `X-ASSET-LIST` are checked when their list arrives).
    func assess(_ events: [InterstitialEvent], generation: Int) async {
        let items = events.compactMap { event in event.assetURIs.first.map { (event.identifier, [$0]) } }
        await self.assess(items, generation: generation)
    }

    /// Compares the variant the receiver would play of each asset with the primary's on the
    /// profile, and posts the risks of each event (one `transitionRisk` event per asset with any).
    ///
    /// When the primary is a media playlist its format is unknown (no `CODECS`): only what makes
    /// an asset unplayable on the receiver is told. An asset that is a media playlist is skipped
    /// likewise (nothing to compare).
    func assess(_ items: [(eventID: String, urls: [String])], generation: Int) async {
        guard let profile, let session else { return }
        let primaryPlaylist: MultivariantPlaylist?
        if let known = self.primaryMultivariant, known.generation == generation {
            primaryPlaylist = known.playlist
        } else {
            primaryPlaylist = await self.multivariant(session.url)
            self.primaryMultivariant = (generation, primaryPlaylist)
        }
        var primary: MediaFormat?
        if let primaryPlaylist {
            guard let primaryVariant = profile.chooseVariant(in: primaryPlaylist) else {
                self.post(
                    ReceiverEvent(kind: "transitionRisk", message: "\(profile.name) can play no variant of the primary")
                )
                return
            }
            primary = MediaFormat(variant: primaryVariant, renditions: primaryPlaylist.renditions)
        }
        for (eventID, urls) in items {
            for (index, uri) in urls.enumerated() {
                guard generation == self.generation,
                    let adPlaylist = await self.multivariant(URIReference.resolve(uri, against: session.url))
                else { continue }
                // The variant it would play, or, when it can decode none, the least demanding it would try.
                let variant =
                    profile.chooseVariant(in: adPlaylist) ?? adPlaylist.variants.min { $0.bandwidth < $1.bandwidth }
                guard let variant else { continue }
                let format = MediaFormat(variant: variant, renditions: adPlaylist.renditions)
                let risks =
                    primary.map { TransitionRisk.assess(primary: $0, interstitial: format, on: profile) }
                    ?? TransitionRisk.unplayable(format, on: profile)
                guard !risks.isEmpty, generation == self.generation else { continue }
                let asset = urls.count > 1 ? "asset \(index + 1) of \(urls.count): " : ""
                self.post(
                    ReceiverEvent(
                        kind: "transitionRisk",
                        eventID: eventID,
                        message: asset + risks.map(\.message).joined(separator: "; "),
                        risks: risks
                    )
                )
            }
        }
    }
}
