import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct InserterTests {
    static let withoutDates =
        "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.0,\na.ts\n#EXTINF:6.0,\nb.ts\n#EXT-X-ENDLIST\n"

    static func ad(_ start: InterstitialEvent.Start, id: String = "ad1") -> InterstitialEvent {
        var event = InterstitialEvent(identifier: id, start: start)
        event.assetURIs = ["https://ads.example.com/ad1.m3u8"]
        event.duration = 15
        event.resumptionOffset = .zero
        return event
    }

    @Test func addsProgramDateTimeAndTheTagAtAMediaTime() throws {
        let playlist = try MediaPlaylist(parsing: Self.withoutDates)
        let result = try InterstitialInserter().insert(Self.ad(.time(8)), into: playlist)
        #expect(
            result.text == """
                #EXTM3U
                #EXT-X-TARGETDURATION:6
                #EXT-X-PROGRAM-DATE-TIME:2000-01-01T00:00:00.000Z
                #EXTINF:6.0,
                a.ts
                #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2000-01-01T00:00:08.000Z",DURATION=15,X-ASSET-URI="https://ads.example.com/ad1.m3u8",X-RESUME-OFFSET=0
                #EXTINF:6.0,
                b.ts
                #EXT-X-ENDLIST

                """
        )
        let origin = try #require(DateTime(iso8601: "2021-01-04T05:00:00.000Z"))
        let dated = try InterstitialInserter(configuration: .init(programDateTimeOrigin: origin)).insert(
            Self.ad(.time(0)),
            into: playlist
        )
        // At time 0 the tag joins the first segment's tags, ahead of the new PROGRAM-DATE-TIME.
        #expect(dated.lines[2].text.contains(#"START-DATE="2021-01-04T05:00:00.000Z""#))
        #expect(dated.lines[3].text == "#EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z")
        #expect(dated.lines[4].text == "#EXTINF:6.0,")
    }

    @Test func placesDatesAmongTheRightSegmentsAndKeepsEveryOtherByte() throws {
        let text =
            "#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z\r\n#EXTINF:6.0,\r\na.ts\r\n# a comment\r\n#EXTINF:6.0,\r\nb.ts\r\n#EXT-X-ENDLIST"
        let playlist = try MediaPlaylist(parsing: text)
        let inserter = InterstitialInserter()
        let late = try inserter.insert(
            Self.ad(.date(try #require(DateTime(iso8601: "2024-01-01T00:00:30.000Z")))),
            into: playlist
        )
        #expect(
            late.lines.map(\.text) == [
                "#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z",
                "#EXTINF:6.0,", "a.ts",
                "# a comment", "#EXTINF:6.0,", "b.ts",
                #"#EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:30.000Z",DURATION=15,X-ASSET-URI="https://ads.example.com/ad1.m3u8",X-RESUME-OFFSET=0"#,
                "#EXT-X-ENDLIST",
            ]
        )
        #expect(late.text.hasSuffix("b.ts\r\n" + late.lines[8].text + "\r\n#EXT-X-ENDLIST"))
        let inside = try inserter.insert(
            Self.ad(.date(try #require(DateTime(iso8601: "2024-01-01T00:00:07.500Z")))),
            into: playlist
        )
        #expect(inside.lines[5].text == "# a comment")
        #expect(inside.lines[6].text.hasPrefix("#EXT-X-DATERANGE:ID=\"ad1\""))  // among the second segment's tags
        #expect(inside.lines[7].text == "#EXTINF:6.0,")
        var removed = inside
        removed.removeDateRange(at: 0)
        #expect(removed.serialized() == Array(text.utf8))
    }

    @Test func refusesDuplicateIDs() throws {
        let playlist = try Fixture.media("interstitial-rules/INT-ASSET-MISSING.good.m3u8")
        #expect {
            _ = try InterstitialInserter().insert(Self.ad(.time(3)), into: playlist, file: "p.m3u8")
        } throws: { error in
            let error = error as? InsertionError
            return error?.code == .duplicateID && error?.location == SourceLocation(file: "p.m3u8", line: 8, column: 1)
        }
    }

    @Test func refusesInvalidEvents() throws {
        let playlist = try MediaPlaylist(parsing: Self.withoutDates)
        var noAsset = Self.ad(.time(3))
        noAsset.assetURIs = []
        var relative = Self.ad(.time(3))
        relative.assetURIs = ["ads/ad1.m3u8"]
        var badLabel = Self.ad(.time(3))
        badLabel.skipControl = SkipControl(offset: 5, labelID: "Skip now!")
        let cases: [(InterstitialEvent, [String])] = [
            (noAsset, ["INT-ASSET-MISSING"]), (relative, ["INT-ASSET-URI-RELATIVE"]), (badLabel, ["INT-SKIP-LABEL-ID"]),
        ]
        for (event, rules) in cases {
            #expect {
                _ = try InterstitialInserter().insert(event, into: playlist)
            } throws: { error in
                let error = error as? InsertionError
                return error?.code == .invalidEvent && error?.diagnostics.map(\.rule.rawValue) == rules
            }
        }
        var two = Self.ad(.time(3))
        two.assetURIs.append("https://ads.example.com/ad2.m3u8")
        var quoted = Self.ad(.time(3), id: "say \"hi\"")
        quoted.assetURIs = ["https://ads.example.com/ad1.m3u8"]
        for event in [two, quoted] {
            #expect {
                _ = try InterstitialInserter().insert(event, into: playlist)
            } throws: { ($0 as? InsertionError)?.code == .invalidEvent }
        }
        #expect {
            _ = try InterstitialInserter().insert(Self.ad(.time(3)), into: MediaPlaylist(targetDuration: 6))
        } throws: { ($0 as? InsertionError)?.code == .noSegments }
    }

    @Test func listsTheMediaPlaylistsOfAMultivariantPlaylist() throws {
        let text = Fixture.text("interstitial-rules/INT-PRESENTATION-MISMATCH.good.m3u8")
        let multivariant = try MultivariantPlaylist(parsing: text)
        #expect(
            InterstitialInserter.mediaPlaylistURIs(in: multivariant) == [
                "INT-PRESENTATION-MISMATCH.good/video/index.m3u8", "INT-PRESENTATION-MISMATCH.good/audio/en/index.m3u8",
            ]
        )
        #expect(
            InterstitialInserter.mediaPlaylistURIs(
                in: multivariant,
                resolvingAgainst: "https://cdn.example.com/show/main.m3u8"
            ) == [
                "https://cdn.example.com/show/INT-PRESENTATION-MISMATCH.good/video/index.m3u8",
                "https://cdn.example.com/show/INT-PRESENTATION-MISMATCH.good/audio/en/index.m3u8",
            ]
        )
    }
}
