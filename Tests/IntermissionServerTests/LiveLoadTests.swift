import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionSQLite
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import InterstitialPlayback
import Synchronization
import Testing

/// Many headless players watch the demo live channel over loopback for ten minutes of virtual time,
/// across five breaks, with beacons on (issue 11, "Faults and load").
///
/// The server's `ManualWallClock` and each viewer's `VirtualPlaybackClock` move in lockstep, one
/// virtual second per step (as `PlayerEndToEndTests` does for one viewer): the test sets the server
/// clock, then runs every viewer that has joined to the same second, all at once, each on real HTTP
/// through a shared client with many connections. Every loop is bounded: the steps are counted, and
/// each step (every viewer's playback and beacons of that second) has a real-time deadline.
///
/// Viewers join during the first 30 s (arrivals spread as real audiences arrive), fire the
/// impression and start beacons of each ad they start and the complete beacon of each ad they end,
/// from the signed URLs in the asset list the server decided for them.
///
/// The number of viewers is `INTERMISSION_LOAD_VIEWERS` (1 to 5,000). The suite runs only when it
/// is set: it is a load test, and beside the rest of the suite on two cores it would starve the
/// timing of every other test. `scripts/load-test.sh 50` runs it (`.ci/run` does, as its own step
/// after `swift test`); `scripts/load-test.sh 500` runs it with 500.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["INTERMISSION_LOAD_VIEWERS"] != nil), .realTime)
struct LiveLoadTests {
    /// The channel started at `t0`; viewers join from one minute in and watch until 11:30, so every
    /// viewer sees the breaks at 2:00, 4:00, 6:00, 8:00 and 10:00 (20 s each) from start to end.
    static let firstJoin = 60
    static let joinSpread = 30
    static let lastSecond = 690
    static let breaks = ["auto-0", "auto-1", "auto-2", "auto-3", "auto-4"]
    /// The real time one step may take, for every viewer of it together.
    static let stepDeadline: Duration = .seconds(60)

    /// The viewers of a run: `INTERMISSION_LOAD_VIEWERS` when it is a whole number in 1 … 5,000.
    static var viewerCount: Int {
        guard let text = ProcessInfo.processInfo.environment["INTERMISSION_LOAD_VIEWERS"] else { return 50 }
        guard let count = Int(text), (1...5_000).contains(count) else {
            Issue.record("INTERMISSION_LOAD_VIEWERS must be a whole number from 1 to 5000, not \(text)")
            return 50
        }
        return count
    }

    // 50 viewers take about two minutes on a loaded 2-core machine; 500 (scripts/load-test.sh) more
    // than ten. Each step has its own deadline as well.
    @Test(.timeLimit(.minutes(30)))
    func manyViewersWatchTheLiveChannelAcrossFiveBreaksWithNoFailedRequest() async throws {
        let viewerCount = Self.viewerCount
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/load.sqlite"
        let serverClock = ManualWallClock(t0)
        var configuration = try demoConfiguration(clock: serverClock, database: database)
        configuration.tracking = TrackingConfiguration(key: Array("load-test-key-0123456789abcdef".utf8))
        configuration.tracking.beacons = true
        // The test client's connection stays silent while the viewers play (minutes of real time on a
        // busy machine); it asks for the metrics and reports at the end.
        configuration.idleTimeout = .seconds(3600)
        // It connects at the start and sends its first request at the end: its head may take as long.
        configuration.requestHeadTimeout = .seconds(3600)

        // Many connections to the one host, so the viewers' requests reach the server together.
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        clientConfiguration.tracing.tracer = nil
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let loader = RecordingLoader(base: HTTPResourceLoader(client: client))
        let run: ([LoadViewer], String, [String: JSONValue])
        do {
            run = try await Self.watch(viewerCount, configuration: configuration, clock: serverClock, loader: loader)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        let (viewers, metrics, reports) = run
        #expect(viewers.count == viewerCount)
        // What the server stored, read after it closed the database.
        let store = try SQLiteAdStore(path: database)
        defer { Task { try? await store.close() } }

        // No request failed: the server answered nothing but 2xx on any route …
        let statuses = Self.requestCounts(metrics)
        let failed = statuses.filter { !(200..<300).contains($0.key) && $0.value > 0 }
        #expect(failed.isEmpty, "non-2xx answers by status: \(failed)")
        let answered = statuses.values.reduce(0, +)
        // … and no viewer saw a failed request, an error, a failed asset list or ad, or a stall.
        var requests = 0
        for viewer in viewers {
            let record = viewer.record.withLock { $0 }
            requests += record.requests
            #expect(record.failures.isEmpty, "\(viewer.sessionID): \(record.failures.prefix(5))")
            let error = await viewer.player.error
            #expect(error == nil, "\(viewer.sessionID): \(String(describing: error))")
            #expect(record.stalls == 0, "\(viewer.sessionID) stalled \(record.stalls) times")
            #expect(record.beaconFailures.isEmpty, "\(viewer.sessionID): \(record.beaconFailures.prefix(5))")
            #expect(record.lateSteps == 0, "\(viewer.sessionID) missed \(record.lateSteps) step deadlines")
        }
        // Every request a viewer made (media, asset lists, beacons) reached the server and was counted.
        #expect(answered >= requests, "the server counted \(answered) answers for \(requests) requests")
        #expect(requests > viewerCount * 600, "\(requests) requests")

        // Every viewer played every break, the pod the server stored for it, and beaconed it.
        var beacons: [String: Int] = [:]
        for viewer in viewers {
            let record = viewer.record.withLock { $0 }
            #expect(record.events == Self.breaks, "\(viewer.sessionID) played \(record.events)")
            for breakID in Self.breaks {
                let key = DecisionKey(viewer: viewer.sessionID, scope: "live-demo", breakID: breakID)
                let decision = try await store.decision(for: key)
                let stored = try #require(decision, "no stored decision for \(viewer.sessionID) \(breakID)")
                #expect(!stored.assets.isEmpty, "\(viewer.sessionID) \(breakID): empty pod")
                let started = record.started[breakID] ?? []
                #expect(
                    started.map(Self.path) == stored.assets.map { Self.path($0.uri) },
                    "\(viewer.sessionID) \(breakID)"
                )
                #expect(record.ended[breakID] == stored.assets.count, "\(viewer.sessionID) \(breakID)")
                beacons[breakID, default: 0] += 3 * stored.assets.count
            }
        }
        // One decision per viewer and break: stored, and counted as new exactly that often.
        #expect(try await store.decisionCount() == viewerCount * Self.breaks.count)
        #expect(Self.newLiveDecisions(metrics) == viewerCount * Self.breaks.count, "\(metrics)")
        // Each beacon stored once (impression, start and complete per ad), none twice.
        for breakID in Self.breaks {
            let report = try #require(reports[breakID])
            #expect(report["beacons"]?.intValue == beacons[breakID], "\(breakID): \(report)")
            #expect(report["duplicates"]?.intValue == 0, "\(breakID): \(report)")
        }
    }

    /// Runs the server and the viewers through the ten minutes; answers the viewers, the server's
    /// `/metrics` text at the end, and the beacon report of each break.
    static func watch(
        _ viewerCount: Int,
        configuration: ServerConfiguration,
        clock serverClock: ManualWallClock,
        loader: RecordingLoader
    ) async throws -> ([LoadViewer], String, [String: JSONValue]) {
        try await withServer(configuration) { testClient in
            let port = try #require(testClient.port)
            let url = "http://127.0.0.1:\(port)/live/demo/main.m3u8"
            var viewers: [LoadViewer] = []
            for second in Self.firstJoin...Self.lastSecond {
                serverClock.set(t0 + MediaTime(seconds: Double(second)))
                // The viewers arriving this second: an even share of the spread.
                let offset = second - Self.firstJoin
                if offset < Self.joinSpread {
                    let arriving =
                        (viewerCount * (offset + 1)) / Self.joinSpread - (viewerCount * offset) / Self.joinSpread
                    for _ in 0..<arriving {
                        let viewer = LoadViewer(
                            sessionID: "load-\(viewers.count)",
                            joinedAt: second,
                            url: url,
                            loader: loader
                        )
                        await viewer.player.play()
                        viewers.append(viewer)
                    }
                }
                try await Self.step(viewers, to: second, loader: loader)
            }
            let metrics = try await testClient.get("/metrics")
            #expect(metrics.status == .ok)
            var reports: [String: JSONValue] = [:]
            for breakID in Self.breaks {
                let answer = try await testClient.admin(.get, "/v1/admin/reports/breaks/live-demo/\(breakID)")
                #expect(answer.status == .ok, "\(answer.text)")
                reports[breakID] = answer.json
            }
            return (viewers, metrics.text, reports)
        }
    }

    /// Runs every viewer to `second` of server time, then fires the beacons of what each one
    /// started and ended; all viewers at once, within ``stepDeadline``.
    static func step(_ viewers: [LoadViewer], to second: Int, loader: RecordingLoader) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for viewer in viewers {
                tasks.addTask {
                    let finished: Void? = try await withDeadline(Self.stepDeadline) {
                        try await viewer.player.run(until: MediaTime(seconds: Double(second - viewer.joinedAt)))
                        await viewer.fireBeacons(loader: loader)
                    }
                    if finished == nil { viewer.record.withLock { $0.lateSteps += 1 } }
                }
            }
            try await tasks.waitForAll()
        }
    }

    /// `intermission_http_requests_total` summed by status, from the Prometheus text.
    static func requestCounts(_ metrics: String) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for line in metrics.split(separator: "\n") where line.hasPrefix("intermission_http_requests_total{") {
            guard let label = line.range(of: "status=\""),
                let status = Int(line[label.upperBound...].prefix { $0 != "\"" }),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else {
                Issue.record("unreadable metric line: \(line)")
                continue
            }
            counts[status, default: 0] += Int(value)
        }
        return counts
    }

    /// `intermission_decisions_total{scope="live",result="new"}`.
    static func newLiveDecisions(_ metrics: String) -> Int? {
        for line in metrics.split(separator: "\n")
        where line.hasPrefix("intermission_decisions_total{") && line.contains("scope=\"live\"")
            && line.contains("result=\"new\"")
        {
            return line.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) }
        }
        return nil
    }

    /// The path of a URL, without scheme, authority and query.
    static func path(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...].drop { $0 != "/" } }
        return String(rest.prefix { $0 != "?" })
    }
}

/// What one viewer did, gathered from its log handler and its asset lists.
struct ViewerRecord: Sendable {
    /// Requests answered (any status), and the ones that failed, as `kind status url`.
    var requests = 0
    var failures: [String] = []
    var stalls = 0
    /// The interstitial events that became current, in order.
    var events: [String] = []
    /// The asset URLs started per event, and how many assets ended.
    var started: [String: [String]] = [:]
    var ended: [String: Int] = [:]
    /// Beacons owed and not fired yet: (event ID, asset index, tracking events).
    var pendingBeacons: [(eventID: String, index: Int, events: [String])] = []
    var beaconFailures: [String] = []
    var lateSteps = 0
}

/// A viewer's record, shared by its log handler and the test.
final class ViewerLog: Sendable {
    private let state = Mutex(ViewerRecord())

    /// Reads or changes the record under its lock.
    func withLock<T: Sendable>(_ body: (inout ViewerRecord) -> T) -> T {
        self.state.withLock { body(&$0) }
    }
}

/// One simulated viewer: a real `Player` on a virtual clock and its record.
final class LoadViewer: Sendable {
    let sessionID: String
    /// The server second the viewer joined at: player time `t` is server time `joinedAt + t`.
    let joinedAt: Int
    let player: Player
    let record: ViewerLog

    init(sessionID: String, joinedAt: Int, url: String, loader: RecordingLoader) {
        self.sessionID = sessionID
        self.joinedAt = joinedAt
        let record = ViewerLog()
        var configuration = Player.Configuration()
        configuration.keepsLog = false
        configuration.logHandler = { entry in
            record.withLock { LoadViewer.note(entry, in: &$0) }
        }
        self.record = record
        self.player = Player(
            item: PlayerItem(url: url),
            clock: VirtualPlaybackClock(),
            loader: loader,
            configuration: configuration,
            sessionID: sessionID
        )
    }

    /// Counts what a log entry says about failures, breaks and beacons owed.
    static func note(_ entry: PlayerLogEntry, in record: inout ViewerRecord) {
        let eventID = entry["eventID"]?.stringValue ?? ""
        switch entry.event {
        case "request":
            record.requests += 1
            let status = entry["status"]?.intValue
            if status.map({ !(200..<300).contains($0) }) ?? true {
                let kind = entry["kind"]?.stringValue ?? "?"
                let url = entry["url"]?.stringValue ?? "?"
                record.failures.append("\(kind) \(status.map(String.init) ?? "no answer") \(url)")
            }
        case "error", "assetListFailed", "interstitialAssetFailed", "eventWasUnscheduled", "eventCancelled":
            record.failures.append(entry.description)
        case "stalled":
            record.stalls += 1
        case "currentEventDidChange" where !eventID.isEmpty:
            record.events.append(eventID)
        case "interstitialAssetStarted":
            record.started[eventID, default: []].append(entry["url"]?.stringValue ?? "")
            record.pendingBeacons.append((eventID, entry["index"]?.intValue ?? -1, ["impression", "start"]))
        case "interstitialAssetEnded":
            record.ended[eventID, default: 0] += 1
            record.pendingBeacons.append((eventID, entry["index"]?.intValue ?? -1, ["complete"]))
        default:
            break
        }
    }

    /// Fires the beacons owed, each a GET of its signed URL from this viewer's asset list.
    func fireBeacons(loader: RecordingLoader) async {
        let owed = self.record.withLock { record in
            defer { record.pendingBeacons.removeAll() }
            return record.pendingBeacons
        }
        for (eventID, index, events) in owed {
            for event in events {
                guard
                    let url = loader.trackingURL(session: self.sessionID, breakID: eventID, index: index, event: event)
                else {
                    self.record.withLock { $0.beaconFailures.append("no \(event) URL for \(eventID) #\(index)") }
                    continue
                }
                let request = LoadRequest(
                    url: url,
                    kind: .segment,
                    timeout: .seconds(30),
                    maximumBodySize: 4096,
                    keepsBody: false
                )
                let result = await loader.base.load(request, sessionID: self.sessionID)
                if case .success(let answer) = result, answer.status == 204 { continue }
                self.record.withLock { $0.beaconFailures.append("\(event) \(eventID) #\(index): \(result)") }
            }
        }
    }
}

/// The HTTP loader of every viewer; keeps the tracking URLs of each asset list it loads, by
/// viewer and break.
final class RecordingLoader: ResourceLoader {
    let base: HTTPResourceLoader
    /// `[session: [break: [asset index: [tracking event: URL]]]]`.
    private let tracking = Mutex<[String: [String: [[String: String]]]]>([:])

    init(base: HTTPResourceLoader) {
        self.base = base
    }

    func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        let result = await self.base.load(request, sessionID: sessionID)
        if request.kind == .assetList, case .success(let response) = result, response.status == 200,
            let breakID = request.url.split(separator: "?").first?.split(separator: "/").last?.dropLast(5),
            let list = try? AssetList.decode(response.body)
        {
            let urls = list.assets.map { asset -> [String: String] in
                var byEvent: [String: String] = [:]
                for event in (try? asset.creativeSignaling())?.payload.first?.tracking ?? [] {
                    byEvent[event.type] = event.urls.first
                }
                return byEvent
            }
            self.tracking.withLock { $0[sessionID, default: [:]][String(breakID)] = urls }
        }
        return result
    }

    /// The signed URL of a tracking event of one asset of the list a viewer loaded for a break.
    func trackingURL(session: String, breakID: String, index: Int, event: String) -> String? {
        self.tracking.withLock { tracking in
            guard let assets = tracking[session]?[breakID], assets.indices.contains(index) else { return nil }
            return assets[index][event]
        }
    }
}
