import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// Plays `url` on a virtual clock until it ends (or `until`).
func play(
    _ url: String,
    until: MediaTime? = nil,
    configuration: Player.Configuration = Player.Configuration(),
    setUp: @Sendable (Player) async -> Void = { _ in }
) async throws -> Player {
    let clock = VirtualPlaybackClock()
    let player = Player(item: PlayerItem(url: url), clock: clock, loader: fixtureLoader(), configuration: configuration)
    await setUp(player)
    await player.play()
    try await player.run(until: until)
    return player
}

/// A label per request for order assertions: `P` primary segment, `red`/`green`/`blue` ad
/// segments, `list:<path>`, `playlist:<path>`.
func labels(_ requests: [ServedRequest]) -> [String] {
    requests.map { request in
        let path = request.path
        if path.hasPrefix("/media/primary/"), path.hasSuffix(".ts") { return "P" }
        for ad in ["red", "green", "blue"] where path.hasPrefix("/media/ad-\(ad)/") && path.hasSuffix(".ts") {
            return ad
        }
        if path.hasSuffix(".json") { return "list" }
        return "playlist:" + path
    }
}

/// Collapses runs of the same label: `P P P red red P` → `P red P`.
func runs(_ labels: [String]) -> [String] {
    var result: [String] = []
    for label in labels where result.last != label { result.append(label) }
    return result
}

@Suite(.timeLimit(.minutes(1)), .realTime)
struct StreamingTests {
    @Test func vodPlaysToTheEndOverLoopback() async throws {
        try await withFixtureServer { base, site in
            let player = try await play(base + "/media/primary/main.m3u8")
            let log = await player.log
            #expect(await player.hasEnded)
            let ended = try #require(log.last)
            #expect(ended.event == "ended")
            #expect(ended.time >= 60 && ended.time < 61)
            let requests = site.requests
            #expect(requests.count == 32)  // main.m3u8, prog.m3u8, 30 segments
            let session = player.sessionID
            #expect(requests.allSatisfy { $0.sessionID == session })
            #expect(labels(requests).filter { $0 == "P" }.count == 30)
        }
    }

    @Test func forwardBufferBoundsDownloads() async throws {
        try await withFixtureServer { base, site in
            var configuration = Player.Configuration()
            configuration.forwardBufferDuration = 10
            let player = try await play(base + "/media/primary/main.m3u8", until: 20, configuration: configuration)
            #expect(await player.currentTime == 20)
            // Playhead 20 s + 10 s of buffer: segments up to the one starting before 30 s.
            let segments = labels(site.requests).filter { $0 == "P" }.count
            #expect(segments == 15)
        }
    }

    @Test func emptyBufferStallsAndResumes() async throws {
        try await withFixtureServer { base, site in
            site.serve("/slow/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 10)))
            let player = try await play(base + "/slow/prog.m3u8")
            let log = await player.log
            // Playback waits for the first segments before it plays.
            let first = try #require(log.firstIndex { $0.event == "playing" })
            #expect(log[..<first].contains { $0.event == "bufferedTo" })
            #expect(await player.hasEnded)
        }
    }

    @Test func audioAndSubtitleRenditionsFollowLanguagePreference() async throws {
        try await withFixtureServer { base, site in
            let multivariant = """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="/audio-en.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Français",LANGUAGE="fr",URI="/audio-fr.m3u8"
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub",NAME="Français",LANGUAGE="fr",URI="/subs-fr.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=100000,AUDIO="aud",SUBTITLES="sub"
                /media/primary/prog.m3u8

                """
            site.serve("/multi.m3u8", .text(multivariant))
            for path in ["/audio-en.m3u8", "/audio-fr.m3u8", "/subs-fr.m3u8"] {
                site.serve(path, .text(Fixtures.vodPrimary(seconds: 60)))
            }
            var configuration = Player.Configuration()
            configuration.preferredLanguages = ["fr"]
            let player = try await play(base + "/multi.m3u8", until: 5, configuration: configuration)
            let paths = site.requests.map(\.path)
            #expect(paths.contains("/audio-fr.m3u8"))
            #expect(paths.contains("/subs-fr.m3u8"))
            #expect(!paths.contains("/audio-en.m3u8"))
            let selected = try #require(await player.entries("variantSelected").first)
            #expect(selected["audioLanguage"]?.stringValue == "fr")
        }
    }

    @Test func variantFollowsMeasuredBandwidth() async throws {
        try await withFixtureServer { base, site in
            let multivariant = """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=50000
                /low/prog.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=80000
                /media/primary/prog.m3u8

                """
            site.serve("/abr.m3u8", .text(multivariant))
            site.serve("/low/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 60)))
            let player = try await play(base + "/abr.m3u8", until: 20)
            let switches = await player.entries("variantSelected")
            // Starts on the lowest variant, then loopback bandwidth moves it up.
            #expect(switches.first?["bandwidth"]?.doubleValue == 50000)
            #expect(switches.last?["bandwidth"]?.doubleValue == 80000)
        }
    }

    @Test func liveReloadsFollowTargetDuration() async throws {
        try await withFixtureServer { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            site.serve("/live.m3u8") { _ in .text(Fixtures.live(now: clock.now)) }
            let player = Player(item: PlayerItem(url: base + "/live.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 140)
            let reloads = site.requests.filter { $0.path == "/live.m3u8" }
            // One load, then a reload every target duration (2 s) or half of it when unchanged.
            #expect(reloads.count >= 19 && reloads.count <= 41)
            let log = await player.log
            #expect(!log.contains { $0.event == "error" })
            // Joined three target durations from the live edge and kept pace with it.
            let position = await player.currentTime
            #expect(position > 30)
        }
    }

    @Test func deltaUpdatesAndBlockingReloads() async throws {
        try await withFixtureServer { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            site.serve("/ll.m3u8") { request in
                let skip = request.parameter("_HLS_skip") != nil
                return .text(Fixtures.live(now: clock.now, window: 10, serverControl: "CAN-SKIP-UNTIL=12", skip: skip))
            }
            let player = Player(item: PlayerItem(url: base + "/ll.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 120)
            let reloads = site.requests.filter { $0.path == "/ll.m3u8" }
            #expect(reloads.dropFirst().contains { $0.parameter("_HLS_skip") == "YES" })
            #expect(!(await player.log).contains { $0.event == "error" })
            #expect(await player.currentTime > 10)
        }
    }
}
