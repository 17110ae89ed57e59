import IntermissionTestSupport
import Testing

@testable import IntermissionCLI

/// The timed part of `group` and `cast` on a manual clock: the options' commands at their
/// instants after the start, in order, and `--until` ending the run; times out of range are
/// refused before anything runs.
@Suite struct ViewerScriptTests {
    /// What the script carried out, and the clock's reading at each.
    actor Performed {
        var entries: [(command: ViewerCommand, at: Duration)] = []
        let clock: ManualClock

        init(clock: ManualClock) { self.clock = clock }

        func add(_ command: ViewerCommand) { self.entries.append((command, self.clock.now.offset)) }
    }

    static func instant(_ seconds: Double) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }

    @Test(.timeLimit(.minutes(1)))
    func commandsFireAtTheirInstantsAfterTheStartInOrderUntilTheDeadline() async throws {
        let clock = ManualClock()
        let commands = try TimedViewerCommand.options(pause: ["1"], seek: ["30@2"], rate: ["2@2"], skip: ["5"])
        let script = try ViewerScript(commands: commands, until: 4, clock: clock)
        let performed = Performed(clock: clock)
        let (gate, opens) = AsyncStream.makeStream(of: Void.self)
        let run = Task {
            try await script.run(startingWhen: { for await _ in gate { return } }) { await performed.add($0) }
        }
        // The deadline counts from the run's start (0 s); the commands wait for the start.
        #expect(await waitUntil { clock.deadlines == [Self.instant(4)] })
        clock.advance(to: Self.instant(0.5))
        #expect(await performed.entries.isEmpty)
        opens.yield()
        // Started at 0.5 s: the pause is due at 1.5 s, not at 1 s.
        #expect(await waitUntil { clock.deadlines == [Self.instant(1.5), Self.instant(4)] })
        clock.advance(to: Self.instant(1.4))
        #expect(await performed.entries.isEmpty)
        clock.advance(to: Self.instant(1.5))
        #expect(await waitUntil { await performed.entries.count == 1 })
        // Seek and rate share 2.5 s: the options' order (seek before rate).
        #expect(await waitUntil { clock.deadlines == [Self.instant(2.5), Self.instant(4)] })
        clock.advance(to: Self.instant(2.5))
        #expect(await waitUntil { await performed.entries.count == 3 })
        // The skip (5.5 s) comes after the deadline: the run ends at 4 s without it.
        #expect(await waitUntil { clock.deadlines == [Self.instant(4), Self.instant(5.5)] })
        clock.advance(to: Self.instant(4))
        #expect(try await run.value == .deadline)
        let entries = await performed.entries
        #expect(entries.map(\.command) == [.pause, .seek(30), .rate(2)])
        #expect(entries.map(\.at) == [.milliseconds(1500), .milliseconds(2500), .milliseconds(2500)])
        #expect(clock.deadlines.isEmpty, "a wait outlived the run")
    }

    @Test(.timeLimit(.minutes(1)))
    func withoutADeadlineTheRunEndsAfterTheLastCommand() async throws {
        let clock = ManualClock()
        let commands = try TimedViewerCommand.options(pause: ["3"], seek: [], rate: ["0@1"], skip: [])
        let script = try ViewerScript(commands: commands, until: nil, clock: clock)
        let performed = Performed(clock: clock)
        let run = Task { try await script.run(startingWhen: {}) { await performed.add($0) } }
        #expect(await waitUntil { clock.deadlines == [Self.instant(1)] })
        clock.advance(to: Self.instant(1))
        #expect(await waitUntil { clock.deadlines == [Self.instant(3)] })
        clock.advance(to: Self.instant(3))
        #expect(try await run.value == .performed)
        let entries = await performed.entries
        #expect(entries.map(\.command) == [.rate(0), .pause])
        #expect(entries.map(\.at) == [.seconds(1), .seconds(3)])
    }

    @Test(.timeLimit(.minutes(1)))
    func withNoCommandsTheStartIsNotAwaitedAndTheDeadlineStillEndsTheRun() async throws {
        let clock = ManualClock()
        let none = try ViewerScript(commands: [], until: nil, clock: clock)
        let ended = try await none.run(startingWhen: { Issue.record("the start was awaited") }, { _ in })
        #expect(ended == .performed)
        let timed = try ViewerScript(commands: [], until: 2, clock: clock)
        let run = Task { try await timed.run(startingWhen: { Issue.record("the start was awaited") }, { _ in }) }
        #expect(await waitUntil { clock.deadlines == [Self.instant(2)] })
        clock.advance(by: .seconds(2))
        #expect(try await run.value == .deadline)
        // `cast` checks its deadline between long polls.
        let deadline = timed.deadline(from: clock.now)
        #expect(timed.isBefore(deadline))
        clock.advance(by: .milliseconds(1999))
        #expect(timed.isBefore(deadline))
        clock.advance(by: .milliseconds(1))
        #expect(!timed.isBefore(deadline))
        #expect(none.isBefore(none.deadline(from: clock.now)))
    }

    @Test func timesOutOfRangeAreRefusedBeforeAnythingRuns() throws {
        let clock = ManualClock()
        for until in [Double.nan, -1, 1e308, Double(Int64.max), .infinity, 1e6 + 1] {
            let error = #expect(throws: (any Error).self, "\(until)") {
                try ViewerScript(commands: [], until: until, clock: clock)
            }
            #expect((error.map(String.init(describing:)) ?? "") == "--until takes seconds from 0 to 1e6", "\(until)")
            #expect(throws: (any Error).self, "\(until)") { try checkUntilOption(until) }
        }
        for at in [Double.nan, -1, 1e308, Double(Int64.max), .infinity] {
            let error = #expect(throws: (any Error).self, "\(at)") {
                try ViewerScript(commands: [TimedViewerCommand(at: at, command: .pause)], until: nil, clock: clock)
            }
            #expect((error.map(String.init(describing:)) ?? "").contains("seconds from 0 to 1e9"), "\(at)")
        }
        #expect(try ViewerScript(commands: [], until: 1e6, clock: clock).until == 1e6)
        #expect(try ViewerScript(commands: [], until: 0, clock: clock).until == 0)
        try checkUntilOption(nil)
        #expect(clock.sleepsBegun == 0)
    }
}
