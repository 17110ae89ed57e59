/// A point in wall-clock time with nanosecond precision, as written by `EXT-X-PROGRAM-DATE-TIME`
/// and the `START-DATE` / `END-DATE` attributes of `EXT-X-DATERANGE`.
///
/// The value counts nanoseconds since 1970-01-01T00:00:00Z in `Int64`, so the range is about
/// 1677-09-21 to 2262-04-11 (``validRange``: a whole second inside `Int64` nanoseconds either side).
/// Parsing refuses dates outside it (a playlist date there gets an `HLS-NUMBER-RANGE` diagnostic),
/// and adding or subtracting a ``MediaTime`` saturates at the ends of `Int64` instead of trapping.
/// Parsing accepts ISO-8601 / RFC 3339 dates with any number of fraction digits and a `Z` or
/// `±hh:mm` / `±hhmm` zone; a date without a zone is taken as UTC, as the spec advises.
public struct DateTime: Sendable, Hashable, Comparable, Codable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSince1970: Int64

    /// Creates a date from nanoseconds since the Unix epoch.
    @inlinable
    public init(nanosecondsSince1970: Int64) {
        self.nanosecondsSince1970 = nanosecondsSince1970
    }

    /// Creates a date from milliseconds since the Unix epoch, clamped to the `Int64` nanosecond range.
    @inlinable
    public init(millisecondsSince1970: Int64) {
        self.nanosecondsSince1970 = MediaTime(milliseconds: millisecondsSince1970).nanoseconds
    }

    /// Creates a date from floating-point seconds since the Unix epoch (rounded to the microsecond).
    ///
    /// Values outside the range (and infinities) clamp to its ends; NaN is the epoch.
    public init(secondsSince1970: Double) {
        guard !secondsSince1970.isNaN else {
            self.nanosecondsSince1970 = 0
            return
        }
        let micros = (secondsSince1970 * 1_000_000).rounded()
        guard micros < 9_223_372_036_854_775.0, micros > -9_223_372_036_854_775.0 else {
            self.nanosecondsSince1970 = micros > 0 ? .max : -.max
            return
        }
        self.nanosecondsSince1970 = Int64(micros) * 1000
    }

    /// The earliest date a playlist may give: 1677-09-21T00:12:45Z (whole seconds inside `Int64` ns).
    public static let minimum = DateTime(nanosecondsSince1970: -9_223_372_035_000_000_000)
    /// The latest date a playlist may give: 2262-04-11T23:47:15.999999999Z.
    public static let maximum = DateTime(nanosecondsSince1970: 9_223_372_035_999_999_999)
    /// The dates parsing accepts: ``minimum`` through ``maximum``.
    public static let validRange: ClosedRange<DateTime> = DateTime.minimum...DateTime.maximum

    /// Parses an ISO-8601 date such as `2021-01-04T05:00:05.000Z` or `2021-01-04T07:00:05+02:00`.
    public init?(iso8601 text: some StringProtocol) {
        var text = String(text)
        guard let value = text.withUTF8({ DateTime.parse($0, from: 0, to: $0.count) }) else { return nil }
        self = value
    }

    /// Seconds since the Unix epoch, as a floating-point number.
    @inlinable
    public var secondsSince1970: Double {
        Double(self.nanosecondsSince1970) / 1_000_000_000
    }

    /// Milliseconds since the Unix epoch, rounded toward negative infinity.
    @inlinable
    public var millisecondsSince1970: Int64 {
        let (q, r) = self.nanosecondsSince1970.quotientAndRemainder(dividingBy: 1_000_000)
        return r < 0 ? q - 1 : q
    }

    /// Whether `lhs` orders before `rhs`.
    @inlinable
    public static func < (lhs: DateTime, rhs: DateTime) -> Bool {
        lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
    }

    /// The date a media time later (or earlier, for a negative time), saturating at the ends of
    /// the `Int64` range.
    @inlinable
    public static func + (lhs: DateTime, rhs: MediaTime) -> DateTime {
        DateTime(
            nanosecondsSince1970: MediaTime.clamp(lhs.nanosecondsSince1970.addingReportingOverflow(rhs.nanoseconds))
        )
    }

    /// The date a media time earlier, saturating at the ends of the `Int64` range.
    @inlinable
    public static func - (lhs: DateTime, rhs: MediaTime) -> DateTime {
        DateTime(
            nanosecondsSince1970: MediaTime.clamp(
                lhs.nanosecondsSince1970.subtractingReportingOverflow(rhs.nanoseconds)
            )
        )
    }

    /// The time from `rhs` to `lhs`, saturating at ``MediaTime/maximum`` and ``MediaTime/minimum``.
    @inlinable
    public static func - (lhs: DateTime, rhs: DateTime) -> MediaTime {
        MediaTime(
            nanoseconds: MediaTime.clamp(
                lhs.nanosecondsSince1970.subtractingReportingOverflow(rhs.nanosecondsSince1970)
            )
        )
    }

    /// The date in UTC as ISO-8601 with millisecond precision (more digits only when they are not
    /// zero): `2021-01-04T05:00:05.000Z`.
    public var iso8601: String {
        let ns = self.nanosecondsSince1970
        var (seconds, fraction) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        if fraction < 0 {
            seconds -= 1
            fraction += 1_000_000_000
        }
        var (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (y, m, d) = DateTime.civil(fromDays: days)
        let hour = secondOfDay / 3600
        let minute = (secondOfDay % 3600) / 60
        let second = secondOfDay % 60
        var out = ""
        out.reserveCapacity(30)
        // `v` in at least `width` digits (zeros in front), then `separator`.
        func pad(_ v: Int64, _ width: Int, _ separator: String = "") {
            let s = String(v)
            if s.count < width { out += String(repeating: "0", count: width - s.count) }
            out += s
            out += separator
        }
        pad(y, 4, "-")
        pad(m, 2, "-")
        pad(d, 2, "T")
        pad(hour, 2, ":")
        pad(minute, 2, ":")
        pad(second, 2, ".")
        if fraction % 1_000_000 == 0 {
            pad(fraction / 1_000_000, 3)
        } else if fraction % 1000 == 0 {
            pad(fraction / 1000, 6)
        } else {
            pad(fraction, 9)
        }
        out += "Z"
        return out
    }

    // MARK: - Parsing

    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int64? {
        let d0 = b[at] &- 48
        let d1 = b[at + 1] &- 48
        if count == 2 {
            return d0 > 9 || d1 > 9 ? nil : Int64(d0) &* 10 &+ Int64(d1)
        }
        let d2 = b[at + 2] &- 48
        let d3 = b[at + 3] &- 48
        if d0 > 9 || d1 > 9 || d2 > 9 || d3 > 9 { return nil }
        return Int64(d0) &* 1000 &+ Int64(d1) &* 100 &+ Int64(d2) &* 10 &+ Int64(d3)
    }

    /// The last calendar day parsed: a playlist's PROGRAM-DATE-TIMEs mostly share their day, so
    /// its validation and day count are done once per day instead of once per tag.
    struct DayCache {
        /// `YYYY-MM-` as little-endian bytes, and `DD`.
        var prefix: UInt64 = 0
        var day: UInt16 = 0
        var days: Int64 = 0
        var valid = false
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.f+][Z|±hh:mm|±hhmm|±hh]` between `start` and `end`.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> DateTime? {
        var cache = DayCache()
        var outOfRange = false
        return self.parse(b, from: start, to: end, cache: &cache, outOfRange: &outOfRange)
    }

    /// Whether the text is a well-formed ISO-8601 date outside ``validRange``.
    static func isOutOfRange(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var cache = DayCache()
        var outOfRange = false
        _ = self.parse(b, from: start, to: end, cache: &cache, outOfRange: &outOfRange)
        return outOfRange
    }

    /// Whether `text` is a well-formed ISO-8601 date outside ``validRange`` (so ``init(iso8601:)``
    /// refuses it for its range, not its syntax).
    public static func isOutOfRange(iso8601 text: some StringProtocol) -> Bool {
        var text = String(text)
        return text.withUTF8 { DateTime.isOutOfRange($0, from: 0, to: $0.count) }
    }

    /// Parses a date, reusing the day count of `cache` when the date is on the same day; sets
    /// `outOfRange` when the text is a date outside ``validRange``.
    static func parse(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        cache: inout DayCache,
        outOfRange: inout Bool
    ) -> DateTime? {
        // Minimum: 2021-01-04T05:00:05 (19 bytes).
        guard end - start >= 19 else { return nil }
        let s = start
        let raw = UnsafeRawPointer(b.baseAddress! + s)
        let prefix = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let dayBytes = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        let days: Int64
        if cache.valid, cache.prefix == prefix, cache.day == dayBytes {
            days = cache.days
        } else {
            guard b[s + 4] == UInt8(ascii: "-"), b[s + 7] == UInt8(ascii: "-"),
                let year = digits(b, s, 4), let month = digits(b, s + 5, 2), let day = digits(b, s + 8, 2),
                (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
            else { return nil }
            days = DateTime.days(fromCivil: year, month, day)
            cache = DayCache(prefix: prefix, day: dayBytes, days: days, valid: true)
        }
        guard b[s + 10] == UInt8(ascii: "T") || b[s + 10] == UInt8(ascii: "t") || b[s + 10] == UInt8(ascii: " "),
            b[s + 13] == UInt8(ascii: ":"), b[s + 16] == UInt8(ascii: ":"),
            let hour = digits(b, s + 11, 2), let minute = digits(b, s + 14, 2), let second = digits(b, s + 17, 2),
            hour <= 24, minute <= 59, second <= 60
        else { return nil }
        var i = s + 19
        var fraction: Int64 = 0
        if i < end, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            var n = 0
            while i < end, b[i] &- 48 <= 9 {
                if n < 9 {
                    fraction = fraction * 10 + Int64(b[i] &- 48)
                }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            var k = min(n, 9)
            while k < 9 {
                fraction *= 10
                k += 1
            }
        }
        var offsetSeconds: Int64 = 0
        if i < end {
            let c = b[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                let sign: Int64 = c == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard end - i >= 2, let oh = digits(b, i, 2) else { return nil }
                i += 2
                var om: Int64 = 0
                if i < end, b[i] == UInt8(ascii: ":") { i += 1 }
                if end - i >= 2, let m = digits(b, i, 2) {
                    om = m
                    i += 2
                }
                guard oh <= 23, om <= 59 else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == end else { return nil }
        let total = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        guard total >= -9_223_372_035, total <= 9_223_372_035 else {
            outOfRange = true
            return nil
        }
        return DateTime(nanosecondsSince1970: total * 1_000_000_000 + fraction)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H.
    ///
    /// Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension DateTime: CustomStringConvertible {
    /// The ISO-8601 form, see ``iso8601``.
    public var description: String { self.iso8601 }
}
