import HLSPlaylist
import InterstitialPlayback
import Testing

/// What `intermission download` keeps of a multivariant playlist: one variant by `--variant`
/// (highest, a bandwidth ceiling, a resolution ceiling) and the audio and subtitles renditions of
/// `--language`, else the defaults.
@Suite struct OfflineSelectionTests {
    static let ladder = try! MultivariantPlaylist(
        parsing: """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="audio/fr.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subs/en.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subs/fr.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",LANGUAGE="en",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
            v1080/prog.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
            v360/prog.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
            v720/prog.m3u8

            """
    )

    @Test(arguments: [
        ("", "v1080/prog.m3u8"), ("5000000", "v1080/prog.m3u8"), ("4999999", "v720/prog.m3u8"),
        ("2000000", "v720/prog.m3u8"), ("1000000", "v360/prog.m3u8"), ("1", "v360/prog.m3u8"),
        ("1280x720", "v720/prog.m3u8"), ("1920x1080", "v1080/prog.m3u8"), ("1919x1080", "v720/prog.m3u8"),
        ("1280x719", "v360/prog.m3u8"), ("1x1", "v360/prog.m3u8"), ("65535x65535", "v1080/prog.m3u8"),
    ])
    func theVariantFollowsTheCriterion(_ text: String, _ expected: String) throws {
        let criterion = text.isEmpty ? .highest : try #require(OfflineSelection.criterion(text))
        let choice = try #require(OfflineSelection(variant: criterion).choose(in: Self.ladder))
        #expect(choice.variant.uri == expected)
    }

    @Test(
        arguments: [
            (nil, "en", nil), ("fr", "fr", "fr"), ("fr-CA", "fr", "fr"), ("FR", "fr", "fr"), ("en-US", "en", "en"),
            ("de", "en", nil),
        ] as [(String?, String, String?)]
    )
    func renditionsFollowTheLanguageElseTheDefaults(_ language: String?, _ audio: String, _ subtitles: String?) throws {
        let choice = try #require(OfflineSelection(language: language).choose(in: Self.ladder))
        #expect(choice.audio?.language == audio)
        // Subtitles: the language asked for; with none, the default (this ladder has none).
        #expect(choice.subtitles?.language == subtitles)
        // Closed captions travel in the variant: kept as they are.
        #expect(choice.carried.map(\.type) == ["CLOSED-CAPTIONS"])
    }

    @Test(arguments: [
        "", "0", "-1", "abc", "1280x", "x720", "1280x720x1", "0x720", "65536x720", "99999999999999999999",
        "1e9", "nan", "1280\u{0}x720", String(repeating: "9", count: 100_000),
    ])
    func badCriteriaAreRefused(_ text: String) {
        #expect(OfflineSelection.criterion(text) == nil)
    }

    @Test func aPlaylistWithoutVariantsHasNoChoice() throws {
        let empty = try MultivariantPlaylist(
            parsing: "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\"\n"
        )
        #expect(OfflineSelection().choose(in: empty) == nil)
    }
}
