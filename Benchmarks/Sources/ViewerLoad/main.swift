// Holds N concurrent viewers of a live stream at real-time speed in one process: each viewer is a
// `Player` on a real clock that loads every playlist, asset list and segment over HTTP. After a
// ramp-up it measures, over the run: CPU seconds per viewer-hour (getrusage of this process; the
// server runs in another process), resident memory per viewer (RSS growth / N), primary stalls,
// playback errors, how late a 100 ms timer fires on this process's executor (a starved CPU shows
// up there first), and the requests and bytes loaded per second. Prints one JSON line.
// scripts/bench-viewers.sh starts the server and pins this process to one core.
//
//   ViewerLoad --url http://127.0.0.1:18282/live/demo/main.m3u8 [--viewers 1000] [--duration 60] [--ramp 10]
//              [--executor shared|default] [--loader keepalive|asynchttpclient] [--connections 64]
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import InterstitialPlayback
import NIOCore
import NIOPosix
import Synchronization
import ViewerLoadSupport

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var url = "http://127.0.0.1:18282/live/demo/main.m3u8"
    var viewers = 1000
    var duration = 60.0
    var ramp = 10.0
    var connections = 64
    /// Whether Swift Concurrency's jobs run on the viewers' event loop (`--executor shared`, the
    /// default) or on its own pool (`--executor default`).
    var sharedExecutor = true
    /// Whether the viewers load through `KeepAliveLoader` (`--loader keepalive`, the default) or
    /// through AsyncHTTPClient (`--loader asynchttpclient`).
    var keepAliveLoader = true

    init(_ arguments: [String]) {
        var k = 1
        while k + 1 < arguments.count {
            let value = arguments[k + 1]
            switch arguments[k] {
            case "--url": self.url = value
            case "--viewers": self.viewers = Int(value) ?? self.viewers
            case "--duration": self.duration = Double(value) ?? self.duration
            case "--ramp": self.ramp = Double(value) ?? self.ramp
            case "--connections": self.connections = Int(value) ?? self.connections
            case "--executor": self.sharedExecutor = value != "default"
            case "--loader": self.keepAliveLoader = value != "asynchttpclient"
            default: FileHandle.standardError.write(Data("unknown option \(arguments[k])\n".utf8))
            }
            k += 2
        }
    }
}

/// What the viewers report through their log handlers, counted without a lock.
final class Counters: Sendable {
    let stalls = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    let breaks = Atomic<Int>(0)
    let playing = Atomic<Int>(0)
    let measuring = Atomic<Bool>(false)
    let stallsWhileMeasuring = Atomic<Int>(0)
    /// The largest lateness of the 100 ms timer while measuring, in microseconds.
    let lateness = Atomic<Int>(0)
    /// Requests answered and body bytes received while measuring (each one a real HTTP exchange).
    let requests = Atomic<Int>(0)
    let bytes = Atomic<Int>(0)
}

/// The HTTP loader, counting what it loads while the run is measured.
struct CountingLoader: ResourceLoader {
    let base: any ResourceLoader
    let counters: Counters

    func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        let result = await self.base.load(request, sessionID: sessionID)
        if self.counters.measuring.load(ordering: .relaxed), case .success(let response) = result {
            self.counters.requests.add(1, ordering: .relaxed)
            self.counters.bytes.add(response.byteCount, ordering: .relaxed)
        }
        return result
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Resident set size in bytes, from /proc/self/status.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

let options = Options(CommandLine.arguments)
let counters = Counters()
// One event-loop thread (the process is pinned to one core), which also runs Swift Concurrency's
// jobs: the players' actors, their loads and their timers share the thread the HTTP connections
// live on, so a request, its answer and the player's step never wait for a thread switch. With
// `--executor default`, the jobs run on Swift Concurrency's own pool (threads as the cores) and
// the clock sleeps on Dispatch, as in an application.
let group: MultiThreadedEventLoopGroup
if options.sharedExecutor {
    NIOSingletons.groupLoopCountSuggestion = 1
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        fatalError("could not run Swift Concurrency on the event loop")
    }
    group = MultiThreadedEventLoopGroup.singleton
} else {
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
}
let viewerLoop = group.next()
var clientConfiguration = HTTPClient.Configuration()
clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = options.connections
// No request spans (as `BoundedFetch.makeClient`): the default no-op tracer still builds every
// request's span attributes, about 8% of the viewers' CPU.
clientConfiguration.tracing.tracer = nil
let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: clientConfiguration)
let base: any ResourceLoader =
    options.keepAliveLoader
    ? KeepAliveLoader(
        eventLoop: viewerLoop,
        connectionsPerOrigin: options.connections,
        fallback: HTTPResourceLoader(client: client)
    )
    : HTTPResourceLoader(client: client)
let loader = CountingLoader(base: base, counters: counters)

var configuration = Player.Configuration()
configuration.keepsLog = false
configuration.logsRequests = false
configuration.logHandler = { entry in
    switch entry.event {
    case "stalled":
        counters.stalls.add(1, ordering: .relaxed)
        if counters.measuring.load(ordering: .relaxed) { counters.stallsWhileMeasuring.add(1, ordering: .relaxed) }
    case "error": counters.errors.add(1, ordering: .relaxed)
    case "playing": counters.playing.add(1, ordering: .relaxed)
    case "currentEventDidChange" where entry["eventID"]?.stringValue != nil: counters.breaks.add(1, ordering: .relaxed)
    default: break
    }
}

// Warm the client (first connection, TLS-free loopback) before the baseline.
_ = await loader.load(
    LoadRequest(
        url: options.url,
        kind: .multivariantPlaylist,
        timeout: .seconds(10),
        maximumBodySize: 1 << 20,
        keepsBody: true
    ),
    sessionID: "warm-up"
)
let baselineRSS = residentBytes()

let result = try await withThrowingTaskGroup(of: Void.self) { tasks -> [String: Double] in
    // Executor lateness: how late a 100 ms sleep wakes up.
    tasks.addTask {
        while !Task.isCancelled {
            let before = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(100))
            let late = (ContinuousClock.now - before - .milliseconds(100)).components
            let micros = Int(late.seconds) * 1_000_000 + Int(late.attoseconds / 1_000_000_000_000)
            if counters.measuring.load(ordering: .relaxed) {
                var current = counters.lateness.load(ordering: .relaxed)
                while micros > current {
                    let (exchanged, original) = counters.lateness.compareExchange(
                        expected: current,
                        desired: micros,
                        ordering: .relaxed
                    )
                    if exchanged { break }
                    current = original
                }
            }
        }
    }
    for k in 0..<options.viewers {
        let player = Player(
            item: PlayerItem(url: options.url),
            clock: options.sharedExecutor
                ? EventLoopPlaybackClock(eventLoop: viewerLoop) as any PlaybackClock : RealPlaybackClock(),
            loader: loader,
            configuration: configuration
        )
        await player.play()
        tasks.addTask { try await player.run() }
        // Spread the joins over the ramp, as real audiences arrive.
        if options.ramp > 0, k + 1 < options.viewers {
            try await Task.sleep(for: .seconds(options.ramp / Double(options.viewers)))
        }
    }
    // Let the last viewers fill their buffers, then measure.
    try await Task.sleep(for: .seconds(3))
    counters.measuring.store(true, ordering: .relaxed)
    let cpuStart = cpuSeconds()
    let wallStart = ContinuousClock.now
    try await Task.sleep(for: .seconds(options.duration))
    let cpu = cpuSeconds() - cpuStart
    let wall = (ContinuousClock.now - wallStart).components
    let wallSeconds = Double(wall.seconds) + Double(wall.attoseconds) / 1e18
    counters.measuring.store(false, ordering: .relaxed)
    let rss = residentBytes()
    tasks.cancelAll()
    while let _ = try? await tasks.next() {}
    return [
        "viewers": Double(options.viewers),
        "measuredSeconds": wallSeconds,
        "cpuSeconds": cpu,
        "cpuCoresUsed": cpu / wallSeconds,
        "cpuSecondsPerViewerHour": cpu / (Double(options.viewers) * wallSeconds / 3600),
        // Viewer-seconds played per CPU-second used: how many viewers one core holds.
        "viewersPerCore": Double(options.viewers) * wallSeconds / cpu,
        "viewerSeconds": Double(options.viewers) * wallSeconds,
        "rssBaselineMB": Double(baselineRSS) / 1e6,
        "rssMB": Double(rss) / 1e6,
        "rssPerViewerKB": Double(rss - baselineRSS) / Double(options.viewers) / 1e3,
        "stallsWhileMeasuring": Double(counters.stallsWhileMeasuring.load(ordering: .relaxed)),
        "stallsTotal": Double(counters.stalls.load(ordering: .relaxed)),
        "errors": Double(counters.errors.load(ordering: .relaxed)),
        "breaksStarted": Double(counters.breaks.load(ordering: .relaxed)),
        "maxTimerLatenessMs": Double(counters.lateness.load(ordering: .relaxed)) / 1e3,
        "requestsPerSecond": Double(counters.requests.load(ordering: .relaxed)) / wallSeconds,
        "receivedMBPerSecond": Double(counters.bytes.load(ordering: .relaxed)) / wallSeconds / 1e6,
    ]
}
try await client.shutdown()
// The event-loop group is left to the process exit: requests cancelled with their viewers may still
// be closing connections on it.
let keys = result.keys.sorted()
let fields = keys.map { key -> String in
    let value = result[key]!
    let text = value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String(format: "%.3f", value)
    return "\"\(key)\":\(text)"
}
print("{" + fields.joined(separator: ",") + "}")
