import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionHTTP
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionSQLite
@testable import IntermissionServer
@testable import IntermissionStore

/// The stores the pruning suite runs against: memory, SQLite, and PostgreSQL with a test server.
enum PrunedStore: String, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgres

    var testDescription: String { self.rawValue }

    /// The kinds available here.
    static var available: [PrunedStore] { [.memory, .sqlite] + (TestPostgres.available ? [.postgres] : []) }

    /// A new, empty, migrated store of this kind.
    func open() async throws -> any ServerStore {
        let url: String
        switch self {
        case .memory: url = "memory:"
        case .sqlite: url = "sqlite:" + (try makeScratchFolder()) + "/store.sqlite"
        case .postgres: url = try await TestPostgres.freshDatabase()
        }
        let store = running(try await openStore(.url(url)))
        try await store.migrate()
        return store
    }
}

/// A one-creative decision of `viewer` for the break `b` of `vod-movie`, made at `date`.
private func decision(_ viewer: String, at date: DateTime) -> AdDecision {
    var made = decision(DecisionKey(viewer: viewer, scope: "vod-movie", breakID: "b"), creative: "red")
    made.decidedAt = date
    made.nonce = AdDecision.newNonce()
    return made
}

/// Stores `viewers` decisions at once (the writer commits them in batches), named `prefix-N`.
private func flood(_ store: any AdStore, _ prefix: String, viewers: Range<Int>, at date: DateTime) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for n in viewers {
            group.addTask { _ = try await store.save(decision("\(prefix)-\(n)", at: date)) }
        }
        try await group.waitForAll()
    }
}

/// A retention of `maximum` decisions, deleted `batch` at a time, with the default age.
private func retention(maximum: Int, batch: Int, interval: Duration = .seconds(60)) -> DecisionRetention {
    var retention = DecisionRetention()
    retention.maximumDecisions = maximum
    retention.batchSize = batch
    retention.interval = interval
    return retention
}

/// Stored decisions are bounded: by age (the repeat window plus a margin) and by count (issue 27).
@Suite(.runningStores, .realTime) struct DecisionPruningTests {
    private let hour = MediaTime(seconds: 3600)

    @Test(.timeLimit(.minutes(1)), arguments: PrunedStore.available)
    func decisionsPastTheRetentionGoAndThoseInsideStay(kind: PrunedStore) async throws {
        let store = try await kind.open()
        try await flood(store, "old", viewers: 0..<5, at: t0 - 3 * 3600)
        try await flood(store, "recent", viewers: 0..<5, at: t0 - 1800)
        let pruner = DecisionPruner(
            store: store,
            retention: retention(maximum: 1000, batch: 2),
            repeatWindow: self.hour,
            metrics: ServerMetrics()
        )
        // The default retention is the repeat window (1 h) plus 1 h: the 3-hour-old ones go.
        #expect(try await pruner.prune(now: t0) == 5)
        #expect(try await store.decisionCount() == 5)
        for n in 0..<5 {
            let old = DecisionKey(viewer: "old-\(n)", scope: "vod-movie", breakID: "b")
            #expect(try await store.decision(for: old) == nil)
            #expect(store.rememberedDecision(for: old) == nil)
            // A returning viewer inside the retention keeps its decision.
            let recent = DecisionKey(viewer: "recent-\(n)", scope: "vod-movie", breakID: "b")
            let again = try await store.findOrCreateDecision(recent, recentSince: nil) { _ in
                decision("recent-\(n)", at: t0)
            }
            #expect(!again.isNew && again.decision.decidedAt == t0 - 1800)
        }
        #expect(try await pruner.prune(now: t0) == 0)
        try await store.close()
    }

    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3)), arguments: PrunedStore.available)
    func theCapKeepsTheNewestDecisions(kind: PrunedStore) async throws {
        let store = try await kind.open()
        for n in 0..<50 { _ = try await store.save(decision("v-\(n)", at: t0 + MediaTime(seconds: Double(n)))) }
        let pruner = DecisionPruner(
            store: store,
            retention: retention(maximum: 20, batch: 7),
            repeatWindow: self.hour,
            metrics: ServerMetrics()
        )
        #expect(try await pruner.prune(now: t0 + 60) == 30)
        #expect(try await store.decisionCount() == 20)
        for n in 0..<50 {
            let key = DecisionKey(viewer: "v-\(n)", scope: "vod-movie", breakID: "b")
            #expect((try await store.decision(for: key) != nil) == (n >= 30), "v-\(n)")
        }
        try await store.close()
    }

    @Test(.timeLimit(.minutes(2)), arguments: PrunedStore.available.filter { $0 != .memory })
    func aFloodOfUniqueViewersStaysBounded(kind: PrunedStore) async throws {
        let store = try await kind.open()
        // PostgreSQL stores one decision per round trip: fewer viewers keep the test short.
        let (cap, viewers) = kind == .sqlite ? (2000, 3000) : (200, 300)
        let pruner = DecisionPruner(
            store: store,
            retention: retention(maximum: cap, batch: 500),
            repeatWindow: self.hour,
            metrics: ServerMetrics()
        )
        var pages: [Int] = []
        for round in 0..<6 {
            try await flood(store, "round\(round)", viewers: 0..<viewers, at: t0 + MediaTime(seconds: Double(round)))
            try await pruner.prune(now: t0 + MediaTime(seconds: Double(round)))
            #expect(try await store.decisionCount() == cap)
            if let sqlite = store as? SQLiteAdStore { pages.append(try await sqlite.pageCount()) }
        }
        // SQLite reuses the pages of deleted rows: after the first rounds the file stops growing.
        if kind == .sqlite {
            let settled = try #require(pages.dropFirst().first)
            #expect(try #require(pages.last) <= settled + settled / 10, "pages by round: \(pages)")
        }
        try await store.close()
    }

    @Test(.timeLimit(.minutes(1))) func theServerPrunesInTheBackgroundAndSaysSoInMetrics() async throws {
        let clock = ManualWallClock(t0)
        var configuration = try demoConfiguration(clock: clock)
        configuration.tracking = TrackingConfiguration(key: Array("pruning-test-key-0123456789abcdef".utf8))
        configuration.tracking.beacons = true
        configuration.retention = retention(maximum: 100, batch: 50, interval: .milliseconds(20))
        // The pauses between runs on a clock the test moves: a run comes when the test asks for it.
        let timer = ManualClock()
        configuration.timerClock = timer
        let store = try await PrunedStore.sqlite.open()
        configuration.openedStore = store
        // The bulk straight into the store, older than the few that come over HTTP.
        try await flood(store, "bulk", viewers: 0..<500, at: t0 - 60)
        try await withServer(configuration) { client in
            var beacons: [String] = []
            for n in 0..<3 {
                let list = try await client.get(
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=http-\(n)"
                )
                #expect(list.status == .ok)
                let signaling = try #require(try AssetList.decode(list.bytes).assets.first?.creativeSignaling())
                let url = try #require(signaling.payload.first?.tracking?.first { $0.type == "start" }?.urls.first)
                beacons.append(String(url[try #require(url.range(of: "/v1/track/")).lowerBound...]))
            }
            // The service brings the store under the cap (503 - 100 deleted), the newest (the HTTP
            // viewers) kept.
            let deadline = ContinuousClock.now + .seconds(20)
            // (The gauge is set at the end of each run: a run that a new viewer overtook may say 101.)
            let settled = ["intermission_decisions_pruned_total 403", "intermission_decisions_stored 100"]
            var metrics = ""
            try await waitUntil(within: deadline - ContinuousClock.now, checkingEvery: .milliseconds(20)) {
                timer.advance(by: .milliseconds(20))
                metrics = try await client.get("/metrics").text
                return settled.allSatisfy(metrics.contains)
            }
            #expect(settled.allSatisfy(metrics.contains), "\(metrics.suffix(2000))")
            #expect(try await client.get(beacons[0]).status == .noContent)
            // Past the retention (the demo's repeat window plus an hour), they go too, and the
            // beacon URLs of a pruned decision are refused.
            clock.advance(by: MediaTime(seconds: 3 * 86_400))
            var count = -1
            try await waitUntil(within: deadline - ContinuousClock.now, checkingEvery: .milliseconds(20)) {
                timer.advance(by: .milliseconds(20))
                count = try await store.decisionCount()
                return count == 0
            }
            #expect(count == 0)
            let refused = try await client.get(beacons[1])
            #expect(refused.status == .forbidden)
            #expect(refused.json?["error"]?["code"]?.stringValue == "badBeaconToken")
            // A returning viewer gets a new decision.
            let again = try await client.get(
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=http-1"
            )
            #expect(again.status == .ok)
            #expect(try await store.decisionCount() == 1)
        }
    }

    @Test func theConfigurationFileSetsTheRetentionWithinItsRanges() throws {
        let file = try ConfigurationFile.parse(
            "repeatWindow: 600\nstorage:\n  retention: 7200\n  maxDecisions: 1000\n  pruneInterval: 5\n  pruneBatch: 50\n"
        )
        let configured = try file.apply(to: ServerConfiguration(), relativeTo: "/tmp").retention
        #expect(configured.maximumAge == MediaTime(seconds: 7200))
        #expect(configured.maximumDecisions == 1000)
        #expect(configured.interval == .seconds(5))
        #expect(configured.batchSize == 50)
        #expect(DecisionRetention().age(repeatWindow: self.hour) == MediaTime(seconds: 7200))
        for bad in [
            "repeatWindow: 7200\nstorage:\n  retention: 3600\n", "storage:\n  retention: 1\n",
            "storage:\n  maxDecisions: 0\n", "storage:\n  pruneInterval: -1\n", "storage:\n  pruneBatch: 1000000\n",
            "storage:\n  keepForever: true\n",
        ] {
            #expect(throws: (any Error).self, "\(bad)") {
                _ = try ConfigurationFile.parse(bad).apply(to: ServerConfiguration(), relativeTo: "/tmp")
            }
        }
    }
}
