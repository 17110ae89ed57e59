import Foundation
import Testing

/// `intermission cast` handing the demo stream of `intermission serve --demo` to `intermission
/// receiver`, all three the built binary.
@Suite struct CastCommandTests {
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
        let listening = try #require(try await receiver.firstLog(matching: #""url":"http://127\.0\.0\.1:[0-9]+"#))
        let receiverURL = String(listening.dropFirst(#""url":""#.count))
        let cast = try ServeProcess([
            "cast", address + "/vod/demo/main.m3u8", "--to", receiverURL, "--plan", "B", "--position", "54",
            "--seek", "57", "--json", "--until", "60",
        ])
        defer { cast.kill() }
        for _ in 0..<600 where cast.process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
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
