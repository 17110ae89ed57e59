import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the killed server acknowledged: pods answered `200` with `X-Intermission-Decision: stored`
/// and beacons answered `204`.
struct Acknowledged: Sendable {
    /// Each acknowledged viewer's pod (entries as `pod(_:base:)` writes them).
    var pods: [String: [String]] = [:]
    /// Each acknowledged beacon: its URL path from `/v1/track/` and its `creative event` line.
    var beacons: [(path: String, line: String)] = []
    /// Beacon requests sent, answered or not.
    var beaconsSent = 0

    mutating func add(_ other: Self) {
        self.pods.merge(other.pods) { first, _ in first }
        self.beacons += other.beacons
        self.beaconsSent += other.beaconsSent
    }
}

/// How many pods and beacons the load's clients have had acknowledged so far.
actor LoadProgress {
    private var pods = 0
    private var beacons = 0

    func add(pods: Int = 0, beacons: Int = 0) {
        self.pods += pods
        self.beacons += beacons
    }

    /// Whether both counts are at least `count`.
    func reached(_ count: Int) -> Bool { self.pods >= count && self.beacons >= count }
}

/// A PostgreSQL database of its own on the test server (`INTERMISSION_TEST_POSTGRES_URL`, which
/// `scripts/postgres-scratch.sh` exports), made with `psql`.
private enum CrashPostgres {
    static let url = ProcessInfo.processInfo.environment["INTERMISSION_TEST_POSTGRES_URL"]

    /// A new empty database; its URL.
    static func freshDatabase() async throws -> String {
        let url = try #require(Self.url)
        let name = "intermission_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE DATABASE \(name)"],
            timeout: .seconds(60)
        )
        try #require(result.status == 0, "psql: \(String(decoding: result.stderr, as: UTF8.self))")
        let slash = try #require(url.lastIndex(of: "/"))
        // A long request timeout: the first requests wait for connections on a busy machine.
        return String(url[..<slash]) + "/\(name)?timeout=120"
    }
}

/// SIGKILL under load: every decision and every beacon the server acknowledged is in the database
/// when it starts again, and is found there (the same pod, not decided anew; the beacon counted).
@Suite(.timeLimit(.minutes(5)), .realTime)
struct ServeCrashCommandTests {
    static let adminToken = "crash-admin-token"
    static let midroll = "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id="

    @Test func everyAcknowledgedDecisionAndBeaconIsBackAfterSIGKILLOnSQLite() async throws {
        let folder = try ServeProcess.scratchFolder("crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.killAndRestart(
            database: "sqlite:" + folder.appendingPathComponent("decisions.sqlite").path,
            folder: folder
        )
    }

    @Test(.enabled(if: CrashPostgres.url != nil))
    func everyAcknowledgedDecisionAndBeaconIsBackAfterSIGKILLOnPostgreSQL() async throws {
        let folder = try ServeProcess.scratchFolder("crash-pg")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.killAndRestart(database: try await CrashPostgres.freshDatabase(), folder: folder)
    }

    /// Loads a server on `database` with new viewers and their beacons, kills it with SIGKILL,
    /// starts it again on the same database and checks what the first one acknowledged.
    static func killAndRestart(database: String, folder: URL) async throws {
        let config = folder.appendingPathComponent("serve.yaml")
        let yaml = """
            server:
              adminToken: \(Self.adminToken)
            tracking:
              key: "crash-test-tracking-key-0123456789"
              beacons: true
            """
        try Data(yaml.utf8).write(to: config)
        let arguments = ["serve", "--config", config.path, "--demo", "--port", "0", "--database", database]
        let pattern = #"http://127\.0\.0\.1:[0-9]+/vod/demo/main\.m3u8"#

        let first = try ServeProcess(arguments)
        defer { first.kill() }
        let firstURL = try #require(try await first.firstLog(matching: pattern), "no URL in the log: \(first.text)")
        let base = String(firstURL.dropLast("/vod/demo/main.m3u8".count))
        let pid = first.process.processIdentifier
        // Eight clients ask for new viewers' pods and send each pod's impression and start beacons
        // as fast as they can; the server is killed while they do, once they have had 40
        // acknowledged pods and beacons (a busy machine may need far longer for that).
        let progress = LoadProgress()
        let acknowledged = await withTaskGroup(of: Acknowledged.self) { group in
            for worker in 0..<8 {
                group.addTask { await Self.load(base: base, worker: worker, progress: progress) }
            }
            group.addTask {
                await waitUntil(within: .seconds(90), checkingEvery: .milliseconds(50)) { await progress.reached(40) }
                kill(pid, SIGKILL)
                return Acknowledged()
            }
            var all = Acknowledged()
            for await part in group { all.add(part) }
            return all
        }
        await waitForExit(first.process)
        #expect(first.process.terminationReason == .uncaughtSignal)
        #expect(acknowledged.pods.count > 20, "too few decisions before the kill to mean anything")
        #expect(acknowledged.beacons.count > 20, "too few beacons before the kill to mean anything")

        // Again on the same database: every acknowledged viewer gets the same pod, found stored.
        let second = try ServeProcess(arguments)
        defer { second.kill() }
        let secondURL = try #require(try await second.firstLog(matching: pattern), "no URL after the restart")
        let again = String(secondURL.dropLast("/vod/demo/main.m3u8".count))
        var lost: [String] = []
        for (viewer, pod) in acknowledged.pods.sorted(by: { $0.key < $1.key }) {
            let url = try #require(URL(string: again + Self.midroll + viewer))
            let (data, response) = try await URLSession.shared.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            let answered = Self.pod(data, base: again)?.entries
            if http.statusCode != 200 || http.value(forHTTPHeaderField: "X-Intermission-Decision") != "stored"
                || answered != pod
            {
                lost.append("\(viewer): \(http.statusCode) \(answered ?? []) != \(pod)")
            }
        }
        #expect(lost.isEmpty, "\(lost.count) of \(acknowledged.pods.count) decisions changed: \(lost.prefix(5))")
        let (metrics, _) = try await URLSession.shared.data(from: try #require(URL(string: again + "/metrics")))
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(
            text.contains(#"intermission_decisions_total{scope="vod",result="stored"} \#(acknowledged.pods.count)"#),
            "\(text)"
        )
        #expect(
            !text.contains(#"intermission_decisions_total{scope="vod",result="new"}"#),
            "a decision acknowledged before the kill was decided anew"
        )

        // The report counts at least every acknowledged beacon, and no more than were sent.
        var request = URLRequest(url: try #require(URL(string: again + "/v1/admin/reports/breaks/vod-demo/midroll-1")))
        request.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        let (reportData, reportResponse) = try await URLSession.shared.data(for: request)
        #expect((reportResponse as? HTTPURLResponse)?.statusCode == 200)
        let report = try #require(try JSONSerialization.jsonObject(with: reportData) as? [String: Any])
        var counted: [String: Int] = [:]
        for line in report["lines"] as? [[String: Any]] ?? [] {
            let key = "\(line["creativeID"] as? String ?? "?") \(line["event"] as? String ?? "?")"
            counted[key, default: 0] += line["beacons"] as? Int ?? 0
        }
        let expected = Dictionary(acknowledged.beacons.map { ($0.line, 1) }, uniquingKeysWith: +)
        for (key, count) in expected {
            #expect((counted[key] ?? 0) >= count, "\(key): \(counted[key] ?? 0) counted, \(count) acknowledged")
        }
        let total = report["beacons"] as? Int ?? -1
        #expect(total >= acknowledged.beacons.count && total <= acknowledged.beaconsSent, "\(total)")
        // Each acknowledged beacon is a row of its own: sent again, it is a duplicate.
        var missing: [String] = []
        for beacon in acknowledged.beacons {
            let url = try #require(URL(string: again + beacon.path))
            let (_, response) = try await URLSession.shared.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            let duplicates = http.value(forHTTPHeaderField: "X-Intermission-Duplicates")
            if http.statusCode != 204 || duplicates == nil || duplicates == "0" {
                missing.append("\(beacon.line) \(http.statusCode) \(duplicates ?? "-")")
            }
        }
        #expect(missing.isEmpty, "\(missing.count) acknowledged beacons lost: \(missing.prefix(5))")
        _ = try await second.terminate()
    }

    /// One client of the load: new viewers one after another, each pod's beacons after it, until a
    /// request fails (the server is gone) or 100,000 viewers.
    static func load(base: String, worker: Int, progress: LoadProgress) async -> Acknowledged {
        var acknowledged = Acknowledged()
        for k in 0..<100_000 {
            let viewer = "w\(worker)-\(k)"
            guard
                let url = URL(string: base + Self.midroll + viewer),
                let (data, response) = try? await URLSession.shared.data(from: url),
                let http = response as? HTTPURLResponse
            else { break }
            guard http.statusCode == 200, http.value(forHTTPHeaderField: "X-Intermission-Decision") == "stored",
                let pod = Self.pod(data, base: base)
            else { continue }
            acknowledged.pods[viewer] = pod.entries
            await progress.add(pods: 1)
            for beacon in pod.beacons {
                // Root-relative unless `publicBaseURL` is set (it is not here).
                guard let start = beacon.url.range(of: "/v1/track/") else { continue }
                let path = String(beacon.url[start.lowerBound...])
                guard let url = URL(string: base + path) else { continue }
                acknowledged.beaconsSent += 1
                guard let (_, response) = try? await URLSession.shared.data(from: url) else { return acknowledged }
                if (response as? HTTPURLResponse)?.statusCode == 204 {
                    acknowledged.beacons.append((path, beacon.line))
                    await progress.add(beacons: 1)
                }
            }
        }
        return acknowledged
    }

    /// An asset list's entries (`URI` without `base`, and `DURATION`) and the impression and start
    /// beacon URLs of each (with their `creative event` line); `nil` when it is not an asset list.
    static func pod(_ data: Data, base: String) -> (entries: [String], beacons: [(url: String, line: String)])? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let assets = object["ASSETS"] as? [[String: Any]]
        else { return nil }
        var entries: [String] = []
        var beacons: [(url: String, line: String)] = []
        for asset in assets {
            let uri = (asset["URI"] as? String ?? "?").replacingOccurrences(of: base, with: "")
            entries.append("\(uri) \(asset["DURATION"] as? Double ?? -1)")
            let signaling = asset["X-AD-CREATIVE-SIGNALING"] as? [String: Any]
            let slot = (signaling?["payload"] as? [[String: Any]])?.first
            let creative = (slot?["identifiers"] as? [[String: Any]])?.first?["value"] as? String ?? "?"
            for tracking in slot?["tracking"] as? [[String: Any]] ?? [] {
                guard let event = tracking["type"] as? String, event == "impression" || event == "start",
                    let url = (tracking["urls"] as? [String])?.first
                else { continue }
                beacons.append((url, "\(creative) \(event)"))
            }
        }
        return (entries, beacons)
    }
}
