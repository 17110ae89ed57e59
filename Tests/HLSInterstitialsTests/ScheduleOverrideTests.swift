import HLSInterstitials
import HLSPlaylist
import Testing

/// Client overrides (the AirPlay talk's plan C) through an incremental update give the same
/// schedule as a fresh build.
@Suite struct ScheduleOverrideTests {
    @Test func clearingARestrictionUpdatesTheSchedule() throws {
        let playlist = try MediaPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-TARGETDURATION:5
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-PROGRAM-DATE-TIME:2023-06-05T10:00:00.000Z
                #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-05T10:00:05.000Z",DURATION=10,X-ASSET-URI="https://a.example/ad1.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP"
                #EXT-X-DATERANGE:ID="ad2",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-05T10:00:05.000Z",DURATION=10,X-ASSET-URI="https://a.example/ad2.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP"
                #EXTINF:5,
                a.ts
                #EXTINF:5,
                b.ts
                #EXT-X-ENDLIST

                """
        )
        var events = InterstitialEvent.events(in: playlist)
        var schedule = Schedule(primary: playlist, events: events)
        events[1].restrictions = []
        schedule.update(events: events)
        let fresh = Schedule(primary: playlist, events: events)
        #expect(schedule.items == fresh.items)
        #expect(schedule.event("ad2")?.event.restrictions == [])
        #expect(schedule.items.first { $0.eventID == "ad2" }?.restrictions == [])
        let policy = NavigationPolicy(schedule: schedule)
        let inAd2 = Playhead.interstitial("ad2", at: 2, primaryTime: 5)
        #expect(policy.resolveRate(2, at: inAd2).isAllowed)
        #expect(!policy.resolveRate(2, at: .interstitial("ad1", at: 2, primaryTime: 5)).isAllowed)
    }
}
