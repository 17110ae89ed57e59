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

/// One `NAME=VALUE` pair of an attribute list.
public struct Attribute: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name as written (`X-ASSET-URI`).
    public var name: String
    /// The value as written.
    public var value: AttributeValue

    /// Creates an attribute.
    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }

    /// `NAME=VALUE`.
    public var description: String { self.name + "=" + self.value.rawValue }
}

/// An ordered attribute list (§4.2) that keeps every attribute's order and spelling.
///
/// Reading a value by name finds the first attribute with that name. Setting a value replaces it in
/// place, so the list renders with the original order; a new name is appended at the end.
///
/// ```swift
/// var list = try AttributeList(parsing: #"ID="ad1",CLASS="com.apple.hls.interstitial""#)
/// list["X-RESUME-OFFSET"] = .decimal(0)
/// list.description  // ID="ad1",CLASS="com.apple.hls.interstitial",X-RESUME-OFFSET=0
/// ```
public struct AttributeList: Sendable, Hashable, RandomAccessCollection, MutableCollection, CustomStringConvertible,
    ExpressibleByArrayLiteral
{
    /// The attributes in their written order.
    public var attributes: [Attribute]

    /// Creates a list from attributes.
    public init(_ attributes: [Attribute] = []) {
        self.attributes = attributes
    }

    /// Creates a list from attributes.
    public init(arrayLiteral elements: Attribute...) {
        self.attributes = elements
    }

    /// Parses an attribute list.
    ///
    /// - Throws: ``PlaylistParsingError`` with code ``PlaylistParsingError/Code/malformedAttributeList``
    ///   or ``PlaylistParsingError/Code/duplicateAttribute``, located at the offending byte (line 1).
    public init(parsing text: String) throws {
        var text = text
        let result = text.withUTF8 { b in
            AttributeSyntax.parse(b, from: 0, to: b.count)
        }
        switch result {
        case .success(let list): self = list
        case .failure(let error):
            let problem = error.problem
            throw PlaylistParsingError(
                code: problem.code,
                message: problem.message,
                location: SourceLocation(line: 1, column: problem.offset + 1),
                hint: problem.hint
            )
        }
    }

    /// The first position.
    public var startIndex: Int { self.attributes.startIndex }
    /// The position after the last.
    public var endIndex: Int { self.attributes.endIndex }

    /// The element at a position.
    public subscript(position: Int) -> Attribute {
        get { self.attributes[position] }
        set { self.attributes[position] = newValue }
    }

    /// The value of the first attribute named `name`; setting `nil` removes every attribute of that name.
    public subscript(name: String) -> AttributeValue? {
        get {
            for attribute in self.attributes where attribute.name == name {
                return attribute.value
            }
            return nil
        }
        set {
            if let newValue {
                if let index = self.attributes.firstIndex(where: { $0.name == name }) {
                    self.attributes[index].value = newValue
                } else {
                    self.attributes.append(Attribute(name: name, value: newValue))
                }
            } else {
                self.attributes.removeAll { $0.name == name }
            }
        }
    }

    /// Whether an attribute with this name is present.
    public func contains(_ name: String) -> Bool {
        self.attributes.contains { $0.name == name }
    }

    /// Appends an attribute at the end, even if the name is present (use with care: duplicates are invalid).
    public mutating func append(_ attribute: Attribute) {
        self.attributes.append(attribute)
    }

    /// Appends `NAME=VALUE` at the end.
    public mutating func append(_ name: String, _ value: AttributeValue) {
        self.attributes.append(Attribute(name: name, value: value))
    }

    /// The names of the attributes in order.
    public var names: [String] { self.attributes.map(\.name) }

    /// `NAME=VALUE,NAME=VALUE`, as written.
    public var description: String {
        var out = ""
        for (i, attribute) in self.attributes.enumerated() {
            if i > 0 { out += "," }
            out += attribute.name
            out += "="
            out += attribute.value.rawValue
        }
        return out
    }
}

/// A problem found while scanning an attribute list.
struct AttributeProblem: Sendable {
    var code: PlaylistParsingError.Code
    var message: String
    var hint: String
    /// Byte offset from the start of the scanned range.
    var offset: Int
}

/// Attribute-list scanning shared by the validator (no allocation) and the parser.
enum AttributeSyntax {
        static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            || c == UInt8(ascii: "-")
    }

    /// Walks the list and reports each attribute's name and value ranges, or the first problem.
    ///
    /// Tolerated (reported as warnings by the caller through `lenient`): lower-case names, a space
    /// after a comma, and a trailing comma.
    static func scan(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        visit: (_ nameStart: Int, _ nameEnd: Int, _ valueStart: Int, _ valueEnd: Int) -> Void
    ) -> AttributeProblem? {
        var i = start
        // Skip trailing whitespace at the very end (tolerated, warned by the caller).
        var end = end
        while end > start, b[end - 1] == UInt8(ascii: " ") || b[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        if i == end {
            return AttributeProblem(
                code: .malformedAttributeList,
                message: "the attribute list is empty",
                hint: "write at least one NAME=VALUE pair after the colon",
                offset: 0
            )
        }
        while i < end {
            while i < end, b[i] == UInt8(ascii: " ") { i += 1 }
            let nameStart = i
            while i < end, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ",") {
                let c = b[i]
                let lower = c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")
                if !isNameByte(c) && !lower {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "unexpected character '\(Character(Unicode.Scalar(c)))' in an attribute name",
                        hint: "attribute names use only A-Z, 0-9 and '-'; quote values that contain other characters",
                        offset: i - start
                    )
                }
                i += 1
            }
            let nameEnd = i
            if nameEnd == nameStart {
                return AttributeProblem(
                    code: .malformedAttributeList,
                    message: "an attribute has no name",
                    hint: "write NAME=VALUE pairs separated by single commas",
                    offset: i - start
                )
            }
            guard i < end, b[i] == UInt8(ascii: "=") else {
                return AttributeProblem(
                    code: .malformedAttributeList,
                    message: "attribute '\(String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self))' has no '=VALUE'",
                    hint: "write the attribute as NAME=VALUE",
                    offset: i - start
                )
            }
            i += 1
            let valueStart = i
            if i < end, b[i] == UInt8(ascii: "\"") {
                i += 1
                while i < end, b[i] != UInt8(ascii: "\"") { i += 1 }
                guard i < end else {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "the quoted string that starts here is not closed",
                        hint: "add the closing '\"'; quoted strings cannot span lines or contain '\"'",
                        offset: valueStart - start
                    )
                }
                i += 1
                if i < end, b[i] != UInt8(ascii: ",") {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "unexpected text after a quoted string",
                        hint: "separate attributes with ','",
                        offset: i - start
                    )
                }
            } else {
                while i < end, b[i] != UInt8(ascii: ",") {
                    if b[i] == UInt8(ascii: "\"") {
                        return AttributeProblem(
                            code: .malformedAttributeList,
                            message: "a quote inside an unquoted value",
                            hint: "quote the whole value: NAME=\"…\"",
                            offset: i - start
                        )
                    }
                    i += 1
                }
                if i == valueStart {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "attribute '\(String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self))' has an empty value",
                        hint: "give the attribute a value, or remove it",
                        offset: i - start
                    )
                }
            }
            visit(nameStart, nameEnd, valueStart, i)
            if i < end {
                i += 1  // the comma
                if i == end {
                    return nil  // trailing comma: tolerated
                }
            }
        }
        return nil
    }

    /// Checks the list and finds duplicate names without allocating for lists of up to 32 attributes.
    static func validate(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int
    ) -> AttributeProblem? {
        var problem: AttributeProblem? = nil
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: 32) { names in
            var count = 0
            let syntax = scan(b, from: start, to: end) { nameStart, nameEnd, _, _ in
                guard problem == nil else { return }
                let length = nameEnd - nameStart
                for k in 0..<min(count, 32) {
                    let (s, e) = names[k]
                    if e - s == length {
                        var same = true
                        for j in 0..<length where b[s + j] != b[nameStart + j] {
                            same = false
                            break
                        }
                        if same {
                            let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self)
                            problem = AttributeProblem(
                                code: .duplicateAttribute,
                                message: "attribute \(name) appears more than once",
                                hint: "keep one \(name) attribute; a name must not repeat in one tag",
                                offset: nameStart - start
                            )
                            return
                        }
                    }
                }
                if count < 32 { names[count] = (nameStart, nameEnd) }
                count += 1
            }
            if let syntax { problem = syntax }
        }
        return problem
    }

    /// Parses into an ``AttributeList``.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Result<AttributeList, AttributeProblemError> {
        if let problem = validate(b, from: start, to: end) {
            return .failure(AttributeProblemError(problem: problem))
        }
        var list: [Attribute] = []
        _ = scan(b, from: start, to: end) { ns, ne, vs, ve in
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[ns..<ne]), as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(rebasing: b[vs..<ve]), as: UTF8.self)
            list.append(Attribute(name: name, value: AttributeValue(rawValue: value)))
        }
        return .success(AttributeList(list))
    }
}

/// Wraps an ``AttributeProblem`` so it can travel in a `Result`.
struct AttributeProblemError: Error {
    var problem: AttributeProblem
}
