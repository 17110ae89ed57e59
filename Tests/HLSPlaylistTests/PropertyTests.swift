import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Random well-formed playlists, written with the spec's tolerated variations.
enum PlaylistGenerator {
    static func mediaPlaylist(
        _ rng: inout SeededGenerator
    ) -> (text: String, durations: [MediaTime], uris: [String], ids: [String]) {
        let eol = Bool.random(using: &rng) ? "\n" : "\r\n"
        let target = Int.random(in: 2...10, using: &rng)
        var lines = ["#EXTM3U"]
        if Bool.random(using: &rng) { lines.append("#EXT-X-VERSION:\(Int.random(in: 3...10, using: &rng))") }
        lines.append("#EXT-X-TARGETDURATION:\(target)")
        if Bool.random(using: &rng) {
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(Int.random(in: 0...100_000, using: &rng))")
        }
        var date = DateTime(millisecondsSince1970: Int64.random(in: 1_500_000_000_000...1_800_000_000_000, using: &rng))
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date.iso8601)")
        var durations: [MediaTime] = []
        var uris: [String] = []
        var ids: [String] = []
        let count = Int.random(in: 0...40, using: &rng)
        for k in 0..<count {
            switch Int.random(in: 0..<12, using: &rng) {
            case 0: lines.append("# comment \(k)")
            case 1: lines.append("")
            case 2: lines.append("#EXT-X-DISCONTINUITY")
            case 3: lines.append("#EXT-X-COM-VENDOR-TAG:\(k),x=\"y\"")
            case 4:
                let id = "dr-\(k)"
                ids.append(id)
                var attributes = [
                    "ID=\"\(id)\"",
                    "START-DATE=\"\((date + MediaTime(seconds: Int.random(in: 0...30, using: &rng))).iso8601)\"",
                ]
                if Bool.random(using: &rng) { attributes.append("CLASS=\"com.apple.hls.interstitial\"") }
                if Bool.random(using: &rng) { attributes.append("DURATION=\(Int.random(in: 1...60, using: &rng)).5") }
                if Bool.random(using: &rng) { attributes.append("X-ASSET-URI=\"https://a.example/\(k).m3u8\"") }
                if Bool.random(using: &rng) { attributes.append("X-COM-EXAMPLE-HEX=0x\(String(k, radix: 16))AB") }
                if Bool.random(using: &rng) { attributes.append("X-RESUME-OFFSET=-\(k).25") }
                attributes.shuffle(using: &rng)
                lines.append("#EXT-X-DATERANGE:" + attributes.joined(separator: ","))
            default: break
            }
            let millis = Int.random(in: 100...(target * 1000), using: &rng)
            let duration = MediaTime(milliseconds: Int64(millis))
            let places = Int.random(in: 3...6, using: &rng)
            lines.append(
                "#EXTINF:\(duration.decimalString(places: places)),\(Bool.random(using: &rng) ? "title \(k), with comma" : "")"
            )
            let uri = "seg-\(k).ts?q=\(Int.random(in: 0...9, using: &rng))"
            lines.append(uri)
            durations.append(duration)
            uris.append(uri)
            date = date + duration
        }
        if Bool.random(using: &rng) {
            let id = "after-last"
            ids.append(id)
            lines.append("#EXT-X-DATERANGE:ID=\"\(id)\",START-DATE=\"\(date.iso8601)\",X-COM-A=\"b\"")
        }
        if Bool.random(using: &rng) { lines.append("#EXT-X-ENDLIST") }
        var text = lines.joined(separator: eol)
        if Bool.random(using: &rng) { text += eol }
        return (text, durations, uris, ids)
    }
}

@Suite struct PropertyTests {
    @Test(arguments: 0..<300)
    func randomWellFormedPlaylistsRoundTrip(_ seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed))
        let (text, durations, uris, ids) = PlaylistGenerator.mediaPlaylist(&rng)
        let parsed = PlaylistParser.parse(text)
        #expect(!parsed.hasErrors, "\(parsed.diagnostics)")
        #expect(parsed.playlist.serialized() == Array(text.utf8))
        let media = try #require(parsed.playlist.media)
        #expect(media.segments.map(\.duration) == durations)
        #expect(media.segments.map(\.uri) == uris)
        #expect(media.dateRanges.map(\.dateRange.id) == ids)
        #expect(media.duration == durations.reduce(.zero, +))
        // Re-parsing the serialized form gives the same model.
        let again = try #require(PlaylistParser.parse(media.serialized()).playlist.media)
        #expect(again.dateRanges == media.dateRanges)
        #expect(Array(again.timings) == Array(media.timings))
    }

    @Test(arguments: 0..<200)
    func randomBytesNeverCrash(_ seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed) &+ 10_000)
        let alphabet = Array("#EXT-X-DATERANGE:ID=\",START-DATE0123456789.:\r\n@xyz{$}TAGINF\t ".utf8)
        let count = Int.random(in: 0...4000, using: &rng)
        var bytes: [UInt8] = Array("#EXTM3U\n".utf8)
        for _ in 0..<count {
            bytes.append(
                Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            )
        }
        let parsed = PlaylistParser.parse(bytes)
        #expect(parsed.playlist.serialized() == bytes)
        for d in parsed.diagnostics {
            #expect(d.location.line >= 1 && d.location.column >= 1)
        }
    }

    @Test(arguments: 0..<100)
    func mutatedFixturesNeverCrashAndStillRoundTrip(_ seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed) &+ 20_000)
        let fixtures = Fixture.all(in: "playlists")
        var bytes = fixtures[seed % fixtures.count].bytes
        for _ in 0..<Int.random(in: 1...20, using: &rng) where !bytes.isEmpty {
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.remove(at: i)
            default: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + 16)], at: i)
            }
        }
        let parsed = PlaylistParser.parse(bytes)
        #expect(parsed.playlist.serialized() == bytes)
        if let media = parsed.playlist.media {
            _ = media.segments.map(\.uri)
            _ = media.dateRanges.map(\.dateRange.startDate)
        }
    }

    /// Pathological inputs stay linear: each is 1 MB and parses (this checks completion, not time).
    @Test(arguments: ["quotes", "commas", "attributes", "lines"])
    func pathologicalInputsComplete(_ kind: String) {
        let size = 1 << 20
        var text = "#EXTM3U\n"
        switch kind {
        case "quotes": text += "#EXT-X-DATERANGE:ID=\"" + String(repeating: "\"", count: size)
        case "commas": text += "#EXT-X-DATERANGE:" + String(repeating: ",", count: size)
        case "attributes":
            text += "#EXT-X-DATERANGE:" + (0..<(size / 12)).map { "X-A\($0)=\"v\"" }.joined(separator: ",")
        default: text += String(repeating: "#EXTINF:1,\n", count: size / 11)
        }
        let parsed = PlaylistParser.parse(text)
        #expect(parsed.playlist.serialized() == Array(text.utf8))
        #expect(parsed.hasErrors)
    }
}
