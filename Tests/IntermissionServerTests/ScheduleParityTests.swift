import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// A channel with `breakFormat: schedule` (Appendix H) gives its viewers what the same channel with
/// asset lists gives them: beacons, early returns, plans, late joins and signaling times.
///
/// Every test runs on both demo channels (`demo`, asset lists; `demo-schedule`, schedules), whose
/// first break `auto-0` starts 120 s after the channel (`t0`) and lasts 20 s: two 10 s ads.
@Suite(.realTime) struct ScheduleParityTests {
    static let key = Array("schedule-parity-key-0123456789abcd".utf8)

    /// The demo channel that publishes its breaks in `format`.
    static func channel(_ format: LiveBreakFormat) -> String {
        format == .schedule ? "demo-schedule" : "demo"
    }

    /// The demo configuration with signed beacons and plan tokens.
    static func configuration(clock: ManualWallClock) throws -> ServerConfiguration {
        var configuration = try demoConfiguration(clock: clock)
        configuration.tracking = TrackingConfiguration(key: Self.key)
        configuration.tracking.beacons = true
        return configuration
    }

    /// The log of a headless player (virtual clock) of the channel's multivariant playlist, played
    /// in one-second steps of both clocks from `start` (server time) for `seconds`.
    ///
    /// - Parameters:
    ///   - query: Added to the playlist URL (`?plan=…`).
    ///   - beacons: Whether the player fires the beacons (`beaconMode` `client`).
    ///   - atSecond: Called after the server clock is set to each second and before the player
    ///     runs to it, with the test client.
    static func playerLog(
        _ format: LiveBreakFormat,
        from start: DateTime,
        seconds: Int,
        query: String = "",
        beacons: Bool = false,
        atSecond: @escaping @Sendable (Int, any TestClientProtocol) async throws -> Void = { _, _ in }
    ) async throws -> [PlayerLogEntry] {
        let serverClock = ManualWallClock(start)
        return try await withServer(try Self.configuration(clock: serverClock)) { client in
            let port = try #require(client.port)
            var configuration = Player.Configuration()
            if beacons { configuration.beaconMode = .client }
            let player = Player(
                item: PlayerItem(url: "http://127.0.0.1:\(port)/live/\(Self.channel(format))/main.m3u8" + query),
                clock: VirtualPlaybackClock(),
                configuration: configuration,
                sessionID: "parity-\(format)"
            )
            await player.play()
            for second in 1...seconds {
                serverClock.set(start + MediaTime(seconds: second))
                try await atSecond(second, client)
                guard await !player.hasEnded, await player.error == nil else { break }
                try await player.run(until: MediaTime(seconds: second))
            }
            let error = await player.error
            #expect(error == nil, "\(String(describing: error))")
            return await player.log
        }
    }

    /// The events the player made current, in order (`nil` entries dropped).
    static func currentEvents(_ log: [PlayerLogEntry]) -> [PlayerLogEntry] {
        log.filter { $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue != nil }
    }

    /// 1. The player fires every ad's seven VAST beacons (impression, creativeView, start, the
    /// quartiles, complete): 14 for the demo's two-ad break, each at its moment in its own ad.
    @Test(.timeLimit(.minutes(2)), arguments: LiveBreakFormat.allCases)
    func thePlayerFiresEachAdsBeacons(_ format: LiveBreakFormat) async throws {
        let log = try await Self.playerLog(format, from: t0 + MediaTime(seconds: 100), seconds: 75, beacons: true)
        let text = log.map(\.description).joined(separator: "\n")
        let fired = log.filter { $0.event == "beaconFired" }
        #expect(fired.count == 14, "\(text)")
        #expect(!log.contains { $0.event == "beaconFailed" }, "\(text)")
        #expect(fired.allSatisfy { ($0["url"]?.stringValue ?? "").contains("/v1/track/") })
        // Two creatives, each with its seven events at 0, 0, 0, 2.5, 5, 7.5 and 10 s of its own 10 s ad.
        let creatives = Set(fired.compactMap { $0["creative"]?.stringValue })
        #expect(creatives.count == 2, "\(text)")
        for creative in creatives {
            let mine = fired.filter { $0["creative"]?.stringValue == creative }
            let types = mine.compactMap { $0["type"]?.stringValue }.sorted()
            #expect(
                types == [
                    "complete", "creativeView", "firstQuartile", "impression", "midpoint", "start", "thirdQuartile",
                ]
            )
            let moments = mine.compactMap { $0["moment"]?.doubleValue }.sorted()
            #expect(moments == [0, 0, 0, 2.5, 5, 7.5, 10], "\(creative): \(text)")
        }
    }

    /// 2. An early return 13 s into the break (the admin API, while the player, 6 s behind the
    /// live edge, is 7 s in): the viewer leaves the break 13 s after it entered it, having played
    /// 13 s of ads (on the schedule channel: the first ad whole, 3 s of the second).
    @Test(.timeLimit(.minutes(2)), arguments: LiveBreakFormat.allCases)
    func anEarlyReturnEndsTheBreakThere(_ format: LiveBreakFormat) async throws {
        let channel = Self.channel(format)
        let playlist = Captured()
        let log = try await Self.playerLog(format, from: t0 + MediaTime(seconds: 100), seconds: 70) { second, client in
            if second == 33 {
                let early = try await client.admin(.post, "/v1/admin/channels/\(channel)/breaks/auto-0/early-return")
                #expect(early.status == .ok, "\(early.text)")
                #expect(early.json?["playoutLimit"]?.doubleValue == 13, "\(early.text)")
            } else if second == 34 {
                // The playlist says so to every viewer.
                let response = try await client.get("/live/\(channel)/prog.m3u8")
                await playlist.keep(response)
            }
        }
        let answer = try #require(await playlist.response)
        let text = log.map(\.description).joined(separator: "\n")
        let line = try #require(dateRangeLines(answer.text).first { $0.contains("ID=\"auto-0\"") })
        #expect(line.contains("X-PLAYOUT-LIMIT=13"), "\(line)")
        #expect(errors(answer.bytes).isEmpty)
        let first = try #require(Self.currentEvents(log).first, "\(text)")
        let entered = try #require(first["primaryTime"]?.doubleValue, "\(text)")
        // The primary resumes 13 s after the break's start (on the schedule channel also once
        // between the ads, where the first one's resume offset ends it), 13 s of playback later.
        let resumes = log.filter { $0.event == "primaryResumed" }
        #expect(resumes.last?["primaryTime"]?.doubleValue == entered + 13, "\(text)")
        #expect(resumes.last.map { ($0.time - first.time).seconds } == 13, "\(text)")
        let played = log.filter { $0.event == "interstitialAssetEnded" }.compactMap { $0["playoutTime"]?.doubleValue }
        #expect(played.reduce(0, +) == 13, "\(text)")
        if format == .schedule {
            #expect(Self.currentEvents(log).compactMap { $0["eventID"]?.stringValue } == ["auto-0-1", "auto-0-2"])
            #expect(played == [10, 3], "\(text)")
        }
    }

    /// 3. A plan C viewer (`plan=` on the playlist URL): its token reaches the request that decides
    /// its pod, so the rest of the pod after the first ad may be skipped: the skip becomes
    /// eligible 10 s into the break (the second ad's start). The preload range's `X-URI` (asset
    /// lists) carries the token too, so the validator finds no query missing from it and the
    /// player uses the preloaded answer instead of asking again.
    @Test(.timeLimit(.minutes(2)), arguments: LiveBreakFormat.allCases)
    func thePlanTokenReachesThePodAndPlanCMaySkipTheSecondAd(_ format: LiveBreakFormat) async throws {
        let channel = Self.channel(format)
        let token = PlanTokens.mint(.c, key: Self.key)
        let query = "?plan=" + token
        let log = try await Self.playerLog(format, from: t0 + MediaTime(seconds: 100), seconds: 60, query: query) {
            second,
            client in
            // At 1:50 the break is announced (and, on the asset-list channel, its preload range).
            guard second == 10 else { return }
            let playlist = try await client.get("/live/\(channel)/prog.m3u8" + query)
            #expect(playlist.status == .ok)
            let line = try #require(dateRangeLines(playlist.text).first { $0.contains("ID=\"auto-0\"") })
            let attribute = format == .schedule ? "X-URI" : "X-ASSET-LIST"
            #expect(line.contains("\(attribute)=\"") && line.contains("plan=\(token)\""), "\(line)")
            let preloads = preloadLines(playlist.text)
            #expect(preloads.count == (format == .schedule ? 0 : 1), "\(playlist.text)")
            #expect(preloads.allSatisfy { $0.contains("plan=\(token)\"") }, "\(preloads)")
            let diagnostics = InterstitialValidator().validate(playlist: playlist.bytes)
            #expect(!diagnostics.contains { $0.rule.rawValue.hasPrefix("INT-PRELOAD") }, "\(diagnostics)")
            #expect(!diagnostics.contains { $0.severity == .error }, "\(diagnostics)")
        }
        let text = log.map(\.description).joined(separator: "\n")
        let requests = log.filter {
            $0.event == "request" && ["schedule", "assetList"].contains($0["kind"]?.stringValue ?? "")
        }
        #expect(
            !requests.isEmpty && requests.allSatisfy { ($0["url"]?.stringValue ?? "").contains("plan=") },
            "\(text)"
        )
        // One request decides the pod: on the asset-list channel the preload's answer is used,
        // not discarded for a missing query item and asked again.
        #expect(requests.count == 1, "\(text)")
        #expect(!log.contains { $0.event == "preloadDiscarded" }, "\(text)")
        let used = log.filter { $0.event == "preloadUsed" }.compactMap { $0["targetID"]?.stringValue }
        #expect(used == (format == .schedule ? [] : ["auto-0"]), "\(text)")
        let entered = try #require(Self.currentEvents(log).first?.time, "\(text)")
        let eligible = log.filter { $0.event == "skippableStateDidChange" && $0["state"]?.stringValue == "eligible" }
        #expect(eligible.map { ($0.time - entered).seconds } == [10], "\(text)")
        #expect(eligible.first?["eventID"]?.stringValue == (format == .schedule ? "auto-0-2" : "auto-0"))
    }

    /// 3b.
    ///
    /// A plan B viewer: with `tracking.planBRemovesInterstitials` its playlist has no break
    /// at all (no interstitial, schedule or preload date range); without it, the break is there
    /// and the pod it asks for is empty.
    @Test(.timeLimit(.minutes(1)), arguments: LiveBreakFormat.allCases)
    func planBGetsNoAds(_ format: LiveBreakFormat) async throws {
        let clock = ManualWallClock(t0 + MediaTime(seconds: 110))
        let channel = Self.channel(format)
        let token = PlanTokens.mint(.b, key: Self.key)
        let query = "?plan=" + token
        var removing = try Self.configuration(clock: clock)
        removing.tracking.planBRemovesInterstitials = true
        try await withServer(removing) { client in
            let playlist = try await client.get("/live/\(channel)/prog.m3u8" + query)
            #expect(playlist.status == .ok && playlist.text.contains("#EXTINF"))
            #expect(!playlist.text.contains("#EXT-X-DATERANGE"), "\(playlist.text)")
        }
        try await withServer(try Self.configuration(clock: clock)) { client in
            let playlist = try await client.get("/live/\(channel)/prog.m3u8" + query)
            let line = try #require(dateRangeLines(playlist.text).first { $0.contains("ID=\"auto-0\"") })
            let attribute = format == .schedule ? "X-URI=\"" : "X-ASSET-LIST=\""
            let start = try #require(line.firstRange(of: attribute), "\(line)")
            let uri = String(line[start.upperBound...].prefix { $0 != "\"" })
            #expect(uri.hasSuffix("&plan=" + token), "\(uri)")
            let pod = try await client.get(uri + "&_HLS_primary_id=plan-b")
            #expect(pod.status == .ok, "\(pod.text)")
            let entries = pod.json?[format == .schedule ? "DATERANGES" : "ASSETS"]?.arrayValue
            #expect(entries?.isEmpty == true, "\(pod.text)")
        }
    }

    /// 4. A viewer who joins during the break (the server at 2:12 when the player first asks;
    /// the player starts three target durations, 6 s, behind the live edge, at 2:06): it joins the
    /// first ad 6 s in, then plays the second ad and the primary from the break's end, 14 s later;
    /// it never shows the primary the first ad replaces.
    @Test(.timeLimit(.minutes(2)), arguments: LiveBreakFormat.allCases)
    func aLateJoinerJoinsTheAdUnderWay(_ format: LiveBreakFormat) async throws {
        let log = try await Self.playerLog(format, from: t0 + MediaTime(seconds: 131), seconds: 40)
        let text = log.map(\.description).joined(separator: "\n")
        let current = Self.currentEvents(log)
        let first = try #require(current.first, "\(text)")
        #expect(first["eventID"]?.stringValue == (format == .schedule ? "auto-0-1" : "auto-0"), "\(text)")
        #expect(first["joinedAt"]?.doubleValue == 6, "\(text)")
        let joined = try #require(first["primaryTime"]?.doubleValue)
        // Nothing of the primary plays before the break: the player entered it at once.
        #expect(first.time.seconds < 1, "\(text)")
        if format == .schedule {
            #expect(current.compactMap { $0["eventID"]?.stringValue } == ["auto-0-1", "auto-0-2"], "\(text)")
        }
        let resumes = log.filter { $0.event == "primaryResumed" }
        #expect(resumes.last?["primaryTime"]?.doubleValue == joined - 6 + 20, "\(text)")
        #expect(resumes.last.map { ($0.time - first.time).seconds } == 14, "\(text)")
    }

    /// 5. Each ad's `X-AD-CREATIVE-SIGNALING` `start` counts from its own interstitial: in the
    /// asset list, from the pod's start (0 and 10); in the schedule, where each ad is an
    /// interstitial of its own, 0 for each.
    @Test(.timeLimit(.minutes(1)), arguments: LiveBreakFormat.allCases)
    func eachAdsSignalingCountsFromItsOwnInterstitial(_ format: LiveBreakFormat) async throws {
        let serverClock = ManualWallClock(t0 + MediaTime(seconds: 110))
        try await withServer(try Self.configuration(clock: serverClock)) { client in
            let scope = "live-" + Self.channel(format)
            let kind = format == .schedule ? "schedules" : "asset-lists"
            let response = try await client.get(
                "/v1/\(kind)/\(scope)/auto-0.json?_HLS_interstitial_id=auto-0&_HLS_primary_id=signaling"
            )
            #expect(response.status == .ok, "\(response.text)")
            var signaling: [CreativeSignaling] = []
            if format == .schedule {
                for entry in try DateRangeSchedule.decode(response.bytes).schedule.dateRanges {
                    let value = try #require(entry[CreativeSignaling.key], "\(response.text)")
                    signaling.append(try CreativeSignaling(json: value))
                }
            } else {
                for asset in try AssetList.decode(response.bytes).assets {
                    signaling.append(try #require(try asset.creativeSignaling(), "\(response.text)"))
                }
            }
            let starts = signaling.map { $0.payload.map { $0.start?.doubleValue } }
            #expect(starts == (format == .schedule ? [[0], [0]] : [[0], [10]]), "\(response.text)")
            #expect(signaling.map { $0.payload.map { $0.duration?.doubleValue } } == [[10], [10]])
        }
    }
}

/// A response kept by a test's callback.
private actor Captured {
    var response: TestResponse?

    func keep(_ response: TestResponse) { self.response = response }
}
