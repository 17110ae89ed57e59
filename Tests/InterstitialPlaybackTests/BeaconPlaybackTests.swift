import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Synchronization
import Testing

/// An asset-list entry over a demo ad with SVTA2053-2 signaling: one slot starting at `start` in
/// the interstitial, its tracking URLs under `/b/{ad}/{type}` (relative to the asset list).
func signaledAsset(_ base: String, _ ad: String, start: Double, extra: String = "") -> String {
    let timed =
        [
            ("impression", nil), ("start", nil), ("firstQuartile", 2.5), ("midpoint", 5.0),
            ("thirdQuartile", 7.5), ("complete", 10.0),
        ] as [(String, Double?)]
    var tracking = timed.map { type, offset in
        "{\"type\":\"\(type)\"" + (offset.map { ",\"offset\":\($0)" } ?? "") + ",\"urls\":[\"/b/\(ad)/\(type)\"]}"
    }
    tracking += [
        "{\"type\":\"clickTracking\",\"urls\":[\"/b/\(ad)/click\"]}",
        "{\"type\":\"skip\",\"urls\":[\"/b/\(ad)/skip\"]}",
        "{\"type\":\"error\",\"urls\":[\"/b/\(ad)/error?code=[ERRORCODE]&cb=[CACHEBUSTING]\"]}",
    ]
    if !extra.isEmpty { tracking.append(extra) }
    let signaling =
        "{\"version\":2,\"type\":\"slot\",\"payload\":[{\"type\":\"linear\",\"start\":\(start),\"duration\":10,"
        + "\"identifiers\":[{\"scheme\":\"creativeId\",\"value\":\"\(ad)\"}],\"tracking\":["
        + tracking.joined(separator: ",") + "]}]}"
    return "{\"URI\":\"\(base)/media/ad-\(ad)/main.m3u8\",\"DURATION\":10,\"X-AD-CREATIVE-SIGNALING\":\(signaling)}"
}

/// The `ad type` of each fired beacon, in order.
func fired(_ log: [PlayerLogEntry]) -> [String] {
    log.filter { $0.event == "beaconFired" }.map {
        "\($0["creative"]?.stringValue ?? "?") \($0["type"]?.stringValue ?? "?")"
    }
}

/// Client-side beacons (SVTA2053-2) on a virtual clock: each fires once per slot at its moment,
/// in order; skips, early returns and failures fire what they should and nothing else.
@Suite(.timeLimit(.minutes(1)))
struct BeaconPlaybackTests {
    static var client: Player.Configuration {
        var configuration = Player.Configuration()
        configuration.beaconMode = .client
        return configuration
    }

    /// A beacon endpoint's answer.
    static let noContent = Reply(status: 204, body: [], contentType: "text/plain")

    static let allOfOne = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]

    /// Serves a 30 s primary with a two-ad pod at 10 s (`attributes` added to its tag) and the
    /// beacon endpoints (204), and plays it with client beacons.
    static func playPod(
        _ base: String,
        _ site: FixtureSite,
        attributes: String = "",
        ads: [String] = ["green", "blue"],
        configuration: Player.Configuration = client,
        setUp: @Sendable (Player) async -> Void = { _ in }
    ) async throws -> Player {
        let range = Fixtures.interstitial(
            "pod",
            at: 10,
            "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0" + attributes
        )
        site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 30, dateRanges: [range])))
        let assets = ads.enumerated().map { signaledAsset(base, $0.element, start: Double($0.offset) * 10) }
        site.serve("/lists/pod.json", .json("{\"ASSETS\":[" + assets.joined(separator: ",") + "]}"))
        for ad in ads {
            for type in Self.allOfOne + ["click", "skip", "error"] { site.serve("/b/\(ad)/\(type)", Self.noContent) }
        }
        return try await play(base + "/vod/prog.m3u8", configuration: configuration, setUp: setUp)
    }

    @Test func everyBeaconOfAPodFiresOnceAtItsMomentInOrder() async throws {
        try await withFixtureSite { base, site in
            let player = try await Self.playPod(base, site)
            let log = await player.log
            #expect(fired(log) == Self.allOfOne.map { "green \($0)" } + Self.allOfOne.map { "blue \($0)" })
            // At their moments: each ad's beacons at 0, 2.5, 5, 7.5 and 10 s after it started.
            let starts = log.filter { $0.event == "interstitialAssetStarted" }.map(\.time.seconds)
            #expect(starts.count == 2)
            let moments = [0, 0, 2.5, 5, 7.5, 10.0]
            let times = log.filter { $0.event == "beaconFired" }.map(\.time.seconds)
            let expected = starts.flatMap { start in moments.map { start + $0 } }
            #expect(times.count == expected.count)
            for (time, want) in zip(times, expected) { #expect(abs(time - want) < 0.01, "\(time) vs \(want)") }
            // Each beacon reached the server once; clickTracking, skip and error never fired.
            let paths = site.requests.map(\.path).filter { $0.hasPrefix("/b/") }
            #expect(paths == Self.allOfOne.map { "/b/green/\($0)" } + Self.allOfOne.map { "/b/blue/\($0)" })
            #expect(log.filter { $0.event == "beaconFired" }.allSatisfy { $0["attempts"]?.doubleValue == 1 })
            #expect(log.last?.event == "ended")
        }
    }

    @Test func beaconsAreOffUnlessAsked() async throws {
        try await withFixtureSite { base, site in
            let player = try await Self.playPod(base, site, configuration: Player.Configuration())
            #expect(fired(await player.log).isEmpty)
            #expect(!site.requests.contains { $0.path.hasPrefix("/b/") })
        }
    }

    /// A skip 6 s into the first ad: its beacons up to the midpoint, then its `skip`, then nothing
    /// of the rest of the pod.
    @Test func aSkipFiresTheSlotsSkipAndNothingAfter() async throws {
        try await withFixtureSite { base, site in
            let player = try await Self.playPod(base, site) { player in
                // The pod starts at clock 10 on a virtual clock that only waits for answers.
                await player.schedule(.skipCurrentEvent(overridingPolicy: true), at: 16)
            }
            let log = await player.log
            #expect(log.contains { $0.event == "currentEventSkipped" })
            #expect(fired(log) == ["impression", "start", "firstQuartile", "midpoint", "skip"].map { "green \($0)" })
        }
    }

    /// A playout limit of 4 s cuts the pod in its first ad: the beacons before 4 s, nothing after.
    @Test func anEarlyReturnFiresNothingMore() async throws {
        try await withFixtureSite { base, site in
            let player = try await Self.playPod(base, site, attributes: ",X-PLAYOUT-LIMIT=4")
            #expect(fired(await player.log) == ["impression", "start", "firstQuartile"].map { "green \($0)" })
        }
    }

    /// The first ad cannot load (its playlist is 404): its `error` beacon fires with `[ERRORCODE]`
    /// 401 (VAST: file not found) and a filled cache buster; the second ad plays and fires all of
    /// its own.
    @Test func aFailedAssetFiresItsErrorBeacon() async throws {
        try await withFixtureSite { base, site in
            site.serve("/media/ad-green/main.m3u8", .status(404))
            let player = try await Self.playPod(base, site)
            let log = await player.log
            #expect(fired(log) == ["green error"] + Self.allOfOne.map { "blue \($0)" })
            let error = try #require(site.requests.first { $0.path == "/b/green/error" })
            #expect(error.parameter("code") == "401")
            let buster = try #require(error.parameter("cb"))
            #expect(buster.count == 8 && buster.allSatisfy(\.isNumber), "\(buster)")
        }
    }

    /// A 503 is tried again and then counts as fired (2 tries); a 404 is not tried again and is
    /// logged as failed; the beacons after them still go out, in order.
    @Test func failuresAreRetriedOrGivenUp() async throws {
        try await withFixtureSite { base, site in
            let calls = Mutex(0)
            let player = try await Self.playPod(base, site, ads: ["green"]) { _ in
                site.serve("/b/green/impression") { _ in
                    calls.withLock { count in
                        count += 1
                        return count == 1 ? .status(503) : Self.noContent
                    }
                }
                site.serve("/b/green/start", .status(404))
            }
            let log = await player.log
            #expect(calls.withLock { $0 } == 2)
            let impression = try #require(
                log.first { $0.event == "beaconFired" && $0["type"]?.stringValue == "impression" }
            )
            #expect(impression["attempts"]?.doubleValue == 2)
            let failed = log.filter { $0.event == "beaconFailed" }
            #expect(failed.count == 1)
            #expect(failed.first?["type"]?.stringValue == "start")
            #expect(failed.first?["reason"]?.stringValue?.contains("HTTP 404") == true)
            #expect(site.requests.filter { $0.path == "/b/green/start" }.count == 1)
            #expect(
                fired(log)
                    == ["impression", "firstQuartile", "midpoint", "thirdQuartile", "complete"].map { "green \($0)" }
            )
        }
    }

    /// The queue is bounded: with room for one beacon, the start beacon due with the impression
    /// (both at the slot's start) is logged as failed and dropped, the impression goes out, and the
    /// quartiles, due later, find room again.
    ///
    /// A limit below one is taken as one.
    @Test func aFullQueueDropsWhatDoesNotFitAndSaysSo() async throws {
        try await withFixtureSite { base, site in
            var configuration = Self.client
            configuration.beaconQueueLimit = 0
            #expect(configuration.beaconQueueLimit == 1)
            let player = try await Self.playPod(base, site, ads: ["green"], configuration: configuration)
            let log = await player.log
            let failed = log.filter { $0.event == "beaconFailed" }
            #expect(failed.map { $0["type"]?.stringValue } == ["start"])
            #expect(failed.first?["reason"]?.stringValue == "the beacon queue is full (1)")
            #expect(site.requests.filter { $0.path == "/b/green/start" }.isEmpty)
            #expect(
                fired(log)
                    == ["impression", "firstQuartile", "midpoint", "thirdQuartile", "complete"].map { "green \($0)" }
            )
        }
    }
}
