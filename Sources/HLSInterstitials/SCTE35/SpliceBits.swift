/// Reads big-endian bit fields off a byte array, as SCTE 35 lays them out, throwing
/// ``SCTE35DecodingError/Code/truncated`` past the end of its window.
struct SpliceBits {
    /// The section's bytes.
    let bytes: [UInt8]
    /// The next bit to read, counted from the start of `bytes`.
    private(set) var bit: Int
    /// Where this reader's window ends (a byte index into `bytes`).
    let end: Int
    /// What the window holds, for error messages (`splice_insert`, `segmentation_descriptor`).
    let context: String

    /// A reader of `bytes[start..<end]`.
    init(_ bytes: [UInt8], start: Int = 0, end: Int? = nil, context: String) {
        self.bytes = bytes
        self.bit = start * 8
        self.end = min(end ?? bytes.count, bytes.count)
        self.context = context
    }

    /// The byte index of the next bit (rounded down).
    var byteOffset: Int { self.bit / 8 }

    /// Bytes left in the window from the next byte boundary.
    var remainingBytes: Int { max(0, self.end - (self.bit + 7) / 8) }

    /// The next `count` bits (at most 64) as an unsigned number.
    mutating func bits(_ count: Int, _ field: String) throws(SCTE35DecodingError) -> UInt64 {
        guard count > 0 else { return 0 }
        guard self.bit + count <= self.end * 8 else {
            throw SCTE35DecodingError(
                code: .truncated,
                message: "\(self.context): the bytes end before \(field)",
                byteOffset: min(self.byteOffset, self.end)
            )
        }
        var value: UInt64 = 0
        var left = count
        while left > 0 {
            let byte = UInt64(self.bytes[self.bit / 8])
            let used = self.bit % 8
            let take = min(8 - used, left)
            let shifted = (byte >> UInt64(8 - used - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | shifted
            self.bit += take
            left -= take
        }
        return value
    }

    /// The next bit as a flag.
    mutating func flag(_ field: String) throws(SCTE35DecodingError) -> Bool {
        try self.bits(1, field) == 1
    }

    /// The next byte.
    mutating func byte(_ field: String) throws(SCTE35DecodingError) -> UInt8 {
        UInt8(try self.bits(8, field))
    }

    /// Skips `count` reserved bits.
    mutating func skip(_ count: Int) throws(SCTE35DecodingError) {
        _ = try self.bits(count, "reserved bits")
    }

    /// The next `count` whole bytes (the reader must be on a byte boundary).
    mutating func bytes(_ count: Int, _ field: String) throws(SCTE35DecodingError) -> [UInt8] {
        let start = self.byteOffset
        guard count >= 0, self.bit % 8 == 0, start + count <= self.end else {
            throw SCTE35DecodingError(
                code: .truncated,
                message: "\(self.context): \(field) needs \(count) bytes, \(max(0, self.end - start)) are left",
                byteOffset: min(start, self.end)
            )
        }
        self.bit += count * 8
        return Array(self.bytes[start..<start + count])
    }
}

/// The CRC-32 of MPEG-2 sections (polynomial `0x04C11DB7`, initial value `0xFFFFFFFF`, no
/// reflection, no final XOR), which `splice_info_section` ends with.
enum MPEGCRC32 {
    /// The table of the polynomial, one entry per byte value.
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    /// The CRC of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc << 8) ^ Self.table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }
}
