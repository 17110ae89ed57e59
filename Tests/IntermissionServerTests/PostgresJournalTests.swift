import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionPostgres
@testable import IntermissionServer
@testable import IntermissionStore

/// A PostgreSQL server of the test's own (initdb and pg_ctl of the installed PostgreSQL, as
/// `scripts/postgres-scratch.sh` does), so that the test can stop it mid-run and start it again
/// without touching the server the other suites share.
///
/// Its commands are started by `ChildProcess` (through `runProcess`) and reaped on a thread of
/// their own, never through Foundation's `Process`: under the test runner, `Process` never saw the
/// shell of `pg_ctl start` exit (it stayed a zombie and the test hung until its time limit), and a
/// server that inherits the runner's output pipe keeps the runner waiting for its end.
final class OwnPostgres: Sendable {
    let folder: String
    let port: Int
    private let bin: String
    private let asPostgres: Bool

    /// Makes a cluster in a new folder and starts it.
    init() async throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = try #require(
            versions.compactMap { Int($0) }.max(),
            "PostgreSQL is not installed under /usr/lib/postgresql"
        )
        self.bin = "/usr/lib/postgresql/\(newest)/bin"
        self.folder = try makeScratchFolder()
        self.port = try freePort()
        self.asPostgres = getuid() == 0
        if self.asPostgres { try await Self.shell("chown postgres '\(self.folder)'") }
        try await self.run("'\(self.bin)/initdb' -D '\(self.folder)/data' -U intermission --auth=trust -E UTF8")
        try await self.start()
    }

    /// Stops the server if it runs (not waited for: a deinitializer cannot wait; the child is reaped
    /// on a thread of its own) and removes it.
    deinit {
        let stop = "'\(self.bin)/pg_ctl' -D '\(self.folder)/data' -m immediate -w stop"
        let command = self.asPostgres ? "runuser -u postgres -- \(stop)" : stop
        startUnwaited("/bin/sh", ["-c", "\(command) >/dev/null 2>&1; rm -rf '\(self.folder)'"])
    }

    /// The URL of its `postgres` database with `options`.
    func url(_ options: String) -> String {
        "postgres://intermission@127.0.0.1:\(self.port)/postgres?\(options)"
    }

    func start() async throws {
        try await self.run(
            "'\(self.bin)/pg_ctl' -D '\(self.folder)/data' -l '\(self.folder)/server.log' -w -t 60 -o "
                + "'-p \(self.port) -k \(self.folder) -c listen_addresses=127.0.0.1 -c fsync=off' start"
        )
    }

    /// Stops it as a crash would (`-m immediate`: connections cut, no checkpoint).
    func stop() async throws {
        try await self.run("'\(self.bin)/pg_ctl' -D '\(self.folder)/data' -m immediate -w stop")
    }

    private func run(_ command: String) async throws {
        try await Self.shell(
            self.asPostgres ? "runuser -u postgres -- sh -c \"\(command.replacing("\"", with: "\\\""))\"" : command
        )
    }

    /// Runs `command` with no input and its output discarded (the server `pg_ctl start` leaves
    /// running would keep any pipe it inherits open), waiting for it without blocking the pool.
    private static func shell(_ command: String) async throws {
        let result = try await runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "(\(command)) </dev/null >/dev/null 2>&1"],
            captureOutput: false
        )
        guard !result.signalled, result.status == 0 else {
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: "failed (\(result.status)): \(command)"]
            )
        }
    }
}

/// A TCP port free now on loopback.
private func freePort() throws -> Int {
    let (fd, port) = try boundSocket()
    close(fd)
    return port
}

/// A socket bound to a free port on loopback, and its port.
private func boundSocket() throws -> (Int32, Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "no loopback port"])
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// While PostgreSQL is down, decisions and beacons go to the local journal and are acknowledged;
/// when it is back they are written to it; nothing acknowledged is lost (issue 11).
@Suite(.enabled(if: TestPostgres.available), .serialized, .runningStores, .realTimeLong) struct PostgresJournalTests {
    private static let midroll = "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1"

    /// The creative IDs of an asset list (from its URIs: `/media/demo/ad-{id}/…`).
    private static func pod(_ response: TestResponse) -> [String] {
        (response.json?["ASSETS"]?.arrayValue ?? []).compactMap { asset in
            asset["URI"]?.stringValue.flatMap { uri in
                uri.split(separator: "/").first { $0.hasPrefix("ad-") }.map { String($0.dropFirst(3)) }
            }
        }
    }

    /// The configuration of an instance on `url`, with beacons.
    private static func configuration(_ url: String) throws -> ServerConfiguration {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 100), database: url)
        configuration.tracking = TrackingConfiguration(key: Array("journal-test-key-0123456789abcdef".utf8))
        configuration.tracking.beacons = true
        return configuration
    }

    /// The value of a `/metrics` line that starts with `series` (0 when there is none).
    private static func metric(_ client: any TestClientProtocol, _ series: String) async throws -> Int {
        let text = try await client.get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.dropFirst(series.count + 1)) } ?? 0
    }

    private static func journalSeries(_ kind: String, _ event: String) -> String {
        "intermission_journal_entries_total{kind=\"\(kind)\",event=\"\(event)\"}"
    }

    @Test(.timeLimit(.minutes(5))) func decisionsAndBeaconsMadeWhileTheDatabaseIsDownAreWrittenWhenItIsBack()
        async throws
    {
        let postgres = try await OwnPostgres()
        let journal = postgres.folder + "-journal.jsonl"
        defer { try? FileManager.default.removeItem(atPath: journal) }
        // 15 s: a fresh server on a machine running the whole suite can take seconds to answer the
        // first queries; a request while it is down waits at most this once, then the journal answers.
        let url = postgres.url("timeout=15&reread=0.2&journal=\(journal)")
        let (before, during, beacons) = try await withServer(try Self.configuration(url)) {
            client -> ([String: [String]], [String: [String]], Int) in
            var before: [String: [String]] = [:]
            for k in 0..<5 {
                let answer = try await client.get(Self.midroll + "&_HLS_primary_id=up-\(k)")
                #expect(answer.status == .ok && answer.headers[AssetListController.decisionHeader] == "stored")
                before["up-\(k)"] = Self.pod(answer)
            }
            // The live channel's breaks are read from the database once, then kept.
            #expect(try await client.get("/live/demo/prog.m3u8").status == .ok)
            try await postgres.stop()
            // Down: playlists are served.
            for path in ["/vod/demo/main.m3u8", "/vod/demo/prog.m3u8", "/live/demo/main.m3u8", "/live/demo/prog.m3u8"] {
                let playlist = try await client.get(path)
                #expect(playlist.status == .ok, "\(path): \(playlist.text)")
            }
            // Every new viewer still gets a pod, acknowledged as stored (it is, in the journal).
            var during: [String: [String]] = [:]
            var beaconPaths: [String] = []
            for k in 0..<12 {
                let answer = try await client.get(Self.midroll + "&_HLS_primary_id=down-\(k)")
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(answer.headers[AssetListController.decisionHeader] == "stored")
                let pod = Self.pod(answer)
                #expect(!pod.isEmpty)
                during["down-\(k)"] = pod
                let list = try AssetList.decode(answer.bytes)
                let signaling = try #require(try list.assets.first?.creativeSignaling())
                let impression = try #require(
                    signaling.payload.first?.tracking?.first { $0.type == "impression" }?.urls.first
                )
                beaconPaths.append(String(impression[try #require(impression.range(of: "/v1/track/")).lowerBound...]))
            }
            // Asked again while down: the same pod.
            let again = try await client.get(Self.midroll + "&_HLS_primary_id=down-3")
            #expect(Self.pod(again) == during["down-3"])
            for path in beaconPaths { #expect(try await client.get(path).status == .noContent) }
            // Everything acknowledged is in the journal file, one line each, and counted.
            let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == during.count + beaconPaths.count)
            #expect(try await Self.metric(client, Self.journalSeries("decision", "journaled")) == during.count)
            #expect(try await Self.metric(client, Self.journalSeries("beacon", "journaled")) == beaconPaths.count)

            try await postgres.start()
            // The journal's writer catches up (bounded wait: it retries at most 5 s apart).
            var size = -1
            await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(100)) {
                size = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? -1
                guard size == 0 else { return false }
                // The replayed entries are counted just after the file is emptied.
                let decisions = try? await Self.metric(client, Self.journalSeries("decision", "replayed"))
                let beacons = try? await Self.metric(client, Self.journalSeries("beacon", "replayed"))
                return decisions == during.count && beacons == beaconPaths.count
            }
            #expect(size == 0, "the journal was never written to PostgreSQL")
            #expect(try await Self.metric(client, Self.journalSeries("decision", "replayed")) == during.count)
            #expect(try await Self.metric(client, Self.journalSeries("beacon", "replayed")) == beaconPaths.count)
            // Back to the database: a new viewer's decision is stored there, not journaled.
            let later = try await client.get(Self.midroll + "&_HLS_primary_id=later")
            #expect(later.headers[AssetListController.decisionHeader] == "stored")
            #expect(try await Self.metric(client, Self.journalSeries("decision", "journaled")) == during.count)
            #expect(size == 0 && (try? String(contentsOfFile: journal, encoding: .utf8)) == "")
            return (before, during, beaconPaths.count)
        }
        // A second instance on the database, without a journal: every acknowledged decision is
        // there, answered as stored (none decided anew), and every beacon.
        let viewers = before.merging(during) { a, _ in a }
        try await withServer(try Self.configuration(postgres.url("timeout=10"))) { client in
            for (viewer, pod) in viewers {
                let answer = try await client.get(Self.midroll + "&_HLS_primary_id=\(viewer)")
                #expect(answer.status == .ok)
                #expect(answer.headers[AssetListController.decisionHeader] == "stored")
                #expect(Self.pod(answer) == pod, "\(viewer)")
            }
            #expect(
                try await Self.metric(client, #"intermission_decisions_total{scope="vod",result="stored"}"#)
                    == viewers.count
            )
            #expect(try await Self.metric(client, #"intermission_decisions_total{scope="vod",result="new"}"#) == 0)
        }
        let store = running(try PostgresAdStore(url: postgres.url("timeout=10")))
        #expect(try await store.decisionCount() == viewers.count + 1)
        let counts = try await store.beaconCounts(.breakOf(scope: "vod-demo", breakID: "midroll-1"))
        #expect(counts.filter { $0.event == .impression }.reduce(0) { $0 + $1.beacons } == beacons)
        #expect(counts.reduce(0) { $0 + $1.duplicates } == 0)
        try await store.close()
    }

    /// A database that takes connections and never answers (a network cut, a stopped host): the
    /// request is answered from the journal at its deadline, and the store closes.
    @Test(.timeLimit(.minutes(2))) func aDatabaseThatNeverAnswersIsGivenUpAtTheDeadline() async throws {
        let (silent, port) = try boundSocket()
        defer { close(silent) }
        #expect(listen(silent, 16) == 0)
        let journal = try makeScratchFolder() + "/journal.jsonl"
        let store = try PostgresAdStore(
            url: "postgres://intermission@127.0.0.1:\(port)/postgres?timeout=1&journal=\(journal)"
        )
        running(store)
        let key = DecisionKey(viewer: "cut", scope: "vod-movie", breakID: "b")
        let made = try await store.findOrCreateDecision(key, recentSince: nil) { _ in
            decision(key, creative: "red")
        }
        #expect(made.isNew)
        // Asked again (through the database's path): the journaled one, without waiting for it.
        #expect(try await store.decision(for: key)?.assets.first?.creativeID == "red")
        try await store.close()
        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
    }

    /// Entries left in the journal by a process that stopped before the database came back are
    /// written by the next one on the same journal; a second process on a journal in use is refused.
    @Test(.timeLimit(.minutes(5))) func aJournalLeftBehindIsWrittenAtTheNextStart() async throws {
        let postgres = try await OwnPostgres()
        let journal = postgres.folder + "-journal.jsonl"
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let url = postgres.url("timeout=15&reread=0.2&journal=\(journal)")
        let first = running(try PostgresAdStore(url: url))
        try await first.migrate()
        // Its lock keeps a second store off the journal.
        #expect(throws: ConfigurationError.self) { _ = try PostgresAdStore(url: url) }
        try await postgres.stop()
        let keys = (0..<4).map { DecisionKey(viewer: "left-\($0)", scope: "vod-movie", breakID: "b") }
        for key in keys {
            let made = try await first.findOrCreateDecision(key, recentSince: nil) { _ in
                decision(key, creative: "red")
            }
            #expect(made.isNew)
        }
        try await first.close()
        try await postgres.start()
        let second = running(try PostgresAdStore(url: url))
        try await second.migrate()
        var count = 0
        await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(100)) {
            count = (try? await second.decisionCount()) ?? 0
            return count >= keys.count
        }
        #expect(count == keys.count)
        for key in keys { #expect(try await second.decision(for: key)?.assets.first?.creativeID == "red") }
        try await second.close()
    }
}
