// Times the decoration pipeline (parse the upstream media playlist, decorate it with
// `LiveDecorator`, serialize it) on a typical 6-segment live window and on the 24-hour DVR
// playlist, and `intermission format`'s work (parse, serialize) on the same DVR file, in one run.
// Prints one JSON line; scripts/bench-decorate.sh runs it pinned to one core.
//
//   DecorateSpeed                  all figures, CPU time of this thread (best and median); the live
//                                  window also with its break changed before every run (the
//                                  break's line rendered again rather than taken from the cache)
//   DecorateSpeed --only live N    N live-window pipelines and nothing else (for callgrind:
//   DecorateSpeed --only dvr N     the instructions of N runs minus those of 0 runs, over N)
//   DecorateSpeed --only format N
import BenchmarkSupport
import DecorationSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time of the calling thread, in seconds: not inflated when other processes share the core.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Best and median CPU seconds per call of `body`, over `samples` samples of `batch` calls.
func measure(samples: Int, batch: Int, _ body: () -> Void) -> (best: Double, median: Double) {
    body()
    var results: [Double] = []
    for _ in 0..<samples {
        let start = threadCPUSeconds()
        for _ in 0..<batch { body() }
        results.append((threadCPUSeconds() - start) / Double(batch))
    }
    results.sort()
    return (results[0], results[results.count / 2])
}

let arguments = CommandLine.arguments
let dvr = try DVRPlaylist.bytes()
var sink = 0

if arguments.count == 4, arguments[1] == "--only", let count = Int(arguments[3]) {
    for _ in 0..<count {
        switch arguments[2] {
        case "live":
            sink &+= DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: DecorationInputs.liveBreaks).count
        case "dvr": sink &+= DecorationInputs.pipeline(dvr, breaks: DecorationInputs.dvrBreaks).count
        case "format": sink &+= DecorationInputs.format(dvr).count
        default: fatalError("--only live|dvr|format COUNT")
        }
    }
    print(sink)
    exit(0)
}

let liveOutput = DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: DecorationInputs.liveBreaks)
precondition(String(decoding: liveOutput, as: UTF8.self).contains("ID=\"break-1\""), "the break is inserted")
let live = measure(samples: 31, batch: 2_000) {
    sink &+= DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: DecorationInputs.liveBreaks).count
}
// The same with the break changed before every run (a new `updatedAt`): its line is rendered
// each time, as on the first decoration after an admin call or an SCTE-35 update.
var revision: Int64 = 0
let liveCold = measure(samples: 31, batch: 2_000) {
    revision += 1
    let changed = DecorationInputs.liveBreaks(revision: revision)
    sink &+= DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: changed).count
}
let decorated = measure(samples: 11, batch: 1) {
    sink &+= DecorationInputs.pipeline(dvr, breaks: DecorationInputs.dvrBreaks).count
}
let formatted = measure(samples: 11, batch: 1) { sink &+= DecorationInputs.format(dvr).count }
print(
    """
    {"tool":"intermission-decorate","clock":"thread CPU time","live_window_bytes":\(DecorationInputs.liveWindow.count),\
    "live_pipeline_us":\(live.best * 1e6),"live_pipeline_median_us":\(live.median * 1e6),\
    "live_changed_break_pipeline_median_us":\(liveCold.median * 1e6),\
    "dvr_bytes":\(dvr.count),"dvr_decorate_ms":\(decorated.best * 1e3),"dvr_decorate_median_ms":\(decorated.median * 1e3),\
    "dvr_format_ms":\(formatted.best * 1e3),"dvr_format_median_ms":\(formatted.median * 1e3),\
    "dvr_decorate_over_format":\(decorated.median / formatted.median),"sink":\(sink % 10)}
    """
)
