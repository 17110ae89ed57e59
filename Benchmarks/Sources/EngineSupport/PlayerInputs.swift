import HLSPlaylist
import InterstitialPlayback

/// The inputs of the player benchmark: a 20-minute VOD of 2 s segments with an interstitial every
/// minute (an asset list of two 10 s ads), served from memory.
public enum PlayerInputs {
    /// How far the virtual clock moves between two measured passes.
    public static let step = MediaTime(seconds: 1)

    /// The primary's URL.
    public static let primaryURL = "https://origin.example.com/vod/main.m3u8"

    /// The primary media playlist: 600 segments of 2 s, one interstitial date range a minute.
    public static let primary: [UInt8] = {
        let epoch: Int64 = 1_735_689_600_000
        var text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:\(DateTime(millisecondsSince1970: epoch))

            """
        for minute in 1..<20 {
            let start = DateTime(millisecondsSince1970: epoch + Int64(minute) * 60_000)
            text += "#EXT-X-DATERANGE:ID=\"break-\(minute)\",CLASS=\"com.apple.hls.interstitial\","
            text += "START-DATE=\"\(start)\",DURATION=20,X-ASSET-LIST=\"https://ads.example.com/list.json\","
            text += "X-RESUME-OFFSET=0\n"
        }
        for k in 0..<600 {
            text += "#EXTINF:2.000,\nseg-\(k).ts\n"
        }
        return Array((text + "#EXT-X-ENDLIST\n").utf8)
    }()

    /// Every ad's media playlist: five segments of 2 s.
    public static let ad: [UInt8] = {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for k in 0..<5 {
            text += "#EXTINF:2.000,\nad-\(k).ts\n"
        }
        return Array((text + "#EXT-X-ENDLIST\n").utf8)
    }()

    /// The asset list of every break: two 10 s ads.
    public static let assetList = Array(
        """
        {"ASSETS":[{"URI":"https://ads.example.com/a/main.m3u8","DURATION":10},\
        {"URI":"https://ads.example.com/b/main.m3u8","DURATION":10}]}
        """.utf8
    )

    /// A player of the primary on a virtual clock, already started (first loads made), playing.
    public static func startedPlayer() async throws -> Player {
        var configuration = Player.Configuration(keepsLog: false, logsRequests: false)
        configuration.preloadRandomSeed = 1
        let player = Player(
            item: PlayerItem(url: primaryURL),
            clock: VirtualPlaybackClock(),
            loader: MemoryLoader(),
            configuration: configuration,
            sessionID: "benchmark-session"
        )
        await player.play()
        try await player.run(until: .zero)
        return player
    }
}

/// Answers the player from memory: the playlists and the asset list above, and a 100 KB segment
/// (counted, not sent) for any other URL; every answer takes a fixed 10 ms, so the bandwidth
/// estimate is the same in every run.
public struct MemoryLoader: ResourceLoader {
    /// A loader of the inputs above.
    public init() {}

    /// The answer to `request`.
    public func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        let path = request.url.prefix { $0 != "?" }
        let body: [UInt8]
        switch request.kind {
        case .assetList: body = PlayerInputs.assetList
        case .mediaPlaylist, .multivariantPlaylist:
            body = path == PlayerInputs.primaryURL ? PlayerInputs.primary : PlayerInputs.ad
        default:
            return .success(LoadResponse(status: 200, body: [], byteCount: 100_000, elapsed: .milliseconds(10)))
        }
        return .success(LoadResponse(status: 200, body: body, byteCount: body.count, elapsed: .milliseconds(10)))
    }
}
