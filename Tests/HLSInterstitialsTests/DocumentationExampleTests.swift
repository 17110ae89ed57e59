import HLSInterstitials
import HLSPlaylist
import Testing

/// The code samples of README.md and the DocC catalogs, compiled and run (a README canary).
@Suite struct DocumentationExampleTests {
    static let text = """
        #EXTM3U
        #EXT-X-TARGETDURATION:6
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2021-01-04T05:00:05.000Z",DURATION=15,X-ASSET-URI="https://example.com/ad1/main.m3u8",X-RESTRICT="JUMP"
        #EXTINF:6,
        a.ts
        #EXTINF:6,
        b.ts
        #EXTINF:6,
        c.ts
        #EXTINF:6,
        d.ts

        """

    @Test func readmeLibraryExample() throws {
        let text = Self.text
        var playlist = try MediaPlaylist(parsing: text)
        #expect(playlist.segments.count == 4 && playlist.duration == 24)
        var mapped: [MediaTime] = []
        for placed in playlist.dateRanges where placed.dateRange.isInterstitial {
            mapped.append(playlist.time(at: placed.dateRange.startDate!)!)
        }
        #expect(mapped == [5])
        var range = playlist.dateRanges[0].dateRange
        range.attributes[.playoutLimit] = .decimal(12)
        playlist.replaceDateRange(at: 0, with: range)
        let bytes = playlist.serialized()
        let result = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: "main.m3u8"))
        #expect(result.diagnostics.allSatisfy { $0.severity != .error })
        #expect(String(decoding: bytes, as: UTF8.self).contains("X-PLAYOUT-LIMIT=12"))
    }

    @Test func doccSchedulingExample() throws {
        let playlist = try MediaPlaylist(parsing: Self.text)
        let schedule = Schedule(primary: playlist, configuration: .init(start: .liveJoin))
        // Live join three target durations from the end (24 − 18 = 6 s): after the break at 5 s,
        // whose absent resume offset on live is the time spent in it (15 s), so no start offset.
        #expect(schedule.isLive)
        let policy = NavigationPolicy(schedule: schedule, playedEventIDs: [])
        let plan = policy.resolveSeek(to: .primary(20), from: .primary(1))
        #expect(!plan.reason.isEmpty)
        let vod = Schedule(primary: playlist, configuration: .init(start: .beginning, isLive: false))
        let vodPlan = NavigationPolicy(schedule: vod).resolveSeek(to: .primary(20), from: .primary(1))
        #expect(vodPlan.interstitials == ["ad1"])
    }
}
