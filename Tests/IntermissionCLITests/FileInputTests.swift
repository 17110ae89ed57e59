import Foundation
import IntermissionTestSupport
import Testing

@testable import IntermissionCLI

#if canImport(Glibc)
import Glibc
#endif

/// `PlaylistInput.readFile(descriptor:name:)`: a regular file is read into one buffer (advised for
/// huge pages) with the head-first rules of the chunked reader; anything else goes to that reader.
@Suite(.realTime) struct FileInputTests {
    /// A scratch file holding `bytes`, opened for reading; the body gets its descriptor.
    static func withFile<R>(
        _ bytes: [UInt8],
        size: Int? = nil,
        _ body: (CInt) throws -> R
    ) throws -> R {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString).m3u8").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { unlink(path) }
        if let size { #expect(truncate(path, off_t(size)) == 0) }
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        return try body(descriptor)
    }

    /// The reason `readFile` refuses with, or nil when it reads.
    static func refusal(_ body: () throws -> [UInt8]) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as PlaylistInput.Unusable {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    @Test func readsARegularFileWhole() throws {
        // 3 MB: past 2 MiB, so the buffer is a large one.
        var text = "\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        var i = 0
        while text.utf8.count < 3_000_000 {
            text += "#EXTINF:2.000,\nsegment-\(i).ts\n"
            i += 1
        }
        let bytes = Array(text.utf8)
        let read = try Self.withFile(bytes) { try PlaylistInput.readFile(descriptor: $0, name: "big.m3u8") }
        #expect(read == bytes)
        // The smallest playlist: the header alone, no final newline.
        let tiny = try Self.withFile(Array("#EXTM3U".utf8)) { try PlaylistInput.readFile(descriptor: $0, name: "t") }
        #expect(tiny == Array("#EXTM3U".utf8))
    }

    @Test func refusesWhatIsNotAPlaylist() throws {
        let notAPlaylist = "x.m3u8: not a playlist (the first line is not #EXTM3U)"
        // A large file with a bad first line, an empty file, a header cut short, NUL bytes.
        let large = [UInt8]("<html>".utf8) + [UInt8](repeating: 0x41, count: 3 << 20)
        for bytes in [large, [], Array("#EXTM3".utf8), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], Array("#EXTM3X\n".utf8)] {
            let reason = try Self.withFile(bytes) { descriptor in
                Self.refusal { try PlaylistInput.readFile(descriptor: descriptor, name: "x.m3u8") }
            }
            #expect(reason == notAPlaylist, "\(bytes.prefix(8))")
        }
    }

    @Test func refusesAFileOverTheLimit() throws {
        // A sparse file one byte over 64 MiB with a good head.
        let reason = try Self.withFile(Array("#EXTM3U\n".utf8), size: PlaylistInput.maximumSize + 1) { descriptor in
            Self.refusal { try PlaylistInput.readFile(descriptor: descriptor, name: "huge.m3u8") }
        }
        #expect(reason == "huge.m3u8: larger than 64 MiB, the most a playlist may weigh")
        // Exactly 64 MiB is read.
        let read = try Self.withFile(Array("#EXTM3U\n".utf8), size: PlaylistInput.maximumSize) { descriptor in
            try PlaylistInput.readFile(descriptor: descriptor, name: "limit.m3u8")
        }
        #expect(read.count == PlaylistInput.maximumSize)
        #expect(read.prefix(8) == ArraySlice("#EXTM3U\n".utf8))
        #expect(read.last == 0)
    }

    @Test func readsAPipeInChunks() throws {
        var ends: [CInt] = [0, 0]
        try #require(pipe(&ends) == 0)
        let bytes = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8)
        #expect(write(ends[1], bytes, bytes.count) == bytes.count)
        close(ends[1])
        defer { close(ends[0]) }
        #expect(try PlaylistInput.readFile(descriptor: ends[0], name: "<stdin>") == bytes)
    }
}
