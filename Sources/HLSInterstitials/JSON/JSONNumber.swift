import HLSPlaylist

/// A JSON number kept exactly: its decimal text in the grammar of RFC 8259.
///
/// A number read by the parser keeps the text it was written with (`2.002`, `1E2`, a 40-digit
/// integer), so nothing is lost to binary floating point; one made in code is written in its
/// shortest exact form. Read it as the type you need: ``mediaTime`` (exact to the nanosecond),
/// ``intValue`` (exact or `nil`) or ``doubleValue`` (the nearest `Double`).
///
/// Two numbers are equal when they have the same value, whatever their spelling
/// (`1`, `1.0`, `10e-1`; `-0` equals `0`).
///
/// ```swift
/// let duration = JSONNumber("30.000000001")!
/// duration.mediaTime          // 30.000000001 s, exactly
/// duration.doubleValue        // 30.000000001 (nearest Double)
/// JSONNumber(MediaTime(milliseconds: 2002)).text   // "2.002"
/// ```
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as JSON text (`-`, digits, an optional fraction and exponent).
    public let text: String

    /// Reads a number in RFC 8259's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`);
    /// `nil` for anything else (`+1`, `.5`, `01`, `1.`, `0x1F`, `NaN`, `inf`, spaces).
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        guard JSONNumber.isValid(Array(text.utf8)) else { return nil }
        self.text = text
    }

    /// Wraps text the JSON parser has already checked against the grammar.
    init(validatedText text: String) {
        self.text = text
    }

    /// An integer.
    public init(_ value: Int) {
        self.text = String(value)
    }

    /// An integer.
    public init(_ value: Int64) {
        self.text = String(value)
    }

    /// The shortest text that reads back as the same `Double` (`15`, `0.1`, `1e-07`); `nil` for
    /// infinities and NaN, which JSON cannot spell.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.text = JSONValue.numberText(value)
    }

    /// Seconds, exactly: the shortest decimal of the media time (`2.002`, `30`, `-0.5`).
    public init(_ time: MediaTime) {
        self.text = time.description
    }

    /// The text.
    public var description: String { self.text }

    /// The nearest `Double` (infinite only for text beyond the `Double` range, which the parser refuses).
    public var doubleValue: Double {
        Double(self.text) ?? .nan
    }

    /// The value as an `Int`, when it is a whole number that fits (`3`, `3.0`, `3e2`); `nil` otherwise.
    public var intValue: Int? {
        let parts = self.parts
        if parts.digits.isEmpty { return 0 }
        guard parts.exponent >= 0, parts.digits.count + parts.exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for d in parts.digits {
            magnitude = magnitude * 10 + UInt64(d - 48)
        }
        for _ in 0..<parts.exponent {
            let (next, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = next
        }
        if parts.negative {
            return magnitude <= UInt64(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int.max) ? Int(magnitude) : nil
    }

    /// Whether the value is below zero (`-0` is not).
    public var isNegative: Bool {
        let parts = self.parts
        return parts.negative && !parts.digits.isEmpty
    }

    /// The value as seconds of media time, rounded half-up to the nanosecond.
    ///
    /// Like `MediaTime.read`, it is
    /// `MediaTime.DecimalReading.outOfRange` beyond `MediaTime.validRange`.
    /// Exponents are applied exactly (`1.5e1` is 15 s).
    public var mediaTimeReading: MediaTime.DecimalReading {
        let parts = self.parts
        if parts.digits.isEmpty { return .time(.zero) }
        // More than 11 digits before the point is beyond 9.2e9 s.
        let integerDigits = parts.digits.count + parts.exponent
        if integerDigits > 11 { return .outOfRange }
        // Below 1e-10 s rounds to zero.
        if integerDigits < -10 { return .time(.zero) }
        var plain = parts.negative ? "-" : ""
        if parts.exponent >= 0 {
            plain += String(decoding: parts.digits, as: UTF8.self) + String(repeating: "0", count: parts.exponent)
        } else if integerDigits > 0 {
            plain += String(decoding: parts.digits.prefix(integerDigits), as: UTF8.self) + "."
            plain += String(decoding: parts.digits.dropFirst(integerDigits), as: UTF8.self)
        } else {
            plain +=
                "0." + String(repeating: "0", count: -integerDigits) + String(decoding: parts.digits, as: UTF8.self)
        }
        return MediaTime.read(plain)
    }

    /// The value as seconds of media time (see ``mediaTimeReading``); `nil` when out of range.
    public var mediaTime: MediaTime? {
        if case .time(let time) = self.mediaTimeReading { return time }
        return nil
    }

    /// The value as sign, significant digits and a power of ten: value = ±digits × 10^exponent.
    ///
    /// The digits are ASCII, without leading or trailing zeros (empty for zero). Exponents in the
    /// text are saturated at ±10^9, far beyond any `Double`.
    var parts: (negative: Bool, digits: [UInt8], exponent: Int) {
        let bytes = Array(self.text.utf8)
        var i = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var digits: [UInt8] = []
        var exponent = 0
        func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 48 && bytes[k] <= 57 }
        while isDigit(i) {
            if !(digits.isEmpty && bytes[i] == 48) { digits.append(bytes[i]) }
            i += 1
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while isDigit(i) {
                if !(digits.isEmpty && bytes[i] == 48) { digits.append(bytes[i]) }
                exponent -= 1
                i += 1
            }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var sign = 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
            }
            var written = 0
            while isDigit(i) {
                written = Swift.min(written * 10 + Int(bytes[i] - 48), 1_000_000_000)
                i += 1
            }
            exponent += sign * written
        }
        while let last = digits.last, last == 48 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { exponent = 0 }
        return (negative, digits, exponent)
    }

    /// Numbers are equal when their values are.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        let (a, b) = (lhs.parts, rhs.parts)
        if a.digits.isEmpty || b.digits.isEmpty { return a.digits.isEmpty && b.digits.isEmpty }
        return a == b
    }

    /// Hashes the value (so `1` and `1.0` hash alike).
    public func hash(into hasher: inout Hasher) {
        let parts = self.parts
        hasher.combine(parts.digits.isEmpty ? false : parts.negative)
        hasher.combine(parts.digits)
        hasher.combine(parts.exponent)
    }

    /// Whether `bytes` is a number in RFC 8259's grammar.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var i = 0
        func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 48 && bytes[k] <= 57 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return false }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return i == bytes.count
    }
}
