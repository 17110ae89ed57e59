/// Text made safe for HTML.
enum HTMLText {
    /// `text` escaped for HTML element content and for attribute values in double or single quotes:
    /// `&`, `<`, `>`, `"` and `'` become character references, and control characters other than
    /// tab and line feed (NUL included) become U+FFFD, so nothing from outside can open a tag, end
    /// an attribute or start a script.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
