import AdInsertion
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionSQLite
@testable import IntermissionServer
@testable import IntermissionStore

private func key(_ viewer: String, _ breakID: String = "b") -> DecisionKey {
    DecisionKey(viewer: viewer, scope: "vod-demo", breakID: breakID)
}

@Suite(.serialized, .realTime) struct DecisionStoreTests {
    /// A store bounded to 8 remembered decisions keeps 8 after 40 decisions, and answers all 40
    /// again with the stored pod (from the database for those it forgot), deciding none twice.
    @Test(.timeLimit(.minutes(1))) func theStoreRemembersAtMostItsCapacity() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteAdStore(path: folder + "/bounded.sqlite", remembering: 8)
        try await store.migrate()
        for k in 0..<40 {
            let answer = try await store.findOrCreateDecision(key("v\(k)"), recentSince: nil) { _ in
                decision(key("v\(k)"), creative: "c\(k)")
            }
            #expect(answer.isNew)
        }
        #expect(store.rememberedCount == 8)
        #expect(store.rememberedDecision(for: key("v0")) == nil)
        #expect(store.rememberedDecision(for: key("v39"))?.assets.first?.creativeID == "c39")
        for k in 0..<40 {
            let again = try await store.findOrCreateDecision(key("v\(k)"), recentSince: nil) { _ in
                Issue.record("v\(k) was decided twice")
                return decision(key("v\(k)"), creative: "wrong")
            }
            #expect(!again.isNew)
            #expect(again.decision.assets.first?.creativeID == "c\(k)")
        }
        #expect(store.rememberedCount == 8)
        #expect(try await store.decisionCount() == 40)
        try await store.close()
    }

    /// A new store on the same file (a restart) gives every viewer the pod decided before, never
    /// calling the decider, and remembers what it read: the second round goes to no writer.
    @Test(.timeLimit(.minutes(1))) func aRestartAnswersTheSamePodsAndRemembersThemOnRead() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/restart.sqlite"
        let first = try SQLiteAdStore(path: path)
        try await first.migrate()
        var before: [DecisionKey: AdDecision] = [:]
        for k in 0..<50 {
            before[key("v\(k)")] = try await first.findOrCreateDecision(key("v\(k)"), recentSince: nil) { _ in
                decision(key("v\(k)"), creative: k.isMultiple(of: 2) ? "red" : "green")
            }.decision
        }
        try await first.close()

        let second = try SQLiteAdStore(path: path)
        try await second.migrate()
        #expect(second.rememberedCount == 0)
        for (key, decided) in before {
            #expect(second.rememberedDecision(for: key) == nil)
            let answer = try await second.findOrCreateDecision(key, recentSince: nil) { _ in
                Issue.record("\(key.viewer) was decided again after the restart")
                return decision(key, creative: "blue")
            }
            #expect(!answer.isNew)
            #expect(answer.decision == decided)
            #expect(second.rememberedDecision(for: key) == decided)
        }
        let requests = second.groupCommitStatistics.requests
        #expect(requests == 50)
        for (key, decided) in before {
            let answer = try await second.findOrCreateDecision(key, recentSince: nil) { _ in
                decision(key, creative: "blue")
            }
            #expect(answer.decision == decided)
        }
        #expect(second.groupCommitStatistics.requests == requests)
        try await second.close()
    }

    /// A batch whose transaction a trigger rolls back answers none of its decisions as decided.
    ///
    /// Decisions queued behind a held write lock share one transaction; one of them fires a trigger
    /// that rolls the whole transaction back. None of that batch is answered as decided, none is in
    /// the file or remembered, and the decision committed before it is kept.
    @Test(.timeLimit(.minutes(1))) func aBatchWhoseTransactionRollsBackAnswersNoneAsDecided() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/rollback.sqlite"
        let store = try SQLiteAdStore(path: path)
        try await store.migrate()
        let blocker = try HeldWriteLock.connection(path)
        try await blocker.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER poison AFTER INSERT ON decision WHEN NEW.viewer = 'poison'
                    BEGIN SELECT RAISE(ROLLBACK, 'poisoned decision'); END;
                    """
            )
        }
        // Another connection holds the write lock until told.
        let lock = try await HeldWriteLock(blocker)

        @Sendable func ask(_ viewer: String) async -> Result<AdDecision, any Error> {
            do {
                return .success(
                    try await store.findOrCreateDecision(key(viewer), recentSince: t0 - MediaTime(seconds: 60)) { _ in
                        decision(key(viewer), creative: "red")
                    }.decision
                )
            } catch {
                return .failure(error)
            }
        }
        let first = Task { await ask("first") }
        let waitStart = ContinuousClock.now
        await waitUntil(within: .seconds(10), checkingEvery: .milliseconds(2)) { store.pendingDecisions >= 1 }
        let viewers = (0..<20).map { "v\($0)" } + ["poison"] + (20..<40).map { "v\($0)" }
        let batch = Task {
            await withTaskGroup(of: (String, Result<AdDecision, any Error>).self) { group in
                for viewer in viewers { group.addTask { (viewer, await ask(viewer)) } }
                var results: [String: Result<AdDecision, any Error>] = [:]
                for await (viewer, result) in group { results[viewer] = result }
                return results
            }
        }
        await waitUntil(within: waitStart + .seconds(10) - ContinuousClock.now, checkingEvery: .milliseconds(2)) {
            store.pendingDecisions >= 1 + viewers.count
        }
        #expect(store.pendingDecisions == 1 + viewers.count)
        try await lock.free()

        if case .failure(let error) = await first.value { Issue.record("the first decision failed: \(error)") }
        let results = await batch.value
        #expect(results.count == viewers.count)
        for (viewer, result) in results {
            if case .success = result { Issue.record("\(viewer) was answered as decided") }
            #expect(try await store.decision(for: key(viewer)) == nil, "\(viewer) is in the file")
            #expect(store.rememberedDecision(for: key(viewer)) == nil, "\(viewer) is remembered")
        }
        if case .failure(let error) = results["v0"] {
            #expect("\(error)".contains("poisoned decision"), "\(error)")
        }
        #expect(try await store.decisionCount() == 1)
        #expect(store.rememberedDecision(for: key("first")) != nil)
        try await store.close()
        try blocker.close()
    }

    /// `NORMAL` unless the database URL asks for `FULL` (anything else there is refused), and
    /// checkpoints run from their own connection as decisions commit.
    @Test(.timeLimit(.minutes(1))) func durabilityIsConfigurableAndCheckpointsRunBeside() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let normal = try SQLiteAdStore(path: folder + "/normal.sqlite")
        try await normal.migrate()
        #expect(try await normal.synchronousLevel() == 1)
        let full = try SQLiteAdStore(path: folder + "/full.sqlite", durability: .full)
        try await full.migrate()
        #expect(try await full.synchronousLevel() == 2)
        try await full.close()

        for round in 0..<3 {
            await withTaskGroup(of: Void.self) { group in
                for k in 0..<300 {
                    let key = key("r\(round)-\(k)-" + String(repeating: "x", count: 100))
                    group.addTask {
                        _ = try? await normal.findOrCreateDecision(key, recentSince: nil) { _ in
                            decision(key, creative: "red")
                        }
                    }
                }
            }
        }
        #expect(try await normal.decisionCount() == 900)
        #expect(normal.checkpointCount > 0)
        // The writer copies nothing itself below 64 MiB of log: what the database file holds while
        // the store is open, the checkpointer copied.
        let size = try FileManager.default.attributesOfItem(atPath: folder + "/normal.sqlite")[.size] as? Int ?? 0
        #expect(size > 100_000, "the database file holds \(size) bytes")
        try await normal.close()

        // Through the server's database URL.
        var configuration = try demoConfiguration(
            clock: ManualWallClock(t0 + 110),
            database: "sqlite:" + folder + "/url.sqlite?synchronous=full"
        )
        try await withServer(configuration) { client in
            let answer = try await client.get("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=u")
            #expect(answer.headers[AssetListController.decisionHeader] == "stored")
        }
        let reopened = try SQLiteAdStore(path: folder + "/url.sqlite")
        #expect(try await reopened.decisionCount() == 1)
        try await reopened.close()
        configuration.database = "sqlite:" + folder + "/url.sqlite?synchronous=sometimes"
        await #expect(throws: ConfigurationError.self) { _ = try await buildApplication(configuration: configuration) }
    }
}

@Suite(.realTime) struct AssetListEventLoopTests {
    /// Asked again, a viewer's asset list is answered on the event loop with the bytes and fields the
    /// router gave the first time (but the date), counted in the route's and the decisions' metrics.
    @Test(.timeLimit(.minutes(1))) func returningViewersGetTheRoutedAnswerFromTheEventLoop() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = try demoConfiguration(
            clock: ManualWallClock(t0 + 110),
            database: "sqlite:" + folder + "/loop.sqlite"
        )
        try await withServer(configuration) { client in
            let url = "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=back"
            let first = try await client.get(url)
            #expect(first.status == .ok)
            #expect(first.headers[AssetListController.decisionHeader] == "stored")
            #expect(try AssetList.decode(first.bytes).assets.count == 2)
            var routed = first.headers
            routed[.date] = nil
            for _ in 0..<3 {
                let again = try await client.get(url + "&_HLS_start_offset=2.5")
                #expect(again.bytes == first.bytes)
                var fields = again.headers
                fields[.date] = nil
                #expect(Set(fields.map { "\($0.name): \($0.value)" }) == Set(routed.map { "\($0.name): \($0.value)" }))
            }
            let metrics = String(decoding: try await client.get("/metrics").bytes, as: UTF8.self)
            let lines = metrics.split(separator: "\n")
            #expect(lines.contains("intermission_event_loop_answers_total 3"), "\(metrics)")
            #expect(lines.contains(#"intermission_decisions_total{scope="vod",result="new"} 1"#))
            #expect(lines.contains(#"intermission_decisions_total{scope="vod",result="stored"} 3"#))
            #expect(
                lines.contains {
                    $0.hasPrefix("intermission_http_requests_total")
                        && $0.contains(#"route="/v1/asset-lists/{scope}/{break}.json""#)
                        && $0.contains(#"method="GET""#) && $0.contains(#"status="200""#) && $0.hasSuffix(" 4")
                },
                "\(metrics)"
            )
            // What the event loop must not answer still gets the router's answer.
            let mismatch = try await client.get(
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=other&_HLS_primary_id=back"
            )
            #expect(mismatch.status == .badRequest)
            let badOffset = try await client.get(url + "&_HLS_start_offset=1e3")
            #expect(badOffset.status == .badRequest)
            let head = try await client.execute(uri: url, method: .head, headers: [:], body: nil) { $0 }
            #expect(head.status == .ok && head.body.readableBytes == 0)
            let after = String(decoding: try await client.get("/metrics").bytes, as: UTF8.self)
            #expect(after.split(separator: "\n").contains("intermission_event_loop_answers_total 3"))
        }
    }

    /// The request targets the event loop takes, and those it leaves to the router.
    @Test func onlyPlainTargetsOfVODBreaksAreTaken() {
        let taken = AssetListAnswers.parse(
            "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=v-1&_HLS_start_offset=0.5&x=y"
        )
        #expect(taken?.asset == "demo" && taken?.breakID == "midroll-1" && taken?.viewer == "v-1")
        let prefix = "/v1/asset-lists/vod-demo/midroll-1.json?"
        let refused = [
            prefix + "_HLS_primary_id=a%20b",
            prefix + "_HLS_primary_id=a+b",
            prefix + "_HLS_primary_id=a&_HLS_primary_id=b",
            prefix + "_HLS_primary_id=",
            prefix + "_HLS_primary_id",
            prefix + "x=1",
            "/v1/asset-lists/vod-demo/midroll-1.json",
            prefix + "_HLS_primary_id=a&_HLS_interstitial_id=other",
            prefix + "_HLS_primary_id=a&_HLS_start_offset=1e3",
            prefix + "_HLS_primary_id=a&_HLS_start_offset=nan",
            prefix + "_HLS_primary_id=a&_HLS_start_offset=3600.5",
            prefix + "_HLS_primary_id=" + String(repeating: "v", count: 201),
            prefix + "_HLS_primary_id=" + String(repeating: "v", count: 100_000),
            prefix + "_HLS_primary_id=a\u{0}",
            "/v1/asset-lists/vod-demo/midroll-1.json/?_HLS_primary_id=a",
            "/v1/asset-lists/vod-demo/../midroll-1.json?_HLS_primary_id=a",
            "/v1/asset-lists/vod-/midroll-1.json?_HLS_primary_id=a",
            "/v1/asset-lists/vod-demo/.json?_HLS_primary_id=a",
            "/v1/asset-lists/vod-demo/midroll-1.m3u8?_HLS_primary_id=a",
        ]
        for target in refused { #expect(AssetListAnswers.parse(target) == nil, "\(target)") }
    }
}
