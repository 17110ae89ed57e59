import HLSPlaylist

/// Fills the macros of a VAST tracking, impression or error URL (VAST 4.x section 6), the same way
/// for the server that forwards it and the player that fires it.
///
/// Each `[NAME]`, also written `%5BNAME%5D`, is replaced by its value, percent-encoded; a macro
/// with no value here becomes `-1`, VAST 4.1's value for "not known". What the URL already
/// percent-encodes stays as it is: the URL is never encoded twice. Characters a URL cannot hold
/// (spaces, quotes, non-ASCII, brackets outside an IPv6 host, a `%` that starts no escape) are
/// encoded, so that no HTTP client encodes the whole URL again (Foundation's `URL(string:)` turns
/// every `%XX` into `%25XX` when it meets one).
///
/// ```swift
/// let macros = VASTMacros(["CACHEBUSTING": "12345678", "ERRORCODE": "405"])
/// macros.fill("https://t.example/e?c=[ERRORCODE]&r=%5BCACHEBUSTING%5D&u=a%2Fb&x=[CONTENTPLAYHEAD]")
/// // https://t.example/e?c=405&r=12345678&u=a%2Fb&x=-1
/// ```
public struct VASTMacros: Sendable, Hashable {
    /// The macros' values by name (upper case, without brackets), not yet percent-encoded.
    public var values: [String: String]

    /// What a macro without a value becomes (VAST 4.1: the value is not known).
    public static let unknown = "-1"
    /// The longest macro name read (longer bracketed text is left as text, and encoded).
    public static let maximumNameBytes = 64

    /// Macros with these values.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// `url` with every macro filled and every character a URL cannot hold encoded.
    public func fill(_ url: String) -> String {
        let bytes = Array(url.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let authority = Self.authorityRange(bytes)
        var index = 0
        while index < bytes.count {
            if !authority.contains(index), let (name, end) = Self.macro(in: bytes, at: index) {
                let value = self.values[name].map(URIReference.percentEncodedQueryValue) ?? Self.unknown
                output += Array(value.utf8)
                index = end
                continue
            }
            let byte = bytes[index]
            if authority.contains(index) ? Self.isAllowedInAuthority(byte) : Self.isAllowed(byte, in: bytes, at: index)
            {
                output.append(byte)
            } else {
                output += Self.escape(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A media time as VAST writes playheads: `HH:MM:SS.mmm` (negative times as zero).
    public static func playhead(_ time: MediaTime) -> String {
        let milliseconds = max(0, time.nanoseconds / 1_000_000)
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60
        let fraction = milliseconds % 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let three = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(two(hours)):\(two(minutes)):\(two(seconds)).\(three)"
    }

    /// The macro whose `[` (or `%5B`) is at `index`: its name and where it ends.
    private static func macro(in bytes: [UInt8], at index: Int) -> (String, Int)? {
        guard let open = Self.bracket(UInt8(ascii: "["), in: bytes, at: index) else { return nil }
        var end = index + open
        while end < bytes.count, end - index - open <= Self.maximumNameBytes, Self.isNameByte(bytes[end]) { end += 1 }
        let length = end - index - open
        guard length > 0, length <= Self.maximumNameBytes, end < bytes.count,
            let close = Self.bracket(UInt8(ascii: "]"), in: bytes, at: end)
        else { return nil }
        return (String(decoding: bytes[(index + open)..<end], as: UTF8.self), end + close)
    }

    /// The length of `bracket` at `index`, written as itself (1) or percent-encoded (3); `nil`
    /// when it is not there.
    private static func bracket(_ bracket: UInt8, in bytes: [UInt8], at index: Int) -> Int? {
        if bytes[index] == bracket { return 1 }
        return Self.isEscape(bytes, at: index, of: bracket) ? 3 : nil
    }

    /// Whether `bytes[index...]` is `%` and the two hexadecimal digits of `value` (either case).
    private static func isEscape(_ bytes: [UInt8], at index: Int, of value: UInt8) -> Bool {
        guard index + 2 < bytes.count, bytes[index] == UInt8(ascii: "%"),
            let high = ASCIIHex.value(bytes[index + 1]), let low = ASCIIHex.value(bytes[index + 2])
        else { return false }
        return high << 4 | low == value
    }

    /// The byte positions of the URL's authority (`host:port` after `scheme://`), where brackets
    /// belong to an IPv6 address.
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int> {
        var index = 0
        while index < bytes.count, Self.isSchemeByte(bytes[index]) { index += 1 }
        guard index > 0, index + 2 < bytes.count, bytes[index] == UInt8(ascii: ":"),
            bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
        else { return 0..<0 }
        let start = index + 3
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        return start..<end
    }

    private static func isAllowed(_ byte: UInt8, in bytes: [UInt8], at index: Int) -> Bool {
        if byte == UInt8(ascii: "%") {
            return index + 2 < bytes.count && ASCIIHex.value(bytes[index + 1]) != nil
                && ASCIIHex.value(bytes[index + 2]) != nil
        }
        return Self.isUnreserved(byte) || Self.subDelimitersAndPath.contains(byte)
    }

    private static func isAllowedInAuthority(_ byte: UInt8) -> Bool {
        Self.isUnreserved(byte) || Self.subDelimitersAndPath.contains(byte) || byte == UInt8(ascii: "[")
            || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "%")
    }

    /// RFC 3986's sub-delimiters and the general delimiters a path, query or fragment may hold.
    private static let subDelimitersAndPath: Set<UInt8> = Set("!$&'()*+,;=:@/?#".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        Self.isUnreserved(byte) && byte != UInt8(ascii: "_") && byte != UInt8(ascii: "~") || byte == UInt8(ascii: "+")
    }

    private static func escape(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }
}
