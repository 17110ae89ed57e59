/// How ``JSONValue/serialized(options:)`` writes JSON.
public struct JSONWritingOptions: Sendable, Hashable {
    /// Spaces per indentation level; `nil` (the default) writes compact JSON on one line.
    ///
    /// With an indent, every array element and object member goes on its own line, members are
    /// written `"key": value`, and empty arrays and objects stay `[]` and `{}`.
    public var indent: Int?
    /// Writes whole numbers with a fractional part (`15.0` rather than `15`).
    ///
    /// Off by default.
    public var forcesFractionalPart: Bool
    /// Escapes `/` as `\/` (useful when the JSON is embedded in HTML).
    ///
    /// Off by default.
    public var escapesSlashes: Bool
    /// With an ``indent``, writes an array whose elements are all scalars (not arrays or objects)
    /// on one line, `[1, 2]`, as `intermission schedule --json` does.
    ///
    /// Off by default.
    public var keepsScalarArraysOnOneLine: Bool

    /// Creates options; the defaults write compact JSON with whole numbers as integers.
    public init(
        indent: Int? = nil,
        forcesFractionalPart: Bool = false,
        escapesSlashes: Bool = false,
        keepsScalarArraysOnOneLine: Bool = false
    ) {
        self.indent = indent
        self.forcesFractionalPart = forcesFractionalPart
        self.escapesSlashes = escapesSlashes
        self.keepsScalarArraysOnOneLine = keepsScalarArraysOnOneLine
    }

    /// Compact JSON, whole numbers without a fraction.
    public static let compact = JSONWritingOptions()
    /// Two-space indentation.
    public static let pretty = JSONWritingOptions(indent: 2)
}

extension JSONValue {
    /// The value as UTF-8 JSON text.
    ///
    /// Object members are written in their order. Strings escape `"`, `\` and control characters
    /// (`\n`, `\t`, … or `\u00XX`); other characters are written as UTF-8. Numbers use the shortest
    /// form that reads back as the same `Double` (see ``JSONWritingOptions/forcesFractionalPart``);
    /// infinities and NaN are written as `null`.
    ///
    /// - Parameter options: Layout and number style; compact by default.
    /// - Returns: The JSON bytes, without a trailing newline.
    public func serialized(options: JSONWritingOptions = .compact) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter(options: options).write(self, into: &out, level: 0)
        return out
    }

    /// The value as JSON text (see ``serialized(options:)``).
    public func text(options: JSONWritingOptions = .compact) -> String {
        String(decoding: self.serialized(options: options), as: UTF8.self)
    }

    /// The JSON spelling of a number in the shortest form that reads back as the same `Double`.
    ///
    /// `15` → `"15"` (or `"15.0"` when `forcingFraction`), `0.1` → `"0.1"`, `1e-7` → `"1e-07"`,
    /// `1e300` → `"1e+300"`; infinities and NaN → `"null"`.
    public static func numberText(_ value: Double, forcingFraction: Bool = false) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded(.towardZero) == value, value.magnitude < 9_007_199_254_740_992 {
            let whole = Int64(value)
            var text = (value == 0 && value.sign == .minus) ? "-0" : String(whole)
            if forcingFraction { text += ".0" }
            return text
        }
        // Swift's description is the shortest round-trip form: "0.1", "1e-07", "1e+300", "12345.678".
        return value.description
    }
}

/// Writes ``JSONValue``s as bytes.
struct JSONWriter {
    let options: JSONWritingOptions

    func write(_ value: JSONValue, into out: inout [UInt8], level: Int) {
        switch value {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            out.append(contentsOf: n.text.utf8)
            if self.options.forcesFractionalPart,
                !n.text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
            {
                out.append(contentsOf: ".0".utf8)
            }
        case .string(let s):
            self.writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            if self.options.indent != nil, self.options.keepsScalarArraysOnOneLine, !elements.isEmpty,
                elements.allSatisfy({ $0.arrayValue == nil && $0.objectValue == nil })
            {
                for (i, element) in elements.enumerated() {
                    if i > 0 { out.append(contentsOf: ", ".utf8) }
                    self.write(element, into: &out, level: level + 1)
                }
            } else if !elements.isEmpty {
                for (i, element) in elements.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    self.newline(into: &out, level: level + 1)
                    self.write(element, into: &out, level: level + 1)
                }
                self.newline(into: &out, level: level)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            if !members.isEmpty {
                for (i, (key, member)) in members.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    self.newline(into: &out, level: level + 1)
                    self.writeString(key, into: &out)
                    out.append(UInt8(ascii: ":"))
                    if self.options.indent != nil { out.append(UInt8(ascii: " ")) }
                    self.write(member, into: &out, level: level + 1)
                }
                self.newline(into: &out, level: level)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    func newline(into out: inout [UInt8], level: Int) {
        guard let indent = self.options.indent else { return }
        out.append(10)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, indent) * level))
    }

    func writeString(_ s: String, into out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case UInt8(ascii: "/") where self.options.escapesSlashes: out.append(contentsOf: [92, 47])
            case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
