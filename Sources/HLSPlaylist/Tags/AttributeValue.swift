/// The value of one attribute in an attribute list, kept exactly as written (§4.2).
///
/// `rawValue` holds the text after `=`, quotes included for a quoted-string. The typed accessors
/// read it as each attribute type of the spec; they return `nil` when the text is not of that type.
///
/// ```swift
/// let value = AttributeValue(rawValue: "\"SKIP,JUMP\"")
/// value.quotedString   // "SKIP,JUMP"
/// value.stringList     // ["SKIP", "JUMP"]
/// ```
public struct AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// The value as written, quotes included.
    public var rawValue: String

    /// Creates a value from its spelling in the playlist.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A quoted-string value.
    ///
    /// The text must not contain `"`, CR or LF.
    public static func quoted(_ text: String) -> AttributeValue {
        AttributeValue(rawValue: "\"" + text + "\"")
    }

    /// A decimal-integer value.
    public static func integer(_ value: Int) -> AttributeValue {
        AttributeValue(rawValue: String(value))
    }

    /// A decimal-floating-point or signed-decimal-floating-point value, written in its shortest exact form.
    public static func decimal(_ value: MediaTime) -> AttributeValue {
        AttributeValue(rawValue: value.description)
    }

    /// An enumerated-string value (unquoted), such as `YES` or `AES-128`.
    public static func enumerated(_ value: String) -> AttributeValue {
        AttributeValue(rawValue: value)
    }

    /// An enumerated-string-list value: the members quoted and comma-separated.
    public static func stringList(_ members: [String]) -> AttributeValue {
        .quoted(members.joined(separator: ","))
    }

    /// A hexadecimal-sequence value (`0x…`, upper-case digits).
    public static func hexadecimal(_ bytes: [UInt8]) -> AttributeValue {
        let digits: [Character] = Array("0123456789ABCDEF")
        var text = "0x"
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return AttributeValue(rawValue: text)
    }

    /// A decimal-resolution value (`1920x1080`).
    public static func resolution(_ value: Resolution) -> AttributeValue {
        AttributeValue(rawValue: "\(value.width)x\(value.height)")
    }

    /// The syntactic form of a value.
    public struct Form: Sendable, Hashable, CustomStringConvertible {
        private enum Base: UInt8 { case quotedString, hexadecimal, number, resolution, enumerated }
        private let base: Base

        /// `"…"`.
        public static let quotedString = Form(base: .quotedString)
        /// `0x…`.
        public static let hexadecimal = Form(base: .hexadecimal)
        /// A decimal integer or (signed) decimal floating-point number.
        public static let number = Form(base: .number)
        /// `<width>x<height>`.
        public static let resolution = Form(base: .resolution)
        /// Any other unquoted text: an enumerated-string.
        public static let enumerated = Form(base: .enumerated)

        /// The form's name.
        public var description: String {
            switch self.base {
            case .quotedString: "quoted-string"
            case .hexadecimal: "hexadecimal-sequence"
            case .number: "decimal number"
            case .resolution: "decimal-resolution"
            case .enumerated: "enumerated-string"
            }
        }
    }

    /// The syntactic form of the raw value.
    public var form: Form {
        let bytes = Array(self.rawValue.utf8)
        if bytes.first == UInt8(ascii: "\"") { return .quotedString }  // cheap: the raw value is short
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") { return .hexadecimal }
        if self.signedDecimal != nil { return .number }
        if self.resolution != nil { return .resolution }
        return .enumerated
    }

    /// The content of a quoted-string, without the quotes; `nil` if the value is not quoted.
    public var quotedString: String? {
        let utf8 = self.rawValue.utf8
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "\""), utf8.last == UInt8(ascii: "\"") else { return nil }
        return String(Substring(utf8.dropFirst().dropLast()))
    }

    /// The text of the value: the content of a quoted-string, or the raw text otherwise.
    public var text: String {
        self.quotedString ?? self.rawValue
    }

    /// A decimal-integer in `0...`\ ``PlaylistParser/maximumInteger`` (the spec allows up to
    /// 2^64−1; larger values are `nil`, and the parser reports them as `HLS-NUMBER-RANGE`).
    public var integer: Int? {
        var raw = self.rawValue
        let value = raw.withUTF8 { LineParser.parseUnsigned($0, 0, $0.count) }
        return value.map { Int($0) }
    }

    /// A decimal-floating-point number (never negative), exactly.
    public var decimal: MediaTime? {
        guard let value = self.signedDecimal, !self.rawValue.hasPrefix("-"), !self.rawValue.hasPrefix("+") else {
            return nil
        }
        return value
    }

    /// A signed-decimal-floating-point number, exactly.
    public var signedDecimal: MediaTime? {
        MediaTime(self.rawValue)
    }

    /// A decimal number as a `Double` (for attributes such as `FRAME-RATE` or `SCORE`).
    public var double: Double? {
        guard self.signedDecimal != nil else { return nil }
        return Double(self.rawValue)
    }

    /// An enumerated-string: the unquoted raw text; `nil` for a quoted value.
    public var enumerated: String? {
        self.rawValue.hasPrefix("\"") || self.rawValue.isEmpty ? nil : self.rawValue
    }

    /// The members of a quoted enumerated-string-list (`"SKIP,JUMP"` → `["SKIP", "JUMP"]`).
    public var stringList: [String]? {
        guard let text = self.quotedString else { return nil }
        if text.isEmpty { return [] }
        return text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { member in
            var member = member
            while member.first == UInt8(ascii: " ") { member = member.dropFirst() }
            while member.last == UInt8(ascii: " ") { member = member.dropLast() }
            return String(Substring(member))
        }
    }

    /// The bytes of a hexadecimal-sequence (`0x1A2B` → `[0x1A, 0x2B]`).
    public var hexadecimal: [UInt8]? {
        let bytes = Array(self.rawValue.utf8)
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") else { return nil }
        var digits = bytes[2...].map { c -> UInt8? in
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - 55
            default: nil
            }
        }
        if digits.contains(where: { $0 == nil }) { return nil }
        if digits.count % 2 == 1 { digits.insert(0, at: 0) }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            result.append(digits[i]! << 4 | digits[i + 1]!)
            i += 2
        }
        return result
    }

    /// A decimal-resolution (`1920x1080`): two decimal-integers, each at most
    /// ``PlaylistParser/maximumInteger``.
    public var resolution: Resolution? {
        let parts = self.rawValue.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = AttributeValue(rawValue: String(parts[0])).integer,
            let h = AttributeValue(rawValue: String(parts[1])).integer
        else { return nil }
        return Resolution(width: w, height: h)
    }

    /// A `YES`/`NO` enumerated-string as a Boolean.
    public var yesNo: Bool? {
        switch self.rawValue {
        case "YES": true
        case "NO": false
        default: nil
        }
    }

    /// The raw value.
    public var description: String { self.rawValue }
}

/// A video resolution, `DECIMAL-RESOLUTION` in the spec.
public struct Resolution: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a resolution.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `<width>x<height>`.
    public var description: String { "\(self.width)x\(self.height)" }
}
