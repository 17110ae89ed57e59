// Runs one gated workload a given number of times, for `valgrind --tool=callgrind` to count the
// instructions (scripts/ci/instructions.sh): the count of a run of N times less that of a run of 0
// times (the same set-up), divided by N, is the workload's instructions per iteration. Each
// workload is the body of the package-benchmark benchmark of the same name.
//
//   InstructionProbe <ParseDVR24h|DecorateLiveWindow|ScheduleLiveUpdate|AssetListDecision|PlayerStep> <N>
import AdInsertion
import BenchmarkSupport
import DecorationSupport
import EngineSupport
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Keeps `value` alive as a result the optimizer cannot drop.
@inline(never) @_optimize(none)
func keep<T>(_ value: T) {}

/// Runs every job of the tasks that prefer it on the thread that calls ``run(_:)``, so that an
/// async workload (its actors and child tasks included, SE-0417) starts no thread of the
/// concurrency pool: valgrind 3.19 (Debian 12's) stops with an internal error as soon as a Swift
/// program hops to a second thread.
final class InlineExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: UnownedJob) {
        self.jobs.withLock { $0.append(job) }
    }

    /// Runs `work` to its end on this thread; exits with status 70 when it waits for something no
    /// job of its own will bring (work sent to another executor).
    func run(_ work: @escaping @Sendable () async throws -> Void) {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        Task(executorPreference: self) {
            let result: Result<Void, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        while true {
            if let result = outcome.withLock({ $0 }) {
                if case .failure(let error) = result {
                    print("InstructionProbe: \(error)")
                    exit(1)
                }
                return
            }
            guard let job = self.jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                print("InstructionProbe: the workload waits for work outside this thread")
                exit(70)
            }
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// A workload: it sets up, then runs its body `times` times.
enum Workload {
    case plain((Int) throws -> Void)
    case async(@Sendable (Int) async throws -> Void)
}

/// The workloads by name.
let workloads: [String: Workload] = [
    "ParseDVR24h": .plain { times in
        let bytes = try DVRPlaylist.bytes()
        for _ in 0..<times { keep(PlaylistParser.parse(bytes)) }
    },
    "DecorateLiveWindow": .plain { times in
        // The benchmark runs the pipeline 1,000 times per iteration; here one time is one pipeline.
        for _ in 0..<times {
            keep(DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: DecorationInputs.liveBreaks))
        }
    },
    "ScheduleLiveUpdate": .plain { times in
        // One time is the measured update to the reload and the unmeasured return to the window.
        let input = try LiveReload.make()
        var schedule = input.base
        for _ in 0..<times {
            keep(schedule.update(primary: input.reload, events: input.reloadEvents))
            keep(schedule.update(primary: input.live, events: input.liveEvents))
        }
    },
    "AssetListDecision": .async { times in
        var service = DecisionInputs.service()
        for _ in 0..<times {
            service.store = InMemoryAdStore()
            keep(try await DecisionInputs.answer(service))
        }
    },
    "PlayerStep": .async { times in
        let player = try await PlayerInputs.startedPlayer()
        let clock = player.clock
        for _ in 0..<times {
            clock.advance(to: clock.now + PlayerInputs.step)
            try await player.run(until: clock.now)
        }
    },
]

let arguments = CommandLine.arguments
guard arguments.count == 3, let workload = workloads[arguments[1]], let times = Int(arguments[2]), times >= 0,
    times <= 100_000
else {
    let names = workloads.keys.sorted().joined(separator: "|")
    print("usage: InstructionProbe <\(names)> <N, 0...100000>")
    exit(64)
}
switch workload {
case .plain(let body):
    do { try body(times) } catch {
        print("InstructionProbe: \(error)")
        exit(1)
    }
case .async(let body):
    InlineExecutor().run { try await body(times) }
}
