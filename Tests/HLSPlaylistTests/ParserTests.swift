import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct ParserTests {
    static let vod = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:10
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2021-01-04T05:00:05.000Z",DURATION=15.0,X-ASSET-URI="https://example.com/ad1/main.m3u8",X-RESUME-OFFSET=0,X-COM-EXAMPLE-BEACON="123"
        #EXTINF:6.006,first
        seg0.ts
        #EXT-X-DISCONTINUITY
        #EXTINF:5.5,
        seg1.ts
        #EXT-X-BYTERANGE:1000@0
        #EXTINF:4,
        all.ts
        #EXT-X-BYTERANGE:500
        #EXTINF:4,
        all.ts
        #EXT-X-DATERANGE:ID="post",START-DATE="2021-01-04T05:00:20.000Z"
        #EXT-X-ENDLIST

        """

    @Test func readsMediaPlaylist() throws {
        let playlist = try MediaPlaylist(parsing: Self.vod)
        #expect(playlist.version == 7)
        #expect(playlist.targetDuration == 6)
        #expect(playlist.mediaSequence == 10)
        #expect(playlist.playlistType == .vod)
        #expect(playlist.hasEndList)
        #expect(!playlist.isLive)
        let segments = playlist.segments
        #expect(segments.count == 4)
        #expect(segments[0].uri == "seg0.ts")
        #expect(segments[0].title == "first")
        #expect(segments[0].duration == MediaTime("6.006")!)
        #expect(segments[0].mediaSequenceNumber == 10)
        #expect(segments[1].isDiscontinuity)
        #expect(segments[1].discontinuitySequenceNumber == 1)
        #expect(segments[1].startTime == MediaTime("6.006")!)
        #expect(segments[2].byteRange == ByteRange(length: 1000, offset: 0))
        #expect(segments[3].byteRange == ByteRange(length: 500, offset: 1000))
        #expect(segments[3].mediaSequenceNumber == 13)
        #expect(playlist.duration == MediaTime("19.506")!)
        #expect(segments[1].date?.iso8601 == "2021-01-04T05:00:06.006Z")
        let ranges = playlist.dateRanges
        #expect(ranges.map(\.dateRange.id) == ["ad1", "post"])
        #expect(ranges.map(\.position) == [0, 4])
        #expect(ranges[0].dateRange.isInterstitial)
        #expect(ranges[0].dateRange.duration == 15)
        #expect(
            ranges[0].dateRange.clientAttributes.map(\.name) == [
                "X-ASSET-URI", "X-RESUME-OFFSET", "X-COM-EXAMPLE-BEACON",
            ]
        )
        #expect(ranges[0].dateRange.attributes["X-RESUME-OFFSET"]?.signedDecimal == .zero)
    }

    @Test func readsMultivariantPlaylist() throws {
        let text = """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="fr",NAME="Français",AUTOSELECT=YES,URI="audio/fr.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",FORCED=NO,URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970,AUDIO="aac",SUBTITLES="subs"
            video/720p.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac"
            video/360p.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=150000,RESOLUTION=640x360,URI="video/360p-iframes.m3u8"

            """
        let playlist = try MultivariantPlaylist(parsing: text)
        #expect(playlist.hasIndependentSegments)
        #expect(playlist.variants.map(\.uri) == ["video/720p.m3u8", "video/360p.m3u8"])
        #expect(playlist.variants[0].bandwidth == 2_000_000)
        #expect(playlist.variants[0].codecs == ["avc1.64001f", "mp4a.40.2"])
        #expect(playlist.variants[0].resolution == Resolution(width: 1280, height: 720))
        #expect(playlist.variants[0].frameRate == 29.97)
        #expect(playlist.variants[0].audioGroup == "aac")
        #expect(playlist.renditions.map(\.language) == ["en", "fr", "en"])
        #expect(playlist.renditions[0].isDefault)
        #expect(playlist.renditions[1].name == "Français")
        #expect(playlist.iFrameStreams.map(\.uri) == ["video/360p-iframes.m3u8"])
        #expect(playlist.mediaPlaylistURIs.count == 6)
        #expect(playlist.serialized() == Array(text.utf8))
    }

    @Test func attributeListsKeepOrderSpellingAndTypes() throws {
        let list = try AttributeList(
            parsing:
                #"ID="a",X-Z="q",DURATION=15.5,X-HEX=0xA1b2,X-NEG=-2.5,RESOLUTION=640x360,METHOD=AES-128,X-A="SKIP,JUMP""#
        )
        #expect(list.names == ["ID", "X-Z", "DURATION", "X-HEX", "X-NEG", "RESOLUTION", "METHOD", "X-A"])
        #expect(list["DURATION"]?.decimal == MediaTime("15.5"))
        #expect(list["X-HEX"]?.hexadecimal == [0xA1, 0xB2])
        #expect(list["X-HEX"]?.form == .hexadecimal)
        #expect(list["X-NEG"]?.signedDecimal == MediaTime("-2.5"))
        #expect(list["X-NEG"]?.decimal == nil)
        #expect(list["RESOLUTION"]?.resolution == Resolution(width: 640, height: 360))
        #expect(list["METHOD"]?.enumerated == "AES-128")
        #expect(list["X-A"]?.stringList == ["SKIP", "JUMP"])
        #expect(list["ID"]?.form == .quotedString)
        var edited = list
        edited["DURATION"] = .decimal(MediaTime(seconds: 20))
        edited["X-NEW"] = .quoted("n")
        #expect(
            edited.description
                == #"ID="a",X-Z="q",DURATION=20,X-HEX=0xA1b2,X-NEG=-2.5,RESOLUTION=640x360,METHOD=AES-128,X-A="SKIP,JUMP",X-NEW="n""#
        )
    }

    @Test func attributeListErrorsHaveCodesAndColumns() {
        #expect(throws: PlaylistParsingError.self) { try AttributeList(parsing: #"ID="a"#) }
        do {
            _ = try AttributeList(parsing: #"ID="a",DURATION=1,DURATION=2"#)
            Issue.record("expected an error")
        } catch let error as PlaylistParsingError {
            #expect(error.code == .duplicateAttribute)
            #expect(error.location.column == 19)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// 40 distinct names `X-A00`…`X-A39` (each `X-Ann=1,`, 8 bytes), then `extra`.
    static func longAttributeList(then extra: String) -> String {
        var text = ""
        for n in 0..<40 {
            let digits: String = n < 10 ? "0\(n)" : "\(n)"
            text += "X-A\(digits)=1,"
        }
        return text + extra
    }

    @Test func duplicateAttributeFoundWhenBothNamesSitPastThe32nd() {
        // X-A35 is the 36th name; its repeat is the 41st and starts at byte 40 * 8 = 320 (column 321).
        do {
            _ = try AttributeList(parsing: Self.longAttributeList(then: "X-A35=2"))
            Issue.record("expected a duplicate-attribute error")
        } catch let error as PlaylistParsingError {
            #expect(error.code == .duplicateAttribute)
            #expect(error.location.column == 321)
            #expect(error.message.contains("X-A35"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        // The 41st name repeating the 1st, and the 33rd repeating the 40th, are found too.
        #expect(throws: PlaylistParsingError.self) {
            try AttributeList(parsing: Self.longAttributeList(then: "X-A00=2"))
        }
        #expect(throws: PlaylistParsingError.self) {
            try AttributeList(parsing: Self.longAttributeList(then: "X-A39=2"))
        }
        // 41 distinct names are fine.
        let list = try? AttributeList(parsing: Self.longAttributeList(then: "X-B=2"))
        #expect(list?.count == 41)
    }

    @Test func lenientParseReportsADuplicatePastThe32ndAttribute() {
        let tag =
            "#EXT-X-DATERANGE:ID=\"d\",START-DATE=\"2021-01-04T05:00:00Z\"," + Self.longAttributeList(then: "X-A39=2")
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00Z\n\(tag)\n#EXTINF:6,\nseg0.ts\n#EXT-X-ENDLIST\n"
        let result = PlaylistParser.parse(Array(text.utf8), options: .init(mode: .lenient, file: "long.m3u8"))
        let duplicates = result.diagnostics.filter { $0.rule == .duplicateAttribute }
        #expect(duplicates.count == 1)
        // Line 4; the repeated name starts after "#EXT-X-DATERANGE:" (17), the two fixed attributes
        // (7 + 34 bytes with their commas) and the 40 generated ones (320): column 17 + 41 + 320 + 1.
        #expect(duplicates.first?.location.line == 4)
        #expect(duplicates.first?.location.column == 379)
    }

    @Test func strictModeThrowsFirstErrorWithLocation() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nseg0.ts\nseg1.ts\n#EXT-X-KEY:URI=\"k\"\n"
        do {
            _ = try MediaPlaylist(parsing: text, file: "bad.m3u8")
            Issue.record("expected an error")
        } catch let error as PlaylistParsingError {
            #expect(error.code == .segmentWithoutDuration)
            #expect(error.location == SourceLocation(file: "bad.m3u8", line: 5, column: 1))
            #expect(!error.hint.isEmpty)
        } catch {
            Issue.record("unexpected \(error)")
        }
        let lenient = PlaylistParser.parse(text, options: .init(mode: .lenient, file: "bad.m3u8"))
        #expect(lenient.diagnostics.map(\.rule) == [.segmentWithoutDuration, .missingAttribute])
        #expect(lenient.diagnostics[1].description.hasPrefix("bad.m3u8:6:12: error[HLS-ATTR-REQUIRED]"))
        #expect(lenient.playlist.media?.segments.count == 2)
    }

    @Test func toleratesOddSpacingWithWarnings() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:6  \r\n\r\n# comment\r\n#EXTINF:6\r\n seg0.ts\r\n#EXT-X-ENDLIST"
        let result = PlaylistParser.parse(text)
        #expect(!result.hasErrors)
        #expect(Set(result.diagnostics.map(\.rule)) == [.whitespace, .tagValue])
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
        let media = try #require(result.playlist.media)
        #expect(media.targetDuration == 6)
        #expect(media.segments[0].uri == "seg0.ts")
        #expect(media.serialized() == Array(text.utf8))
    }

    /// Each invalid fixture that breaks a playlist-layer rule reports exactly that rule.
    @Test(arguments: [
        ("missing-extm3u-header.m3u8", RuleID.missingHeader),
        ("extinf-without-uri.m3u8", .danglingSegmentTags),
        ("targetduration-less-than-rounded-extinf.m3u8", .segmentExceedsTarget),
        ("attribute-list-unterminated-quote.m3u8", .attributeSyntax),
        ("duplicate-attribute-name.m3u8", .duplicateAttribute),
        ("multiple-version-tags.m3u8", .duplicateTag),
        ("undefined-variable-reference.m3u8", .variable),
        ("daterange-missing-id.m3u8", .missingAttribute),
        ("daterange-without-program-date-time.m3u8", .dateRangeWithoutProgramDateTime),
    ])
    func invalidFixtureReportsItsRule(_ file: String, _ rule: RuleID) {
        let fixture = Fixture(name: "invalid/" + file)
        let result = PlaylistParser.parse(fixture.bytes, options: .init(file: file))
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.rule) == [rule], "\(errors)")
        #expect(errors.allSatisfy { $0.location.line >= 1 && $0.location.file == file })
    }
}
