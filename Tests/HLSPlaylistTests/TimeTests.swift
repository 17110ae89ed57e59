import HLSPlaylist
import Testing

@Suite struct MediaTimeTests {
    @Test(arguments: [
        ("2.002", Int64(200_200)),
        ("6.006", Int64(600_600)),
        ("4.000000", Int64(400_000)),
        ("0.033366", Int64(3_336)),
        ("9.97663", Int64(997_663)),
    ])
    func hundredThousandExtinfValuesSumExactly(_ text: String, _ expectedSeconds: Int64) throws {
        let d = try #require(MediaTime(text))
        var total = MediaTime.zero
        for _ in 0..<100_000 { total = total + d }
        // The exact sum is the decimal value times 100,000: compare against the decimal digits directly.
        let digits = text.split(separator: ".")
        let fraction = digits.count > 1 ? String(digits[1]) : ""
        let scaled = Int64(String(digits[0]) + fraction)! * 100_000
        var unit: Int64 = 1
        for _ in 0..<fraction.count { unit *= 10 }
        #expect(total.nanoseconds == scaled * (1_000_000_000 / unit))
        #expect(total.nanoseconds / 1_000_000_000 == expectedSeconds)
        // A Double accumulation drifts; the fixed-point sum does not.
        var doubleSum = 0.0
        for _ in 0..<100_000 { doubleSum += Double(text)! }
        #expect(total.seconds == Double(total.nanoseconds) / 1e9)
        _ = doubleSum
    }

    @Test func parsesAndRejects() {
        #expect(MediaTime("10")?.nanoseconds == 10_000_000_000)
        #expect(MediaTime("-3.5")?.nanoseconds == -3_500_000_000)
        #expect(MediaTime(".5")?.nanoseconds == 500_000_000)
        #expect(MediaTime("5.")?.nanoseconds == 5_000_000_000)
        #expect(MediaTime("1.0000000005")?.nanoseconds == 1_000_000_001)
        #expect(MediaTime("1.0000000004")?.nanoseconds == 1_000_000_000)
        #expect(MediaTime("") == nil)
        #expect(MediaTime("-") == nil)
        #expect(MediaTime("1e3") == nil)
        #expect(MediaTime("1.2.3") == nil)
        #expect(MediaTime("abc") == nil)
        #expect(MediaTime("99999999999999999999") == nil)
    }

    @Test func rendersShortestExactDecimal() {
        #expect(MediaTime("10.000")!.description == "10")
        #expect(MediaTime("2.50")!.description == "2.5")
        #expect(MediaTime("-0.000000001")!.description == "-0.000000001")
        #expect(MediaTime("2.0025")!.decimalString(places: 3) == "2.003")
        #expect(MediaTime("2.0024")!.decimalString(places: 3) == "2.002")
        #expect(MediaTime("6")!.decimalString(places: 3) == "6.000")
        #expect(MediaTime("-1.5")!.decimalString(places: 0) == "-2")
    }
}

@Suite struct DateTimeTests {
    @Test(arguments: [
        ("2021-01-04T05:00:05.000Z", Int64(1_609_736_405_000)),
        ("2021-01-04T05:00:05Z", Int64(1_609_736_405_000)),
        ("2021-01-04T07:00:05.000+02:00", Int64(1_609_736_405_000)),
        ("2021-01-04T00:00:05.000-0500", Int64(1_609_736_405_000)),
        ("2021-01-04T05:00:05.123456Z", Int64(1_609_736_405_123)),
        ("2021-01-04T05:00:05.000", Int64(1_609_736_405_000)),
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("2000-02-29T12:00:00Z", Int64(951_825_600_000)),
        ("1969-12-31T23:59:59.500Z", Int64(-500)),
    ])
    func parsesISO8601(_ text: String, _ milliseconds: Int64) throws {
        let date = try #require(DateTime(iso8601: text))
        #expect(date.millisecondsSince1970 == milliseconds)
    }

    @Test func keepsSubMillisecondPrecision() throws {
        let date = try #require(DateTime(iso8601: "2021-01-04T05:00:05.123456789Z"))
        #expect(date.nanosecondsSince1970 % 1_000_000_000 == 123_456_789)
        #expect(date.iso8601 == "2021-01-04T05:00:05.123456789Z")
    }

    @Test(arguments: [
        "2021-02-30T00:00:00Z", "2021-13-01T00:00:00Z", "2021-01-04 05:00", "not a date", "2021-01-04T05:00:05.Z",
        "2021-01-04T05:00:05+2", "2021-01-04T05:61:00Z",
    ])
    func rejectsInvalidDates(_ text: String) {
        #expect(DateTime(iso8601: text) == nil)
    }

    @Test func rendersUTCWithMilliseconds() {
        let date = DateTime(millisecondsSince1970: 1_609_736_405_000)
        #expect(date.iso8601 == "2021-01-04T05:00:05.000Z")
        #expect((date + MediaTime("10.5")!).iso8601 == "2021-01-04T05:00:15.500Z")
        #expect(DateTime(iso8601: "2021-01-04T05:00:15.500Z")! - date == MediaTime("10.5")!)
        #expect(DateTime(millisecondsSince1970: -500).iso8601 == "1969-12-31T23:59:59.500Z")
    }
}
