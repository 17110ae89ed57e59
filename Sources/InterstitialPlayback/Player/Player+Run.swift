import HLSInterstitials
import HLSPlaylist

extension Player {
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
        let (wakeStream, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakeContinuation = wakeContinuation
        defer {
            self.wakeContinuation = nil
            wakeContinuation.finish()
        }
        try await withThrowingTaskGroup(of: Completion.self) { group in
            var loop = RunLoop(wakeStream: wakeStream)
            if !self.started { self.start() }
            while !self.finished {
                try Task.checkCancellation()
                let now = self.clock.now
                self.step(now: now)
                self.startLoads(in: &group)
                if self.finished { break }
                if let limit, now >= limit {
                    try await self.settleAtLimit(now: now, group: &group)
                    break
                }
                let next = self.prepareToWait(now: now, limit: limit, loop: &loop, group: &group)
                if next == .again { continue }
                if next == .stop { break }
                guard let completion = try await group.next() else { break }
                self.handle(completion, loop: &loop)
            }
            if self.finished { try await self.settleBeacons(group: &group) }
            group.cancelAll()
        }
        if self.finished { self.finishNotifications() }
    }

    /// What the run loop keeps between passes: timers armed, whether it listens for wakes and for
    /// new virtual-clock waits, and how often it found something due with nothing changed.
    struct RunLoop {
        let wakeStream: AsyncStream<Void>
        var timers: [MediaTime] = []
        var listening = false
        var watchingWaits = false
        var spins = 0
    }

    /// What the run loop does after a pass.
    enum NextStep {
        /// Another pass at once (the virtual clock moved).
        case again
        /// Stop playing.
        case stop
        /// Wait for a completion (a load, a timer, a wake).
        case wait
    }

    /// Starts the loads that are due.
    func startLoads(in group: inout ThrowingTaskGroup<Completion, any Error>) {
        let loader = self.loader
        let sessionID = self.sessionID
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
    }

    /// At the run's limit: blocking reloads may wait for media that only a later clock brings, so
    /// they are dropped (the next run asks again); the other loads under way finish, so a later
    /// run continues from a clean state.
    func settleAtLimit(now: MediaTime, group: inout ThrowingTaskGroup<Completion, any Error>) async throws {
        for (id, entry) in self.inFlight where !entry.holdsClock {
            self.inFlight[id] = nil
            self.abandonReload(entry.purpose, now: now)
        }
        while !self.inFlight.isEmpty, let completion = try await group.next() {
            if case .loaded(let id, let result) = completion, let entry = self.inFlight.removeValue(forKey: id) {
                self.handleLoad(entry.purpose, entry.request, result, now: self.clock.now)
            }
        }
    }

    /// Decides how the loop goes on: with a virtual clock, jump it to the next deadline (or wait
    /// for the answers that hold it); with a real clock, arm a timer for the deadline and listen
    /// for wakes.
    func prepareToWait(
        now: MediaTime,
        limit: MediaTime?,
        loop: inout RunLoop,
        group: inout ThrowingTaskGroup<Completion, any Error>
    ) -> NextStep {
        var deadline = self.nextDeadline(now: now)
        if let limit { deadline = deadline.map { MediaTime.min($0, limit) } ?? limit }
        let clock = self.clock
        guard clock.isVirtual else {
            self.armRealClock(deadline: deadline, loop: &loop, group: &group)
            return .wait
        }
        var holding = self.inFlight.values.contains { $0.holdsClock }
        if let virtualClock = clock as? VirtualPlaybackClock, !holding,
            self.inFlight.values.contains(where: { !$0.holdsClock })
        {
            // A blocking reload is in flight. A server in this virtual time answers it once the
            // clock reaches the time it waits for: go no further than that, then wait for the
            // answer (or for the server to start waiting) instead of running ahead.
            let waits = virtualClock.pendingWaits
            if let earliest = waits.earliest {
                deadline = deadline.map { MediaTime.min($0, earliest) } ?? earliest
            } else {
                holding = true
                if !loop.watchingWaits {
                    loop.watchingWaits = true
                    group.addTask {
                        await virtualClock.waitForNewWait(after: waits.generation)
                        return .clockWait
                    }
                }
            }
        }
        guard !holding else {
            loop.spins = 0
            return .wait
        }
        if let deadline, deadline <= now {
            // Something is due now but nothing changed: let a moment pass rather than spin.
            loop.spins += 1
            if loop.spins > 50 {
                loop.spins = 0
                clock.advance(to: now + MediaTime(milliseconds: 1))
            }
            if self.inFlight.isEmpty { return .again }
        } else {
            loop.spins = 0
        }
        if let deadline, deadline > now {
            clock.advance(to: deadline)
            return .again
        }
        guard self.inFlight.isEmpty else { return .wait }
        if deadline != nil { return .again }
        self.fail(PlaybackError(code: .stalled, message: "nothing left to wait for: no load under way and nothing due"))
        return .stop
    }

    /// On a real clock: a timer for the deadline (unless an earlier one is armed) and a listener
    /// for wakes (controls called from other tasks).
    func armRealClock(deadline: MediaTime?, loop: inout RunLoop, group: inout ThrowingTaskGroup<Completion, any Error>)
    {
        let clock = self.clock
        if let deadline, loop.timers.allSatisfy({ deadline < $0 }) {
            loop.timers.append(deadline)
            group.addTask {
                try await clock.sleep(until: deadline)
                return .timer(deadline)
            }
        }
        if !loop.listening {
            loop.listening = true
            let wakeStream = loop.wakeStream
            group.addTask {
                for await _ in wakeStream { return .wake }
                // The wakes ended (the player is finishing): wait, reading no clock, until the
                // loop cancels this task.
                try await untilCancelled()
                return .wake
            }
        }
    }

    /// Takes a completion: a load's answer, a timer, a wake, a new virtual-clock wait.
    func handle(_ completion: Completion, loop: inout RunLoop) {
        switch completion {
        case .loaded(let id, let result):
            guard let entry = self.inFlight.removeValue(forKey: id) else { return }
            self.handleLoad(entry.purpose, entry.request, result, now: self.clock.now)
        case .timer(let time):
            loop.timers.removeAll { $0 == time }
        case .wake:
            loop.listening = false
        case .clockWait:
            loop.watchingWaits = false
        }
    }

    func start() {
        self.started = true
        let now = self.clock.now
        self.lastTick = now
        guard let item = self.currentItem else {
            self.fail(PlaybackError(code: .noItem, message: "no item to play"))
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
        // The pass reacts to everything due, whichever timer woke it.
        self.interstitials.coordinator.timerFired(at: now)
        self.advancePlayback(to: now)
        while let first = self.commands.first, first.time <= now {
            self.commands.removeFirst()
            switch first.command.action {
            case .seek(let time): self.seek(to: time)
            case .rate(let rate): self.setRate(rate)
            case .skipCurrentEvent(let overriding): self.skipCurrentEvent(overridingPolicy: overriding)
            case .cancelCurrentEvent(let offset): self.cancelCurrentEvent(resumptionOffset: offset)
            case .muted(let muted): self.setMuted(muted)
            }
        }
        guard !self.finished else { return }
        self.checkTransitions(now: now)
        guard !self.finished else { return }
        if let stall = self.stallStart, self.isStalled, self.rate > 0, now - stall >= self.configuration.stallTimeout {
            self.fail(
                PlaybackError(code: .stalled, message: "playback stalled for \(self.configuration.stallTimeout) s")
            )
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
        self.pendingLoads += self.preloadLoads()
        self.pendingLoads += self.scheduleLoads(now: now)
        if self.firesBeacons { self.pendingLoads += self.beaconLoads(now: now) }
    }

    /// The next time something is due: a playback boundary, a reload, a command, a timeout.
    func nextDeadline(now: MediaTime) -> MediaTime? {
        var candidates: [MediaTime] = []
        if let boundary = self.playbackDeadline(now: now) { candidates.append(boundary) }
        if let time = self.primary?.nextDeadline { candidates.append(time) }
        // The forward buffer reaches the next segment as the playhead moves.
        if self.rate > 0, !self.isStalled, self.interstitials.current == nil, let start = self.primary?.nextSegmentStart
        {
            let limit = self.primaryBufferLimit()
            if start >= limit, let boundary = self.primaryBoundary().map({ $0 }) ?? Optional(start + 1),
                start < boundary || limit < self.primaryPosition + self.configuration.forwardBufferDuration
            {
                let reach = start - self.configuration.forwardBufferDuration
                if reach >= self.primaryPosition {
                    // Just past the point where the segment enters the forward buffer.
                    candidates.append(
                        now + MediaTime(seconds: (reach - self.primaryPosition).seconds / self.rate)
                            + MediaTime(milliseconds: 1)
                    )
                }
            }
        }
        for presentation in self.assets.values {
            if let time = presentation.nextDeadline { candidates.append(time) }
        }
        if let command = self.commands.first { candidates.append(command.time) }
        if let stall = self.stallStart, self.isStalled, self.rate > 0 {
            candidates.append(stall + self.configuration.stallTimeout)
        }
        if case .armTimer(_, let time)? = self.armInterstitialTimer(now: now) { candidates.append(time) }
        return candidates.map { MediaTime.max($0, now) }.min()
    }

    /// The coordinator's timer: the earliest of the interstitial deadlines (the asset playing's
    /// boundary, the skip control, a preload's moment, a beacon's moment or retry), from what the
    /// player reads now.
    func armInterstitialTimer(now: MediaTime) -> InterstitialCoordinator.Action? {
        let current = self.interstitials.current
        let readings = TimerReadings(
            rate: self.rate,
            finished: self.finished,
            primaryStalled: self.isStalled,
            primaryPosition: self.primaryPosition,
            list: current.flatMap { self.interstitials.lists[$0.eventID] },
            schedule: self.interstitials.schedule,
            playhead: self.playhead
        )
        let assets = self.assets
        return self.interstitials.coordinator.armTimers(readings, now: now) {
            guard let run = current, let presentation = assets[.asset(run.eventID, run.assetIndex)] else { return nil }
            return AssetReading(
                isReady: presentation.isReady,
                bufferedEnd: presentation.bufferedEnd(from: run.assetPosition),
                duration: presentation.duration
            )
        }
    }
}

/// Suspends until the calling task is cancelled, then throws `CancellationError`; reads no clock.
private func untilCancelled() async throws {
    let (pending, continuation) = AsyncStream<Never>.makeStream()
    // The stream never yields: its iteration ends only when the task is cancelled.
    for await _ in pending {}
    continuation.finish()
    throw CancellationError()
}
