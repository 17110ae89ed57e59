import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Testing

/// `intermission cast` handing the demo stream of `intermission serve --demo` to `intermission
/// receiver`, all three the built binary.
@Suite(.realTime) struct CastCommandTests {
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func castHandsOverPlanBAndPrintsTheReceiversEvents() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let receiver = try ServeProcess([
            "receiver", "--port", "0", "--json", "--profile", "Examples/receiver-low-end.json",
        ])
        defer { receiver.kill() }
        let (receiverURL, token) = try await Self.listening(receiver)
        let cast = try ServeProcess([
            "cast", address + "/vod/demo/main.m3u8", "--to", receiverURL, "--token", token, "--plan", "B",
            "--position", "54",
            "--seek", "57", "--json", "--until", "60",
        ])
        defer { cast.kill() }
        await waitForExit(cast.process, within: .seconds(60))
        #expect(cast.process.terminationStatus == 0, "\(cast.text)")
        let events = Self.objects(cast.text)
        let kinds = events.compactMap { $0["kind"] as? String }
        #expect(kinds.first == "session", "\(kinds)")
        #expect(kinds.last == "ended", "\(kinds)")
        #expect(!kinds.contains("interstitialStarted"), "\(kinds)")
        let reply = try #require(events.compactMap { $0["reply"] as? [String: Any] }.first, "\(cast.text)")
        #expect(reply["command"] as? String == "seek")
        #expect(reply["allowed"] as? Bool == true)
        // The receiver printed the same session.
        #expect(receiver.text.contains(#""message":"plan B; playlist interstitials off""#), "\(receiver.text)")
        _ = try await receiver.terminate()
        _ = try await server.terminate()
    }

    /// The URL and the pairing token a receiver started with `--json` printed.
    static func listening(_ receiver: ServeProcess) async throws -> (url: String, token: String) {
        let line = try #require(try await receiver.firstLog(matching: #"\{"event":"listening"[^\n]*\}"#))
        let fields = try #require(Self.objects(line).first)
        return (try #require(fields["url"] as? String), try #require(fields["token"] as? String))
    }

    /// A receiver refuses a cast without its token or with a wrong one; the token given with
    /// `--token` to the receiver and through the environment to `cast` pairs them.
    @Test(.timeLimit(.minutes(1)))
    func castPairsWithTheReceiversToken() async throws {
        let token = "pairing-token-for-the-cast-test"
        let receiver = try ServeProcess(["receiver", "--port", "0", "--json", "--token", token])
        defer { receiver.kill() }
        let (url, printed) = try await Self.listening(receiver)
        #expect(printed == token)
        let stream = "http://127.0.0.1:1/x.m3u8"
        let missing = try await CLI.run(
            ["cast", stream, "--to", url],
            environment: ["INTERMISSION_RECEIVER_TOKEN": ""]
        )
        #expect(missing.status == 2 && missing.stderr.contains("unauthorized"), "\(missing.stderr)")
        let wrong = try await CLI.run(["cast", stream, "--to", url, "--token", String(token.reversed())])
        #expect(wrong.status == 2 && wrong.stderr.contains("unauthorized"), "\(wrong.stderr)")
        #expect(!receiver.text.contains(#""kind":"session""#), "\(receiver.text)")
        // Paired: the receiver takes the session (nothing listens at the stream URL, so it
        // cannot play it; the cast stops after 2 s).
        let paired = try await CLI.run(
            ["cast", stream, "--to", url, "--json", "--until", "2"],
            environment: ["INTERMISSION_RECEIVER_TOKEN": token]
        )
        let kinds = Self.objects(String(decoding: paired.stdout, as: UTF8.self)).compactMap { $0["kind"] as? String }
        #expect(kinds.first == "session", "\(kinds) \(paired.stderr)")
        #expect([0, 1].contains(paired.status), "\(paired.stderr)")
        #expect(receiver.text.contains(#""kind":"session""#), "\(receiver.text)")
        // A receiver refuses a token too short to pair with.
        let short = try await CLI.run(["receiver", "--port", "0", "--token", "1234"])
        #expect(short.status == 64 && short.stderr.contains("--token"), "\(short.stderr)")
        _ = try await receiver.terminate()
    }

    /// A stream nobody serves: the receiver's player is refused at once and `cast` says so, in words,
    /// on standard error, with status 1 (it used to say "timeout" after 15 s).
    @Test(.timeLimit(.minutes(1)))
    func aStreamTheReceiverCannotReachIsSaidInWords() async throws {
        let token = "pairing-token-for-the-unreachable-test"
        let receiver = try ServeProcess(["receiver", "--port", "0", "--json", "--token", token])
        defer { receiver.kill() }
        let (url, _) = try await Self.listening(receiver)
        // --until 40: an exit before it is the error's, not the limit's.
        let cast = try await CLI.run([
            "cast", "http://127.0.0.1:1/x.m3u8", "--to", url, "--token", token, "--until", "40",
        ])
        #expect(cast.status == 1, "\(cast.stderr)")
        #expect(cast.stderr.contains("the receiver cannot play the stream"), "\(cast.stderr)")
        #expect(cast.stderr.lowercased().contains("refused"), "\(cast.stderr)")
        #expect(
            !cast.stderr.lowercased().contains("timeout") && !cast.stderr.lowercased().contains("timed out"),
            "\(cast.stderr)"
        )
        _ = try await receiver.terminate()
    }

    /// Two senders, one receiver: the second sender sees only its own session's events (it was
    /// shown the first session's schedule and ad), and the first is told it was replaced (exit 3).
    @Test(.timeLimit(.minutes(2)))
    func aSecondCastReplacesTheFirstAndEachSeesOnlyItsOwnSession() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let token = "pairing-token-for-the-two-senders"
        let receiver = try ServeProcess(["receiver", "--port", "0", "--json", "--token", token])
        defer { receiver.kill() }
        let (url, _) = try await Self.listening(receiver)
        let first = try ServeProcess([
            "cast", address + "/vod/demo/main.m3u8", "--to", url, "--token", token, "--json", "--until", "60",
        ])
        defer { first.kill() }
        // The first session's pre-roll is under way.
        _ = try await first.firstLog(matching: #""kind":"interstitialStarted""#)
        let second = try await CLI.run([
            "cast", address + "/vod/podcast/main.m3u8", "--to", url, "--token", token, "--plan", "B", "--json",
            "--until", "3",
        ])
        let secondEvents = Self.objects(String(decoding: second.stdout, as: UTF8.self))
        let sessions = Set(secondEvents.compactMap { $0["session"] as? Int })
        #expect(sessions.count == 1, "\(secondEvents)\n\(second.stderr)")
        #expect(secondEvents.first?["kind"] as? String == "session", "\(secondEvents)\n\(second.stderr)")
        #expect(!secondEvents.contains { $0["kind"] as? String == "interstitialStarted" }, "\(secondEvents)")
        await waitForExit(first.process, within: .seconds(10))
        #expect(!first.process.isRunning)
        #expect(first.process.terminationStatus == 3, "\(first.text)")
        #expect(first.text.contains("another sender took the receiver over"), "\(first.text)")
        let firstSessions = Set(Self.objects(first.text).compactMap { $0["session"] as? Int })
        #expect(firstSessions.count == 1 && firstSessions.isDisjoint(with: sessions), "\(firstSessions) \(sessions)")
        _ = try await receiver.terminate()
        _ = try await server.terminate()
    }

    /// Remote commands from the command line: `--pause 1` at its time, then `rate 2` and `skip` typed
    /// on standard input; the receiver answers each (skip refused: plan B plays no interstitial).
    @Test(.timeLimit(.minutes(2)))
    func castSendsTimedAndTypedCommands() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }
        let address = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let token = "pairing-token-for-the-command-test"
        let receiver = try ServeProcess(["receiver", "--port", "0", "--json", "--token", token])
        defer { receiver.kill() }
        let (url, _) = try await Self.listening(receiver)
        let cast = try await CLI.run(
            [
                "cast", address + "/vod/demo/main.m3u8", "--to", url, "--token", token, "--plan", "B", "--json",
                "--pause", "1", "--seek", "20@1.5", "--until", "4",
            ],
            stdin: Array("rate 2\nskip\n".utf8)
        )
        #expect(cast.status == 0, "\(cast.stderr)")
        let replies = Self.objects(String(decoding: cast.stdout, as: UTF8.self)).compactMap {
            $0["reply"] as? [String: Any]
        }
        let byCommand = Dictionary(
            replies.map { (($0["command"] as? String) ?? "", ($0["allowed"] as? Bool) ?? false) },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(byCommand["pause"] == true && byCommand["seek"] == true && byCommand["rate"] == true, "\(replies)")
        #expect(byCommand["skip"] == false, "\(replies)")
        _ = try await receiver.terminate()
        _ = try await server.terminate()
    }

    @Test func badCastsAndReceiversAreRefused() async throws {
        let plan = try await CLI.run(["cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1", "--plan", "D"])
        #expect(plan.status == 64, "\(plan.stderr)")
        let seek = try await CLI.run([
            "cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1", "--seek", "nan",
        ])
        #expect(seek.status == 64, "\(seek.stderr)")
        // Nothing listens at the receiver URL: unusable, exit 2.
        let unreachable = try await CLI.run(["cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1"])
        #expect(unreachable.status == 2, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("did not take the session"))
        let badURL = try await CLI.run(["cast", "ftp://x/y.m3u8", "--to", "http://127.0.0.1:1"])
        #expect(badURL.status == 2 && badURL.stderr.contains("url"), "\(badURL.stderr)")
        let profile = try await CLI.run(["receiver", "--port", "0", "--profile", "Package.swift"])
        #expect(profile.status == 2 && profile.stderr.contains("profile-not-json"), "\(profile.stderr)")
        let port = try await CLI.run(["receiver", "--port", "70000"])
        #expect(port.status == 64, "\(port.stderr)")
    }
}
