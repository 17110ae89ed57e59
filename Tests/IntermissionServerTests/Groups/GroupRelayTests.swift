import Foundation
import GroupCoordination
import GroupPlayback
import HLSPlaylist
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// Several `intermission serve` instances on one PostgreSQL database share their groups: each
/// participant is connected to an instance of its own, and a command given on one reaches the
/// participants on the others (`LISTEN/NOTIFY`, inputs numbered per group in the database).
///
/// Needs the PostgreSQL server of `.ci/run` (`INTERMISSION_TEST_POSTGRES_URL`); skipped without it
/// unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite(.serialized, .realTimeAlone) struct GroupRelayTests {
    static let postgres = ProcessInfo.processInfo.environment["INTERMISSION_TEST_POSTGRES_URL"]
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    /// A new database on the test server (made with `psql`); its URL.
    static func freshDatabase() async throws -> String {
        let base = try #require(Self.postgres, "INTERMISSION_TEST_POSTGRES_URL is required (.ci/run sets it)")
        let name = "intermission_groups_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let made = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", base, "-c", "CREATE DATABASE \(name)"],
            timeout: .seconds(60)
        )
        #expect(made.status == 0, "\(String(decoding: made.stderr, as: UTF8.self))")
        let server = base[..<(base.lastIndex(of: "/") ?? base.endIndex)]
        return "\(server)/\(name)?timeout=60"
    }

    /// A fresh database and a scratch folder with the 30 s show.
    static func databaseAndShow() async throws -> (String, GroupOverLoopbackTests.Media) {
        let database = try await Self.freshDatabase()
        let media = try GroupOverLoopbackTests.Media()
        try media.segments("p", count: 30)
        try media.vod("show.m3u8", seconds: 30)
        return (database, media)
    }

    /// An instance of the server on `database`, serving `media` under `/media/group/`.
    static func configuration(media: GroupOverLoopbackTests.Media, database: String) -> ServerConfiguration {
        var configuration = GroupOverLoopbackTests.configuration(media: media)
        configuration.database = database
        return configuration
    }

    /// A participant who plays the show from, and joins the group through, the instance on `port`.
    static func participant(_ name: String, port: Int) -> (Player, PlaybackCoordinator) {
        GroupOverLoopbackTests.participant(
            name,
            stream: "http://127.0.0.1:\(port)/media/group/show.m3u8",
            group: "ws://127.0.0.1:\(port)/v1/groups/relayed"
        )
    }

    @Test(.enabled(if: GroupRelayTests.postgres != nil || GroupRelayTests.required), .timeLimit(.minutes(2)))
    func participantsOnDifferentInstancesPlayPauseAndJoinTogether() async throws {
        let (database, media) = try await Self.databaseAndShow()
        defer { media.remove() }
        let a = try await buildApplication(configuration: Self.configuration(media: media, database: database))
        let b = try await buildApplication(configuration: Self.configuration(media: media, database: database))
        try await a.test(.live) { clientA in
            try await b.test(.live) { clientB in
                let portA = try #require(clientA.port)
                let portB = try #require(clientB.port)
                let (alicePlayer, alice) = Self.participant("alice", port: portA)
                let (bobPlayer, bob) = Self.participant("bob", port: portB)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await alicePlayer.run(until: MediaTime(seconds: 60)) }
                    group.addTask { try await bobPlayer.run(until: MediaTime(seconds: 60)) }
                    group.addTask { try await alice.run() }
                    try await GroupOverLoopbackTests.joined(alice)
                    group.addTask { try await bob.run() }
                    try await GroupOverLoopbackTests.joined(bob)

                    // Alice, on instance A, says play: Bob, on instance B, plays too, in step.
                    await alice.play()
                    let players = [alicePlayer, bobPlayer]
                    var positions = try await GroupOverLoopbackTests.positions(of: players)
                    // Sampled until both are past 2 s and a sample finds them within 50 ms: one
                    // player's step, delayed by a machine starved of CPU, has shown a single
                    // sample 62 ms apart, while players that drift apart stay apart.
                    try await waitUntil(within: .seconds(20)) {
                        positions = try await GroupOverLoopbackTests.positions(of: players)
                        return !positions.contains(where: { $0 < MediaTime(seconds: 2) })
                            && positions.max()! - positions.min()! <= MediaTime(milliseconds: 50)
                    }
                    #expect(positions.allSatisfy { $0 >= MediaTime(seconds: 2) }, "\(positions)")
                    #expect(positions.max()! - positions.min()! <= MediaTime(milliseconds: 50), "\(positions)")

                    // Bob, on B, pauses: Alice, on A, stops where he did.
                    await bob.pause()
                    func rates() async -> [Double] { [await alicePlayer.rate, await bobPlayer.rate] }
                    await waitUntil(within: .seconds(10)) { await rates() == [0, 0] }
                    #expect(await rates() == [0, 0])
                    // A while paused: one more clock probe of each (every 2 s).
                    try await GroupOverLoopbackTests.letProbe([alice, bob], 1)
                    let held = try await GroupOverLoopbackTests.positions(of: players)
                    #expect(held.max()! - held.min()! <= MediaTime(milliseconds: 50), "\(held)")

                    // An instance started after the group began learns it from the database: Carol
                    // joins through it, paused where the others are; then everyone plays.
                    let c = try await buildApplication(
                        configuration: Self.configuration(media: media, database: database)
                    )
                    try await c.test(.live) { clientC in
                        let (carolPlayer, carol) = Self.participant("carol", port: try #require(clientC.port))
                        try await withThrowingTaskGroup(of: Void.self) { late in
                            late.addTask { try await carolPlayer.run(until: MediaTime(seconds: 60)) }
                            late.addTask { try await carol.run() }
                            try await GroupOverLoopbackTests.joined(carol)
                            let carolTime = try #require(await carol.groupTime)
                            #expect(
                                (carolTime - held[0]).magnitude <= MediaTime(milliseconds: 50),
                                "\(carolTime) \(held)"
                            )
                            await carol.play()
                            let everyone = [alicePlayer, bobPlayer, carolPlayer]
                            var all = try await GroupOverLoopbackTests.positions(of: everyone)
                            try await waitUntil(within: .seconds(20)) {
                                all = try await GroupOverLoopbackTests.positions(of: everyone)
                                return !all.contains(where: { $0 < held[0] + MediaTime(seconds: 1) })
                            }
                            #expect(all.allSatisfy { $0 >= held[0] + MediaTime(seconds: 1) }, "\(all)")
                            #expect(all.max()! - all.min()! <= MediaTime(milliseconds: 50), "\(all)")
                            late.cancelAll()
                        }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    /// A participant whose instance dies (killed: no leave is sent) is taken out of the group by
    /// the instances still alive, once its instance has been silent for the limit.
    ///
    /// The dead
    /// instance is played by the database: a join from an instance that never says it is alive.
    @Test(.enabled(if: GroupRelayTests.postgres != nil || GroupRelayTests.required), .timeLimit(.minutes(2)))
    func aParticipantOfAnInstanceThatDiedLeavesTheGroup() async throws {
        let (database, media) = try await Self.databaseAndShow()
        defer { media.remove() }
        let a = try await buildApplication(configuration: Self.configuration(media: media, database: database))
        try await a.test(.live) { client in
            let (player, alice) = Self.participant("alice", port: try #require(client.port))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await player.run(until: MediaTime(seconds: 60)) }
                group.addTask { try await alice.run() }
                try #require(await waitUntil { await alice.groupParticipants == ["alice"] }, "alice never joined")
                // The ghost joins through an instance that then dies: its input is in the database.
                let hello = GroupMessage.hello(
                    participantID: "ghost",
                    description: ParticipantDescription(isLive: false, itemDuration: MediaTime(seconds: 30)),
                    policy: GroupPolicy()
                )
                let message = String(decoding: try JSONEncoder().encode(hello), as: UTF8.self)
                let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
                let input =
                    #"{"kind":"join","participant":"ghost","at":\#(now),"instance":"dead-instance","nonce":1,"message":\#(message)}"#
                let quoted = input.replacingOccurrences(of: "'", with: "''")
                let sql = """
                    WITH h AS (UPDATE group_head SET n = n + 1 WHERE group_id = 'relayed' RETURNING n),
                    i AS (INSERT INTO group_input (group_id, n, data) SELECT 'relayed', n, '\(quoted)' FROM h RETURNING n)
                    SELECT pg_notify('intermission_groups', 'relayed ' || n) FROM i
                    """
                let inserted = try await runProcess(
                    URL(fileURLWithPath: "/usr/bin/env"),
                    ["psql", "-q", "-v", "ON_ERROR_STOP=1", String(database.prefix { $0 != "?" }), "-c", sql],
                    timeout: .seconds(30)
                )
                #expect(inserted.status == 0, "\(String(decoding: inserted.stderr, as: UTF8.self))")
                await waitUntil(within: .seconds(10)) { await alice.groupParticipants == ["alice", "ghost"] }
                #expect(await alice.groupParticipants == ["alice", "ghost"])
                let seen = ContinuousClock.now
                // Silent for 10 s (and checked every 2 s): out of the group, and only then.
                await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(50)) {
                    await alice.groupParticipants == ["alice"]
                }
                let waited = ContinuousClock.now - seen
                #expect(await alice.groupParticipants == ["alice"])
                #expect(waited >= .seconds(9) && waited <= .seconds(25), "\(waited)")
                group.cancelAll()
            }
        }
    }

    /// A socket that floods a relayed group is held to its rate before the database: its refused
    /// messages are not stored, and it is closed once it keeps on.
    @Test(.enabled(if: GroupRelayTests.postgres != nil || GroupRelayTests.required), .timeLimit(.minutes(1)))
    func aFloodIsNotWrittenToTheDatabase() async throws {
        let (database, media) = try await Self.databaseAndShow()
        defer { media.remove() }
        var configuration = Self.configuration(media: media, database: database)
        configuration.groupLimits.messagesPerSecond = 1
        configuration.groupLimits.messageBurst = 10
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let url = "ws://127.0.0.1:\(try #require(client.port))/v1/groups/flooded"
            // One participant stays, so the group and its inputs are kept.
            let stays = ClientSocket(url)
            stays.send(GroupSocketLimitTests.hello("stays"))
            #expect(await stays.waitFor(within: .seconds(10)) { $0.contains { $0.contains("welcome") } } != nil)
            let flood = ClientSocket(url)
            flood.send(GroupSocketLimitTests.hello("flood"))
            for _ in 0..<300 { flood.send(#"{"type":"command","command":"pause"}"#) }
            #expect(await flood.waitUntilFinished(within: .seconds(20)))
            let counted = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "psql", "-tA", "-v", "ON_ERROR_STOP=1", String(database.prefix { $0 != "?" }), "-c",
                    "SELECT count(*) FROM group_input WHERE group_id = 'flooded'",
                ],
                timeout: .seconds(30)
            )
            let rows = Int(
                String(decoding: counted.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            )
            // Two joins, the burst of the flood (its hello included) and a few refills, a leave.
            #expect(rows != nil && rows! <= 20, "\(String(describing: rows)) rows")
            stays.close()
        }
    }
}
