import ArgumentParser

/// The latest `--until` that `group` and `cast` take, in seconds.
let maximumUntilSeconds = 1e6

/// Refuses an `--until` that is not from 0 to 1e6 seconds (NaN and infinities included).
///
/// - Throws: `ValidationError` saying the range.
func checkUntilOption(_ until: Double?) throws {
    if let until, !(until >= 0 && until <= maximumUntilSeconds) {
        throw ValidationError("--until takes seconds from 0 to 1e6")
    }
}

/// The timed part of `group` and `cast`: the options' commands, each carried out at its time after
/// a start (joining the group, the receiver's first play), in order, and the `--until` deadline,
/// on a clock passed in.
///
/// The commands pass the continuous clock at their entry points; tests pass a manual one and
/// advance it. The script only waits and says when: what a command does is the caller's.
struct ViewerScript<C: Clock<Duration>>: Sendable {
    /// How a ``run(startingWhen:_:)`` ended.
    enum End: Sendable, Hashable {
        /// The deadline passed (what was not yet due was left undone).
        case deadline
        /// There is no deadline and every command was carried out.
        case performed
    }

    /// The commands, in the order of their times (``TimedViewerCommand/options(pause:seek:rate:skip:)``
    /// sorts them).
    let commands: [TimedViewerCommand]
    /// Seconds after the run's start at which it stops (`--until`); `nil` for no deadline.
    let until: Double?
    /// The clock every wait is measured on.
    let clock: C

    /// Creates a script.
    ///
    /// - Throws: `ValidationError` when `until` is not from 0 to 1e6 seconds or a command's time
    ///   is not from 0 to 1e9 seconds (NaN, a sign, an infinity or a larger number), before
    ///   anything runs.
    init(commands: [TimedViewerCommand], until: Double?, clock: C) throws {
        try checkUntilOption(until)
        for command in commands where !(command.at >= 0 && command.at <= ViewerCommand.maximumSeconds) {
            throw ValidationError("a command's time takes seconds from 0 to 1e9, not \(command.at)")
        }
        self.commands = commands
        self.until = until
        self.clock = clock
    }

    /// The instant `until` seconds after `start`; `nil` without a deadline.
    func deadline(from start: C.Instant) -> C.Instant? {
        self.until.map { start.advanced(by: .seconds($0)) }
    }

    /// Whether the clock has not reached `deadline` yet (always, without one).
    func isBefore(_ deadline: C.Instant?) -> Bool {
        guard let deadline else { return true }
        return self.clock.now < deadline
    }

    /// Carries out the commands, each when the clock reaches its time after `start`, one after
    /// the other; returns after the last.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before the last.
    func perform(from start: C.Instant, _ body: (ViewerCommand) async -> Void) async throws {
        for command in self.commands {
            try await self.clock.sleep(until: start.advanced(by: .seconds(command.at)), tolerance: nil)
            await body(command.command)
        }
    }

    /// Runs the script from now: once `started` returns (not awaited when there are no commands),
    /// carries out the commands counting from that instant; stops at the deadline, counted from
    /// now, leaving undone what is not yet due.
    ///
    /// - Returns: ``End/deadline`` at the deadline; ``End/performed`` after the last command when
    ///   there is no deadline.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func run(
        startingWhen started: @escaping @Sendable () async -> Void,
        _ body: @escaping @Sendable (ViewerCommand) async -> Void
    ) async throws -> End {
        let deadline = self.deadline(from: self.clock.now)
        return try await withThrowingTaskGroup(of: End.self) { group in
            if let deadline {
                group.addTask {
                    try await self.clock.sleep(until: deadline, tolerance: nil)
                    return .deadline
                }
            }
            group.addTask {
                if !self.commands.isEmpty {
                    await started()
                    try await self.perform(from: self.clock.now, body)
                }
                guard deadline != nil else { return .performed }
                // Done early: the deadline ends the run.
                await waitUntilCancelled()
                throw CancellationError()
            }
            defer { group.cancelAll() }
            guard let end = try await group.next() else { throw CancellationError() }
            return end
        }
    }
}
