import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct ValidatorTests {
    @Test func pointsAtTheAttribute() throws {
        let path = "interstitial-rules/INT-ASSET-URI-RELATIVE.bad.m3u8"
        let diagnostics = InterstitialValidator().validate(playlist: Fixture.bytes(path), file: path)
        let diagnostic = try #require(diagnostics.first)
        let line = Fixture.text(path).split(separator: "\n", omittingEmptySubsequences: false)[7]
        #expect(line.hasPrefix("#EXT-X-DATERANGE:"))
        let found = try #require(line.firstRange(of: "X-ASSET-URI="))
        let column = line.utf8.distance(from: line.startIndex, to: found.lowerBound) + 1
        #expect(diagnostic.location == SourceLocation(file: path, line: 8, column: column))
        #expect(
            diagnostic.description.hasPrefix(
                "\(path):8:\(column): error[INT-ASSET-URI-RELATIVE]: X-ASSET-URI \"ads/ad1/main.m3u8\""
            )
        )
    }

    @Test func mergesParserDiagnosticsInLocationOrder() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXTINF:6.0,
            a.ts
            #EXT-X-DATERANGE:ID="x",ID="y",START-DATE="2024-01-01T00:00:01.000Z"
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:02.000Z",DURATION=5,X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0,X-PLAYOUT-LIMIT=-1
            #EXTINF:6.0,
            b.ts

            """
        let diagnostics = InterstitialValidator().validate(playlist: text, file: "p.m3u8")
        #expect(
            diagnostics.map(\.rule.rawValue) == [
                "HLS-ATTR-DUPLICATE", "INT-ASSET-URI-RELATIVE", "INT-PLAYOUT-LIMIT-VALUE",
            ]
        )
        #expect(diagnostics.map(\.location.line) == [6, 7, 7])
        #expect(diagnostics[1].location.column < diagnostics[2].location.column)
    }

    @Test func checksRangesMergedFromSeveralTags() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXTINF:6.0,
            a.ts
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:02.000Z",DURATION=5,X-ASSET-URI="https://a/ad.m3u8"
            #EXTINF:6.0,
            b.ts
            #EXT-X-DATERANGE:ID="ad",END-DATE="2024-01-01T00:00:08.000Z",X-ASSET-LIST="https://a/ad.json"
            #EXTINF:6.0,
            c.ts

            """
        let diagnostics = InterstitialValidator().validate(playlist: text, file: nil)
        #expect(Set(diagnostics.map(\.rule.rawValue)) == ["INT-END-DATE-MISMATCH", "INT-ASSET-BOTH"])
        #expect(diagnostics.allSatisfy { $0.location.line == 9 })
    }

    @Test func substitutesVariablesBeforeCheckingValues() {
        let path = "playlists/define-in-interstitial-attributes.m3u8"
        #expect(InterstitialValidator().validate(playlist: Fixture.bytes(path), file: path).isEmpty)
    }

    @Test(arguments: [
        "playlists/spec-d6-interstitial-daterange.m3u8", "playlists/seed-wwdc21-ads-at-5s-and-10s.m3u8",
        "playlists/llhls-delta-update-skip-dateranges.m3u8",
    ])
    func realPlaylistsHaveNoErrors(_ path: String) {
        let diagnostics = InterstitialValidator().validate(playlist: Fixture.bytes(path), file: path)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
    }

    @Test func notesCanBeTurnedOff() {
        let path = "interstitial-rules/INT-DURATION-UNKNOWN.bad.m3u8"
        #expect(InterstitialValidator().validate(playlist: Fixture.bytes(path)).map(\.severity) == [.note])
        #expect(
            InterstitialValidator(configuration: .init(includesNotes: false)).validate(playlist: Fixture.bytes(path))
                .isEmpty
        )
    }

    @Test func presentationDiagnosticsNameThePlaylist() throws {
        let video = "https://cdn.example.com/show/video/index.m3u8"
        let audio = "https://cdn.example.com/show/audio/en/index.m3u8"
        let playlist = try Fixture.media("interstitial-rules/INT-ASSET-LIST-RESOLUTION.bad/video/index.m3u8")
        let diagnostics = InterstitialValidator().validate(presentation: [(video, playlist), (audio, playlist)])
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.location.file == audio)
        #expect(diagnostic.message.contains("https://cdn.example.com/show/audio/ads/pod.json"))
        #expect(diagnostic.message.contains("https://cdn.example.com/show/ads/pod.json"))
        #expect(InterstitialValidator().validate(presentation: [(video, playlist)]).isEmpty)
    }

    @Test func theRuleCatalogueIsConsistent() {
        #expect(InterstitialRule(id: "INT-ASSET-MISSING") == .assetMissing)
        #expect(InterstitialRule.assetMissing.severity == .error)
        #expect(InterstitialRule.unknownValue.severity == .warning)
        #expect(InterstitialRule.durationUnknown.severity == .note)
        #expect(InterstitialRule(id: "HLS-ATTR-DUPLICATE") == nil)
    }
}
