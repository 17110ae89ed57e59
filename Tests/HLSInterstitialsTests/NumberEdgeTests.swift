import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Numbers from outside never trap in the interstitial layer: asset-list JSON numbers, interstitial
/// attributes and the schedule built from them, driven with the edges.
@Suite struct NumberEdgeTests {
    static let forty = "1234567890123456789012345678901234567890"

    /// `DURATION` values of an asset and what decoding must give: the seconds, or the error code.
    static let durationEdges: [(String, MediaTime?, AssetListDecodingError.Code?)] = [
        ("15", 15, nil),
        ("0", 0, nil),
        ("-0", 0, nil),
        ("-0.0", 0, nil),
        ("1e-300", .zero, nil),
        ("9223372036", MediaTime(seconds: 9_223_372_036), nil),
        // Exact to the nanosecond, past what a Double holds; exponents applied exactly.
        ("123456789.123456789", MediaTime(nanoseconds: 123_456_789_123_456_789), nil),
        ("9223372035.999999999", MediaTime(nanoseconds: 9_223_372_035_999_999_999), nil),
        ("1.5e1", MediaTime(seconds: 15), nil),
        ("2.5E-1", MediaTime(milliseconds: 250), nil),
        ("1e9", MediaTime(seconds: 1_000_000_000), nil),
        ("0.0000000005", MediaTime(nanoseconds: 1), nil),
        ("0.0000000004999", .zero, nil),
        ("9223372036.0000000004", MediaTime(seconds: 9_223_372_036), nil),
        ("9223372036.0000000005", nil, .numberOutOfRange),
        ("92233720360e-1", MediaTime(seconds: 9_223_372_036), nil),
        ("1e-1000000000000", .zero, nil),
        ("1e1000000000000", nil, .invalidJSON),
        ("9223372037", nil, .numberOutOfRange),
        ("9223372036.9", nil, .numberOutOfRange),
        ("9223372036854775807", nil, .numberOutOfRange),
        ("1e308", nil, .numberOutOfRange),
        ("1.7976931348623157e308", nil, .numberOutOfRange),
        (forty, nil, .numberOutOfRange),
        ("1e400", nil, .invalidJSON),
        ("-1", nil, .invalidAsset),
        ("-1e308", nil, .invalidAsset),
        ("-1e-300", nil, .invalidAsset),
        ("0x10", nil, .invalidJSON),
        ("NaN", nil, .invalidJSON),
        ("Infinity", nil, .invalidJSON),
        ("-Infinity", nil, .invalidJSON),
        ("+1", nil, .invalidJSON),
        ("\"15\"", nil, .invalidAsset),
        (String(repeating: "9", count: 100_000), nil, .invalidJSON),
        ("0." + String(repeating: "0", count: 100_000) + "1", 0, nil),
    ]

    @Test(arguments: durationEdges.indices)
    func assetDurationIsCheckedAndNamed(_ k: Int) {
        let (number, seconds, code) = Self.durationEdges[k]
        let label = number.count > 40 ? "\(number.prefix(20))… (\(number.utf8.count) bytes)" : number
        let json =
            "{\"ASSETS\": [{\"URI\": \"https://a.example/1.m3u8\", \"DURATION\": 5}, {\"URI\": \"https://a.example/2.m3u8\", \"DURATION\": \(number)}]}"
        do {
            let list = try AssetList.decode(json)
            #expect(code == nil, "\(label) decoded")
            #expect(list.assets[1].duration == seconds, "\(label)")
            #expect(list.assets[1].duration.nanoseconds >= 0, "\(label): -0 reads as 0")
            _ = list.assets[1].mediaDuration
            _ = list.totalDuration
        } catch let error as AssetListDecodingError {
            #expect(error.code == code, "\(label): \(error)")
            if code == .numberOutOfRange || code == .invalidAsset {
                #expect(error.path == "ASSETS[1].DURATION", "\(label)")
                #expect(error.description.hasPrefix("ASSETS[1].DURATION: DURATION"), "\(label)")
            }
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func skipControlNumbersAreCheckedAndNamed() throws {
        for key in ["OFFSET", "DURATION"] {
            for (number, code) in [
                ("1e308", AssetListDecodingError.Code.numberOutOfRange),
                ("9223372037", .numberOutOfRange), (Self.forty, .numberOutOfRange), ("-5", .invalidSkipControl),
            ] {
                let json = "{\"ASSETS\": [], \"SKIP-CONTROL\": {\"\(key)\": \(number)}}"
                let error = #expect(throws: AssetListDecodingError.self) { try AssetList.decode(json) }
                #expect(error?.code == code, "\(key)=\(number)")
                #expect(error?.path == "SKIP-CONTROL.\(key)", "\(key)=\(number)")
                #expect(error?.message.contains(key) == true)
            }
            let fine = try AssetList.decode("{\"ASSETS\": [], \"SKIP-CONTROL\": {\"\(key)\": -0}}")
            #expect((key == "OFFSET" ? fine.skipControl?.offset : fine.skipControl?.duration) == 0)
        }
        // The largest accepted values convert to exact times without clamping.
        let big = try AssetList.decode(
            "{\"ASSETS\": [{\"URI\": \"https://a/1.m3u8\", \"DURATION\": 9223372036}], \"SKIP-CONTROL\": {\"OFFSET\": 9223372036}}"
        )
        #expect(big.assets[0].mediaDuration == MediaTime(seconds: 9_223_372_036))
        #expect(
            big.effectiveSkipControl(for: InterstitialEvent(identifier: "x", time: 0))?.offset
                == MediaTime(seconds: 9_223_372_036)
        )
    }

    /// Interstitial attributes with edge values: the event reads in-range values exactly, leaves
    /// the others out (with a defect where that makes it unusable), and the schedule never traps.
    @Test(arguments: 0..<120)
    func scheduleWithEdgeAttributesNeverTraps(_ seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 104_729 &+ 3)
        let decimals = [
            "0", "-0", "10", "9223372036.854775807", "-9223372036.854775807", "9223372036.854775808", "9223372037",
            "-9223372037", Self.forty, "1e308", "0x10", "NaN", "inf", "0.0000000001", "4611686018.427387904",
        ]
        let integers = ["0", "5", "999999999999999999", "1000000000000000000", Self.forty, "-1", "1e3"]
        var lines = [
            "#EXTM3U", "#EXT-X-TARGETDURATION:\(integers.randomElement(using: &rng)!)",
            Bool.random(using: &rng)
                ? "#EXT-X-PLAYLIST-TYPE:VOD" : "#EXT-X-MEDIA-SEQUENCE:\(integers.randomElement(using: &rng)!)",
            "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z",
        ]
        let dates = [
            "2024-01-01T00:00:05.000Z", "2262-04-11T23:47:15.000Z", "1677-09-21T00:12:45.000Z", "9999-01-01T00:00:00Z",
        ]
        for k in 0..<Int.random(in: 1...6, using: &rng) {
            var attributes =
                "ID=\"e\(k)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(dates.randomElement(using: &rng)!)\""
            attributes += ",X-ASSET-URI=\"https://a.example/\(k).m3u8\""
            if Bool.random(using: &rng) { attributes += ",DURATION=\(decimals.randomElement(using: &rng)!)" }
            if Bool.random(using: &rng) { attributes += ",X-RESUME-OFFSET=\(decimals.randomElement(using: &rng)!)" }
            if Bool.random(using: &rng) { attributes += ",X-PLAYOUT-LIMIT=\(decimals.randomElement(using: &rng)!)" }
            if Bool.random(using: &rng) {
                attributes += ",X-SKIP-CONTROL-OFFSET=\(integers.randomElement(using: &rng)!)"
            }
            if Bool.random(using: &rng) {
                attributes += ",CUE=\"\(["PRE", "POST", "ONCE", "PRE,ONCE"].randomElement(using: &rng)!)\""
            }
            if Bool.random(using: &rng) { attributes += ",X-SNAP=\"OUT,IN\"" }
            lines.append("#EXT-X-DATERANGE:" + attributes)
            lines.append("#EXTINF:\(Bool.random(using: &rng) ? decimals.randomElement(using: &rng)! : "6"),")
            lines.append("s\(k).ts")
        }
        if Bool.random(using: &rng) { lines.append("#EXT-X-ENDLIST") }
        let text = lines.joined(separator: "\n") + "\n"
        let playlist = try #require(PlaylistParser.parse(text).playlist.media)
        let events = InterstitialEvent.events(in: playlist)
        for event in events {
            // Whatever was read is inside the range; a value that could not be read is absent.
            for time in [event.duration, event.resumptionOffset, event.playoutLimit].compactMap({ $0 }) {
                #expect(MediaTime.validRange.contains(time))
            }
        }
        var configuration = Schedule.Configuration()
        configuration.playedEventIDs = Set(events.prefix(1).map(\.identifier))
        configuration.assetDurations = ["e0": [MediaTime.maximum, MediaTime.maximum]]
        for start in [
            nil, Schedule.StartRequest.time(.maximum), .time(.minimum), .date(DateTime(nanosecondsSince1970: .max)),
        ] {
            configuration.start = start
            let schedule = Schedule(primary: playlist, events: events, configuration: configuration)
            _ = schedule.jsonDescription
            _ = schedule.diagnostics()
            for item in schedule.items {
                #expect(item.playout.end >= item.playout.start)
            }
            #expect(schedule.playoutDuration <= MediaTime.maximum)
        }
    }

    @Test func resumeOffsetAtTheLimitSaturatesTheTimeline() throws {
        // A mid-roll at 5 s with the largest offset: the primary resumes at the end of the range,
        // after the 30 s primary, so nothing follows it; no arithmetic wraps to a negative time.
        let text = ScheduleLeavesOutTests.vod(
            #"#EXT-X-DATERANGE:ID="big",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:05.000Z",DURATION=9223372036.854775807,X-RESUME-OFFSET=9223372036.854775807,X-ASSET-URI="https://a.example/a.m3u8""#
        )
        let schedule = Schedule(primary: try MediaPlaylist(parsing: text))
        let event = try #require(schedule.event("big"))
        #expect(event.status == .scheduled)
        #expect(event.resumeTime == MediaTime.maximum)
        #expect(schedule.items.map(\.kind) == [.primary, .interstitial])
        #expect(schedule.playoutDuration == MediaTime.maximum)
    }

    @Test func validatorSaysOutOfRangeRatherThanMalformed() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="a",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:05.000Z",DURATION=9223372037,X-RESUME-OFFSET=-\(Self.forty),X-ASSET-URI="https://a.example/a.m3u8"
            #EXTINF:10,
            a.ts
            #EXT-X-ENDLIST

            """
        let diagnostics = InterstitialValidator().validate(playlist: text, file: "m.m3u8")
        let duration = diagnostics.first { $0.rule == InterstitialRule.durationValue.id }
        #expect(duration?.message.contains("out of range") == true)
        let offset = diagnostics.first { $0.rule == InterstitialRule.resumeOffsetValue.id }
        #expect(offset?.message.contains("out of range") == true)
        // The parser's own range rule is reported at the same values.
        #expect(diagnostics.filter { $0.rule == .numberRange }.count == 2)
    }
}
