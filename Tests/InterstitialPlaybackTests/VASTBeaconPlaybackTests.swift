import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// Client-side VAST tracking at its IAB moments on a virtual clock: impression and start when the
/// ad's first media arrives (never for an ad none of whose segments come), the VAST error code of
/// a failure, progress at its offset, creativeView with the impression, pause, resume, mute and
/// unmute when the viewer does them inside an ad, and the macros the player knows filled.
@Suite(.timeLimit(.minutes(1)))
struct VASTBeaconPlaybackTests {
    static let noContent = Reply(status: 204, body: [], contentType: "text/plain")

    /// The VAST events of the extra tracking of one slot (`/b/{ad}/{type}`): creativeView at the
    /// start, progress at 4 s (its URL with `[ADPLAYHEAD]`, `[CONTENTPLAYHEAD]`, `[ASSETURI]` and
    /// `[UNIVERSALADID]`), and the viewer's pause, resume, mute and unmute.
    static func vastEvents(_ ad: String) -> String {
        [
            "{\"type\":\"creativeView\",\"urls\":[\"/b/\(ad)/creativeView\"]}",
            "{\"type\":\"progress\",\"offset\":4,\"urls\":[\"/b/\(ad)/progress?at=[ADPLAYHEAD]&cp=[CONTENTPLAYHEAD]"
                + "&u=%5BASSETURI%5D&ua=[UNIVERSALADID]&x=[PODSEQUENCE]\"]}",
            "{\"type\":\"pause\",\"urls\":[\"/b/\(ad)/pause\"]}",
            "{\"type\":\"resume\",\"urls\":[\"/b/\(ad)/resume\"]}",
            "{\"type\":\"mute\",\"urls\":[\"/b/\(ad)/mute\"]}",
            "{\"type\":\"unmute\",\"urls\":[\"/b/\(ad)/unmute\"]}",
        ].joined(separator: ",")
    }

    /// Serves a 30 s primary with a pod of `ads` at `at` s, each slot with the demo's six timed
    /// beacons, click, skip and error (`signaledAsset`) and ``vastEvents(_:)``; the green ad also
    /// names its VAST `UniversalAdId`.
    ///
    /// Plays it with client beacons.
    static func playPod(
        _ base: String,
        _ site: FixtureSite,
        ads: [String] = ["green", "blue"],
        at position: Double = 10,
        setUp: @Sendable (Player) async -> Void = { _ in }
    ) async throws -> Player {
        let range = Fixtures.interstitial("pod", at: position, "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0")
        site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 30, dateRanges: [range])))
        var assets = ads.enumerated().map {
            signaledAsset(base, $0.element, start: Double($0.offset) * 10, extra: Self.vastEvents($0.element))
        }
        assets[0] = assets[0].replacing(
            "{\"scheme\":\"creativeId\",\"value\":\"\(ads[0])\"}",
            with: "{\"scheme\":\"creativeId\",\"value\":\"\(ads[0])\"},"
                + "{\"scheme\":\"universalAdId\",\"value\":\"ad-id.org ABCD1234000H\"}"
        )
        site.serve("/lists/pod.json", .json("{\"ASSETS\":[" + assets.joined(separator: ",") + "]}"))
        for ad in ads {
            for type in BeaconPlaybackTests.allOfOne + [
                "click", "skip", "error", "creativeView", "progress", "pause", "resume", "mute", "unmute",
            ] {
                site.serve("/b/\(ad)/\(type)", Self.noContent)
            }
        }
        return try await play(
            base + "/vod/prog.m3u8",
            configuration: BeaconPlaybackTests.client,
            setUp: setUp
        )
    }

    /// A pre-roll whose first ad's playlist loads but none of whose segments come (every one 404):
    /// the ad starts (its playlist is ready) and waits for media that never comes, so it is never
    /// shown: no impression, creativeView or start, only its `error` with VAST's 401 (file not
    /// found).
    ///
    /// The next ad counts one impression and one start, when its first segment has arrived.
    /// A mid-roll whose ad fails while the break buffers fires its error alone too (and the failed
    /// asset's retry time, left in the past, no longer keeps the player waking at one instant).
    @Test(arguments: [0.0, 10.0]) func anAdWithoutMediaCountsNoImpressionAndFiresError401(
        at position: Double
    ) async throws {
        try await withFixtureSite { base, site in
            for k in 0..<10 { site.serve("/media/ad-green/seg-00\(k).ts", .status(404)) }
            let player = try await Self.playPod(base, site, at: position)
            let log = await player.log
            if position == 0 {
                // The pre-roll's green ad did start: it waited for its media.
                #expect(
                    log.contains {
                        $0.event == "interstitialAssetStarted" && $0["url"]?.stringValue?.contains("/ad-green/") == true
                    }
                )
            }
            let green = fired(log).filter { $0.hasPrefix("green ") }
            #expect(green == ["green error"])
            let error = try #require(site.requests.first { $0.path == "/b/green/error" })
            #expect(error.parameter("code") == "401")
            let blue = fired(log).filter { $0.hasPrefix("blue ") }
            #expect(blue.filter { $0 == "blue impression" }.count == 1)
            #expect(blue.filter { $0 == "blue start" }.count == 1)
            #expect(blue.filter { $0 == "blue creativeView" }.count == 1)
            #expect(!blue.contains("blue error"))
            // The blue impression went out after blue's first segment arrived.
            let requests = site.requests.map(\.path)
            let firstSegment = try #require(
                requests.firstIndex { $0.hasPrefix("/media/ad-blue/") && $0.hasSuffix(".ts") }
            )
            let impression = try #require(requests.firstIndex(of: "/b/blue/impression"))
            #expect(firstSegment < impression)
        }
    }

    /// An asset that is not media the player can show (its variant's media playlist is a
    /// multivariant playlist) fires its `error` with 405 (problem displaying the MediaFile); one
    /// whose playlist is 404 with 401.
    @Test func theErrorCodeSaysWhyTheAdFailed() async throws {
        try await withFixtureSite { base, site in
            site.serve("/media/ad-green/prog.m3u8", .text("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nother.m3u8\n"))
            site.serve("/media/ad-blue/main.m3u8", .status(404))
            let player = try await Self.playPod(base, site)
            // Both fail while the break buffers, in whichever order their answers come.
            #expect(fired(await player.log).sorted() == ["blue error", "green error"])
            #expect(site.requests.first { $0.path == "/b/green/error" }?.parameter("code") == "405")
            #expect(site.requests.first { $0.path == "/b/blue/error" }?.parameter("code") == "401")
        }
    }

    /// Inside the first ad (it starts at clock 10): mute at 12, pause at 13, play at 15, unmute at
    /// 18.
    ///
    /// Each viewer action fires the ad's own beacon at once; progress fires when the ad's
    /// playhead passes 4 s (clock 16, two paused seconds later); creativeView with the impression.
    /// The second ad, where the viewer does nothing, fires none of them but its creativeView and
    /// progress.
    @Test func progressCreativeViewAndViewerActionsFireAtTheirMoments() async throws {
        try await withFixtureSite { base, site in
            let player = try await Self.playPod(base, site) { player in
                await player.schedule(.muted(true), at: 12)
                await player.schedule(.rate(0), at: 13)
                await player.schedule(.rate(1), at: 15)
                await player.schedule(.muted(false), at: 18)
            }
            let log = await player.log
            #expect(
                fired(log).filter { $0.hasPrefix("green ") }
                    == [
                        "impression", "start", "creativeView", "mute", "firstQuartile", "pause", "resume", "progress",
                        "midpoint", "unmute", "thirdQuartile", "complete",
                    ].map { "green \($0)" }
            )
            #expect(
                fired(log).filter { $0.hasPrefix("blue ") }
                    == [
                        "impression", "start", "creativeView", "firstQuartile", "progress", "midpoint", "thirdQuartile",
                        "complete",
                    ]
                    .map { "blue \($0)" }
            )
            let times = Dictionary(
                log.filter { $0.event == "beaconFired" && $0["creative"]?.stringValue == "green" }.map {
                    ($0["type"]?.stringValue ?? "?", $0.time.seconds)
                },
                uniquingKeysWith: { first, _ in first }
            )
            for (type, want) in [("mute", 12.0), ("pause", 13), ("resume", 15), ("progress", 16), ("unmute", 18)] {
                let time = try #require(times[type], "\(type)")
                #expect(abs(time - want) < 0.01, "\(type): \(time) vs \(want)")
            }
            // The macros the player knows: the ad's playhead at the event, the primary's position
            // (the break at 10 s), the asset's URI, the UniversalAdId; others -1.
            let progress = try #require(site.requests.first { $0.path == "/b/green/progress" })
            #expect(progress.parameter("at") == "00%3A00%3A04.000")
            #expect(progress.parameter("cp") == "00%3A00%3A10.000")
            // The asset's URI as requested (with the _HLS_primary_id the player adds).
            let uri = URIReference.percentEncodedQueryValue(base + "/media/ad-green/main.m3u8?_HLS_primary_id=")
            #expect(progress.parameter("u")?.hasPrefix(uri) == true, "\(progress.parameter("u") ?? "")")
            #expect(progress.parameter("ua") == "ad-id.org%20ABCD1234000H")
            #expect(progress.parameter("x") == "-1")
            let blue = try #require(site.requests.first { $0.path == "/b/blue/progress" })
            #expect(blue.parameter("ua") == "-1")
            // Pausing or muting outside an ad fires nothing.
            #expect(site.requests.filter { $0.path.hasSuffix("/pause") }.count == 1)
        }
    }
}
