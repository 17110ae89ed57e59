import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Testing

/// SplitMix64: the same windows on every run.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Segment `k`'s URI, in one of the shapes upstreams use.
private func segmentURI(_ k: Int) -> String {
    switch k % 5 {
    case 0: return "1080p/seg-\(k).ts"
    case 1: return "seg-\(k).ts?token=a%2Fb"
    case 2: return "https://cdn.example.com/live/seg-\(k).ts"
    case 3: return "../other/seg-\(k).ts"
    default: return "seg%20\(k).ts"
    }
}

/// A live window of segments `first ..< first + count` (2 s each, dated from 2025-01-01T00:00:00Z
/// for segment 0), with a map and a key.
private func window(first: Int, count: Int) throws -> MediaPlaylist {
    let seconds = 2 * first
    var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
    text += "#EXT-X-MAP:URI=\"init.mp4\"\n"
    text += "#EXT-X-KEY:METHOD=AES-128,URI=\"keys/k\(first / 50).bin\"\n"
    text += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T\(format2(seconds / 3600)):"
    text += "\(format2(seconds / 60 % 60)):\(format2(seconds % 60)).000Z\n"
    for k in first..<first + count { text += "#EXTINF:2.000,\n\(segmentURI(k))\n" }
    return try MediaPlaylist(parsing: text)
}

private func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

@Suite struct SegmentURIResolverTests {
    static let url = "http://up.example.com/channel/live/p.m3u8?token=t"
    static let breaks = [
        LiveBreak(
            id: "b1",
            channel: "up",
            startDate: DateTime(iso8601: "2025-01-01T00:03:00.000Z")!,
            duration: 30,
            updatedAt: DateTime(iso8601: "2025-01-01T00:00:00.000Z")!
        )
    ]

    /// Over 300 random reloads of a live window (its end 0 to 5 segments on, its length 1 to 40
    /// segments), a decorator kept from one window to the next gives exactly what a fresh
    /// decoration gives, and resolves only the URIs it has not seen: the new segments (and a new
    /// key).
    @Test func aKeptResolverDecoratesLikeAFreshOneAndResolvesOnlyNewSegments() throws {
        var random = SeededGenerator(state: 16)
        var uris = SegmentURIResolver(playlistURL: Self.url)
        var first = 0
        var end = 6
        var previousEnd = 0
        var previousKey = -1
        for step in 0..<300 {
            let playlist = try window(first: first, count: end - first)
            let before = uris.resolutions
            let kept = LiveDecorator.decorate(
                playlist,
                uris: &uris,
                breaks: Self.breaks,
                lookahead: 30,
                locator: AssetListLocator()
            )
            let fresh = LiveDecorator.decorate(
                playlist,
                playlistURL: Self.url,
                breaks: Self.breaks,
                lookahead: 30,
                locator: AssetListLocator()
            )
            #expect(kept.serialized() == fresh.serialized(), "step \(step)")
            // New segments are those past the last window's end (some may have been skipped); the map is new on the first step,
            // the key whenever its number changes.
            let expected = (end - max(previousEnd, first)) + (step == 0 ? 1 : 0) + (first / 50 != previousKey ? 1 : 0)
            #expect(uris.resolutions - before == expected, "step \(step): \(first)..<\(end) after ..<\(previousEnd)")
            // What it remembers follows the window.
            #expect(uris.rememberedCount <= 3 * 42 + 64, "step \(step)")
            previousEnd = end
            previousKey = first / 50
            end += Int.random(in: 0...5, using: &random)
            first = max(first, end - Int.random(in: 1...40, using: &random))
        }
        #expect(uris.resolutions < 2 * end)
    }

    /// The 24-hour window read again one segment on: one URI resolved, not 43,200.
    @Test func aMovedDVRWindowResolvesOneURI() throws {
        var uris = SegmentURIResolver(playlistURL: Self.url)
        _ = LiveDecorator.decorate(
            try window(first: 0, count: 43_200),
            uris: &uris,
            breaks: [],
            lookahead: 30,
            locator: AssetListLocator()
        )
        let before = uris.resolutions
        #expect(before == 43_202)  // segments, map and key
        let moved = LiveDecorator.decorate(
            try window(first: 1, count: 43_200),
            uris: &uris,
            breaks: [],
            lookahead: 30,
            locator: AssetListLocator()
        )
        #expect(uris.resolutions - before == 1)
        #expect(moved.serialized().count > 43_200 * 30)
    }
}
