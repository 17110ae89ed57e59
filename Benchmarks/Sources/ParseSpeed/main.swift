// Times parsing and serializing one playlist (best of N runs after a warm-up) and prints one JSON
// line. scripts/bench-parse.sh runs it next to Python's m3u8 on the same file.
import BenchmarkSupport
import Foundation
import HLSPlaylist

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : DVRPlaylist.path
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
let bytes = path == DVRPlaylist.path ? try DVRPlaylist.bytes() : try FileBytes.read(path)

/// PARSE_TRACE=1: every iteration's time (ms) on stderr, to see how stable a process is.
let trace = ProcessInfo.processInfo.environment["PARSE_TRACE"] == "1"

/// This thread's CPU time in seconds: unlike the wall clock, it does not grow while another
/// process has the core (other builds on a shared machine).
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The best wall-clock time of `runs` runs after a warm-up, and the best CPU time.
func bestWithCPU(_ runs: Int, _ body: () -> Void) -> (wall: Double, cpu: Double) {
    body()
    var best = Double.infinity
    var bestCPU = Double.infinity
    for _ in 0..<runs {
        let cpuStart = threadCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        bestCPU = min(bestCPU, threadCPUSeconds() - cpuStart)
        if trace { FileHandle.standardError.write(Data("\(seconds * 1e3)\n".utf8)) }
        best = min(best, seconds)
    }
    return (best, bestCPU)
}

func best(_ runs: Int, _ body: () -> Void) -> Double {
    bestWithCPU(runs, body).wall
}

var parsed = PlaylistParser.parse(bytes)
let (parse, parseCPU) = bestWithCPU(runs) { parsed = PlaylistParser.parse(bytes) }
guard case .media(let media) = parsed.playlist else { fatalError("expected a media playlist") }
var output: [UInt8] = []
let serialize = best(runs) { output = media.serialized() }
precondition(output == bytes, "round trip failed")

// Serializing after every DATERANGE was edited: those lines are re-rendered from the model.
var edited = media
for k in edited.dateRanges.indices {
    var range = edited.dateRanges[k].dateRange
    range.attributes["X-PLAYOUT-LIMIT"] = .decimal(MediaTime(seconds: 10))
    edited.replaceDateRange(at: k, with: range)
}
var editedOutput: [UInt8] = []
let serializeEdited = best(runs) { editedOutput = edited.serialized() }

// What the process's pages were: minor page faults so far, and how much of its anonymous memory
// is in huge pages now (this VM's kernel offers no hardware counters such as dTLB misses to perf).
var usage = rusage()
#if os(Linux)
getrusage(RUSAGE_SELF.rawValue, &usage)
#else
getrusage(RUSAGE_SELF, &usage)
#endif
let rollup = (try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8)) ?? ""
let hugeKB =
    rollup.split(separator: "\n").first { $0.hasPrefix("AnonHugePages:") }
    .flatMap { Int($0.split(separator: " ")[1]) } ?? -1

let mb = Double(bytes.count) / 1e6
print(
    """
    {"tool":"intermission","bytes":\(bytes.count),"segments":\(media.segments.count),\
    "dateranges":\(media.dateRanges.count),"diagnostics":\(parsed.diagnostics.count),\
    "parse_seconds":\(parse),"parse_mb_per_s":\(mb / parse),"parse_cpu_mb_per_s":\(mb / parseCPU),\
    "serialize_seconds":\(serialize),"serialize_mb_per_s":\(mb / serialize),\
    "serialize_edited_seconds":\(serializeEdited),"serialize_edited_mb_per_s":\(Double(editedOutput.count) / 1e6 / serializeEdited),\
    "minor_faults":\(usage.ru_minflt),"anon_huge_kb":\(hugeKB)}
    """
)
