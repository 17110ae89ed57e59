/// The error ``JSONValue/parse(_:options:)-([UInt8],_)`` throws for text that is not JSON.
public struct JSONParsingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is.
    ///
    /// Compare codes, not message text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case unexpectedEnd, unexpectedCharacter, invalidNumber, numberOutOfRange, invalidEscape
            case controlCharacterInString, invalidUTF8, unpairedSurrogate, tooDeep, trailingCharacters
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The input ends inside a value (or is empty).
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// A character that cannot start or continue a value here.
        public static let unexpectedCharacter = Code(.unexpectedCharacter)
        /// A number that does not follow the RFC 8259 grammar (leading zeros, `+`, `.5`, `1.`, …).
        public static let invalidNumber = Code(.invalidNumber)
        /// A number too large for a `Double`.
        public static let numberOutOfRange = Code(.numberOutOfRange)
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        public static let invalidEscape = Code(.invalidEscape)
        /// An unescaped control character (U+0000–U+001F) inside a string.
        public static let controlCharacterInString = Code(.controlCharacterInString)
        /// Bytes that are not UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A `\uD800`–`\uDFFF` escape that is not half of a surrogate pair.
        public static let unpairedSurrogate = Code(.unpairedSurrogate)
        /// Arrays and objects nested deeper than the limit.
        public static let tooDeep = Code(.tooDeep)
        /// Something other than whitespace after the value.
        public static let trailingCharacters = Code(.trailingCharacters)

        /// The code's name.
        public var description: String { self.base.rawValue }
    }

    /// What kind of error.
    public var code: Code
    /// What is wrong, in one sentence.
    public var message: String
    /// The 0-based byte offset of the problem in the input.
    public var byteOffset: Int

    /// Creates an error.
    public init(code: Code, message: String, byteOffset: Int) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
    }

    /// `byte N: message`.
    public var description: String { "byte \(self.byteOffset): \(self.message)" }
}

/// How ``JSONValue/parse(_:options:)-([UInt8],_)`` reads JSON.
public struct JSONParsingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted (default 128).
    public var maximumDepth: Int

    /// Creates options.
    public init(maximumDepth: Int = 128) {
        self.maximumDepth = maximumDepth
    }
}

extension JSONValue {
    /// Parses one JSON value from UTF-8 bytes, strictly by RFC 8259.
    ///
    /// Whitespace is space, tab, CR and LF only; numbers follow the RFC grammar exactly; strings
    /// must be valid UTF-8 with no raw control characters and only the RFC's escapes; a UTF-8 byte
    /// order mark at the start is not accepted. Duplicate object keys are kept in order. Any input
    /// gives a value or an error, never a crash, in time linear in its length.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - options: The depth limit.
    /// - Returns: The value.
    /// - Throws: ``JSONParsingError`` with the byte offset of the first problem.
    public static func parse(
        _ bytes: [UInt8],
        options: JSONParsingOptions = JSONParsingOptions()
    ) throws
        -> JSONValue
    {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maximumDepth: options.maximumDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON value from text (see ``parse(_:options:)-([UInt8],_)``).
    ///
    /// - Throws: ``JSONParsingError``.
    public static func parse(
        _ text: String,
        options: JSONParsingOptions = JSONParsingOptions()
    ) throws
        -> JSONValue
    {
        try parse(Array(text.utf8), options: options)
    }
}

/// A recursive-descent RFC 8259 parser over bytes.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(JSONParsingError) -> JSONValue {
        self.skipWhitespace()
        let value = try self.parseValue(depth: 0)
        self.skipWhitespace()
        if self.i < self.bytes.count {
            throw self.error(.trailingCharacters, "unexpected \(self.describe(self.i)) after the JSON value")
        }
        return value
    }

    func error(_ code: JSONParsingError.Code, _ message: String, at offset: Int? = nil) -> JSONParsingError {
        JSONParsingError(code: code, message: message, byteOffset: offset ?? self.i)
    }

    func describe(_ offset: Int) -> String {
        guard offset < self.bytes.count else { return "end of input" }
        let c = self.bytes[offset]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        let hex: [Character] = Array("0123456789ABCDEF")
        return "byte 0x\(hex[Int(c >> 4)])\(hex[Int(c & 0xF)])"
    }

    mutating func skipWhitespace() {
        while self.i < self.bytes.count {
            switch self.bytes[self.i] {
            case 0x20, 0x09, 0x0A, 0x0D: self.i += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParsingError) -> JSONValue {
        guard self.i < self.bytes.count else {
            throw self.error(.unexpectedEnd, "expected a value but the input ended")
        }
        switch self.bytes[self.i] {
        case UInt8(ascii: "{"): return try self.parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try self.parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try self.parseString())
        case UInt8(ascii: "t"): try self.expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try self.expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try self.expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try self.parseNumber())
        default:
            throw self.error(.unexpectedCharacter, "expected a value but found \(self.describe(self.i))")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParsingError) {
        let start = self.i
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        for k in 0..<count {
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended inside '\(literal)'")
            }
            guard self.bytes[self.i] == text[k] else {
                throw self.error(.unexpectedCharacter, "expected '\(literal)' at byte \(start)")
            }
            self.i += 1
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParsingError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw self.error(.tooDeep, "arrays and objects are nested deeper than \(self.maximumDepth) levels")
        }
        self.i += 1  // [
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.i < self.bytes.count, self.bytes[self.i] == UInt8(ascii: "]") {
            self.i += 1
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue(depth: depth))
            self.skipWhitespace()
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended inside an array; expected ',' or ']'")
            }
            switch self.bytes[self.i] {
            case UInt8(ascii: ","):
                self.i += 1
            case UInt8(ascii: "]"):
                self.i += 1
                return .array(elements)
            default:
                throw self.error(
                    .unexpectedCharacter,
                    "expected ',' or ']' in an array but found \(self.describe(self.i))"
                )
            }
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParsingError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw self.error(.tooDeep, "arrays and objects are nested deeper than \(self.maximumDepth) levels")
        }
        self.i += 1  // {
        var members: [(String, JSONValue)] = []
        self.skipWhitespace()
        if self.i < self.bytes.count, self.bytes[self.i] == UInt8(ascii: "}") {
            self.i += 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended inside an object; expected a key")
            }
            guard self.bytes[self.i] == UInt8(ascii: "\"") else {
                throw self.error(.unexpectedCharacter, "expected a quoted key but found \(self.describe(self.i))")
            }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended after the key \"\(key)\"; expected ':'")
            }
            guard self.bytes[self.i] == UInt8(ascii: ":") else {
                throw self.error(
                    .unexpectedCharacter,
                    "expected ':' after the key \"\(key)\" but found \(self.describe(self.i))"
                )
            }
            self.i += 1
            self.skipWhitespace()
            members.append((key, try self.parseValue(depth: depth)))
            self.skipWhitespace()
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended inside an object; expected ',' or '}'")
            }
            switch self.bytes[self.i] {
            case UInt8(ascii: ","):
                self.i += 1
            case UInt8(ascii: "}"):
                self.i += 1
                return .object(members)
            default:
                throw self.error(
                    .unexpectedCharacter,
                    "expected ',' or '}' in an object but found \(self.describe(self.i))"
                )
            }
        }
    }

    mutating func parseNumber() throws(JSONParsingError) -> JSONNumber {
        let start = self.i
        let b = self.bytes
        func isDigit(_ k: Int) -> Bool { k < b.count && b[k] >= 48 && b[k] <= 57 }
        if b[self.i] == UInt8(ascii: "-") { self.i += 1 }
        guard isDigit(self.i) else {
            throw self.error(.invalidNumber, "a number needs a digit after '-'")
        }
        if b[self.i] == UInt8(ascii: "0") {
            self.i += 1
            if isDigit(self.i) {
                throw self.error(.invalidNumber, "numbers must not have leading zeros", at: start)
            }
        } else {
            while isDigit(self.i) { self.i += 1 }
        }
        if self.i < b.count, b[self.i] == UInt8(ascii: ".") {
            self.i += 1
            guard isDigit(self.i) else {
                throw self.error(.invalidNumber, "a number needs a digit after '.'")
            }
            while isDigit(self.i) { self.i += 1 }
        }
        if self.i < b.count, b[self.i] | 0x20 == UInt8(ascii: "e") {
            self.i += 1
            if self.i < b.count, b[self.i] == UInt8(ascii: "+") || b[self.i] == UInt8(ascii: "-") { self.i += 1 }
            guard isDigit(self.i) else {
                throw self.error(.invalidNumber, "a number needs a digit in its exponent")
            }
            while isDigit(self.i) { self.i += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<self.i]), as: UTF8.self)
        guard let value = Double(text) else {
            throw self.error(.invalidNumber, "'\(text)' is not a number", at: start)
        }
        guard value.isFinite else {
            throw self.error(.numberOutOfRange, "'\(text)' is too large for a double", at: start)
        }
        return JSONNumber(validatedText: text)
    }

    mutating func parseHex4() throws(JSONParsingError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard self.i < self.bytes.count else {
                throw self.error(.unexpectedEnd, "the input ended inside a \\u escape")
            }
            let c = self.bytes[self.i]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - 55)
            default: throw self.error(.invalidEscape, "a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | digit
            self.i += 1
        }
        return value
    }

    mutating func parseString() throws(JSONParsingError) -> String {
        let b = self.bytes
        self.i += 1  // opening quote
        var out: [UInt8] = []
        var runStart = self.i
        while true {
            guard self.i < b.count else {
                throw self.error(.unexpectedEnd, "the input ended inside a string")
            }
            let c = b[self.i]
            switch c {
            case UInt8(ascii: "\""):
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<self.i]))
                self.i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<self.i]))
                let escapeStart = self.i
                self.i += 1
                guard self.i < b.count else {
                    throw self.error(.unexpectedEnd, "the input ended inside an escape")
                }
                let e = b[self.i]
                self.i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(34)
                case UInt8(ascii: "\\"): out.append(92)
                case UInt8(ascii: "/"): out.append(47)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    var scalar = try self.parseHex4()
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        guard self.i + 1 < b.count, b[self.i] == UInt8(ascii: "\\"), b[self.i + 1] == UInt8(ascii: "u")
                        else {
                            throw self.error(
                                .unpairedSurrogate,
                                "a high surrogate escape must be followed by a low surrogate escape",
                                at: escapeStart
                            )
                        }
                        self.i += 2
                        let low = try self.parseHex4()
                        guard low >= 0xDC00 && low <= 0xDFFF else {
                            throw self.error(
                                .unpairedSurrogate,
                                "a high surrogate escape must be followed by a low surrogate escape",
                                at: escapeStart
                            )
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                        throw self.error(
                            .unpairedSurrogate,
                            "a low surrogate escape without a high surrogate before it",
                            at: escapeStart
                        )
                    }
                    // Always a valid scalar here: surrogates were handled above.
                    let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw self.error(
                        .invalidEscape,
                        "'\\\(Character(Unicode.Scalar(e)))' is not a JSON escape",
                        at: escapeStart
                    )
                }
                runStart = self.i
            case 0x00..<0x20:
                throw self.error(.controlCharacterInString, "control characters must be escaped inside strings")
            case 0x00..<0x80:
                self.i += 1
            default:
                let length = Self.utf8SequenceLength(b, at: self.i)
                guard length > 0 else {
                    throw self.error(.invalidUTF8, "the string is not valid UTF-8")
                }
                self.i += length
            }
        }
    }

    /// The length of the valid UTF-8 sequence starting with a non-ASCII byte at `k`, or 0 (RFC 3629).
    static func utf8SequenceLength(_ b: UnsafeBufferPointer<UInt8>, at k: Int) -> Int {
        let c0 = b[k]
        func cont(_ j: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            j < b.count && b[j] >= low && b[j] <= high
        }
        switch c0 {
        case 0xC2...0xDF:
            return cont(k + 1) ? 2 : 0
        case 0xE0:
            return cont(k + 1, 0xA0, 0xBF) && cont(k + 2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return cont(k + 1) && cont(k + 2) ? 3 : 0
        case 0xED:
            return cont(k + 1, 0x80, 0x9F) && cont(k + 2) ? 3 : 0
        case 0xF0:
            return cont(k + 1, 0x90, 0xBF) && cont(k + 2) && cont(k + 3) ? 4 : 0
        case 0xF1...0xF3:
            return cont(k + 1) && cont(k + 2) && cont(k + 3) ? 4 : 0
        case 0xF4:
            return cont(k + 1, 0x80, 0x8F) && cont(k + 2) && cont(k + 3) ? 4 : 0
        default:
            return 0
        }
    }
}
