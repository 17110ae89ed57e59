import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Testing

/// `intermission group` against `intermission serve --demo`, both the built binary: two headless
/// participants of one group, Alice with the demo's pre-roll and Bob without ads, under the waiting
/// policy.
@Suite(.realTime) struct GroupCommandTests {
    static func lines(_ text: String) -> [[String: String]] {
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aGroupWaitsForOneParticipantsPreRollThenPlaysTogether() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let group = address + "/v1/groups/cli-night"
        let stream = address + "/vod/demo/main.m3u8"
        let alice = try ServeProcess([
            "group", group, stream, "--name", "alice", "--wait-for-interstitials", "--json", "--until", "20",
        ])
        defer { alice.kill() }
        _ = try await alice.firstLog(matching: #""status""#)
        let bob = try ServeProcess([
            "group", group, stream, "--name", "bob", "--no-interstitials", "--play", "--json", "--until", "19",
        ])
        defer { bob.kill() }
        await waitUntil(within: .seconds(40), checkingEvery: .milliseconds(100)) {
            !alice.process.isRunning && !bob.process.isRunning
        }
        #expect(alice.process.terminationStatus == 0, "\(alice.text)")
        #expect(bob.process.terminationStatus == 0, "\(bob.text)")

        let aliceLines = Self.lines(alice.text)
        let bobLines = Self.lines(bob.text)
        let aliceStatuses = aliceLines.compactMap { $0["status"] }
        let bobStatuses = bobLines.compactMap { $0["status"] }
        // Alice plays her pre-roll on her own; Bob waits for her, told why.
        #expect(aliceStatuses.first == "suspended (playingInterstitial)", "\(aliceStatuses)")
        let waiting = bobStatuses.firstIndex { $0.contains("waitingForCoordinatedPlayback: alice") }
        let playing = bobStatuses.lastIndex { $0 == "playing at 1.0" }
        #expect(waiting != nil && playing != nil && waiting! < playing!, "\(bobStatuses)")
        #expect(bobLines.contains { $0["timeControlStatus"] == "waitingToPlayAtSpecifiedRate" })
        // Bob's player says the same, with the reason (it said `paused`), and how long the wait should
        // last: Alice's 10 s pre-roll, less what she has played of it.
        let waitingLines = bobLines.filter { $0["status"]?.contains("waitingForCoordinatedPlayback") == true }
        #expect(
            !waitingLines.isEmpty && waitingLines.allSatisfy { $0["playerStatus"] == "waitingToPlayAtSpecifiedRate" },
            "\(waitingLines)"
        )
        #expect(
            waitingLines.allSatisfy { $0["reasonForWaitingToPlay"] == "waitingForCoordinatedPlayback" },
            "\(waitingLines)"
        )
        let waits = waitingLines.compactMap { $0["expectedWait"].flatMap(Double.init) }
        #expect(!waits.isEmpty && waits.allSatisfy { $0 > 0 && $0 <= 10.5 }, "\(waitingLines)")
        #expect(bobLines.last { $0["event"] == "position" }?["playerStatus"] == "playing", "\(bobLines)")
        // Then both play the primary together: Bob's content did not move while he waited, and at
        // the end each is where the group is.
        let aliceLast = try #require(aliceLines.last { $0["event"] == "position" && $0["groupTime"] != "" })
        let bobLast = try #require(bobLines.last { $0["event"] == "position" && $0["groupTime"] != "" })
        for last in [aliceLast, bobLast] {
            let primary = Double(last["primaryTime"] ?? "") ?? -1
            let groupTime = Double(last["groupTime"] ?? "") ?? -100
            #expect(abs(primary - groupTime) < 0.1, "\(last)")
            #expect(groupTime > 1 && groupTime < 12, "\(last)")
        }
        _ = try await server.terminate()
    }

    /// A stream nobody serves: the participant says so in words and exits 2 at once, as `play`
    /// does (it printed `primaryTime 0.000` each second and exited 0).
    @Test(.timeLimit(.minutes(1)))
    func aStreamThatCannotBeReachedIsSaidInWords() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        // --until 40: an exit before it is the error's, not the limit's.
        let result = try await CLI.run([
            "group", address + "/v1/groups/nowhere", "http://127.0.0.1:1/x.m3u8", "--json", "--until", "40",
        ])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.lowercased().contains("refused"), "\(result.stderr)")
        #expect(result.stderr.contains("127.0.0.1:1"), "\(result.stderr)")
        _ = try await server.terminate()
    }

    /// Group commands from the command line: Bob types `rate 2` and `seek 30` on standard input (a
    /// pipe, carried out once he joins) and asks for a pause 2 s after joining with `--pause 2`; each
    /// is answered, and Alice, who gave no command, follows the group to 30 s and stops soon after.
    @Test(.timeLimit(.minutes(2)))
    func commandsTypedOrTimedReachTheWholeGroup() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let group = address + "/v1/groups/commands"
        let stream = address + "/vod/demo/main.m3u8"
        let alice = try ServeProcess([
            "group", group, stream, "--name", "alice", "--no-interstitials", "--play", "--json", "--until", "60",
        ])
        defer { alice.kill() }
        _ = try await alice.firstLog(matching: #""status""#)
        let bob = try await CLI.run(
            [
                "group", group, stream, "--name", "bob", "--no-interstitials", "--json", "--until", "4", "--pause",
                "2",
            ],
            stdin: Array("rate 2\nhop 3\nseek 30\n".utf8)
        )
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(bob.stderr.contains("'hop 3' is not a command"), "\(bob.stderr)")
        let answers = Self.lines(String(decoding: bob.stdout, as: UTF8.self)).filter { $0["event"] == "command" }
        #expect(answers.map { $0["command"] ?? "" }.sorted() == ["pause", "rate 2.0", "seek 30.0"], "\(answers)")
        #expect(answers.allSatisfy { $0["allowed"] == "true" }, "\(answers)")
        // Alice leaves once she reports the pause (or after 30 s): with `--until 8`, wall seconds
        // from her start, a machine slow to start Bob's process ran her out before his commands
        // came.
        await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(100)) {
            Self.lines(alice.text).last { $0["event"] == "position" }?["playerStatus"] == "paused"
        }
        _ = try await alice.terminate()
        let positions = Self.lines(alice.text).filter { $0["event"] == "position" }
        let last = try #require(positions.last)
        let time = Double(last["groupTime"] ?? "") ?? -1
        // Seeked to 30 s, then paused 2 s after Bob joined (at rate 2: at most 4 s later).
        #expect(time >= 30 && time < 35, "\(last)")
        #expect(last["playerStatus"] == "paused", "\(last)")
        _ = try await server.terminate()
    }

    @Test func badGroupURLsAreRefused() async throws {
        for url in [
            "ftp://h/v1/groups/a", "ws://h/elsewhere", "ws://h/v1/groups/a b", String(repeating: "w", count: 3_000),
        ] {
            let result = try await CLI.run(["group", url, "http://127.0.0.1:1/x.m3u8"])
            #expect(result.status == 64, "\(url.prefix(30)): \(result.stderr)")
            #expect(result.stderr.contains("group URL"))
        }
        let badUntil = try await CLI.run(["group", "ws://h/v1/groups/a", "http://127.0.0.1:1/x.m3u8", "--until", "nan"])
        #expect(badUntil.status == 64)
    }
}
