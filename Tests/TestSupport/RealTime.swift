import Foundation
import Testing

/// The machine's real time, as a resource that suites share.
///
/// Most suites run on virtual or manual clocks and in memory: they run all at once, as Swift
/// Testing starts them. A suite whose tests run real servers, real processes or real timers
/// (loopback HTTP, `serve`, ffmpeg, Chromium, PostgreSQL, timeouts under test) depends on getting
/// the processor when its timers fire. Started all at once on two cores, such tests share the
/// processor with every other test, and a test that takes a second alone takes a minute and a
/// half, past its time limit and past the deadlines it checks.
///
/// Such a suite declares `@Suite(.realTime)`. At most ``RealTime/lanes`` of them run at a time;
/// the others wait their turn before their first test starts, so the wait does not count against
/// any test's time limit (Swift Testing applies a time limit to each test, inside its suite's
/// scope). Pure suites are not held back. A suite nested in a `.realTime` suite runs in its
/// parent's lane.
public enum RealTime {
    /// How many `.realTime` suites run at once.
    ///
    /// Three: on two cores the real-time suites then finish in about the time the whole run
    /// needs anyway, while their tests' timers still fire on time.
    public static let lanes = 3

    /// Whether the current task runs inside a `.realTime` suite.
    @TaskLocal public static var isHeld = false

    static let gate = Gate(permits: lanes)

    /// With `INTERMISSION_REAL_TIME_LOG=<file>`, each real-time suite appends a line saying how
    /// long it waited for its lane and how long it held it: what to read before changing ``lanes``.
    static func note(_ suite: String, waited: Duration, held: Duration) {
        guard let path = ProcessInfo.processInfo.environment["INTERMISSION_REAL_TIME_LOG"],
            let file = fopen(path, "a")
        else { return }
        defer { fclose(file) }
        let line = "\(suite)\twaited \(seconds(waited))\theld \(seconds(held))\n"
        fputs(line, file)
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return "\(whole).\(String(fraction / 100_000_000_000_000_000))"
    }

    /// Records an issue when a test that needs real time runs outside a `.realTime` suite.
    ///
    /// Helpers that start servers or processes call it, so that a new suite cannot forget the
    /// trait and then fail only on a busy machine.
    public static func expectHeld(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if !isHeld {
            Issue.record(
                "\(what) runs on real time: give its suite the trait .realTime (Tests/TestSupport/RealTime.swift)",
                sourceLocation: sourceLocation
            )
        }
    }

    /// A counting semaphore whose waiters are served in the order they came; a waiter may need
    /// several permits at once.
    public actor Gate {
        private var free: Int
        private var waiters: [(count: Int, early: Bool, resume: CheckedContinuation<Void, Never>)] = []

        /// A gate that lets `permits` holders in at once.
        public init(permits: Int) { free = permits }

        /// How many wait for permits.
        public var waiting: Int { waiters.count }

        /// Waits for `count` permits and takes them at once, after those who came first; an
        /// `early` waiter goes before every waiter that is not.
        public func acquire(_ count: Int = 1, early: Bool = false) async {
            if waiters.isEmpty, free >= count {
                free -= count
                return
            }
            // Not cancellable on purpose: a suite waiting for its lane has started nothing yet,
            // and a cancelled run ends when the suites ahead of it end.
            await withCheckedContinuation { resume in
                let place = early ? (waiters.firstIndex { !$0.early } ?? waiters.endIndex) : waiters.endIndex
                waiters.insert((count, early, resume), at: place)
            }
        }

        /// Gives `count` permits back, to the waiters in the order they came, as far as they go.
        public func release(_ count: Int = 1) {
            free += count
            while let first = waiters.first, first.count <= free {
                free -= first.count
                waiters.removeFirst().resume.resume()
            }
        }
    }
}

/// The trait of a suite that runs on real time: see ``RealTime``.
public struct RealTimeSuite: SuiteTrait, TestScoping {
    /// How many of the ``RealTime/lanes`` the suite takes.
    public var lanes: Int
    /// Whether the suite goes before the ordinary ones waiting: it holds its lanes for a minute or
    /// more, and started last it would end the run alone.
    public var early: Bool

    /// Only the suite that declares the trait takes a lane; its nested suites run in it.
    public var isRecursive: Bool { false }

    /// Waits for a lane, then runs the suite holding it (a nested suite runs at once).
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite nested in a real-time suite, or a suite run inside one, already has its lane.
        guard test.isSuite, !RealTime.isHeld else {
            try await function()
            return
        }
        let arrived = ContinuousClock.now
        await RealTime.gate.acquire(lanes, early: early)
        let started = ContinuousClock.now
        defer { RealTime.note(test.name, waited: started - arrived, held: ContinuousClock.now - started) }
        do {
            try await RealTime.$isHeld.withValue(true) { try await function() }
        } catch {
            await RealTime.gate.release(lanes)
            throw error
        }
        await RealTime.gate.release(lanes)
    }
}

extension Trait where Self == RealTimeSuite {
    /// The suite's tests run real servers, processes or timers: it takes one of the
    /// ``RealTime/lanes`` that such suites share (see ``RealTime``).
    public static var realTime: Self { RealTimeSuite(lanes: 1, early: false) }

    /// A `.realTime` suite that holds its lane for a minute or more (real browsers, a database
    /// restarted): it goes before the ordinary ones waiting, so that it does not end the run alone.
    public static var realTimeLong: Self { RealTimeSuite(lanes: 1, early: true) }

    /// The suite's tests check real-time behaviour to tens of milliseconds (participants of a
    /// group in step): it runs with no other real-time suite beside it.
    ///
    /// Such a suite also goes before the ordinary ones waiting.
    public static var realTimeAlone: Self { RealTimeSuite(lanes: RealTime.lanes, early: true) }
}
