import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// An ad server may answer a break with no ads (its repeat window left nothing to give); playback
/// must go on, whenever the empty list arrives.
@Suite(.timeLimit(.minutes(1)), .realTime)
struct EmptyPodTests {
    /// The demo VOD's shape: a pod at 20 s, then a break at 40 s whose list (fetched ahead, while
    /// the primary buffers) is empty, then a post-roll.
    @Test func emptyListFetchedAheadDoesNotStallTheBreak() async throws {
        try await withFixtureSite { base, site in
            site.serve(
                "/vod/prog.m3u8",
                .text(
                    Fixtures.vodPrimary(dateRanges: [
                        Fixtures.interstitial(
                            "mid-1",
                            at: 20,
                            "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,DURATION=20"
                        ),
                        Fixtures.interstitial(
                            "mid-2",
                            at: 40,
                            "X-ASSET-LIST=\"/lists/empty.json\",X-RESUME-OFFSET=0,DURATION=10"
                        ),
                        Fixtures.interstitial(
                            "post",
                            at: 0,
                            "X-ASSET-LIST=\"/lists/empty.json\",CUE=\"POST\",DURATION=10"
                        ),
                    ])
                )
            )
            site.serve("/lists/pod.json", .json(assetList(base, ["green", "blue"])))
            site.serve("/lists/empty.json", .json("{\"ASSETS\":[]}"))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == [
                    "list:mid-1", "current:mid-1", "asset:mid-1#0", "asset:mid-1#1", "finished:mid-1", "current:nil",
                    "resumed@20.0",
                    "list:mid-2", "current:mid-2", "finished:mid-2", "current:nil", "resumed@40.0",
                    // The post-roll's list is fetched ahead too, before the primary ends.
                    "list:post", "current:post", "finished:post", "current:nil", "ended",
                ]
            )
            // 60 s of primary and 20 s of ads; the empty breaks take no time.
            #expect(log.last!.time >= 80 && log.last!.time < 81)
        }
    }

    /// The same on a real clock (sped up 40 times, as `intermission play --speed 40`): nothing but
    /// the break's own state can wake the player for an empty break, so it must not wait for a timer.
    @Test func emptyListOnARealClock() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "mid-1",
                    at: 4,
                    "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,DURATION=10"
                ),
                Fixtures.interstitial(
                    "mid-2",
                    at: 12,
                    "X-ASSET-LIST=\"/lists/empty.json\",X-RESUME-OFFSET=0,DURATION=10"
                ),
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            site.serve("/lists/pod.json", .json(assetList(base, ["green"])))
            site.serve("/lists/empty.json", .json("{\"ASSETS\":[]}"))
            // The stall limit is playback-clock time: 60 s at 40x is 1.5 s of wall time, which a
            // machine busy with every other suite can spend on one request. 600 s (15 s of wall
            // time) still ends a real hang before the watchdog does.
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: RealPlaybackClock(speed: 40),
                loader: fixtureLoader(),
                configuration: Player.Configuration(stallTimeout: 600)
            )
            await player.play()
            // 30 s of media at 40x: under a second when nothing hangs; the limit turns a hang into a failure.
            let outcome: Result<Void, any Error>
            do {
                // Past the limit the run is cancelled: a hang is a failure, as a cancellation.
                let finished: Void? = try await withDeadline(.seconds(20)) { try await player.run() }
                outcome = finished == nil ? .failure(CancellationError()) : .success(())
            } catch {
                outcome = .failure(error)
            }
            let log = await player.log
            if case .failure(let error) = outcome { Issue.record("the player stopped: \(error)\n\(log.suffix(20))") }
            // On a real clock a list may arrive before or after its marker; the rest is fixed.
            let order = summaries(log)
            #expect(
                order.filter { !$0.hasPrefix("list:") } == [
                    "current:mid-1", "asset:mid-1#0", "finished:mid-1", "current:nil", "resumed@4.0",
                    "current:mid-2", "finished:mid-2", "current:nil", "resumed@12.0", "ended",
                ],
                "\(log.suffix(30))"
            )
            #expect(order.filter { $0.hasPrefix("list:") } == ["list:mid-1", "list:mid-2"])
        }
    }
}
