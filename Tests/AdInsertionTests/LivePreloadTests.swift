import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Testing

/// Live breaks announce their asset list ahead with a preload date range (spec Appendix F).
@Suite struct LivePreloadTests {
    /// A 6-segment loop of 2 s segments, rendered at 100 s; a planned break at 120 s.
    func rendered(window: MediaTime, at seconds: Int = 100, planAhead: Int = 30) throws -> [UInt8] {
        let source = try MediaPlaylist(parsing: vodPlaylist(count: 5))
        let loop = try LiveLoop(source: source, sourceURL: "/media/p/prog.m3u8", startDate: t0, windowSize: 6)
        let now = t0 + MediaTime(seconds: seconds)
        let breaks = LiveBreakPlan(interval: 120, duration: 20).breaks(
            channel: "demo",
            startDate: t0,
            from: now - 60,
            to: now + MediaTime(seconds: planAhead)
        )
        return loop.render(at: now, breaks: breaks, lookahead: 30, locator: AssetListLocator(), preloadWindow: window)
    }

    @Test func aLoopedChannelAnnouncesEachBreakWithAPreloadRange() throws {
        let bytes = try self.rendered(window: 16)
        let playlist = try MediaPlaylist(bytes: bytes)
        let ranges = DateRangeTracker(playlist: playlist)
        let preload = try #require(ranges.preloadRanges.first)
        let target = try #require(ranges["auto-0"])
        #expect(preload.identifier == "preload-auto-0")
        #expect(preload.targetID == "auto-0")
        #expect(preload.targetClass == "com.apple.hls.interstitial")
        #expect(preload.uri == "/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0")
        #expect(preload.uri == target.attributes[.assetList]?.quotedString)
        #expect(preload.start == DateTime(iso8601: "2025-01-01T00:01:44.000Z"))
        #expect(preload.end == target.startDate)
        // Our own validator: no diagnostic at all.
        let diagnostics = InterstitialValidator().validate(playlist: bytes)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
        #expect(
            dateRangeLines(bytes).contains(
                "#EXT-X-DATERANGE:ID=\"preload-auto-0\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2025-01-01T00:01:44.000Z\",DURATION=16,X-URI=\"/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0\",X-TARGET-ID=\"auto-0\",X-TARGET-CLASS=\"com.apple.hls.interstitial\""
            )
        )
    }

    /// The preload range opens before the break is announced: the playlist then carries the
    /// preload range alone (its target comes later, as the appendix allows).
    @Test func aLongWindowAnnouncesThePreloadBeforeTheBreak() throws {
        // At 80 s the window ends at 80 s: the break (120 s) is beyond the 30 s lookahead, its
        // preload (from 120 - 60 = 60 s) is not.
        let bytes = try self.rendered(window: 60, at: 80, planAhead: 60)
        let ids = try MediaPlaylist(bytes: bytes).dateRanges.map(\.dateRange.id)
        #expect(ids == ["preload-auto-0"])
        #expect(InterstitialValidator().validate(playlist: bytes).isEmpty)
    }

    @Test func aZeroWindowWritesNoPreloadRange() throws {
        let bytes = try self.rendered(window: .zero)
        #expect(dateRangeLines(bytes).count == 1)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("com.apple.hls.preload"))
    }

    @Test func preAndPostRollsGetNoPreloadRange() {
        let locator = AssetListLocator()
        let pre = LiveBreak(id: "p", channel: "c", startDate: t0, duration: 2, cue: ["PRE"], updatedAt: t0)
        let post = LiveBreak(id: "q", channel: "c", startDate: t0, duration: 2, cue: ["POST"], updatedAt: t0)
        let once = LiveBreak(id: "r", channel: "c", startDate: t0, duration: 2, cue: ["ONCE"], updatedAt: t0)
        #expect(pre.preloadRange(locator: locator, window: 10) == nil)
        #expect(post.preloadRange(locator: locator, window: 10) == nil)
        #expect(once.preloadRange(locator: locator, window: 10) != nil)
        #expect(once.preloadRange(locator: locator, window: .zero) == nil)
    }

    @Test func anUpstreamChannelGetsPreloadRangesToo() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:01:30.000Z\n"
        for k in 0..<5 { text += "#EXTINF:2,\ns\(k).ts\n" }
        let playlist = try MediaPlaylist(parsing: text)
        let breaks = [
            LiveBreak(id: "mid", channel: "up", startDate: t0 + MediaTime(seconds: 110), duration: 20, updatedAt: t0)
        ]
        func decorate(_ playlist: MediaPlaylist) -> [UInt8] {
            LiveDecorator.decorate(
                playlist,
                playlistURL: "http://up.example.com/live/p.m3u8",
                breaks: breaks,
                lookahead: 30,
                locator: AssetListLocator(),
                preloadWindow: 12
            ).serialized()
        }
        let decorated = decorate(playlist)
        let diagnostics = InterstitialValidator().validate(playlist: decorated)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
        let tracker = DateRangeTracker(playlist: try MediaPlaylist(bytes: decorated))
        let preload = try #require(tracker.preloadRanges.first)
        #expect(preload.start == DateTime(iso8601: "2025-01-01T00:01:38.000Z"))
        #expect(preload.end == DateTime(iso8601: "2025-01-01T00:01:50.000Z"))
        #expect(preload.uri == tracker["mid"]?.attributes[.assetList]?.quotedString)
        // Decorating the decorated playlist again adds nothing.
        let again = decorate(try MediaPlaylist(bytes: decorated))
        #expect(again == decorated)
    }
}
