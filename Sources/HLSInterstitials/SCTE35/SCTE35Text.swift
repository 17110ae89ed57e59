/// The text forms packagers write `splice_info_section` in.
///
/// Hexadecimal (`0xFC30...`, in `EXT-X-DATERANGE`) and Base64 (`/DA...`, in `EXT-OATCLS-SCTE35` and
/// `EXT-X-SCTE35`), read with the standard library alone; text longer than a section can be is
/// refused before it is decoded.
enum SCTE35Text {
    /// The longest text accepted: Base64 of ``SpliceInfoSection/maximumBytes`` bytes, with room
    /// for a prefix and padding.
    static let maximumCharacters = SpliceInfoSection.maximumBytes * 2 + 2

    /// The bytes of hexadecimal text, with or without a `0x`/`0X` prefix.
    static func hexadecimal(_ text: some StringProtocol) throws(SCTE35DecodingError) -> [UInt8] {
        var utf8 = Array(text.utf8)
        try Self.checkLength(utf8.count)
        if utf8.count >= 2, utf8[0] == UInt8(ascii: "0"), utf8[1] | 0x20 == UInt8(ascii: "x") {
            utf8.removeFirst(2)
        }
        guard utf8.count % 2 == 0 else {
            throw SCTE35DecodingError(
                code: .invalidText,
                message: "hexadecimal text of odd length",
                byteOffset: utf8.count
            )
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = ASCIIHex.value(utf8[index]), let low = ASCIIHex.value(utf8[index + 1]) else {
                throw SCTE35DecodingError(
                    code: .invalidText,
                    message: "not a hexadecimal digit",
                    byteOffset: ASCIIHex.value(utf8[index]) == nil ? index : index + 1
                )
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The bytes of Base64 text (the standard alphabet; `=` padding optional; no spaces).
    static func base64(_ text: some StringProtocol) throws(SCTE35DecodingError) -> [UInt8] {
        var utf8 = Array(text.utf8)
        try Self.checkLength(utf8.count)
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        guard utf8.count % 4 != 1, Array(text.utf8).count - utf8.count <= 2 else {
            throw SCTE35DecodingError(
                code: .invalidText,
                message: "Base64 text of an impossible length",
                byteOffset: utf8.count
            )
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for (index, character) in utf8.enumerated() {
            guard let value = Self.base64Digit(character) else {
                throw SCTE35DecodingError(code: .invalidText, message: "not a Base64 character", byteOffset: index)
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return bytes
    }

    private static func checkLength(_ count: Int) throws(SCTE35DecodingError) {
        guard count <= Self.maximumCharacters else {
            throw SCTE35DecodingError(
                code: .tooLarge,
                message: "\(count) characters: longer than any splice_info_section's text",
                byteOffset: Self.maximumCharacters
            )
        }
    }

    private static func base64Digit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
