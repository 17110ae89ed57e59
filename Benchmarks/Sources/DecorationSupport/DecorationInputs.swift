import AdInsertion
import HLSInterstitials
import HLSPlaylist

/// The inputs of the decoration benchmarks, and the whole pipeline they time: parse the upstream
/// media playlist, decorate it with the channel's breaks (`LiveDecorator`), serialize it.
///
/// That is
/// the work the server does per upstream change, and the work ritcher's published per-playlist
/// figure covers.
public enum DecorationInputs {
    /// The date of the first segment of every input: 2025-01-01T00:00:00Z.
    public static let epochMilliseconds: Int64 = 1_735_689_600_000

    /// Where the upstream playlists live (their relative segment URIs resolve against it).
    public static let upstreamURL = "https://origin.example.com/live/channel-1/1080p/index.m3u8"

    /// The locator of the server's asset lists.
    public static let locator = AssetListLocator(baseURL: "https://ads.example.com")

    /// How far ahead of the window breaks are announced.
    public static let lookahead = MediaTime(seconds: 30)

    /// A typical upstream live window: six 6 s segments, relative URIs, a program date on every
    /// segment (as packagers write for SSAI), no tags of its own.
    public static let liveWindow: [UInt8] = {
        let first = 1_000
        var text = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:\(first)
            #EXT-X-INDEPENDENT-SEGMENTS

            """
        for k in 0..<6 {
            let date = DateTime(millisecondsSince1970: epochMilliseconds + Int64(k) * 6_000)
            text += "#EXT-X-PROGRAM-DATE-TIME:\(date)\n#EXTINF:6.000,\nseg-\(first + k).ts\n"
        }
        return Array(text.utf8)
    }()

    /// One 30 s break starting 21 s into ``liveWindow`` (inside its fourth segment).
    public static let liveBreaks = [
        LiveBreak(
            id: "break-1",
            channel: "channel-1",
            startDate: DateTime(millisecondsSince1970: epochMilliseconds + 21_000),
            duration: MediaTime(seconds: 30),
            restrictions: ["SKIP", "JUMP"],
            updatedAt: DateTime(millisecondsSince1970: epochMilliseconds)
        )
    ]

    /// ``liveBreaks`` changed at `revision` milliseconds after the epoch (its `updatedAt`): a
    /// break the decorator has not rendered yet.
    public static func liveBreaks(revision: Int64) -> [LiveBreak] {
        var breaks = self.liveBreaks
        breaks[0].updatedAt = DateTime(millisecondsSince1970: self.epochMilliseconds + revision)
        return breaks
    }

    /// 48 breaks of 60 s, one every half hour of the 24-hour DVR playlist (which already carries
    /// 500 interstitial tags of its own).
    public static let dvrBreaks = (0..<48).map { k in
        LiveBreak(
            id: "dvr-break-\(k)",
            channel: "channel-1",
            startDate: DateTime(millisecondsSince1970: epochMilliseconds + Int64(k) * 1_800_000 + 1_000),
            duration: MediaTime(seconds: 60),
            restrictions: ["SKIP", "JUMP"],
            updatedAt: DateTime(millisecondsSince1970: epochMilliseconds)
        )
    }

    /// Parses `bytes`, decorates the media playlist with `breaks` and serializes it.
    ///
    /// The parsed playlist is handed to the decorator (no other reference to it is kept), so that
    /// the decorator edits it in place instead of copying its arrays.
    public static func pipeline(_ bytes: [UInt8], breaks: [LiveBreak]) -> [UInt8] {
        LiveDecorator.decorate(
            self.mediaPlaylist(bytes),
            playlistURL: upstreamURL,
            breaks: breaks,
            lookahead: lookahead,
            locator: locator
        )
        .serialized()
    }

    /// The media playlist parsed from `bytes` (leniently, as the server reads upstreams).
    static func mediaPlaylist(_ bytes: [UInt8]) -> MediaPlaylist {
        guard case .media(let media) = PlaylistParser.parse(bytes, options: .init(mode: .lenient)).playlist else {
            preconditionFailure("the benchmark input is a media playlist")
        }
        return media
    }

    /// What `intermission format` does with a file: parse, serialize.
    public static func format(_ bytes: [UInt8]) -> [UInt8] {
        PlaylistParser.parse(bytes, options: .init(mode: .lenient)).playlist.serialized()
    }
}
