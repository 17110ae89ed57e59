import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// The WWDC23 AirPlay talk's three subscription plans, played through the player from the
/// example playlist `Examples/airplay-plans.m3u8` (documented with their Swift code in
/// `Examples/README.md`): the same playlist, three app behaviours.
@Suite(.timeLimit(.minutes(1)))
struct AirPlayPlanTests {
    /// The example playlist, served at `/airplay/airplay-plans.m3u8`: its `chef-cookies/seg-N.ts`
    /// segments are the demo primary's, and its two ads (`ads.example.com/airplay-demo/ad1` and
    /// `ad2`) are the red and green demo ads on the fixture server.
    static func serveExample(_ site: FixtureSite, base: String) throws -> String {
        let file = Fixture.repository.appendingPathComponent("Examples/airplay-plans.m3u8")
        var text = try String(contentsOf: file, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "https://ads.example.com/airplay-demo/ad1/main.m3u8",
            with: base + "/media/ad-red/main.m3u8"
        )
        text = text.replacingOccurrences(
            of: "https://ads.example.com/airplay-demo/ad2/main.m3u8",
            with: base + "/media/ad-green/main.m3u8"
        )
        site.serve("/airplay/airplay-plans.m3u8", .text(text))
        for k in 0..<5 {
            site.serveDemoFile("/airplay/chef-cookies/seg-\(k).ts", from: "/media/primary/seg-00\(k).ts")
        }
        return base + "/airplay/airplay-plans.m3u8"
    }

    static func rateAnswers(_ log: [PlayerLogEntry]) -> [String] {
        log.filter { $0.event == "rateRefused" }.map { "\($0.time.seconds)" }
    }

    static func seekAnswers(_ log: [PlayerLogEntry]) -> [Bool] {
        log.filter { $0.event == "seekResolved" }.compactMap { $0["allowed"]?.boolValue }
    }

    /// Plan A (ads; only play and pause during them): the playlist as given.
    ///
    /// Both ads play whole at
    /// 5 s; fast-forward and forward seeks are refused during either; the primary resumes at 5 s
    /// and can then be sought forward.
    @Test func planAPlaysTheServerEventsAsGiven() async throws {
        try await withFixtureSite { base, site in
            let url = try Self.serveExample(site, base: base)
            let player = Player(item: PlayerItem(url: url), clock: VirtualPlaybackClock(), loader: fixtureLoader())
            await player.play()
            // ad1 plays on the clock from 5 to 15 s, ad2 from 15 to 25 s.
            await player.schedule(.rate(2), at: 7)
            await player.schedule(.seek(to: 9), at: 8)
            await player.schedule(.rate(2), at: 17)
            await player.schedule(.seek(to: 9), at: 18)
            // Back in the primary (at 6 s on the clock's 26 s): a forward seek is allowed.
            await player.schedule(.seek(to: 8), at: 26)
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "current:ad1", "asset:ad1#0", "finished:ad1", "current:ad2", "asset:ad2#0", "finished:ad2",
                    "current:nil",
                    "resumed@5.0", "ended",
                ]
            )
            #expect(Self.rateAnswers(log) == ["7.0", "17.0"])
            #expect(Self.seekAnswers(log) == [false, false, true])
            let finished = log.filter { $0.event == "eventDidFinish" }
            #expect(finished.map { $0["playoutTime"]?.doubleValue } == [10, 10])
            #expect(finished.allSatisfy { $0["didPlayEntireEvent"]?.boolValue == true })
            // 5 s of primary, 20 s of ads, 1 s of primary, a seek over 2 s, 2 s to the end.
            #expect(log.last!.time >= 28 && log.last!.time < 29)
            // The ad requests carry the packager's _HLS_interstitial_id and the client's _HLS_primary_id.
            let session = player.sessionID
            let ads = site.requests.filter { $0.path.hasSuffix("/main.m3u8") && $0.path.hasPrefix("/media/ad-") }
            #expect(ads.map(\.path) == ["/media/ad-red/main.m3u8", "/media/ad-green/main.m3u8"])
            #expect(ads.map { $0.parameter("_HLS_interstitial_id") } == ["ad1", "ad2"])
            #expect(ads.allSatisfy { $0.parameter("_HLS_primary_id") == session })
        }
    }

    /// Plan B (no ads): the app turns the server's events off
    /// (`automaticallyHandlesInterstitialEvents = false`).
    ///
    /// Alone, the 10 s primary plays straight
    /// through and no ad is requested; with an event the app schedules itself (a house promo at
    /// 8 s), only that one plays.
    @Test func planBTurnsOffServerEventsAndSchedulesItsOwn() async throws {
        try await withFixtureSite { base, site in
            let url = try Self.serveExample(site, base: base)
            let noAds = Player(
                item: PlayerItem(url: url, automaticallyHandlesInterstitialEvents: false),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await noAds.play()
            try await noAds.run()
            let plain = await noAds.log
            #expect(summaries(plain) == ["ended"])
            #expect(plain.last!.time >= 10 && plain.last!.time < 11)
            #expect(await InterstitialEventMonitor(player: noAds).events.isEmpty)
            #expect(!site.requests.contains { $0.path.hasPrefix("/media/ad-") })

            let player = Player(
                item: PlayerItem(url: url, automaticallyHandlesInterstitialEvents: false),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run(until: 1)
            var promo = InterstitialEvent(identifier: "house-promo", time: 8)
            promo.assetURIs = [base + "/media/ad-blue/main.m3u8"]
            promo.resumptionOffset = .zero
            let controller = InterstitialEventController(player: player)
            await controller.setEvents([promo])
            #expect(await controller.events.map(\.identifier) == ["house-promo"])
            try await player.run()
            let log = await player.log
            #expect(
                summaries(log) == [
                    "current:house-promo", "asset:house-promo#0", "finished:house-promo", "current:nil", "resumed@8.0",
                    "ended",
                ]
            )
            #expect(log.last!.time >= 20 && log.last!.time < 21)
            let ads = site.requests.filter { $0.path.hasPrefix("/media/ad-") }.map(\.path)
            #expect(!ads.contains { $0.hasPrefix("/media/ad-red/") || $0.hasPrefix("/media/ad-green/") })
            #expect(ads.contains("/media/ad-blue/main.m3u8"))
        }
    }

    /// Plan C (skip after the first ad): the app keeps ad1's restriction and clears ad2's (copies
    /// the event, sets `restrictions = []`, reschedules both).
    ///
    /// Fast-forward is refused in ad1; in
    /// ad2 a forward seek is granted and skips the rest of it.
    @Test func planCOverridesAServerEventsRestrictions() async throws {
        try await withFixtureSite { base, site in
            let url = try Self.serveExample(site, base: base)
            let player = Player(item: PlayerItem(url: url), clock: VirtualPlaybackClock(), loader: fixtureLoader())
            await player.play()
            try await player.run(until: 1)
            let controller = InterstitialEventController(player: player)
            let events = await controller.events
            #expect(events.map(\.identifier) == ["ad1", "ad2"])
            #expect(events.allSatisfy { $0.restrictions == [.skip] })
            let ad1 = try #require(events.first { $0.identifier == "ad1" })
            var ad2 = try #require(events.first { $0.identifier == "ad2" })
            ad2.restrictions = []
            await controller.setEvents([ad1, ad2])
            await player.schedule(.rate(2), at: 7)
            await player.schedule(.seek(to: 8), at: 17)
            try await player.run()
            let log = await player.log
            #expect(Self.rateAnswers(log) == ["7.0"])
            #expect(Self.seekAnswers(log) == [true])
            let seek = try #require(log.first { $0.event == "seekResolved" })
            #expect(seek["granted"]?.doubleValue == 8)
            #expect(
                summaries(log) == [
                    "current:ad1", "asset:ad1#0", "finished:ad1", "current:ad2", "asset:ad2#0", "finished:ad2",
                    "current:nil", "ended",
                ]
            )
            let finished = log.filter { $0.event == "eventDidFinish" }
            #expect(finished.map { $0["playoutTime"]?.doubleValue } == [10, 2])
            #expect(finished.map { $0["didPlayEntireEvent"]?.boolValue } == [true, false])
            // 5 s of primary, ad1 10 s, 2 s of ad2, then the primary from 8 s to its end.
            #expect(log.last!.time >= 19 && log.last!.time < 20)
        }
    }
}
