import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's main job, end to end through the built binary: `intermission serve --demo`, then
/// `intermission play` against it, then SIGTERM.
@Suite(.timeLimit(.minutes(3)), .realTime)
struct ServePlayCommandTests {
    @Test func demoServerPlaysEveryBreakAndStopsOnSIGTERM() async throws {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        defer { server.kill() }

        // The start-up log names the URLs to open.
        let url = try #require(
            try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/vod/demo/main\.m3u8"#),
            "no VOD URL in the start-up log"
        )
        #expect(server.text.contains("/live/demo/main.m3u8"))
        // Next to each live URL: the setting hls.js needs on live channels (README).
        #expect(server.text.contains("/live/demo/main.m3u8 (hls.js: set interstitialAppendInPlace: false)"))

        // 60 s of primary and up to 50 s of ads at 20 times real time (about 5 s).
        let played = try await CLI.run(["play", url, "--speed", "20", "--json"])
        #expect(played.status == 0, "\(played.stderr)")
        let entries = jsonLines(played.stdout)
        let started = entries.filter { $0["event"] as? String == "currentEventDidChange" }.compactMap {
            $0["eventID"] as? String
        }
        #expect(started == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let finished = entries.filter { $0["event"] as? String == "eventDidFinish" }.compactMap {
            $0["eventID"] as? String
        }
        #expect(finished == ["preroll", "midroll-1", "midroll-2", "postroll"])
        // The first breaks are filled (later ones may be empty: the repeat window is wall-clock time).
        let lists = Dictionary(
            entries.filter { $0["event"] as? String == "assetListLoaded" }.map {
                ($0["eventID"] as? String ?? "", $0["assets"] as? Int ?? -1)
            },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(lists["preroll"] == 1)
        #expect(lists["midroll-1"] == 2)
        let ended = try #require(entries.last)
        #expect(ended["event"] as? String == "ended")
        #expect(ended["primaryTime"] as? Double == 60)
        // Every request carried the same session, and the server answered each one.
        let requests = entries.filter { $0["event"] as? String == "request" }
        #expect(requests.count > 40)
        #expect(requests.allSatisfy { $0["status"] as? Int == 200 })

        // Requests on the clock: a skip and rate 2 inside the 10 s pre-roll (SKIP: both refused), a
        // seek from about 15 s to 50 s across both JUMP mid-rolls (the one nearest the target plays
        // first), a stop at 30. The clock runs from the start, playlist and asset-list loads
        // included, so the pre-roll begins a little after 0: at 5x the skip at 6 leaves 1.2 s of
        // real time for those loads on a busy machine (at 20x, 3 s left 0.15 s, and the skip could
        // come before the pre-roll began).
        let steered = try await CLI.run([
            "play", url, "--speed", "5", "--json", "--skip", "6", "--rate", "2@7", "--seek", "50@25", "--until", "30",
        ])
        #expect(steered.status == 0, "\(steered.stderr)")
        let steeredLog = jsonLines(steered.stdout)
        let skipRefused = try #require(steeredLog.first { $0["event"] as? String == "skipRefused" })
        #expect(skipRefused["eventID"] as? String == "preroll")
        #expect((skipRefused["reason"] as? String)?.contains("X-RESTRICT=SKIP") == true, "\(skipRefused)")
        let refused = try #require(steeredLog.first { $0["event"] as? String == "rateRefused" })
        #expect(refused["rate"] as? Double == 2)
        let seek = try #require(steeredLog.first { $0["event"] as? String == "seekResolved" })
        #expect(seek["target"] as? Double == 50)
        #expect(
            steeredLog.filter { $0["event"] as? String == "currentEventDidChange" }.compactMap {
                $0["eventID"] as? String
            }.prefix(2) == ["preroll", "midroll-2"]
        )
        #expect(steeredLog.compactMap { $0["t"] as? Double }.allSatisfy { $0 <= 30.5 })
        #expect(!steeredLog.contains { $0["event"] as? String == "ended" })

        // --no-interstitials: the primary alone, no asset list asked for.
        let plain = try await CLI.run(["play", url, "--speed", "20", "--json", "--no-interstitials"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let plainLog = jsonLines(plain.stdout)
        #expect(!plainLog.contains { $0["event"] as? String == "currentEventDidChange" && $0["eventID"] is String })
        #expect(!plainLog.contains { ($0["url"] as? String)?.contains("/v1/asset-lists/") == true })
        #expect(plainLog.last?["event"] as? String == "ended")
        #expect(plainLog.last?["primaryTime"] as? Double == 60)

        // SIGTERM: the server finishes what is in flight and exits cleanly.
        let stopped = try await server.terminate()
        #expect(stopped, "the server did not stop within 10 s of SIGTERM")
        if stopped { #expect(server.process.terminationStatus == 0) }
    }
}

/// Graceful shutdown: a request in flight when SIGTERM arrives is still answered.
@Suite(.timeLimit(.minutes(1)), .realTime)
struct ServeShutdownTests {
    @Test func sigtermFinishesTheRequestInFlight() async throws {
        // An upstream live playlist that holds its answer until the test lets it go; it touches a
        // file when a request reaches it, so that SIGTERM is sent while the request is surely in
        // flight.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("shutdown-hit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let upstream = try #require(
            await PageServer(
                handler: """
                    open(\"\(marker.path)\", "w").close()
                    gate.wait()
                    body = b"#EXTM3U\\n#EXT-X-TARGETDURATION:2\\n#EXT-X-MEDIA-SEQUENCE:7\\n#EXTINF:2.0,\\ns7.ts\\n"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.apple.mpegurl")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    """
            )
        )
        defer { upstream.stop() }
        let upstreamPort = upstream.port

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shutdown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("serve.yaml")
        try Data(
            """
            server:
              port: 0
              database: "memory:"
            channels:
              - id: slow
                upstream: http://127.0.0.1:\(upstreamPort)/live.m3u8

            """.utf8
        ).write(to: config)
        let server = try ServeProcess(["serve", "--config", config.path])
        defer { server.kill() }
        let address = try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/live/slow/main\.m3u8"#)
        let url = try #require(address.flatMap(URL.init(string:)), "no live URL in the start-up log")

        // The request starts, then SIGTERM arrives while the upstream is still thinking.
        let request = Task { try await URLSession.shared.data(from: url) }
        await waitUntil(within: .seconds(5), checkingEvery: .milliseconds(25)) {
            FileManager.default.fileExists(atPath: marker.path)
        }
        #expect(FileManager.default.fileExists(atPath: marker.path), "the request never reached the upstream")
        // The marker is written as the upstream starts to hold its answer: the request is in flight.
        kill(server.process.processIdentifier, SIGTERM)
        // The answer goes once the server has begun to shut down (it no longer accepts connections),
        // so SIGTERM surely came while the request was in flight.
        let serverPort = try #require(url.port)
        await waitUntil(within: .seconds(10)) { !loopbackAccepts(port: serverPort) }
        upstream.openGate()
        let (body, response) = try await request.value
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("s7.ts"))
        await waitUntil(within: .seconds(10), checkingEvery: .milliseconds(100)) { !server.process.isRunning }
        #expect(!server.process.isRunning)
        if !server.process.isRunning { #expect(server.process.terminationStatus == 0) }
    }
}

/// The objects of a JSON-lines output (`play --json`).
func jsonLines(_ bytes: [UInt8]) -> [[String: Any]] {
    String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
