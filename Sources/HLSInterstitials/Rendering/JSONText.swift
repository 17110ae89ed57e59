import HLSPlaylist

/// The schedule's JSON output: unlike ``JSONValue`` (whose numbers are `Double`), numbers are kept
/// as exact decimal text, so a nanosecond-precision `MediaTime` is written exactly.
enum JSONText: Sendable {
    case null
    case bool(Bool)
    /// A number already rendered as JSON text.
    case number(String)
    case string(String)
    case array([JSONText])
    /// Keys in the order written.
    case object([(String, JSONText)])

    /// A time in seconds, exact, with at least one fraction digit (`30.0`, `2.002`).
    static func seconds(_ time: MediaTime) -> JSONText {
        var text = time.description
        if !text.contains(".") { text += ".0" }
        return .number(text)
    }

    /// A time, or `null`.
    static func seconds(_ time: MediaTime?) -> JSONText {
        time.map { JSONText.seconds($0) } ?? .null
    }

    /// A string, or `null`.
    static func string(_ text: String?) -> JSONText {
        text.map { JSONText.string($0) } ?? .null
    }

    /// An array of strings.
    static func strings(_ texts: [String]) -> JSONText {
        .array(texts.map { .string($0) })
    }

    /// The value as pretty-printed JSON (two-space indent, keys in the order given).
    func rendered() -> String {
        var out = ""
        self.write(into: &out, indent: 0)
        return out
    }

    private func write(into out: inout String, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): JSONText.escape(text, into: &out)
        case .array(let values):
            if values.isEmpty {
                out += "[]"
                return
            }
            if values.allSatisfy({ $0.isScalar }) {
                out += "["
                for (k, value) in values.enumerated() {
                    if k > 0 { out += ", " }
                    value.write(into: &out, indent: indent)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (k, value) in values.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                value.write(into: &out, indent: indent + 2)
                out += k == values.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (k, (key, value)) in members.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                JSONText.escape(key, into: &out)
                out += ": "
                value.write(into: &out, indent: indent + 2)
                out += k == members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    private static func escape(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
