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
///
/// ## Range
///
/// A time is a count of nanoseconds in `Int64`, limited to ``validRange``: ±9,223,372,036.854775807 s
/// (``maximum`` and ``minimum``, about ±292 years; `Int64.min` is left out so that negation never
/// overflows). Everything that reads a number from outside checks it into that range:
/// ``init(_:)-(StringProtocol)`` returns `nil` for text beyond it (``read(_:allowSign:)`` says why),
/// ``init(seconds:)-(Double)`` clamps, and the arithmetic operators (`+`, `-`, `*`, negation)
/// saturate at ``maximum`` and ``minimum`` instead of trapping or wrapping, so sums of times read
/// from a playlist never crash.
public struct MediaTime: Sendable, Hashable, Comparable, AdditiveArithmetic, Codable {
    /// The time in nanoseconds.
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates a time from whole seconds, clamped to ``validRange``.
    @inlinable
    public init(seconds: Int) {
        self.nanoseconds = MediaTime.clamp(
            Int64(seconds).multipliedReportingOverflow(by: 1_000_000_000),
            positive: seconds >= 0
        )
    }

    /// Creates a time from milliseconds, clamped to ``validRange``.
    @inlinable
    public init(milliseconds: Int64) {
        self.nanoseconds = MediaTime.clamp(
            milliseconds.multipliedReportingOverflow(by: 1_000_000),
            positive: milliseconds >= 0
        )
    }

    /// Creates a time from a floating-point number of seconds, rounded to the nearest nanosecond.
    ///
    /// Values beyond ``validRange`` (and infinities) clamp to ``maximum`` or ``minimum``; NaN is
    /// zero. Prefer ``init(_:)-(StringProtocol)`` with the decimal text when the value comes from a
    /// playlist: it is exact, and it refuses what does not fit instead of clamping.
    /// ``init(checkedSeconds:)`` refuses too.
    public init(seconds: Double) {
        guard !seconds.isNaN else {
            self.nanoseconds = 0
            return
        }
        self.nanoseconds = MediaTime(checkedSeconds: seconds)?.nanoseconds ?? (seconds > 0 ? Int64.max : -Int64.max)
    }

    /// Creates a time from a floating-point number of seconds, rounded to the nearest nanosecond,
    /// or `nil` when the value is NaN, infinite or outside ``validRange``.
    ///
    /// `-0.0` is zero. Use it for numbers from outside (JSON, configuration, queries) when a value
    /// out of range must be refused rather than clamped.
    public init?(checkedSeconds seconds: Double) {
        guard seconds.isFinite else { return nil }
        let ns = (seconds * 1_000_000_000).rounded()
        // 2^63 is exactly representable; every Double below it converts without trapping.
        guard ns < 9_223_372_036_854_775_808.0, ns > -9_223_372_036_854_775_808.0 else { return nil }
        let value = Int64(ns)
        guard value != .min else { return nil }
        self.nanoseconds = value
    }

    /// The largest time: 9,223,372,036.854775807 s (`Int64.max` nanoseconds).
    public static let maximum = MediaTime(nanoseconds: .max)
    /// The smallest time: −9,223,372,036.854775807 s (`-Int64.max` nanoseconds).
    public static let minimum = MediaTime(nanoseconds: -.max)
    /// The times every parser and operator keeps to: ``minimum`` through ``maximum``.
    public static let validRange: ClosedRange<MediaTime> = MediaTime.minimum...MediaTime.maximum

    /// Clamps the result of an overflow-reporting operation into the valid range.
    @inlinable
    static func clamp(_ result: (partialValue: Int64, overflow: Bool), positive: Bool? = nil) -> Int64 {
        if !result.overflow { return result.partialValue == .min ? -.max : result.partialValue }
        // On overflow the wrapped value has the opposite sign of the true result.
        return (positive ?? (result.partialValue < 0)) ? .max : -.max
    }

    /// Parses a decimal number of seconds (`10`, `2.002`, `-3.5`) exactly.
    ///
    /// Digits past the ninth decimal place are rounded half-up. Returns `nil` for text that is not a
    /// (signed) decimal number (exponents, hexadecimal, `inf` and `nan` are not) or that lies outside
    /// ``validRange``; ``read(_:allowSign:)`` tells the two apart.
    public init?(_ text: some StringProtocol) {
        guard case .time(let time) = MediaTime.read(text) else { return nil }
        self = time
    }

    /// What reading decimal seconds gave.
    public enum DecimalReading: Sendable, Hashable {
        /// The exact time.
        case time(MediaTime)
        /// The text is not a decimal number: `[-+]?digits(.digits)?` (also `.5` and `5.`).
        case notANumber
        /// The text is a decimal number outside ``MediaTime/validRange``.
        case outOfRange
    }

    /// Reads decimal seconds with checked arithmetic, telling text that is not a number from a
    /// number that does not fit.
    ///
    /// ```swift
    /// MediaTime.read("2.5")           // .time(2.5 s)
    /// MediaTime.read("9223372037")    // .outOfRange
    /// MediaTime.read("1e3")           // .notANumber
    /// ```
    ///
    /// - Parameters:
    ///   - text: The number, without spaces.
    ///   - allowSign: Whether a leading `-` or `+` is allowed.
    public static func read(_ text: some StringProtocol, allowSign: Bool = true) -> DecimalReading {
        var text = String(text)
        return text.withUTF8 { buffer in
            MediaTime.readDecimal(buffer, from: 0, to: buffer.count, allowSign: allowSign)
        }
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

    /// Whether `lhs` orders before `rhs`.
    @inlinable
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The sum, saturating at ``maximum`` and ``minimum``.
    @inlinable
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: MediaTime.clamp(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)))
    }

    /// The difference, saturating at ``maximum`` and ``minimum``.
    @inlinable
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: MediaTime.clamp(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)))
    }

    /// Multiplies a time by a whole number, saturating at ``maximum`` and ``minimum``.
    @inlinable
    public static func * (lhs: MediaTime, rhs: Int) -> MediaTime {
        let product = lhs.nanoseconds.multipliedReportingOverflow(by: Int64(rhs))
        return MediaTime(nanoseconds: MediaTime.clamp(product, positive: (lhs.nanoseconds < 0) == (rhs < 0)))
    }

    /// The negated time (``minimum`` for a time below it).
    @inlinable
    public static prefix func - (value: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: value.nanoseconds == .min ? .max : -value.nanoseconds)
    }

    /// The absolute value of the time.
    @inlinable
    public var magnitude: MediaTime {
        MediaTime(
            nanoseconds: self.nanoseconds < 0 ? (self.nanoseconds == .min ? .max : -self.nanoseconds) : self.nanoseconds
        )
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

    /// Parses decimal seconds from bytes.
    ///
    /// Accepts `[-+]?digits(.digits)?` (also `.5` and `5.`);
    /// `nil` for anything else and for numbers outside ``validRange``.
    static func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>, allowSign: Bool) -> MediaTime? {
        parseDecimal(bytes, from: 0, to: bytes.count, allowSign: allowSign)
    }

    /// Like ``parseDecimal(_:allowSign:)`` for the bytes from `start` to `end`.
    static func parseDecimal(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        allowSign: Bool
    ) -> MediaTime? {
        if case .time(let time) = readDecimal(bytes, from: start, to: end, allowSign: allowSign) { return time }
        return nil
    }

    /// Reads decimal seconds with checked arithmetic: every digit is scanned (so the syntax is
    /// checked in full) and the value is refused once it leaves ``validRange``.
    static func readDecimal(
        _ bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        allowSign: Bool
    ) -> DecimalReading {
        var i = start
        guard i < end else { return .notANumber }
        var negative = false
        if allowSign, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var whole: Int64 = 0
        var overflow = false
        var digits = 0
        while i < end {
            let d = bytes[i] &- 48
            if d > 9 { break }
            if !overflow {
                let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.addingReportingOverflow(Int64(d))
                if o1 || o2 { overflow = true } else { whole = next }
            }
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
        guard i == end, digits > 0 else { return .notANumber }
        if overflow { return .outOfRange }
        var scale = Swift.min(fractionDigits, 9)
        while scale < 9 {
            fraction *= 10
            scale += 1
        }
        // whole * 10^9 + fraction (+ 1 when rounding up), every step checked.
        let (scaled, o1) = whole.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o2) = scaled.addingReportingOverflow(fraction + (roundUp ? 1 : 0))
        guard !o1, !o2 else { return .outOfRange }
        return .time(MediaTime(nanoseconds: negative ? -sum : sum))
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

extension Int64 {
    /// `self + other`, saturating at ±`Int64.max` (the range of ``MediaTime`` and ``DateTime`` sums).
    @inline(__always)
    func saturatingPlus(_ other: Int64) -> Int64 {
        MediaTime.clamp(self.addingReportingOverflow(other))
    }

    /// `self - other`, saturating at ±`Int64.max`.
    @inline(__always)
    func saturatingMinus(_ other: Int64) -> Int64 {
        MediaTime.clamp(self.subtractingReportingOverflow(other))
    }
}
