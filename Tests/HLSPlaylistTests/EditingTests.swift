import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct EditingTests {
    static let live = """
        #EXTM3U\r
        #EXT-X-TARGETDURATION:6\r
        #EXT-X-MEDIA-SEQUENCE:100\r
        # a comment the editor must keep\r
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z\r
        #EXTINF:6.000,\r
        seg100.ts\r
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2021-01-04T05:00:09.000Z",DURATION=15,X-ASSET-LIST="list.json"\r
        #EXTINF:6.000,\r
        seg101.ts\r
        #EXTINF:6.000,\r
        seg102.ts
        """

    func lines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Edits that keep the segment structure update the index in place; whichever way the index
    /// is brought up to date, the model must equal a fresh parse of the edited bytes.
    @Test(arguments: Fixture.all(in: "playlists"))
    func lineEditsKeepTheModelEqualToAFreshParse(_ fixture: Fixture) throws {
        guard case .media(let original) = PlaylistParser.parse(fixture.bytes).playlist else { return }
        let lines = Array(original.lines)
        for (i, line) in lines.enumerated().prefix(400) {
            var variants = [line.text]
            switch line.kind {
            case .uri: variants.append(line.text + "?edited=1")
            case .tag where line.text.hasPrefix("#EXT-X-DATERANGE:"):
                variants.append(line.text + ",X-EDITED=\"yes\"")
                variants.append("#EXT-X-DATERANGE:broken")
            case .tag where line.text.hasPrefix("#EXTINF:"):
                variants.append("#EXTINF:1.5,")
            case .tag where line.text.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:"):
                variants.append("#EXT-X-PROGRAM-DATE-TIME:2030-01-01T00:00:00.000Z")
            case .tag where line.text.hasPrefix("#EXT-X-BYTERANGE:"):
                variants.append("#EXT-X-BYTERANGE:100")
            default: break
            }
            for variant in variants {
                var edited = original
                edited.replaceLine(at: i, with: variant)
                guard case .media(let fresh) = PlaylistParser.parse(edited.serialized()).playlist else {
                    Issue.record("\(fixture) line \(i + 1): the edited playlist is no longer a media playlist")
                    continue
                }
                #expect(Array(edited.segments) == Array(fresh.segments), "\(fixture) line \(i + 1) → \(variant)")
                #expect(edited.dateRanges == fresh.dateRanges, "\(fixture) line \(i + 1) → \(variant)")
                #expect(edited.mediaSequence == fresh.mediaSequence)
            }
        }
    }

    @Test func editingADateRangeReRendersThatLineOnly() throws {
        var playlist = try MediaPlaylist(parsing: Self.live)
        let before = lines(playlist.serialized())
        var range = playlist.dateRanges[0].dateRange
        range.attributes["X-PLAYOUT-LIMIT"] = .decimal(12)
        playlist.replaceDateRange(at: 0, with: range)
        let after = lines(playlist.serialized())
        #expect(after.count == before.count)
        let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == [7])
        #expect(
            after[7]
                == #"#EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2021-01-04T05:00:09.000Z",DURATION=15,X-ASSET-LIST="list.json",X-PLAYOUT-LIMIT=12"#
                + "\r"
        )
        #expect(playlist.dateRanges[0].dateRange.attributes["X-PLAYOUT-LIMIT"]?.decimal == 12)
    }

    @Test func insertingKeepsLineEndingsAndMissingFinalNewline() throws {
        var playlist = try MediaPlaylist(parsing: Self.live)
        let range = DateRange(
            id: "ad2",
            startDate: DateTime(iso8601: "2021-01-04T05:00:13.000Z"),
            class: DateRange.interstitialClass
        )
        playlist.insertDateRange(range, at: 2)
        playlist.appendSegment(uri: "seg103.ts", duration: 6)
        let text = playlist.text
        #expect(text.hasSuffix("seg102.ts\r\n#EXTINF:6.000,\r\nseg103.ts"))
        #expect(
            text.contains(
                "\r\n#EXT-X-DATERANGE:ID=\"ad2\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2021-01-04T05:00:13.000Z\"\r\n#EXTINF:6.000,\r\nseg102.ts"
            )
        )
        #expect(playlist.segments.count == 4)
        #expect(playlist.dateRanges.map(\.position) == [1, 2])
        #expect(text.contains("# a comment the editor must keep\r\n"))
        // Everything that was there is still there, in order.
        let original = Array(Self.live.utf8)
        var remaining = original[...]
        for byte in playlist.serialized() where remaining.first == byte { remaining = remaining.dropFirst() }
        #expect(remaining.isEmpty)
    }

    @Test func headerSettersReRenderOneTag() throws {
        var playlist = try MediaPlaylist(parsing: Self.live)
        playlist.mediaSequence = 101
        playlist.version = 6
        playlist.hasEndList = true
        let result = try MediaPlaylist(parsing: playlist.text)
        #expect(result.mediaSequence == 101)
        #expect(result.version == 6)
        #expect(result.hasEndList)
        #expect(playlist.text.hasPrefix("#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXT-X-MEDIA-SEQUENCE:101\r\n"))
    }

    @Test func rewritesURIsAndAddsProgramDateTime() throws {
        var playlist = try MediaPlaylist(
            parsing:
                "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\"\n#EXTINF:4,\na.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n"
        )
        playlist.rewriteURIs { "https://origin.example/" + $0 }
        #expect(playlist.segments.map(\.uri) == ["https://origin.example/a.ts", "https://origin.example/b.ts"])
        #expect(playlist.segments[0].key?["URI"]?.quotedString == "https://origin.example/key.bin")
        let added = playlist.addProgramDateTimeIfMissing(startingAt: DateTime(iso8601: "2000-01-01T00:00:00Z")!)
        #expect(added)
        #expect(
            playlist.segments.map(\.programDateTime?.iso8601) == [
                "2000-01-01T00:00:00.000Z", "2000-01-01T00:00:04.000Z",
            ]
        )
        let addedAgain = playlist.addProgramDateTimeIfMissing(startingAt: DateTime(millisecondsSince1970: 0))
        #expect(!addedAgain)
        #expect(playlist.diagnose().filter { $0.severity == .error }.isEmpty)
    }

    @Test func buildsAPlaylistFromScratch() throws {
        var playlist = MediaPlaylist(targetDuration: 2, version: 3)
        let start = DateTime(iso8601: "2025-01-01T00:00:00Z")!
        for k in 0..<3 {
            playlist.appendSegment(uri: "s\(k).ts", duration: 2, programDateTime: k == 0 ? start : nil)
        }
        playlist.hasEndList = true
        #expect(
            playlist.text
                == "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n#EXTINF:2.000,\ns0.ts\n#EXTINF:2.000,\ns1.ts\n#EXTINF:2.000,\ns2.ts\n#EXT-X-ENDLIST\n"
        )
        #expect(try MediaPlaylist(parsing: playlist.text).segments[2].date?.iso8601 == "2025-01-01T00:00:04.000Z")
    }
}

@Suite struct TimeMappingTests {
    /// Two PDT runs across a discontinuity: the clock jumps 100 s forward (a gap), and a third run
    /// overlaps the second by 2 s (a correction).
    static let text = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXTINF:4,
        pre.ts
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z
        #EXTINF:4,
        a.ts
        #EXTINF:4,
        b.ts
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:01:48.000Z
        #EXTINF:4,
        c.ts
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:01:50.000Z
        #EXTINF:4,
        d.ts

        """

    @Test func extrapolatesDatesForwardAndBackward() throws {
        let playlist = try MediaPlaylist(parsing: Self.text)
        let dates = playlist.segments.map { $0.date?.iso8601 }
        #expect(
            dates == [
                "2021-01-04T04:59:56.000Z", "2021-01-04T05:00:00.000Z", "2021-01-04T05:00:04.000Z",
                "2021-01-04T05:01:48.000Z", "2021-01-04T05:01:50.000Z",
            ]
        )
        #expect(playlist.segments[0].programDateTime == nil)
        #expect(playlist.date(at: MediaTime("6.5")!)?.iso8601 == "2021-01-04T05:00:02.500Z")
        #expect(playlist.date(at: 30)?.iso8601 == "2021-01-04T05:02:04.000Z")
    }

    @Test(arguments: [
        ("2021-01-04T05:00:02.500Z", "6.5"),  // inside segment a
        ("2021-01-04T04:59:50.000Z", "-6"),  // before the first segment: extrapolated
        ("2021-01-04T05:00:30.000Z", "12"),  // in the gap: the start of the next segment
        ("2021-01-04T05:01:51.000Z", "17"),  // overlap of c and d: the later segment wins
        ("2021-01-04T05:02:04.000Z", "30"),  // after the end: extrapolated
    ])
    func mapsDatesToMediaTime(_ date: String, _ expected: String) throws {
        let playlist = try MediaPlaylist(parsing: Self.text)
        #expect(playlist.time(at: DateTime(iso8601: date)!) == MediaTime(expected)!)
    }

    @Test func findsSegmentsAndBoundaries() throws {
        let playlist = try MediaPlaylist(parsing: Self.text)
        #expect(playlist.segmentIndex(containing: MediaTime("3.999")!) == 0)
        #expect(playlist.segmentIndex(containing: 4) == 1)
        #expect(playlist.segmentIndex(containing: 20) == nil)
        #expect(playlist.nearestSegmentBoundary(to: MediaTime("5.9")!) == 4)
        #expect(playlist.nearestSegmentBoundary(to: MediaTime("6.1")!) == 8)
        #expect(playlist.timings.map(\.isDiscontinuity) == [false, false, false, true, true])
    }
}

@Suite struct VariableTests {
    @Test func substitutesNameValueImportAndQueryParam() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-DEFINE:NAME="host",VALUE="https://cdn.example"
            #EXT-X-DEFINE:IMPORT="token"
            #EXT-X-DEFINE:QUERYPARAM="session"
            #EXT-X-KEY:METHOD=AES-128,URI="{$host}/key?t={$token}"
            #EXTINF:4,
            {$host}/seg.ts?s={$session}
            #EXT-X-ENDLIST

            """
        let raw = try MediaPlaylist(parsing: text)
        let resolved = try raw.substitutingVariables(
            VariableContext(imports: ["token": "abc"], playlistURI: "https://x/y.m3u8?session=s%201")
        )
        #expect(resolved.segments[0].uri == "https://cdn.example/seg.ts?s=s 1")
        #expect(resolved.segments[0].key?["URI"]?.quotedString == "https://cdn.example/key?t=abc")
        #expect(raw.segments[0].uri == "{$host}/seg.ts?s={$session}")
        #expect(raw.serialized() == Array(text.utf8))
        #expect(throws: PlaylistParsingError.self) { try raw.substitutingVariables(VariableContext()) }
    }
}
