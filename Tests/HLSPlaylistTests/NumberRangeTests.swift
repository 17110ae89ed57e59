import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Numbers from outside never trap: every numeric entry point of the playlist layer driven with
/// the edges (Int64 boundaries in seconds and nanoseconds, 1e308, NaN, inf, -0, 40-digit numbers,
/// exponents, hex, NUL, 100 KB strings).
///
/// Expected outcomes are worked out by hand, not read back.
@Suite struct NumberRangeTests {
    /// What a decimal number of seconds should read as.
    enum Expected: Sendable, CustomStringConvertible {
        case time(Int64)
        case outOfRange
        case notANumber

        var description: String {
            switch self {
            case .time(let ns): "\(ns) ns"
            case .outOfRange: "out of range"
            case .notANumber: "not a number"
            }
        }
    }

    static let forty = "1234567890123456789012345678901234567890"

    /// Edge texts and what they are (nanoseconds worked out by hand).
    static let decimalEdges: [(String, Expected)] = [
        ("9223372036.854775807", .time(9_223_372_036_854_775_807)),
        ("9223372036.8547758074", .time(9_223_372_036_854_775_807)),  // the 10th digit rounds down
        ("9223372036.8547758075", .outOfRange),  // rounds up past Int64.max
        ("9223372036.854775808", .outOfRange),
        ("9223372036.9", .outOfRange),
        ("9223372037", .outOfRange),
        ("9223372036", .time(9_223_372_036_000_000_000)),
        ("-9223372036.854775807", .time(-9_223_372_036_854_775_807)),
        ("-9223372036.854775808", .outOfRange),  // Int64.min is outside the symmetric range
        ("-9223372037", .outOfRange),
        ("9223372036854775807", .outOfRange),  // Int64.max read as seconds
        ("18446744073709551616", .outOfRange),  // 2^64
        (forty, .outOfRange),
        ("-" + forty, .outOfRange),
        ("0000000000000000000000000000000000000001.5", .time(1_500_000_000)),
        ("-0", .time(0)),
        ("-0.0", .time(0)),
        ("+0", .time(0)),
        ("0.0000000005", .time(1)),
        ("0.0000000004", .time(0)),
        ("0." + String(repeating: "0", count: 299) + "1", .time(0)),  // 1e-300 written out
        (".5", .time(500_000_000)),
        ("5.", .time(5_000_000_000)),
        ("1e308", .notANumber),
        ("1E3", .notANumber),
        ("1e-300", .notANumber),
        ("0x10", .notANumber),
        ("0X1p3", .notANumber),
        ("inf", .notANumber),
        ("-inf", .notANumber),
        ("Infinity", .notANumber),
        ("nan", .notANumber),
        ("NaN", .notANumber),
        ("", .notANumber),
        ("-", .notANumber),
        (".", .notANumber),
        ("1.2.3", .notANumber),
        ("1\u{0}", .notANumber),
        ("\u{0}", .notANumber),
        (" 1", .notANumber),
        ("1,5", .notANumber),
        ("--1", .notANumber),
        (String(repeating: "9", count: 100_000), .outOfRange),
        (String(repeating: "0", count: 100_000), .time(0)),
        ("1." + String(repeating: "9", count: 100_000), .time(2_000_000_000)),
        (String(repeating: "9", count: 100_000) + "x", .notANumber),
    ]

    @Test(arguments: decimalEdges.indices)
    func decimalSecondsReadIntoTheRange(_ k: Int) {
        let (text, expected) = Self.decimalEdges[k]
        let reading = MediaTime.read(text)
        let label = text.count > 40 ? "\(text.prefix(20))… (\(text.utf8.count) bytes)" : text
        switch expected {
        case .time(let ns):
            #expect(reading == .time(MediaTime(nanoseconds: ns)), "\(label)")
            #expect(MediaTime(text) == MediaTime(nanoseconds: ns), "\(label)")
        case .outOfRange:
            #expect(reading == .outOfRange, "\(label)")
            #expect(MediaTime(text) == nil, "\(label)")
        case .notANumber:
            #expect(reading == .notANumber, "\(label)")
            #expect(MediaTime(text) == nil, "\(label)")
        }
    }

    @Test func unsignedReadingRefusesASign() {
        #expect(MediaTime.read("-1", allowSign: false) == .notANumber)
        #expect(MediaTime.read("+1", allowSign: false) == .notANumber)
        #expect(MediaTime.read("1", allowSign: false) == .time(1))
    }

    @Test func floatingPointSecondsClampOrAreRefused() {
        let max = MediaTime(nanoseconds: .max)
        let min = MediaTime(nanoseconds: -.max)
        let cases: [(Double, MediaTime, MediaTime?)] = [
            (.nan, .zero, nil),
            (.infinity, max, nil),
            (-.infinity, min, nil),
            (1e308, max, nil),
            (-1e308, min, nil),
            (9.3e9, max, nil),
            (-9.3e9, min, nil),
            (1e-300, .zero, .zero),
            (-0.0, .zero, .zero),
            (-1e-300, .zero, .zero),
            (1.5, MediaTime(nanoseconds: 1_500_000_000), MediaTime(nanoseconds: 1_500_000_000)),
            (-2.25, MediaTime(nanoseconds: -2_250_000_000), MediaTime(nanoseconds: -2_250_000_000)),
            (
                9_223_372_036.0, MediaTime(nanoseconds: 9_223_372_036_000_000_000),
                MediaTime(nanoseconds: 9_223_372_036_000_000_000)
            ),
        ]
        for (seconds, clamped, checked) in cases {
            #expect(MediaTime(seconds: seconds) == clamped, "\(seconds)")
            #expect(MediaTime(checkedSeconds: seconds) == checked, "\(seconds)")
        }
        #expect(MediaTime.maximum == max)
        #expect(MediaTime.minimum == min)
        #expect(MediaTime.validRange.contains(MediaTime(nanoseconds: .min)) == false)
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let one = MediaTime(nanoseconds: 1)
        let max = MediaTime.maximum
        let min = MediaTime.minimum
        #expect(max + one == max)
        #expect(max + max == max)
        #expect(min - one == min)
        #expect(min + min == min)
        #expect(max - min == max)
        #expect(min - max == min)
        #expect(max * 2 == max)
        #expect(max * -2 == min)
        #expect(min * 3 == min)
        #expect(min * -3 == max)
        #expect(MediaTime(nanoseconds: 4_611_686_018_427_387_904) * 2 == max)  // 2^62 * 2 = 2^63
        #expect(MediaTime(nanoseconds: 3) * Int.max == max)
        #expect(MediaTime(nanoseconds: -3) * Int.max == min)
        #expect(-MediaTime(nanoseconds: .min) == max)
        #expect(MediaTime(nanoseconds: .min).magnitude == max)
        #expect(MediaTime(seconds: Int.max) == max)
        #expect(MediaTime(seconds: Int.min) == min)
        #expect(MediaTime(seconds: 9_223_372_037) == max)
        #expect(MediaTime(seconds: 9_223_372_036) == MediaTime(nanoseconds: 9_223_372_036_000_000_000))
        #expect(MediaTime(milliseconds: .max) == max)
        #expect(MediaTime(milliseconds: .min) == min)
        // Ordinary values are exact.
        #expect(MediaTime(nanoseconds: 7) + MediaTime(nanoseconds: -9) == MediaTime(nanoseconds: -2))
        #expect(MediaTime(nanoseconds: 7) * -3 == MediaTime(nanoseconds: -21))
    }

    @Test func datesParseIntoTheirRangeAndSaturate() {
        // 9,223,372,035 s after the epoch is 2262-04-11T23:47:15Z (106,751 days + 85,635 s).
        #expect(DateTime(iso8601: "2262-04-11T23:47:15.999999999Z")?.nanosecondsSince1970 == 9_223_372_035_999_999_999)
        #expect(DateTime(iso8601: "2262-04-11T23:47:16Z") == nil)
        #expect(DateTime.isOutOfRange(iso8601: "2262-04-11T23:47:16Z"))
        #expect(DateTime.isOutOfRange(iso8601: "9999-12-31T23:59:59.999Z"))
        #expect(DateTime.isOutOfRange(iso8601: "0000-01-01T00:00:00Z"))
        #expect(DateTime(iso8601: "1677-09-21T00:12:45Z")?.nanosecondsSince1970 == -9_223_372_035_000_000_000)
        #expect(DateTime(iso8601: "1677-09-21T00:12:44Z") == nil)
        #expect(DateTime.isOutOfRange(iso8601: "1677-09-21T00:12:44Z"))
        // A malformed date is not "out of range".
        #expect(!DateTime.isOutOfRange(iso8601: "2262-13-11T23:47:16Z"))
        #expect(!DateTime.isOutOfRange(iso8601: "1e308"))
        #expect(!DateTime.isOutOfRange(iso8601: "2024-01-01T00:00:00Z\u{0}"))

        let late = DateTime(nanosecondsSince1970: 9_000_000_000_000_000_000)
        #expect((late + MediaTime.maximum).nanosecondsSince1970 == .max)
        #expect(
            (DateTime(nanosecondsSince1970: -9_000_000_000_000_000_000) - MediaTime.maximum).nanosecondsSince1970
                == -.max
        )
        #expect(late - DateTime(nanosecondsSince1970: -9_000_000_000_000_000_000) == MediaTime.maximum)
        #expect(DateTime(secondsSince1970: .nan).nanosecondsSince1970 == 0)
        #expect(DateTime(secondsSince1970: 1e300).nanosecondsSince1970 == .max)
        #expect(DateTime(secondsSince1970: -1e300).nanosecondsSince1970 == -.max)
        #expect(DateTime(secondsSince1970: .infinity).nanosecondsSince1970 == .max)
        #expect(DateTime(secondsSince1970: 1.5).nanosecondsSince1970 == 1_500_000_000)
        #expect(DateTime(millisecondsSince1970: .max).nanosecondsSince1970 == .max)
        #expect(DateTime(millisecondsSince1970: .min).nanosecondsSince1970 == -.max)
    }

    // MARK: - The parser

    static func media(extinf: String = "10", header: String = "", segmentTags: String = "") -> String {
        """
        #EXTM3U
        #EXT-X-TARGETDURATION:10\(header)
        #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
        \(segmentTags)#EXTINF:\(extinf),
        a.ts
        #EXTINF:10,
        b.ts
        #EXT-X-ENDLIST

        """
    }

    static func rules(_ text: String) -> [(RuleID, Int, Int)] {
        PlaylistParser.parse(text).diagnostics.filter { $0.severity == .error }.map {
            ($0.rule, $0.location.line, $0.location.column)
        }
    }

    @Test(arguments: decimalEdges.indices)
    func extinfEdgesGetTheRightDiagnostic(_ k: Int) throws {
        let (value, expected) = Self.decimalEdges[k]
        // The parser does not allow a sign on EXTINF, and a NUL or comma changes the line's shape.
        guard !value.hasPrefix("-"), !value.hasPrefix("+"), !value.contains(","), !value.hasPrefix(" ") else { return }
        let text = Self.media(extinf: value)
        let parsed = PlaylistParser.parse(text, options: .init(mode: .lenient, file: "edge.m3u8"))
        let errors = parsed.diagnostics.filter { $0.severity == .error }
        let label = value.count > 40 ? "\(value.prefix(20))… (\(value.utf8.count) bytes)" : value
        switch expected {
        case .outOfRange:
            let range = errors.filter { $0.rule == .numberRange }
            #expect(range.count == 1, "\(label)")
            // "#EXTINF:" is 8 bytes: the value starts at column 9 of line 4.
            #expect(range.first?.location == SourceLocation(file: "edge.m3u8", line: 4, column: 9), "\(label)")
            #expect(range.first?.rule.rawValue == "HLS-NUMBER-RANGE")
            // Lenient: the line is kept (round trip) and the segment gets no duration from it.
            #expect(parsed.playlist.serialized() == Array(text.utf8))
            #expect(parsed.playlist.media?.segments.first?.duration == .zero, "\(label)")
            do {
                _ = try MediaPlaylist(parsing: text)
                Issue.record("a strict parse of EXTINF:\(label) did not throw")
            } catch let error as PlaylistParsingError {
                #expect(error.code == .numberOutOfRange, "\(label)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        case .notANumber:
            #expect(errors.contains { $0.rule == .tagValue }, "\(label)")
            #expect(!errors.contains { $0.rule == .numberRange }, "\(label)")
        case .time(let ns):
            #expect(!errors.contains { $0.rule == .numberRange || $0.rule == .tagValue }, "\(label)")
            #expect(parsed.playlist.media?.segments.first?.duration == MediaTime(nanoseconds: ns), "\(label)")
        }
    }

    @Test func hugeDurationsSumWithoutWrapping() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:999999999999999999
            #EXT-X-MEDIA-SEQUENCE:999999999999999999
            #EXT-X-PROGRAM-DATE-TIME:2262-04-11T23:47:15.000Z
            #EXTINF:9223372036.854775807,
            a.ts
            #EXTINF:9223372036.854775807,
            b.ts
            #EXT-X-ENDLIST

            """
        let playlist = try MediaPlaylist(parsing: text)
        #expect(playlist.duration == MediaTime.maximum)
        #expect(playlist.segments[1].startTime == MediaTime.maximum)
        #expect(playlist.segments[1].mediaSequenceNumber == 1_000_000_000_000_000_000)
        #expect(playlist.segments[1].date?.nanosecondsSince1970 == .max)
        #expect(playlist.targetDuration == 999_999_999_999_999_999)
        // Time and date lookups with the extremes answer without trapping.
        for time in [MediaTime.maximum, MediaTime.minimum, MediaTime(nanoseconds: .min), .zero] {
            _ = playlist.date(at: time)
            _ = playlist.segmentIndex(containing: time)
            _ = playlist.nearestSegmentBoundary(to: time)
        }
        for date in [Int64.max, Int64.min, 0, -Int64.max] {
            _ = playlist.time(at: DateTime(nanosecondsSince1970: date))
        }
        #expect(playlist.date(at: .zero)?.iso8601 == "2262-04-11T23:47:15.000Z")
    }

    @Test func integerTagsCheckTheirRange() {
        let limit = "999999999999999999"
        let over = "1000000000000000000"
        for tag in ["EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE", "EXT-X-VERSION"] {
            #expect(Self.rules(Self.media(header: "\n#\(tag):\(limit)")).isEmpty, "\(tag)")
            for value in [
                over, "9223372036854775807", "9223372036854775808", "18446744073709551616", Self.forty,
                String(repeating: "7", count: 100_000),
            ] {
                let found = Self.rules(Self.media(header: "\n#\(tag):\(value)"))
                #expect(found.count == 1, "\(tag):\(value.prefix(30))")
                #expect(found.first?.0 == .numberRange, "\(tag):\(value.prefix(30))")
                #expect(found.first?.1 == 3 && found.first?.2 == tag.utf8.count + 3, "\(tag)")
            }
            for value in ["-1", "0x10", "1e3", "1.5", "", "NaN", "1\u{0}"] {
                let found = Self.rules(Self.media(header: "\n#\(tag):\(value)"))
                #expect(found.map(\.0) == [.tagValue], "\(tag):\(value)")
            }
        }
        // The target duration in range but so large that segment rounding would overflow.
        let target = PlaylistParser.parse(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:1
            #EXTINF:9223372036.854775807,
            a.ts

            """
        )
        #expect(target.diagnostics.map(\.rule).contains(.segmentExceedsTarget))
    }

    @Test func byteRangesCheckLengthAndOffset() throws {
        let limit = "999999999999999999"
        let ok = try MediaPlaylist(parsing: Self.media(segmentTags: "#EXT-X-BYTERANGE:\(limit)@\(limit)\n"))
        #expect(ok.segments[0].byteRange == ByteRange(length: 999_999_999_999_999_999, offset: 999_999_999_999_999_999))
        #expect(ok.segments[0].byteRange?.httpRangeHeader == "bytes=999999999999999999-1999999999999999997")
        for value in ["1000000000000000000@0", "5@1000000000000000000", "\(Self.forty)@\(Self.forty)", Self.forty] {
            let found = Self.rules(Self.media(segmentTags: "#EXT-X-BYTERANGE:\(value)\n"))
            #expect(found.map(\.0) == [.numberRange], "\(value)")
        }
        for value in ["-5@0", "5@-1", "0x10@0", "1e3", "5@", "@5"] {
            let found = Self.rules(Self.media(segmentTags: "#EXT-X-BYTERANGE:\(value)\n"))
            #expect(found.map(\.0) == [.tagValue], "\(value)")
        }
        #expect(ByteRange("\(Self.forty)@0") == nil)
        #expect(ByteRange("+5") == nil)
        #expect(ByteRange(length: .max, offset: .max).httpRangeHeader == nil)
        #expect(ByteRange(length: 0, offset: 10).httpRangeHeader == nil)
        #expect(ByteRange(length: 10, offset: 0).httpRangeHeader == "bytes=0-9")
    }

    @Test func programDateTimesOutsideTheRangeAreReported() {
        for value in [
            "2262-04-11T23:47:16Z", "9999-12-31T23:59:59.999Z", "1677-09-21T00:12:44Z", "0000-01-01T00:00:00Z",
        ] {
            let found = Self.rules(Self.media(segmentTags: "#EXT-X-PROGRAM-DATE-TIME:\(value)\n"))
            // "#EXT-X-PROGRAM-DATE-TIME:" is 25 bytes: the value is at column 26 of line 4.
            #expect(found.count == 1 && found[0].0 == .numberRange && found[0].1 == 4 && found[0].2 == 26, "\(value)")
        }
        let malformed = Self.rules(Self.media(segmentTags: "#EXT-X-PROGRAM-DATE-TIME:1e308\n"))
        #expect(malformed.map(\.0) == [.tagValue])
    }

    @Test func numericAttributesOutsideTheRangeAreReported() {
        let multivariant = { (attributes: String) in
            "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\nv.m3u8\n"
        }
        // `#EXT-X-STREAM-INF:` is 18 bytes; each case gives the value's column.
        let cases: [(String, Int)] = [
            ("BANDWIDTH=\(Self.forty)", 29),
            ("BANDWIDTH=1000000000000000000", 29),
            ("BANDWIDTH=1,AVERAGE-BANDWIDTH=99999999999999999999", 49),
            ("BANDWIDTH=1,RESOLUTION=1x99999999999999999999", 42),
            ("BANDWIDTH=1,RESOLUTION=\(Self.forty)x1080", 42),
            ("BANDWIDTH=1,FRAME-RATE=99999999999", 42),
            ("BANDWIDTH=1,SCORE=9223372037", 37),
        ]
        for (attributes, column) in cases {
            let found = Self.rules(multivariant(attributes))
            #expect(found.count == 1, "\(attributes)")
            #expect(found.first?.0 == .numberRange && found.first?.1 == 2 && found.first?.2 == column, "\(attributes)")
        }
        for attributes in [
            "BANDWIDTH=999999999999999999,RESOLUTION=1920x1080,FRAME-RATE=29.97",
            "BANDWIDTH=1,RESOLUTION=1e3x5", "BANDWIDTH=1,FRAME-RATE=1e308", "BANDWIDTH=0x10",
        ] {
            #expect(!Self.rules(multivariant(attributes)).contains { $0.0 == .numberRange }, "\(attributes)")
        }
        let variant =
            (try? MultivariantPlaylist(parsing: multivariant("BANDWIDTH=999999999999999999,RESOLUTION=1920x1080")))?
            .variants.first
        #expect(variant?.bandwidth == 999_999_999_999_999_999)
        #expect(variant?.resolution == Resolution(width: 1920, height: 1080))
        #expect(AttributeValue(rawValue: "1000000000000000000").integer == nil)
        #expect(AttributeValue(rawValue: "1x\(Self.forty)").resolution == nil)
        #expect(AttributeValue(rawValue: "-0").signedDecimal == .zero)
        #expect(AttributeValue(rawValue: "-0").decimal == nil)

        // Media playlist attributes: EXT-X-START, EXT-X-SKIP, EXT-X-DATERANGE.
        let dateRange = "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-01-01T00:00:00Z\","
        let mediaCases: [(String, Int)] = [
            ("\n#EXT-X-START:TIME-OFFSET=-9223372037", 26),
            ("\n#EXT-X-START:TIME-OFFSET=\(Self.forty)", 26),
        ]
        for (header, column) in mediaCases {
            let found = Self.rules(Self.media(header: header))
            #expect(found.map(\.0) == [.numberRange] && found.first?.2 == column, "\(header)")
        }
        let rangeCases: [(String, String)] = [
            ("DURATION", "9223372037"),
            ("PLANNED-DURATION", Self.forty),
            ("X-RESUME-OFFSET", "-9223372036.9"),
            ("X-PLAYOUT-LIMIT", "99999999999"),
            ("END-DATE", "\"9999-01-01T00:00:00Z\""),
        ]
        for (name, value) in rangeCases {
            let attribute = name + "=" + value
            // The value starts after the prefix, the name and '='.
            let column = dateRange.utf8.count + name.utf8.count + 2
            let found = Self.rules(Self.media(segmentTags: dateRange + attribute + "\n"))
            #expect(found.map(\.0) == [.numberRange] && found.first?.1 == 4 && found.first?.2 == column, "\(attribute)")
        }
        let startDate = Self.rules(
            Self.media(segmentTags: "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2262-04-12T00:00:00Z\"\n")
        )
        #expect(startDate.map(\.0) == [.numberRange] && startDate.first?.2 == 36)
    }

    /// Random playlists with edge numbers in every numeric slot: parsing (lenient and strict) and
    /// every time lookup finish, and a slot holding an out-of-range number always gets its diagnostic.
    @Test(arguments: 0..<150)
    func randomEdgeNumbersNeverTrap(_ seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        let integers: [(String, Bool)] = [
            ("0", false), ("999999999999999999", false), ("1000000000000000000", true), ("9223372036854775807", true),
            ("9223372036854775808", true), ("18446744073709551615", true), (Self.forty, true), ("-1", false),
            ("0x7fffffffffffffff", false), ("1e18", false), ("", false), ("NaN", false),
        ]
        var lines = ["#EXTM3U"]
        var expectedRange = 0
        func integer() -> String {
            let (text, range) = integers.randomElement(using: &rng)!
            if range { expectedRange += 1 }
            return text
        }
        func decimal(signed: Bool) -> String {
            let (text, expected) = Self.decimalEdges.randomElement(using: &rng)!
            if text.contains(",") || text.contains("\"") || text.isEmpty || text.hasPrefix(" ")
                || text.contains("\u{0}")
                || (!signed && (text.hasPrefix("-") || text.hasPrefix("+")))
            {
                return "7"
            }
            if case .outOfRange = expected { expectedRange += 1 }
            return text
        }
        lines.append("#EXT-X-TARGETDURATION:\(integer())")
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(integer())")
        lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(integer())")
        lines.append("#EXT-X-START:TIME-OFFSET=\(decimal(signed: true))")
        lines.append("#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z")
        for k in 0..<Int.random(in: 1...12, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0:
                let (length, lengthRange) = integers.randomElement(using: &rng)!
                let (offset, offsetRange) = integers.randomElement(using: &rng)!
                // A range diagnostic only when both parts are digits (else the syntax error wins).
                let digits = { (t: String) in !t.isEmpty && t.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
                if (lengthRange || offsetRange) && digits(length) && digits(offset) { expectedRange += 1 }
                lines.append("#EXT-X-BYTERANGE:\(length)@\(offset)")
            case 1: lines.append("#EXT-X-DISCONTINUITY")
            case 2:
                lines.append(
                    "#EXT-X-DATERANGE:ID=\"d\(k)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2024-01-01T00:00:05Z\",DURATION=\(decimal(signed: false)),X-RESUME-OFFSET=\(decimal(signed: true)),X-ASSET-URI=\"https://a.example/a.m3u8\""
                )
            default: break
            }
            lines.append("#EXTINF:\(decimal(signed: false)),")
            lines.append("s\(k).ts")
        }
        lines.append("#EXT-X-ENDLIST")
        let text = lines.joined(separator: "\n") + "\n"
        let lenient = PlaylistParser.parse(text)
        let found = lenient.diagnostics.filter { $0.rule == .numberRange }.count
        #expect(found == expectedRange, "\(text.prefix(2000))")
        #expect(lenient.playlist.serialized() == Array(text.utf8))
        if let playlist = lenient.playlist.media {
            _ = playlist.duration
            for segment in playlist.segments {
                _ = playlist.date(at: segment.startTime)
                _ = playlist.time(at: segment.date ?? DateTime(nanosecondsSince1970: 0))
                _ = segment.byteRange?.httpRangeHeader
                _ = segment.mediaSequenceNumber
            }
            for range in playlist.dateRanges { _ = range.dateRange.resolvedDuration }
        }
        let strict = PlaylistParser.parse(text, options: .init(mode: .strict))
        if expectedRange > 0, let last = strict.diagnostics.last, last.rule == .numberRange {
            #expect(PlaylistParsingError(last).code == .numberOutOfRange)
        }
    }
}
