/// An exact span or point of media time, in nanoseconds.
///
/// `MediaTime` is a fixed-point decimal: every `EXTINF` duration with up to nine decimal places is
/// held exactly, so adding 100,000 of them gives the exact sum that the playlist states. Use it for
/// segment durations, offsets on the primary timeline, resume offsets and playout limits.
///
/// ```swift
/// let d = MediaTime("2.002")!          // 2.002 s exactly
/// let total = (0..<100_000).reduce(MediaTime.zero) { t, _ in t + d }
/// // total == MediaTime("200200")!
/// ```
public struct MediaTime: Sendable, Hashable, Comparable, AdditiveArithmetic, Codable {
    /// The time in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates a time from whole seconds.
    @inlinable
    public init(seconds: Int) {
        self.nanoseconds = Int64(seconds) * 1_000_000_000
    }

    /// Creates a time from milliseconds.
    @inlinable
    public init(milliseconds: Int64) {
        self.nanoseconds = milliseconds * 1_000_000
    }

    /// Creates a time from a floating-point number of seconds, rounded to the nearest nanosecond.
    ///
    /// Prefer ``init(_:)`` with the decimal text when the value comes from a playlist: it is exact.
    public init(seconds: Double) {
        guard seconds.isFinite else {
            self.nanoseconds = seconds > 0 ? .max : (seconds < 0 ? .min : 0)
            return
        }
        let ns = (seconds * 1_000_000_000).rounded()
        if ns >= 9.2e18 {
            self.nanoseconds = .max
        } else if ns <= -9.2e18 {
            self.nanoseconds = .min
        } else {
            self.nanoseconds = Int64(ns)
        }
    }

    /// Parses a decimal number of seconds (`10`, `2.002`, `-3.5`) exactly.
    ///
    /// Digits past the ninth decimal place are rounded half-up. Returns `nil` for text that is not a
    /// (signed) decimal number or that does not fit.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        let parsed = text.withUTF8 { buffer in
            MediaTime.parseDecimal(buffer, allowSign: true)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Zero seconds.
    public static let zero = MediaTime(nanoseconds: 0)

    /// The time in seconds, as a floating-point number (for display and arithmetic with doubles).
    @inlinable
    public var seconds: Double {
        Double(self.nanoseconds) / 1_000_000_000
    }

    /// The time in whole milliseconds, truncated toward zero.
    @inlinable
    public var milliseconds: Int64 {
        self.nanoseconds / 1_000_000
    }

    @inlinable
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    @inlinable
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    @inlinable
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds)
    }

    /// Multiplies a time by a whole number.
    @inlinable
    public static func * (lhs: MediaTime, rhs: Int) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &* Int64(rhs))
    }

    /// The negated time.
    @inlinable
    public static prefix func - (value: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: -value.nanoseconds)
    }

    /// The absolute value of the time.
    @inlinable
    public var magnitude: MediaTime {
        MediaTime(nanoseconds: self.nanoseconds < 0 ? -self.nanoseconds : self.nanoseconds)
    }

    /// The larger of two times.
    @inlinable
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }

    /// The smaller of two times.
    @inlinable
    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? a : b }

    /// Renders the time as a decimal with exactly `places` decimal places (rounded half away from zero).
    ///
    /// `MediaTime("2.0025")!.decimalString(places: 3)` is `"2.003"`. Use it to write `EXTINF` values.
    public func decimalString(places: Int) -> String {
        precondition(places >= 0 && places <= 9, "places must be in 0...9")
        var ns = self.nanoseconds
        let negative = ns < 0
        if negative { ns = ns == .min ? .max : -ns }
        var scale: Int64 = 1
        for _ in 0..<(9 - places) { scale *= 10 }
        var units = ns / scale
        if (ns % scale) * 2 >= scale { units += 1 }
        var divisor: Int64 = 1
        for _ in 0..<places { divisor *= 10 }
        let whole = units / divisor
        let fraction = units % divisor
        var result = negative && units != 0 ? "-" : ""
        result += String(whole)
        if places > 0 {
            let digits = String(fraction)
            result += "."
            result += String(repeating: "0", count: places - digits.count)
            result += digits
        }
        return result
    }

    // MARK: - Parsing

    /// Parses decimal seconds from bytes. Accepts `[-+]?digits(.digits)?` (also `.5` and `5.`).
        static func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>, allowSign: Bool) -> MediaTime? {
        parseDecimal(bytes, from: 0, to: bytes.count, allowSign: allowSign)
    }

        static func parseDecimal(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        allowSign: Bool
    ) -> MediaTime? {
        var i = start
        guard i < end else { return nil }
        var negative = false
        if allowSign, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var whole: Int64 = 0
        var digits = 0
        while i < end {
            let d = bytes[i] &- 48
            if d > 9 { break }
            if whole > 9_223_372_035 { return nil }  // would overflow once scaled to ns
            whole = whole * 10 + Int64(d)
            digits += 1
            i += 1
        }
        var fraction: Int64 = 0
        var fractionDigits = 0
        var roundUp = false
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end {
                let d = bytes[i] &- 48
                if d > 9 { break }
                if fractionDigits < 9 {
                    fraction = fraction * 10 + Int64(d)
                    fractionDigits += 1
                } else if fractionDigits == 9 {
                    roundUp = d >= 5
                    fractionDigits += 1
                }
                digits += 1
                i += 1
            }
        }
        guard i == end, digits > 0 else { return nil }
        var scale = Swift.min(fractionDigits, 9)
        while scale < 9 {
            fraction *= 10
            scale += 1
        }
        var ns = whole * 1_000_000_000 + fraction
        if roundUp { ns += 1 }
        return MediaTime(nanoseconds: negative ? -ns : ns)
    }
}

extension MediaTime: CustomStringConvertible {
    /// The shortest exact decimal form in seconds: `10`, `2.5`, `2.002`, `-0.000000001`.
    public var description: String {
        var ns = self.nanoseconds
        let negative = ns < 0
        if negative { ns = ns == .min ? .max : -ns }
        let whole = ns / 1_000_000_000
        var fraction = ns % 1_000_000_000
        var result = negative ? "-" : ""
        result += String(whole)
        if fraction != 0 {
            var places = 9
            while fraction % 10 == 0 {
                fraction /= 10
                places -= 1
            }
            let digits = String(fraction)
            result += "."
            result += String(repeating: "0", count: places - digits.count)
            result += digits
        }
        return result
    }
}

extension MediaTime: ExpressibleByIntegerLiteral {
    /// Creates a time from an integer literal number of seconds.
    public init(integerLiteral value: Int) {
        self.init(seconds: value)
    }
}
