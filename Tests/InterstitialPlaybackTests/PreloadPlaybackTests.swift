import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// A `com.apple.hls.preload` date range on the fixture's wall-clock axis.
func preloadTag(
    _ id: String,
    from start: Double,
    to end: Double,
    uri: String,
    target: String,
    targetClass: String = "com.apple.hls.interstitial"
) -> String {
    "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.preload\",START-DATE=\"\(Fixtures.date(start))\","
        + "DURATION=\(end - start),X-URI=\"\(uri)\",X-TARGET-ID=\"\(target)\",X-TARGET-CLASS=\"\(targetClass)\""
}

/// The player honours preload date ranges (Appendix F) over real HTTP on loopback, on the virtual
/// clock.
///
/// The fixture's live window: the player joins at wall 54 (stable 6), 6 s behind the live
/// edge; stable = clock + 6 while the primary plays. The break "ad" is at wall 70 (stable 22): without
/// a hint the list is requested when the buffer reaches it, at clock 10 (stable 16).
@Suite(.timeLimit(.minutes(1)))
struct PreloadPlaybackTests {
    static let breakTag = Fixtures.interstitial("ad", at: 70, "X-ASSET-LIST=\"/lists/ad.json?v=1\",DURATION=10")

    func play(
        seed: UInt64,
        ended: Bool = false,
        ranges: @escaping @Sendable (MediaTime) -> [(start: Double, tag: String)]
    ) async throws -> (log: [PlayerLogEntry], lists: [ServedRequest], session: String) {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock()
            site.serve("/live/prog.m3u8") { _ in
                .text(Fixtures.live(now: clock.now + 60, dateRanges: ranges(clock.now), ended: ended))
            }
            site.serve("/lists/ad.json", .json(assetList(base, ["red"])))
            var configuration = Player.Configuration()
            configuration.preloadRandomSeed = seed
            let player = Player(
                item: PlayerItem(url: base + "/live/prog.m3u8"),
                clock: clock,
                loader: fixtureLoader(),
                configuration: configuration
            )
            await player.play()
            try await player.run(until: 30)
            return (await player.log, site.requests.filter { $0.path == "/lists/ad.json" }, player.sessionID)
        }
    }

    /// The window wall 56…70 is stable 8…22, clamped to end at the usual request (stable 16):
    /// the one request lands at a seeded random moment in it, and the break plays that answer.
    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func oneRequestInsideTheWindowIsUsedAtTheBreak(seed: UInt64) async throws {
        let preload = preloadTag("p-ad", from: 56, to: 70, uri: "/lists/ad.json?v=1", target: "ad")
        let run = try await self.play(seed: seed) { _ in [(56, preload), (70, Self.breakTag)] }
        let scheduled = try #require(run.log.first { $0.event == "preloadScheduled" })
        let moment = try #require(scheduled["primaryTime"]?.doubleValue)
        #expect(scheduled["windowStart"]?.doubleValue == 8)
        #expect(abs((scheduled["windowEnd"]?.doubleValue ?? 0) - 16) <= 0.1)
        #expect(moment >= 8 && moment <= 16.1)
        let fetched = try #require(run.log.first { $0.event == "preloadFetched" })
        // Requested when the playhead reached the moment (stable = clock + 6).
        #expect(abs(fetched.time.seconds - (moment - 6)) <= 0.6)
        #expect(fetched["status"]?.doubleValue == 200)
        #expect(run.lists.count == 1)
        #expect(run.lists.first?.parameter("_HLS_primary_id") == run.session)
        #expect(run.lists.first?.parameter("v") == "1")
        let used = try #require(run.log.firstIndex { $0.event == "preloadUsed" })
        let loaded = try #require(run.log.firstIndex { $0.event == "assetListLoaded" })
        #expect(used < loaded)
        #expect(
            liveSummaries(run.log) == [
                "current:ad", "asset:ad#0", "assetEnded:ad#0", "finished:ad", "current:nil", "resumed@32.0",
            ]
        )
        #expect(!run.log.contains { $0.event == "preloadDiscarded" })
    }

    @Test func seedsSpreadTheMoments() async throws {
        let preload = preloadTag("p-ad", from: 56, to: 70, uri: "/lists/ad.json?v=1", target: "ad")
        var moments: Set<Double> = []
        for seed in [7, 8, 9] as [UInt64] {
            let run = try await self.play(seed: seed) { _ in [(56, preload), (70, Self.breakTag)] }
            if let moment = run.log.first(where: { $0.event == "preloadScheduled" })?["primaryTime"]?.doubleValue {
                moments.insert(moment)
            }
        }
        #expect(moments.count == 3)
    }

    /// With EXT-X-ENDLIST the preload tag is ignored: the list is requested once, as usual.
    @Test func endListIgnoresPreloadTags() async throws {
        let preload = preloadTag("p-ad", from: 56, to: 70, uri: "/lists/ad.json?v=1", target: "ad")
        let run = try await self.play(seed: 1, ended: true) { _ in [(56, preload), (70, Self.breakTag)] }
        #expect(!run.log.contains { $0.event.hasPrefix("preload") })
        #expect(run.lists.count <= 1)
    }

    /// The preload tag disappears after its answer came (window wall 56…62: stable 8…14, fetched
    /// by clock 8; gone from clock 9): the answer is discarded and the list requested at the break.
    @Test func aRemovedTagDiscardsTheAnswer() async throws {
        let preload = preloadTag("p-ad", from: 56, to: 62, uri: "/lists/ad.json?v=1", target: "ad")
        let run = try await self.play(seed: 5) { now in
            now < 9 ? [(56, preload), (70, Self.breakTag)] : [(70, Self.breakTag)]
        }
        #expect(run.log.contains { $0.event == "preloadFetched" })
        let discarded = try #require(run.log.first { $0.event == "preloadDiscarded" })
        #expect(discarded["reason"]?.stringValue == "the preload tag was removed")
        #expect(!run.log.contains { $0.event == "preloadUsed" })
        #expect(run.lists.count == 2)
        #expect(liveSummaries(run.log).first == "current:ad")
    }

    /// X-TARGET-CLASS is not the target's CLASS: the answer is discarded at the break, which
    /// requests its own list.
    @Test func aClassMismatchDiscardsTheAnswer() async throws {
        let preload = preloadTag(
            "p-ad",
            from: 56,
            to: 70,
            uri: "/lists/ad.json?v=1",
            target: "ad",
            targetClass: "com.example.other"
        )
        let run = try await self.play(seed: 3) { _ in [(56, preload), (70, Self.breakTag)] }
        let discarded = try #require(run.log.first { $0.event == "preloadDiscarded" })
        #expect(discarded["reason"]?.stringValue?.hasPrefix("X-TARGET-CLASS") == true)
        #expect(run.lists.count == 2)
        #expect(liveSummaries(run.log).first == "current:ad")
    }

    /// X-URI lacks the target's query (`v=2` against `v=1`): discarded, the break requests its own.
    @Test func aQueryMismatchDiscardsTheAnswer() async throws {
        let preload = preloadTag("p-ad", from: 56, to: 70, uri: "/lists/ad.json?v=2", target: "ad")
        let run = try await self.play(seed: 3) { _ in [(56, preload), (70, Self.breakTag)] }
        let discarded = try #require(run.log.first { $0.event == "preloadDiscarded" })
        #expect(discarded["reason"]?.stringValue?.hasPrefix("X-URI") == true)
        #expect(run.lists.map { $0.parameter("v") } == ["2", "1"])
    }
}
