import Foundation
import IntermissionTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo's audio-only podcast feed with the command line: `play` hears the pre-, mid- and
/// post-roll the server decides, `download` makes a copy that still passes the podcast profile
/// and plays offline with the same breaks, and ffmpeg plays the copy.
@Suite(.timeLimit(.minutes(4)), .realTime)
struct PodcastCommandTests {
    /// The events of a `play --json` run: which interstitials started, and each asset's folder.
    static func played(
        _ stdout: [UInt8]
    ) -> (events: [String], assets: [(event: String, folder: String)], log: [[String: Any]]) {
        let log = jsonLines(stdout)
        let events = log.filter { $0["event"] as? String == "currentEventDidChange" }.compactMap {
            $0["eventID"] as? String
        }
        let assets = log.filter { $0["event"] as? String == "interstitialAssetStarted" }.compactMap {
            entry -> (String, String)? in
            guard let id = entry["eventID"] as? String, let url = entry["url"] as? String else { return nil }
            return (id, url.split(separator: "/").dropLast().last.map(String.init) ?? url)
        }
        return (events, assets, log)
    }

    @Test func theEpisodePlaysDownloadsAndPlaysOfflineWithItsAudioAds() async throws {
        // The demo with repeats allowed: a sped-up listener would otherwise have heard both ads
        // within the demo's 30 s repeat window by the post-roll, and get an empty pod there.
        let folder = try ServeProcess.scratchFolder("podcast")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("repeats.yaml")
        try Data("repeatWindow: 0\n".utf8).write(to: config)
        let server = try ServeProcess([
            "serve", "--demo", "--config", config.path, "--port", "0", "--database", "memory:",
        ])
        defer { server.kill() }
        let found = try #require(
            try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/vod/demo/main\.m3u8"#)
        )
        let url = String(found.dropLast("/vod/demo/main.m3u8".count)) + "/vod/podcast/main.m3u8"

        // The server's rules: validate --profile podcast finds nothing to say.
        let validated = try await CLI.run(["validate", url, "--profile", "podcast"])
        #expect(validated.status == 0, "\(validated.stdout) \(validated.stderr)")

        // Played online: the three breaks, each of audio-only ads only.
        let online = try await CLI.run(["play", url, "--speed", "20", "--json"])
        #expect(online.status == 0, "\(online.stderr)")
        let heard = Self.played(online.stdout)
        #expect(heard.events == ["preroll", "midroll", "postroll"])
        #expect(heard.assets.map(\.event) == ["preroll", "midroll", "midroll", "postroll"], "\(heard.assets)")
        #expect(
            !heard.assets.isEmpty && heard.assets.allSatisfy { $0.folder.hasPrefix("ad-audio-") },
            "\(heard.assets)"
        )
        #expect(heard.log.last?["event"] as? String == "ended")

        // Downloaded: the copy keeps the breaks and the profile's rules.
        let copy = folder.appendingPathComponent("copy")
        let download = try await CLI.run(["download", url, copy.path, "--json"])
        #expect(download.status == 0, "\(download.stderr)")
        let main = copy.appendingPathComponent("main.m3u8").path
        let copyValidated = try await CLI.run(["validate", main, "--profile", "podcast"])
        #expect(copyValidated.status == 0, "\(copyValidated.stdout) \(copyValidated.stderr)")

        // Offline: the server stops, and the copy plays the same breaks from files only.
        _ = try await server.terminate()
        let offline = try await CLI.run(["play", main, "--speed", "20", "--json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        let replayed = Self.played(offline.stdout)
        #expect(replayed.events == ["preroll", "midroll", "postroll"])
        #expect(replayed.assets.map(\.event) == ["preroll", "midroll", "midroll", "postroll"], "\(replayed.assets)")
        let requests = replayed.log.filter { $0["event"] as? String == "request" }
        #expect(!requests.isEmpty && requests.allSatisfy { ($0["url"] as? String)?.hasPrefix("file://") == true })
        #expect(replayed.log.last?["event"] as? String == "ended")

        // ffmpeg plays the copy's episode: audio only, 60 s.
        if let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile)
        {
            let result = try await runProcess(
                URL(fileURLWithPath: ffmpeg),
                ["-v", "error", "-i", main, "-map", "0:v?", "-map", "0:a", "-f", "null", "-"],
                timeout: .seconds(60)
            )
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        }
    }
}
