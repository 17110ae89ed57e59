import HLSInterstitials
import HLSPlaylist
import Testing

/// The clarifications the spec's editors gave since the talks, where the core decides them (issue
/// 17). The player's side (an asset plays to its end, a failed asset is skipped and the next plays)
/// is InterstitialPlayback's.
@Suite struct LegacyClarificationTests {
    /// A 30 s VOD primary with one asset-list interstitial at 10 s and no `X-RESUME-OFFSET`.
    static func primary(resumeOffset: String = "") throws -> MediaPlaylist {
        try MediaPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-TARGETDURATION:10
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
                #EXT-X-DATERANGE:ID="pod",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:10.000Z",X-ASSET-LIST="https://a.example/pod.json"\(resumeOffset)
                #EXTINF:10,
                a.ts
                #EXTINF:10,
                b.ts
                #EXTINF:10,
                c.ts
                #EXT-X-ENDLIST

                """
        )
    }

    static func schedule(_ playlist: MediaPlaylist, durations: [MediaTime]) -> Schedule {
        Schedule(primary: playlist, configuration: .init(assetDurations: ["pod": durations]))
    }

    @Test func assetListDurationsOnlyPlan() throws {
        let list = try AssetList.decode(
            #"{"ASSETS": [{"URI": "https://a.example/1.m3u8", "DURATION": 10}, {"URI": "https://a.example/2.m3u8", "DURATION": 10}]}"#
        )
        let playlist = try Self.primary()
        // Planned from the listed durations: 20 s, and the primary resumes 20 s later.
        let planned = try #require(Self.schedule(playlist, durations: list.assets.map(\.duration)).event("pod"))
        #expect(planned.duration == 20)
        #expect(planned.durationSource == .assets)
        #expect(planned.resumeOffset == 20)
        #expect(planned.resumeTime == 30)
        // The first asset plays to its end at 12.5 s, past its listed 10: nothing cuts it at the
        // listed DURATION, and the schedule re-plans with what played.
        let played = try #require(Self.schedule(playlist, durations: [MediaTime("12.5")!, 10]).event("pod"))
        #expect(played.playoutDuration == MediaTime("22.5")!)
        #expect(played.resumeOffset == MediaTime("22.5")!)
        #expect(played.resumeTime == MediaTime("32.5")!)
    }

    @Test func startOffsetGoesOnAssetListRequestsOnly() {
        let list = InterstitialRequestURL.assetList(
            "https://a.example/pod.json?x=1",
            primaryID: "P1",
            liveStartOffset: MediaTime("10.5")
        )
        #expect(list == "https://a.example/pod.json?x=1&_HLS_primary_id=P1&_HLS_start_offset=10.5")
        // An X-ASSET-URI request, and each asset of a list, carry the primary ID only.
        let asset = InterstitialRequestURL.asset("https://a.example/ad.m3u8?x=1", primaryID: "P1")
        #expect(asset == "https://a.example/ad.m3u8?x=1&_HLS_primary_id=P1")
        // A VOD start inside the interstitial plays it from its beginning: no offset to send.
        let playlist = try? Self.primary()
        let vod = playlist.map {
            Schedule(primary: $0, configuration: .init(assetDurations: ["pod": [10, 10]], start: .time(15)))
        }
        #expect(vod?.start?.eventID == "pod")
        #expect(vod?.start?.startOffset == .zero)
    }

    @Test func aFailedAssetsDurationMayBeLeftOutOfTheResumeOffset() throws {
        let playlist = try Self.primary()
        // Three 10 s assets; the second fails and the player leaves its duration out.
        let all = try #require(Self.schedule(playlist, durations: [10, 10, 10]).event("pod"))
        #expect(all.resumeOffset == 30)
        let withoutFailed = try #require(Self.schedule(playlist, durations: [10, 10]).event("pod"))
        #expect(withoutFailed.resumeOffset == 20)
        #expect(withoutFailed.resumeOffsetSource == .duration)
        #expect(withoutFailed.resumeTime == 30)
        // A given X-RESUME-OFFSET does not come from the durations: a failure does not move it.
        let given = try #require(
            Self.schedule(try Self.primary(resumeOffset: ",X-RESUME-OFFSET=0"), durations: [10, 10]).event("pod")
        )
        #expect(given.resumeOffset == 0)
        #expect(given.resumeOffsetSource == .given)
    }
}
