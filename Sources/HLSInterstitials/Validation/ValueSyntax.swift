import HLSPlaylist

// MARK: - Syntax helpers

/// Attribute value syntax (§4.2), without Foundation.
enum Syntax {
    /// A decimal-floating-point (`signed: false`) or signed-decimal-floating-point number: digits
    /// with at most one `.`, and for signed values an optional leading `-`.
    static func decimal(_ text: String, signed: Bool) -> MediaTime? {
        var bytes = Substring(text).utf8[...]
        if signed, bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var digits = 0
        var dots = 0
        for c in bytes {
            if c >= 48 && c <= 57 {
                digits += 1
            } else if c == UInt8(ascii: ".") {
                dots += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        return MediaTime(text)
    }

    /// A quoted-string without `"` inside, a hexadecimal-sequence, or a signed decimal number.
    static func isClientAttributeValue(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        if bytes.first == UInt8(ascii: "\"") {
            return bytes.count >= 2 && bytes.last == UInt8(ascii: "\"")
                && !bytes.dropFirst().dropLast().contains(UInt8(ascii: "\""))
        }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0"),
            bytes[1] == UInt8(ascii: "x") || bytes[1] == UInt8(ascii: "X")
        {
            return bytes[2...].allSatisfy { c in
                (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
            }
        }
        return decimal(raw, signed: true) != nil
    }
}
