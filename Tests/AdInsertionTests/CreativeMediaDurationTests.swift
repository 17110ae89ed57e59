import AdInsertion
import HLSPlaylist
import Testing

/// A creative's duration read from its playlists: the first variant's `EXTINF` sum, and a frame of
/// tolerance before the configured duration is said to disagree.
@Suite struct CreativeMediaDurationTests {
    static let multivariant = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,FRAME-RATE=25.000
        low/prog.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,FRAME-RATE=25.000
        high/prog.m3u8

        """

    static func media(_ durations: [String], endList: Bool = true) -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n"
        for (k, duration) in durations.enumerated() { text += "#EXTINF:\(duration),\nseg-\(k).ts\n" }
        if endList { text += "#EXT-X-ENDLIST\n" }
        return Array(text.utf8)
    }

    @Test func aMultivariantPlaylistLeadsToItsFirstVariantWhoseDurationsAreSummed() {
        var reading = CreativeDurationReading(uri: "https://cdn.example/ads/a/main.m3u8?token=1")
        #expect(reading.next == .read("https://cdn.example/ads/a/main.m3u8?token=1"))
        let step = reading.received(Array(Self.multivariant.utf8), from: "https://cdn.example/ads/a/main.m3u8?token=1")
        #expect(step == .read("https://cdn.example/ads/a/low/prog.m3u8"))
        // 4 + 4 + 2.04 = 10.04 s; a frame at 25 fps is 40 ms.
        let done = reading.received(
            Self.media(["4.000", "4.000", "2.040"]),
            from: "https://cdn.example/ads/a/low/prog.m3u8"
        )
        guard case .measured(let measured) = done else {
            Issue.record("expected a measurement, got \(done)")
            return
        }
        #expect(measured.duration == MediaTime(nanoseconds: 10_040_000_000))
        #expect(measured.frameDuration == MediaTime(nanoseconds: 40_000_000))
        #expect(!measured.disagrees(with: 10))  // 40 ms: one frame
        #expect(measured.disagrees(with: MediaTime(nanoseconds: 9_999_999_999)))  // 40 ms and 1 ns
        #expect(!measured.disagrees(with: MediaTime(nanoseconds: 10_080_000_000)))
        #expect(measured.disagrees(with: MediaTime(nanoseconds: 10_080_000_001)))
    }

    @Test func aServerPathIsResolvedAsAPathAndAMediaPlaylistIsSummedAtOnce() {
        var reading = CreativeDurationReading(uri: "/media/demo/ad-red/main.m3u8")
        let step = reading.received(Array(Self.multivariant.utf8), from: "/media/demo/ad-red/main.m3u8")
        #expect(step == .read("/media/demo/ad-red/low/prog.m3u8"))
        var direct = CreativeDurationReading(uri: "/media/x/prog.m3u8")
        let measured = direct.received(Self.media(["2.5", "2.5"]), from: "/media/x/prog.m3u8")
        // No multivariant playlist: no frame rate, so a frame at 30 fps.
        #expect(
            measured == .measured(CreativeMediaDuration(duration: 5, frameDuration: MediaTime(nanoseconds: 33_333_333)))
        )
    }

    @Test func playlistsThatGiveNoDurationFailWithAReason() {
        let cases: [(bytes: [UInt8], words: String)] = [
            (Array("not a playlist".utf8), "is not a playlist"),
            (Self.media([]), "has no segments"),
            (Self.media(["2"], endList: false), "EXT-X-ENDLIST"),
            (
                Array("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\"\n".utf8),
                "names no media playlist"
            ),
            ([0, 0, 0], "is not a playlist"),
        ]
        for (bytes, words) in cases {
            var reading = CreativeDurationReading(uri: "/media/x/main.m3u8")
            let step = reading.received(bytes, from: "/media/x/main.m3u8")
            guard case .failed(let reason) = step else {
                Issue.record("\(words): expected a failure, got \(step)")
                continue
            }
            #expect(reason.contains(words), "\(reason)")
        }
        // A multivariant playlist that leads to another multivariant playlist: two reads at most.
        var loop = CreativeDurationReading(uri: "/media/x/main.m3u8")
        _ = loop.received(Array(Self.multivariant.utf8), from: "/media/x/main.m3u8")
        let second = loop.received(Array(Self.multivariant.utf8), from: "/media/x/low/prog.m3u8")
        #expect(second == .failed("/media/x/low/prog.m3u8 names no media playlist"))
    }

    @Test func outOfRangeFrameRatesAndDurationsAreHeldToTheirBounds() {
        for rate in ["0", "0.5", "1e308", "100000"] {
            var reading = CreativeDurationReading(uri: "/m/a/main.m3u8")
            _ = reading.received(
                Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=\(rate)\np.m3u8\n".utf8),
                from: "/m/a/main.m3u8"
            )
            let step = reading.received(Self.media(["1"]), from: "/m/a/p.m3u8")
            // A rate out of 1…1000 frames per second is ignored: the 30 fps frame applies.
            #expect(step == .measured(CreativeMediaDuration(duration: 1)), "FRAME-RATE=\(rate)")
        }
        let measured = CreativeMediaDuration(duration: 10)
        #expect(measured.disagrees(with: MediaTime(nanoseconds: .min)))
        #expect(measured.disagrees(with: MediaTime(nanoseconds: .max)))
        let extreme = CreativeMediaDuration(duration: MediaTime(nanoseconds: .max))
        #expect(extreme.disagrees(with: MediaTime(nanoseconds: .min)))
        #expect(!extreme.disagrees(with: MediaTime(nanoseconds: .max)))
    }
}
