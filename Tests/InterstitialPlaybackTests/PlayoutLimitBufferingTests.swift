import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// Buffering ahead stops at an event's playout limit, from the fixture site in memory.
@Suite(.timeLimit(.minutes(1)))
struct PlayoutLimitBufferingTests {
    /// A pod of three 10 s ads with `X-PLAYOUT-LIMIT=15`: the third starts at 20, past the limit,
    /// so it is never requested, not even while the second plays (the limit counts from the
    /// event's first asset, not from the asset playing).
    @Test func anAssetPastThePlayoutLimitIsNotRequested() async throws {
        try await withFixtureSite { base, site in
            let pod = "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=15"
            let primary = Fixtures.vodPrimary(seconds: 20, dateRanges: [Fixtures.interstitial("pod", at: 4, pod)])
            site.serve("/vod/prog.m3u8", .text(primary))
            site.serve("/lists/pod.json", .json(assetList(base, ["red", "green", "blue"])))
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run()
            let log = await player.log
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 15)
            #expect(finished["didPlayEntireEvent"]?.boolValue == false)
            #expect(site.requests.contains { $0.path.contains("/media/ad-green/") })
            #expect(!site.requests.contains { $0.path.contains("/media/ad-blue/") })
        }
    }
}
