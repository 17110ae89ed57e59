import Testing

@testable import HLSPlaylist

#if canImport(Glibc)
import Glibc
#endif

/// The parser's large arrays are advised for huge pages: the advised range, the bytes kept, and
/// (on Linux with transparent huge pages) the kernel's own record of the advice on the parser's
/// line records, segment records and a file buffer.
@Suite struct LargeBufferTests {
    static let mebibyte = 1 << 20

    /// The advised range is the whole 2 MiB pages inside the buffer, computed on fake addresses.
    @Test func hugePageRange() throws {
        let page = UInt(2 << 20)
        func range(_ start: UInt, _ count: Int) -> Range<UInt>? {
            LargeBuffer.hugePageRange(
                of: UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: start), count: count)
            )
        }
        // Aligned start, 4 MiB: both pages.
        #expect(range(page * 10, 4 << 20) == (page * 10)..<(page * 12))
        // 48 bytes in, 4 MiB: only the page after the first boundary is whole.
        #expect(range(page * 10 + 48, 4 << 20) == (page * 11)..<(page * 12))
        // 48 bytes in, 4 MiB - 48: ends exactly on a boundary.
        #expect(range(page * 10 + 48, (4 << 20) - 48) == (page * 11)..<(page * 12))
        // Not one whole page inside.
        #expect(range(page * 10 + 1, (2 << 20)) == nil)
        #expect(range(page * 10 + 4096, (3 << 20) - 8192) == nil)
        // Under 2 MiB, empty, or running past the end of the address space.
        #expect(range(page * 10, (2 << 20) - 1) == nil)
        #expect(range(page * 10, 0) == nil)
        #expect(range(UInt.max - page, 4 << 20) == nil)
    }

    /// `bytes(count:initializingWith:)` keeps exactly what the body wrote.
    @Test func bytesKeepWhatWasWritten() throws {
        let empty = LargeBuffer.bytes(count: 0) { buffer in
            #expect(buffer.count == 0)
            return 0
        }
        #expect(empty.isEmpty)
        let count = 5 * Self.mebibyte + 7
        let bytes = LargeBuffer.bytes(count: count) { buffer in
            #expect(buffer.count == count)
            for i in 0..<(count - 3) { buffer[i] = UInt8(truncatingIfNeeded: i * 7) }
            return count - 3
        }
        #expect(bytes.count == count - 3)
        #expect(bytes[0] == 0 && bytes[1] == 7 && bytes[37] == 3)  // 259 mod 256
        #expect(bytes.last == UInt8(truncatingIfNeeded: (count - 4) * 7))
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try LargeBuffer.bytes(count: 3 * Self.mebibyte) { _ in throw Refused() }
        }
    }

    /// `emptyArray(reservingCapacity:)` is empty and grows to the capacity without moving.
    @Test func emptyArrayReserves() {
        var none: [Int64] = LargeBuffer.emptyArray(reservingCapacity: 0)
        #expect(none.isEmpty)
        none.append(1)
        #expect(none == [1])
        var large: [Int64] = LargeBuffer.emptyArray(reservingCapacity: 400_000)  // 3.2 MB
        #expect(large.isEmpty && large.capacity >= 400_000)
        let base = large.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for i in 0..<400_000 { large.append(Int64(i)) }
        #expect(large.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == base)
        #expect(large[399_999] == 399_999)
    }

    #if os(Linux)
    /// The `VmFlags` of the mapping holding `address`, from /proc/self/smaps, or nil.
    static func mappingFlags(_ address: UInt) -> [Substring]? {
        guard let file = fopen("/proc/self/smaps", "r") else { return nil }
        defer { fclose(file) }
        var inside = false
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, CInt(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A mapping's first line: "start-end perms ...", addresses in hex.
            let fields = text.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= address && address < ends[1]
            } else if inside, text.hasPrefix("VmFlags:") {
                return text.dropFirst("VmFlags:".count).split(whereSeparator: { $0 == " " || $0 == "\n" })
            }
        }
        return nil
    }

    /// Whether the kernel offers transparent huge pages to madvise (the advice is kept then).
    static var kernelHasHugePages: Bool {
        access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0
    }

    /// A playlist of about 9 MB: 120,000 segments, so both record arrays pass 2 MiB.
    static let bigPlaylist: [UInt8] = {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for i in 0..<120_000 {
            text += "#EXTINF:2.000,\nhttps://cdn.example.com/1080p/segment-\(i).ts\n"
        }
        text += "#EXT-X-ENDLIST\n"
        return Array(text.utf8)
    }()

    /// Parsing a large playlist puts its line records and segment records in mappings advised
    /// for huge pages (`hg`), and the file buffer from `bytes(count:)` too.
    @Test(.enabled(if: LargeBufferTests.kernelHasHugePages))
    func parserArraysAreAdvised() throws {
        let input = Self.bigPlaylist
        let bytes = LargeBuffer.bytes(count: input.count) { buffer in
            _ = buffer.initialize(from: input)
            return input.count
        }
        let playlist = try MediaPlaylist(bytes: bytes)
        #expect(playlist.segments.count == 120_000)
        let lines = playlist.store.records
        let segments = playlist.index.segments
        #expect(lines.count == 4 + 240_000 + 1)
        // An address well inside each array (the first 2 MiB may share a page with the heap).
        func middle<T>(_ array: [T]) -> UInt {
            array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + $0.count / 2) }
        }
        #expect(Self.mappingFlags(middle(lines))?.contains("hg") == true)
        #expect(Self.mappingFlags(middle(segments))?.contains("hg") == true)
        #expect(Self.mappingFlags(middle(bytes))?.contains("hg") == true)
    }
    #endif
}
