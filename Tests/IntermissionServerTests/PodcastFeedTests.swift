import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Logging
import Testing

/// The demo's audio-only podcast feed (`/vod/podcast/main.m3u8`): its playlists pass the podcast
/// profile, the server fills its pre-, mid- and post-roll with the audio-only ads only (and never
/// puts them in the video presentations), and real clients play it (hls.js in Chromium, ffmpeg).
@Suite("The podcast feed", .realTime)
struct PodcastFeedTests {
    /// The `ID`s and lines of a playlist's interstitial date ranges, in order.
    static func interstitials(_ text: String) -> [(id: String, line: String)] {
        dateRangeLines(text).compactMap { line in
            guard let start = line.range(of: "ID=\"") else { return nil }
            return (String(line[start.upperBound...].prefix { $0 != "\"" }), line)
        }
    }

    /// The URIs of an asset-list answer.
    static func assetURIs(_ response: TestResponse) -> [String] {
        (response.json?["ASSETS"]?.arrayValue ?? []).compactMap { $0["URI"]?.stringValue }
    }

    @Test(.timeLimit(.minutes(1)))
    func theEpisodeFollowsThePodcastRules() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let validator = InterstitialValidator()
            for path in ["/vod/podcast/main.m3u8", "/vod/podcast/prog.m3u8"] {
                let response = try await client.get(path)
                #expect(response.status == .ok, "\(path): \(response.text)")
                let found = validator.validate(playlist: response.bytes, file: path, profile: .podcast)
                    .filter { $0.severity != .note }
                #expect(found.isEmpty, "\(path): \(found.map(\.description))")
            }
            let media = try await client.get("/vod/podcast/prog.m3u8")
            let playlist = try MediaPlaylist(bytes: media.bytes)
            let tags = Self.interstitials(media.text)
            #expect(tags.map(\.id) == ["preroll", "midroll", "postroll"])
            let preroll = try #require(tags.first?.line)
            let midroll = try #require(tags.dropFirst().first?.line)
            let postroll = try #require(tags.last?.line)
            // The pre-roll is dated at the first segment, with no CUE (the profile allows only POST).
            let first = try #require(playlist.timings.first?.date)
            #expect(preroll.contains("START-DATE=\"\(first.iso8601)\""), "\(preroll)")
            #expect(!preroll.contains("CUE=") && !midroll.contains("CUE="))
            #expect(postroll.contains(#"CUE="POST""#))
            #expect(midroll.contains(#"X-SNAP="OUT,IN""#))
            for line in [preroll, midroll, postroll] {
                #expect(line.contains("X-RESUME-OFFSET=0"), "\(line)")
                #expect(line.contains(#"X-TIMELINE-OCCUPIES="RANGE""#) && line.contains(#"X-TIMELINE-STYLE="PRIMARY""#))
                #expect(!line.contains("X-RESTRICT"), "\(line)")
            }
            // The video demo keeps the spec's defaults.
            let video = try await client.get("/vod/demo/prog.m3u8")
            let videoPreroll = try #require(Self.interstitials(video.text).first?.line)
            #expect(videoPreroll.contains(#"CUE="PRE,ONCE""#) && videoPreroll.contains(#"X-RESTRICT="SKIP,JUMP""#))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func thePodcastGetsTheAudioAdsAndOnlyThePodcast() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.adInsertion.policy.repeatWindow = .zero
        try await withServer(configuration) { client in
            let pods: [(String, [String])] = [
                ("preroll", ["ad-audio-one"]), ("midroll", ["ad-audio-one", "ad-audio-two"]),
                ("postroll", ["ad-audio-one"]),
            ]
            for (id, expected) in pods {
                for viewer in ["listener", ""] {
                    let query = "_HLS_interstitial_id=\(id)" + (viewer.isEmpty ? "" : "&_HLS_primary_id=\(viewer)")
                    let answer = try await client.get("/v1/asset-lists/vod-podcast/\(id).json?\(query)")
                    #expect(answer.status == .ok, "\(answer.text)")
                    let folders = Self.assetURIs(answer).map {
                        $0.split(separator: "/").dropLast().last.map(String.init)
                    }
                    #expect(folders == expected, "\(id) for '\(viewer)': \(answer.text)")
                }
            }
            // The video presentations never get an audio-only ad, not even with room for one.
            for path in [
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=watcher",
                "/v1/asset-lists/vod-demo/preroll.json?_HLS_interstitial_id=preroll",
            ] {
                let answer = try await client.get(path)
                let uris = Self.assetURIs(answer)
                #expect(!uris.isEmpty && uris.allSatisfy { !$0.contains("ad-audio") }, "\(path): \(answer.text)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aCreativesScopesAndAnAssetsInventoryAreKeptFromTheConfigurationFile() async throws {
        let folder = try #require(ServerConfiguration.demoMediaFolder)
        let text = """
            server:
              database: "memory:"
            media:
              demo: \(folder)
            repeatWindow: 0
            inventory:
              - {id: red, uri: /media/demo/ad-red/main.m3u8, duration: 10, value: 5}
              - {id: spoken, uri: /media/demo/ad-audio-one/main.m3u8, duration: 12, value: 2, scopes: [vod-episode]}
              - {id: jingle, uri: /media/demo/ad-audio-two/main.m3u8, duration: 12, scopes: [vod-episode, live-radio]}
            vod:
              - id: episode
                origin: /media/demo/podcast/
                profile: podcast
                inventory: [spoken, jingle]
                breaks:
                  - {id: mid, at: 24, duration: 24}
              - id: movie
                origin: /media/demo/primary/
                breaks:
                  - {id: mid, at: 20, duration: 30}
            """
        var configuration = try ConfigurationFile.parse(text).apply(to: ServerConfiguration(), relativeTo: "/")
        configuration.hostname = "127.0.0.1"
        configuration.port = 0
        configuration.clock = ManualWallClock(t0)
        configuration.logLevel = .error
        let episode = try #require(configuration.adInsertion.assets.first { $0.id == "episode" })
        #expect(episode.profile == .podcast && episode.inventory == ["spoken", "jingle"])
        #expect(
            configuration.adInsertion.inventory.map(\.scopes) == [nil, ["vod-episode"], ["vod-episode", "live-radio"]]
        )
        try await withServer(configuration) { client in
            let episodePod = try await client.get("/v1/asset-lists/vod-episode/mid.json?_HLS_primary_id=a")
            #expect(Self.assetURIs(episodePod).map { $0.hasSuffix("ad-audio-one/main.m3u8") } == [true, false])
            let moviePod = try await client.get("/v1/asset-lists/vod-movie/mid.json?_HLS_primary_id=a")
            #expect(Self.assetURIs(moviePod).count == 1 && Self.assetURIs(moviePod)[0].hasSuffix("ad-red/main.m3u8"))
            let media = try await client.get("/vod/episode/prog.m3u8")
            #expect(Self.interstitials(media.text).first?.line.contains(#"X-SNAP="OUT,IN""#) == true)
        }
    }

    @Test(arguments: [
        ("vod:\n  - {id: a, origin: /m/, profile: video}", "vod[0].profile"),
        ("vod:\n  - {id: a, origin: /m/, inventory: [\"../x\"]}", "vod[0].inventory[0]"),
        ("vod:\n  - {id: a, origin: /m/, inventory: [\"\\0\"]}", "vod[0].inventory[0]"),
        (
            "channels:\n  - {id: a, loop: /m/, inventory: [\"\(String(repeating: "x", count: 100_000))\"]}",
            "channels[0].inventory[0]"
        ),
        ("inventory:\n  - {id: a, uri: /m/a.m3u8, duration: 1, scopes: [podcast]}", "inventory[0].scopes[0]"),
        ("inventory:\n  - {id: a, uri: /m/a.m3u8, duration: 1, scopes: [\"vod-\"]}", "inventory[0].scopes[0]"),
        ("inventory:\n  - {id: a, uri: /m/a.m3u8, duration: 1, scopes: [\"vod-%2e%2e\"]}", "inventory[0].scopes[0]"),
    ])
    func badInventoryKeysAreNamed(_ yaml: String, _ field: String) {
        do {
            _ = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("accepted: \(yaml.prefix(120))")
        } catch {
            #expect("\(error)".contains(field), "\(error)")
            #expect("\(error)".utf8.count < 1_000, "the message repeats the input")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theAdminAPIKeepsAndChecksScopes() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.adInsertion.policy.repeatWindow = .zero
        try await withServer(configuration) { client in
            // Worth the most, and scoped to the VOD demo: it leads that pod and no other.
            let added = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json:
                    #"{"id": "gold", "uri": "/media/demo/ad-green/main.m3u8", "duration": 10, "value": 1000, "scopes": ["vod-demo"]}"#
            )
            #expect(added.status == .created, "\(added.text)")
            let listed = try await client.admin(.get, "/v1/admin/inventory")
            let gold = listed.json?["creatives"]?.arrayValue?.first { $0["id"]?.stringValue == "gold" }
            #expect(gold?["scopes"]?.arrayValue?.compactMap(\.stringValue) == ["vod-demo"])
            func folders(_ path: String) async throws -> [String] {
                Self.assetURIs(try await client.get(path)).compactMap { $0.split(separator: "/").dropLast().last }
                    .map(String.init)
            }
            #expect(
                try await folders("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=new") == [
                    "ad-green", "ad-red",
                ]
            )
            #expect(
                try await folders("/v1/asset-lists/live-demo/auto-0.json?_HLS_primary_id=new") == [
                    "ad-red", "ad-green",
                ]
            )
            #expect(
                try await folders("/v1/asset-lists/vod-podcast/midroll.json?_HLS_primary_id=new") == [
                    "ad-audio-one", "ad-audio-two",
                ]
            )
            for bad in [
                #"["podcast"]"#, #"["vod-"]"#, #"["vod-a/b"]"#, #"["live-\u0000"]"#,
                "[\"vod-" + String(repeating: "a", count: 100_000) + "\"]",
                "[" + Array(repeating: #""vod-a""#, count: 10_001).joined(separator: ",") + "]",
            ] {
                let refused = try await client.admin(
                    .post,
                    "/v1/admin/inventory",
                    json:
                        #"{"id": "bad", "uri": "/media/demo/ad-red/main.m3u8", "duration": 10, "value": 1, "scopes": "#
                        + bad + "}"
                )
                // The two largest bodies pass the admin API's body limit: refused whole, 413.
                #expect([400, 413].contains(refused.status.code), "\(bad.prefix(60)): \(refused.text.prefix(300))")
                #expect(refused.json?["error"] != nil, "\(refused.text.prefix(300))")
            }
        }
    }

    @Test(.enabled(if: HLSJSTests.available || HLSJSTests.required), .timeLimit(.minutes(3)))
    func hlsJSPlaysThePodcastWithItsThreeBreaks() async throws {
        try #require(HLSJSTests.available, "chromium and hls.js are required (see .ci/run)")
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.adInsertion.policy.repeatWindow = .zero
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            let src = "http://127.0.0.1:\(port)/vod/podcast/main.m3u8"
            let log = try await HLSJSTests.probe(src, query: "rate=4", timeout: 100)
            func has(_ event: String, _ id: String) -> Bool { HLSJSTests.saw(event, id, in: log) }
            #expect(log.contains("isSupported=true"), "\(log.prefix(2000))")
            for id in ["preroll", "midroll", "postroll"] {
                #expect(has("ASSET_LIST_LOADED", id), "no asset list for \(id): \(log.suffix(2000))")
                #expect(has("INTERSTITIAL_ASSET_STARTED", id), "\(id) did not start: \(log.suffix(2000))")
                #expect(has("INTERSTITIAL_ENDED", id), "\(id) did not end: \(log.suffix(2000))")
            }
            #expect(log.contains("DONE post-roll ended"), "\(log.suffix(2000))")
            #expect(!log.contains("fatal=true"), "\(log.suffix(2000))")
        }
    }

    @Test(.enabled(if: DemoMediaTests.ffprobe != nil || DemoMediaTests.required), .timeLimit(.minutes(2)))
    func ffmpegPlaysTheEpisodeThroughTheServer() async throws {
        let ffprobe = try #require(DemoMediaTests.ffprobe, "ffprobe is required (apt-get install ffmpeg)")
        let ffmpeg = ffprobe.replacingOccurrences(of: "ffprobe", with: "ffmpeg")
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            let url = "http://127.0.0.1:\(port)/vod/podcast/main.m3u8"
            let probed = try await runProcess(
                URL(fileURLWithPath: ffprobe),
                ["-v", "error", "-show_entries", "stream=codec_type,codec_name:format=duration", "-of", "json", url],
                timeout: .seconds(60)
            )
            #expect(probed.status == 0, "\(String(decoding: probed.stderr, as: UTF8.self))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(probed.stdout)) as? [String: Any])
            let streams = (json["streams"] as? [[String: Any]]) ?? []
            #expect(streams.map { $0["codec_type"] as? String } == ["audio"], "\(json)")
            #expect(streams.first?["codec_name"] as? String == "aac")
            let duration = Double(((json["format"] as? [String: Any])?["duration"] as? String) ?? "") ?? 0
            #expect(abs(duration - 60) < 0.5, "\(duration)")
            let decoded = try await runProcess(
                URL(fileURLWithPath: ffmpeg),
                ["-v", "error", "-i", url, "-f", "null", "-"],
                timeout: .seconds(60)
            )
            #expect(decoded.status == 0, "\(String(decoding: decoded.stderr, as: UTF8.self))")
            #expect(decoded.stderr.isEmpty, "\(String(decoding: decoded.stderr, as: UTF8.self))")
        }
    }
}
