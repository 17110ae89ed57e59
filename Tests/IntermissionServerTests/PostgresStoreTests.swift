import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Logging
import PostgresNIO
import Testing

@testable import IntermissionPostgres
@testable import IntermissionServer
@testable import IntermissionStore

/// The store kinds the protocol suite runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self.rawValue }

    /// The kinds available here (PostgreSQL only with a test server).
    static var available: [StoreKind] { TestPostgres.available ? [.sqlite, .postgres] : [.sqlite] }

    /// The URL of a new, empty database of this kind.
    func freshURL() async throws -> String {
        switch self {
        case .sqlite: "sqlite:" + (try makeScratchFolder()) + "/store.sqlite"
        case .postgres: try await TestPostgres.freshDatabase()
        }
    }
}

/// Two server instances on one PostgreSQL database, over real HTTP on loopback.
@Suite(.enabled(if: TestPostgres.available), .runningStores, .realTime) struct PostgresInstancesTests {
    private static func configuration(_ url: String, clock: ManualWallClock) throws -> ServerConfiguration {
        try demoConfiguration(clock: clock, database: url)
    }

    /// The paths of an asset list's URIs (the instances differ by port only).
    private static func pod(_ response: TestResponse) -> [String] {
        (response.json?["ASSETS"]?.arrayValue ?? []).compactMap { asset in
            asset["URI"]?.stringValue.flatMap { uri in uri.range(of: "/media/").map { String(uri[$0.lowerBound...]) } }
        }
    }

    @Test(.timeLimit(.minutes(3))) func concurrentRequestsToBothInstancesStoreOneDecision() async throws {
        let url = try await TestPostgres.freshDatabase()
        let clock = ManualWallClock(t0 + 100)
        let viewers = (0..<24).map { "v\($0)" }
        try await withServer(try Self.configuration(url, clock: clock)) { a in
            try await withServer(try Self.configuration(url, clock: clock)) { b in
                let pods = try await withThrowingTaskGroup(of: (String, [String]).self) { group in
                    for viewer in viewers {
                        for client in [a, b] {
                            group.addTask {
                                let response = try await client.get(
                                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=\(viewer)"
                                )
                                #expect(response.status == .ok)
                                return (viewer, Self.pod(response))
                            }
                        }
                    }
                    var byViewer: [String: [[String]]] = [:]
                    for try await (viewer, pod) in group { byViewer[viewer, default: []].append(pod) }
                    return byViewer
                }
                for viewer in viewers {
                    let answers = try #require(pods[viewer])
                    #expect(
                        answers.count == 2 && !answers[0].isEmpty && answers[0] == answers[1],
                        "\(viewer): \(answers)"
                    )
                }
            }
        }
        let store = running(try PostgresAdStore(url: url))
        #expect(try await store.decisionCount() == viewers.count)
        try await store.close()
    }

    /// Beacons are shared: copies of one beacon sent to both instances at once are stored once,
    /// and either instance's report counts all of them.
    @Test(.timeLimit(.minutes(3))) func copiesOfABeaconOnBothInstancesAreStoredOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let clock = ManualWallClock(t0 + 100)
        @Sendable func configuration() throws -> ServerConfiguration {
            var configuration = try Self.configuration(url, clock: clock)
            configuration.tracking = TrackingConfiguration(key: Array("postgres-tracking-key-0123456789ab".utf8))
            configuration.tracking.beacons = true
            return configuration
        }
        try await withServer(try configuration()) { a in
            try await withServer(try configuration()) { b in
                let list = try await a.get(
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=pg-viewer"
                )
                let decoded = try AssetList.decode(list.bytes)
                let signaling = try #require(try decoded.assets.first?.creativeSignaling())
                let url = try #require(
                    signaling.payload.first?.tracking?.first { $0.type == "impression" }?.urls.first
                )
                let path = String(url[try #require(url.range(of: "/v1/track/")).lowerBound...])
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<16 {
                        let client = index.isMultiple(of: 2) ? a : b
                        group.addTask { Int(try await client.get(path).status.code) }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 204, count: 16))
                for client in [a, b] {
                    let report = try await client.admin(.get, "/v1/admin/reports/breaks/vod-demo/midroll-1")
                    #expect(report.json?["beacons"]?.intValue == 1, "\(report.text)")
                    #expect(report.json?["duplicates"]?.intValue == 15, "\(report.text)")
                }
            }
        }
    }

    /// A creative added through instance A's admin API is in instance B's inventory and decisions
    /// without a restart, and one removed through B leaves A: through `NOTIFY` alone and through the
    /// re-read alone.
    @Test(.timeLimit(.minutes(3)), arguments: ["reread=3600", "listen=off&reread=0.2"])
    func inventoryChangesOnOneInstanceReachTheOther(options: String) async throws {
        let url = try await TestPostgres.freshDatabase(options: options)
        let clock = ManualWallClock(t0 + 100)
        @Sendable func ids(_ client: any TestClientProtocol) async throws -> [String] {
            let answer = try await client.admin(.get, "/v1/admin/inventory")
            return (answer.json?["creatives"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        @Sendable func waitUntil(
            _ client: any TestClientProtocol,
            _ predicate: @Sendable ([String]) -> Bool
        ) async throws -> [String] {
            var seen = try await ids(client)
            try await IntermissionTestSupport.waitUntil(within: .seconds(30), checkingEvery: .milliseconds(100)) {
                if predicate(seen) { return true }
                seen = try await ids(client)
                return predicate(seen)
            }
            return seen
        }
        try await withServer(try Self.configuration(url, clock: clock)) { a in
            try await withServer(try Self.configuration(url, clock: clock)) { b in
                #expect(try await ids(b).contains("gold") == false)
                let added = try await a.admin(
                    .post,
                    "/v1/admin/inventory",
                    json: #"{"id": "gold", "uri": "/media/demo/ad-red/main.m3u8", "duration": 10, "value": 1000}"#
                )
                #expect(added.status == .created, "\(added.text)")
                #expect(try await waitUntil(b) { $0.contains("gold") }.contains("gold"))
                // B decides with it: the most valuable creative leads a new viewer's pod.
                let pod = try await b.get(
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=gold-viewer"
                )
                let decision = running(try PostgresAdStore(url: url))
                let stored = try await decision.decision(
                    for: DecisionKey(viewer: "gold-viewer", scope: "vod-demo", breakID: "midroll-1")
                )
                #expect(pod.status == .ok)
                #expect(stored?.assets.first?.creativeID == "gold")
                try await decision.close()
                #expect(try await b.admin(.delete, "/v1/admin/inventory/gold").status.code < 300)
                #expect(try await waitUntil(a) { !$0.contains("gold") }.contains("gold") == false)
            }
        }
    }

    /// An admin break made on instance A shows in instance B's live playlist: through `NOTIFY`
    /// alone (re-read once an hour), and through the re-read alone (no `LISTEN`).
    @Test(.timeLimit(.minutes(3)), arguments: ["reread=3600", "listen=off&reread=0.2"])
    func anAdminBreakOnOneInstanceReachesTheOther(options: String) async throws {
        let url = try await TestPostgres.freshDatabase(options: options)
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try Self.configuration(url, clock: clock)) { a in
            try await withServer(try Self.configuration(url, clock: clock)) { b in
                // B has read (and cached) the channel's breaks before A adds one.
                let before = try await b.get("/live/demo/prog.m3u8")
                #expect(before.status == .ok && !before.text.contains("ID=\"news\""))
                let created = try await a.admin(
                    .post,
                    "/v1/admin/channels/demo/breaks",
                    json: "{\"id\": \"news\", \"startIn\": 4, \"duration\": 30}"
                )
                #expect(created.status == .created)
                // A bounded wait (the clock stands still, so B's cache never expires by itself).
                let seen = try await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(100)) {
                    try await b.get("/live/demo/prog.m3u8").text.contains("ID=\"news\"")
                }
                #expect(seen, "instance B never showed the break made on instance A")
                let line = try #require(
                    dateRangeLines(try await b.get("/live/demo/prog.m3u8").text).first { $0.contains("ID=\"news\"") }
                )
                #expect(line.contains("DURATION=30"))
            }
        }
    }
}

/// Database URLs from outside: every malformed one is refused with a message that says why.
@Suite(.realTime) struct DatabaseURLTests {
    @Test func aFullURLIsRead() throws {
        let url = try PostgresURL(
            parsing: "postgresql://ann:p%40ss%3A@[::1]:6543/ads?pool=5&reread=0.5&listen=off&timeout=2.5"
        )
        #expect(url.timeout == .milliseconds(2500))
        #expect(url.user == "ann" && url.password == "p@ss:" && url.host == "::1" && url.port == 6543)
        #expect(url.database == "ads" && url.poolSize == 5 && url.reread == .milliseconds(500) && !url.listen)
        let plain = try PostgresURL(parsing: "postgres://intermission@127.0.0.1/intermission")
        #expect(plain.port == 5432 && plain.password == nil && plain.poolSize == 20 && plain.listen)
        #expect(plain.relaysGroups)
        #expect(try !PostgresURL(parsing: "postgres://u@h/db?groups=local").relaysGroups)
        #expect(try PostgresURL(parsing: "postgres://u@h/db?groups=relay").relaysGroups)
    }

    /// The group relay's notifications: `GROUP N[ DATA]`, anything else ignored.
    @Test func groupNoticesAreReadOrIgnored() {
        #expect(GroupRelayNotice(payload: "g-1 7") == GroupRelayNotice(group: "g-1", n: 7, data: nil))
        #expect(GroupRelayNotice(payload: #"g 1 {"kind":"join"}"#)?.data == #"{"kind":"join"}"#)
        #expect(GroupRelayNotice(payload: "g 9223372036854775807")?.n == .max)
        for bad in [
            "", "g", "g 0", "g -1", "g 9223372036854775808", "g 99999999999999999999", "g 1e3", "g nan",
            "../x 1", "%2e%2e 1", "g\u{0} 1", " 1", String(repeating: "g", count: 100_000) + " 1",
            "g " + String(repeating: "9", count: 100_000),
        ] {
            #expect(GroupRelayNotice(payload: bad) == nil, "\(bad.prefix(40))")
        }
    }

    @Test(arguments: [
        ("mysql://u@h/db", "unknown scheme"),
        ("http://u@h/db", "unknown scheme"),
        ("postgres://u@h:0/db", "port must be a number from 1 to 65535"),
        ("postgres://u@h:65536/db", "port must be a number from 1 to 65535"),
        ("postgres://u@h:9223372036854775808/db", "port must be a number from 1 to 65535"),
        ("postgres://u@h:-1/db", "port must be a number from 1 to 65535"),
        ("postgres://u@h:/db", "port must be a number from 1 to 65535"),
        ("postgres://u@h:5432/d\u{0}b", "control character"),
        ("postgres://u%00@h/db", "encoded control character"),
        ("postgres://u@h/db%0a", "encoded control character"),
        ("postgres://u@h/db%zz", "bad percent escape"),
        ("postgres://@h/db", "names no user"),
        ("postgres://h/db", "names no user"),
        ("postgres://u@/db", "names no host"),
        ("postgres://u@h", "names no database"),
        ("postgres://u@h/", "one database name"),
        ("postgres://u@h/a/b", "one database name"),
        ("postgres://u@h/db?sslmode=require", "not supported"),
        ("postgres://u@h/db?pool=0", "pool must be"),
        ("postgres://u@h/db?pool=99999999999999999999", "pool must be"),
        ("postgres://u@h/db?reread=nan", "reread must be"),
        ("postgres://u@h/db?reread=1e308", "reread must be"),
        ("postgres://u@h/db?timeout=0", "timeout must be"),
        ("postgres://u@h/db?timeout=601", "timeout must be"),
        ("postgres://u@h/db?timeout=nan", "timeout must be"),
        ("postgres://u@h/db?timeout=-9223372036854775808", "timeout must be"),
        ("postgres://u@h/db?color=red", "unknown option"),
        ("postgres://u@h/db?groups=shared", "groups must be relay or local"),
        ("postgres://u@h/db?journal=", "journal must be a file path"),
        ("postgres://u@h/db?journal=%00j", "encoded control character"),
        ("postgres://u@h/db?journal=/tmp/j%zz", "bad percent escape"),
        ("postgres://u@h/db?journal=/" + String(repeating: "j", count: 5_000), "longer than 4096 bytes"),
        ("postgres://u@h\u{7F}/db", "control character"),
        ("postgres://u@h/" + String(repeating: "d", count: 100_000), "longer than 4096 bytes"),
    ])
    func aBadURLIsRefusedWithAClearError(url: String, reason: String) async throws {
        do {
            _ = running(try await openStore(.url(url)))
            Issue.record("accepted \(url.prefix(80))")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(reason), "\(error.message.prefix(300))")
            #expect(error.message.utf8.count < 400)
        }
    }

    @Test func thePasswordNeverShowsInAnError() async throws {
        do {
            _ = try await openStore(.url("postgres://ann:hunter2@h:0/db"))
            Issue.record("accepted a port of 0")
        } catch let error as ConfigurationError {
            #expect(!error.message.contains("hunter2") && error.message.contains("port"))
        }
        #expect(!URLRedaction.redact("postgres://ann:hunter2@h/db").contains("hunter2"))
    }
}
