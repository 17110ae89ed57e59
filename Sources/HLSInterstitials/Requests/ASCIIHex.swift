/// Hexadecimal digits as bytes: percent-encoding, `SCTE35-OUT` attributes and tracking URLs read
/// them the same way.
enum ASCIIHex {
    /// The value of a hexadecimal digit (either case), or `nil`.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
