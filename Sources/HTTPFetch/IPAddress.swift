/// An IPv4 or IPv6 address as its bytes (4 or 16), read from any spelling a resolver accepts.
///
/// IPv4 is read the way `inet_aton` reads it, so the odd spellings that reach the same address are
/// recognised: `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1` all are `127.0.0.1`.
///
/// ```swift
/// IPAddress("0x7f.0.0.1")?.description        // "127.0.0.1"
/// IPAddress("::ffff:10.0.0.1")?.refusal       // "an IPv4-mapped private address"
/// ```
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An address of 4 or 16 bytes; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Reads an IPv4 address in any `inet_aton` spelling, or an IPv6 address (brackets allowed, no
    /// zone); `nil` when `text` is neither (a host name).
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let bytes = Self.ipv4(text) ?? Self.ipv6(text) {
            self.bytes = bytes
        } else {
            return nil
        }
    }

    /// Whether the address is IPv4.
    public var isIPv4: Bool { self.bytes.count == 4 }

    /// The IPv4 address an IPv6 address stands for (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
    /// `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`), or `nil`.
    public var embeddedIPv4: IPAddress? {
        guard self.bytes.count == 16 else { return nil }
        let b = self.bytes
        let zeros = b[0..<10].allSatisfy { $0 == 0 }
        if zeros && b[10] == 0xFF && b[11] == 0xFF { return IPAddress(bytes: Array(b[12..<16])) }
        if zeros && b[10] == 0 && b[11] == 0 && !b[12..<15].allSatisfy({ $0 == 0 }) {
            return IPAddress(bytes: Array(b[12..<16]))
        }
        if b[0..<4] == [0x00, 0x64, 0xFF, 0x9B] && b[4..<12].allSatisfy({ $0 == 0 }) {
            return IPAddress(bytes: Array(b[12..<16]))
        }
        if b[0] == 0x20 && b[1] == 0x02 { return IPAddress(bytes: Array(b[2..<6])) }
        return nil
    }

    /// Why a request must not go to this address by default, as a noun phrase (`a loopback
    /// address`), or `nil` for a public address.
    ///
    /// Refused: loopback (`127/8`, `::1`), unspecified (`0/8`, `::`), link-local (`169.254/16`,
    /// the cloud metadata address among them, `fe80::/10`), private (`10/8`, `172.16/12`,
    /// `192.168/16`, `fc00::/7`, `fec0::/10`), shared CGNAT (`100.64/10`), multicast (`224/4`,
    /// `ff00::/8`), reserved (`240/4`, broadcast, `192.0.0/24`, `198.18/15`), and every IPv6 form
    /// that embeds one of these IPv4 addresses.
    public var refusal: String? {
        let b = self.bytes
        if b.count == 4 {
            switch (b[0], b[1]) {
            case (0, _): return "an unspecified address"
            case (127, _): return "a loopback address"
            case (169, 254): return "a link-local address"
            case (10, _), (172, 16...31), (192, 168): return "a private address"
            case (100, 64...127): return "a shared (CGNAT) address"
            case (224...239, _): return "a multicast address"
            case (240...255, _), (198, 18...19): return "a reserved address"
            case (192, 0) where b[2] == 0: return "a reserved address"
            default: return nil
            }
        }
        if b.allSatisfy({ $0 == 0 }) { return "an unspecified address" }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "a loopback address" }
        if let inner = self.embeddedIPv4, let refusal = inner.refusal {
            return "an IPv4-" + (b[10] == 0xFF ? "mapped " : "embedding ")
                + refusal.split(separator: " ").dropFirst()
                .joined(separator: " ")
        }
        switch (b[0], b[1] & 0xC0) {
        case (0xFE, 0x80): return "a link-local address"
        case (0xFE, 0xC0): return "a private address"
        case (0xFC...0xFD, _): return "a private address"
        case (0xFF, _): return "a multicast address"
        default: return nil
        }
    }

    /// `127.0.0.1`, or eight groups of hexadecimal digits for IPv6 (`0:0:0:0:0:0:0:1`).
    public var description: String {
        if self.isIPv4 { return self.bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map {
            String(UInt16(self.bytes[$0]) << 8 | UInt16(self.bytes[$0 + 1]), radix: 16)
        }
        .joined(separator: ":")
    }

    /// The address as a URL host: IPv6 in brackets.
    public var urlHost: String { self.isIPv4 ? self.description : "[" + self.description + "]" }

    /// `inet_aton`: one to four parts, each decimal, octal (a leading `0`) or hexadecimal (`0x`);
    /// the last part fills the bytes the others leave.
    static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt32] = []
        for part in parts {
            guard let value = Self.number(part) else { return nil }
            values.append(value)
        }
        let lastBits = 32 - 8 * (values.count - 1)
        var result: UInt32 = 0
        for (k, value) in values.enumerated() {
            if k == values.count - 1 {
                guard lastBits == 32 || value < (1 << lastBits) else { return nil }
                result |= value
            } else {
                guard value < 256 else { return nil }
                result |= value << (24 - 8 * k)
            }
        }
        return [UInt8(result >> 24), UInt8((result >> 16) & 0xFF), UInt8((result >> 8) & 0xFF), UInt8(result & 0xFF)]
    }

    /// One `inet_aton` part: `0x1F`, `017`, `15`; `nil` past 32 bits or with another character.
    static func number(_ part: Substring) -> UInt32? {
        var digits = part
        var radix: UInt32 = 10
        if digits.lowercased().hasPrefix("0x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1 && digits.hasPrefix("0") {
            radix = 8
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 32 else { return nil }
        var value: UInt64 = 0
        for character in digits {
            guard let digit = character.hexDigitValue, UInt32(digit) < radix else { return nil }
            value = value * UInt64(radix) + UInt64(digit)
            guard value <= UInt64(UInt32.max) else { return nil }
        }
        return UInt32(value)
    }

    /// An IPv6 address: groups of one to four hexadecimal digits, at most one `::`, optionally
    /// ending in dotted IPv4; no zone.
    static func ipv6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (k, piece) in pieces.enumerated() {
                if k == pieces.count - 1, piece.contains(".") {
                    guard let v4 = Self.dottedQuad(piece) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        let gaps = text.ranges(of: "::")
        switch gaps.count {
        case 0:
            guard let bytes = groups(text), bytes.count == 16 else { return nil }
            return bytes
        case 1:
            guard let head = groups(text[..<gaps[0].lowerBound]), let tail = groups(text[gaps[0].upperBound...]),
                head.count + tail.count <= 14
            else { return nil }
            return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
        default:
            return nil
        }
    }

    /// Strict `a.b.c.d` in decimal (inside IPv6 text).
    static func dottedQuad(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}

/// An address block such as `10.1.0.0/16` or `fd00::/8`.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block.
    public let address: IPAddress
    /// The prefix length: 0 to 32 for IPv4, 0 to 128 for IPv6.
    public let prefixLength: Int

    /// Reads `address/prefix`, or a single address (the whole prefix); `nil` when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), let length = Int(parts[1]), (0...bits).contains(length) else {
                return nil
            }
            self.prefixLength = length
        } else {
            self.prefixLength = bits
        }
        self.address = address
    }

    /// Whether `address` lies in the block (an IPv4-mapped IPv6 address counts as its IPv4 one).
    public func contains(_ address: IPAddress) -> Bool {
        var candidate = address
        if !candidate.isIPv4, self.address.isIPv4, let inner = candidate.embeddedIPv4, candidate.bytes[10] == 0xFF {
            candidate = inner
        }
        guard candidate.bytes.count == self.address.bytes.count else { return false }
        var left = self.prefixLength
        for (a, b) in zip(candidate.bytes, self.address.bytes) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            guard a & mask == b & mask else { return false }
            left -= 8
        }
        return true
    }

    /// `10.1.0.0/16`.
    public var description: String { "\(self.address)/\(self.prefixLength)" }
}
