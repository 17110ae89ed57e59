import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// An interstitial asset longer than the forward buffer: its buffer follows its playhead, so it
/// plays to its end (it used to stop growing at the buffer's length from the asset's start, and
/// playback stalled for good).
@Suite(.timeLimit(.minutes(1)))
struct ShortForwardBufferTests {
    @Test(arguments: [2, 4, 6])
    func assetsLongerThanTheForwardBufferPlayToTheirEnd(_ seconds: Int) async throws {
        try await withFixtureSite { base, site in
            let range = Fixtures.interstitial("pod", at: 10, "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0")
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 30, dateRanges: [range])))
            site.serve("/lists/pod.json", .json(assetList(base, ["green", "blue"])))
            let player = try await play(
                base + "/vod/prog.m3u8",
                configuration: Player.Configuration(forwardBufferDuration: MediaTime(seconds: seconds))
            )
            let log = await player.log
            #expect(!log.contains { $0.event == "error" }, "\(log.filter { $0.event == "error" })")
            let finished = try #require(log.first { $0.event == "eventDidFinish" })
            #expect(finished["playoutTime"]?.doubleValue == 20)
            #expect(log.last?.event == "ended")
            #expect(log.last.map { abs($0.time.seconds - 50) < 0.5 } == true, "\(log.last?.time.seconds ?? -1)")
        }
    }
}
