import AdInsertion
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import NIOCore
import Testing

@testable import IntermissionServer

/// `Range` headers resolved against a file's size, worked out by hand from RFC 9110 §14.1.2.
@Suite(.realTime) struct ByteRangeTests {
    @Test func rangesOfAThousandByteFile() {
        let forty = String(repeating: "9", count: 40)
        let table: [(header: String, expected: MediaRange)] = [
            ("bytes=0-99", .part(0...99)),
            ("bytes=900-", .part(900...999)),
            ("bytes=-100", .part(900...999)),
            ("bytes=-1", .part(999...999)),
            ("bytes=999-999", .part(999...999)),
            ("bytes=0-0", .part(0...0)),
            ("BYTES=0-5", .part(0...5)),
            ("bytes= 0-5 ", .part(0...5)),
            ("bytes=500-100000", .part(500...999)),
            ("bytes=0-99999999999999999999", .part(0...999)),
            ("bytes=-" + forty, .part(0...999)),
            ("bytes=0-" + forty, .part(0...999)),
            // Nothing of the file: 416.
            ("bytes=-0", .unsatisfiable),
            ("bytes=1000-", .unsatisfiable),
            ("bytes=1000-2000", .unsatisfiable),
            ("bytes=99999999999999999999-", .unsatisfiable),
            ("bytes=9223372036854775807-", .unsatisfiable),
            ("bytes=9223372036854775808-9223372036854775809", .unsatisfiable),
            ("bytes=" + forty + "-", .unsatisfiable),
            // Malformed, several ranges or another unit: ignored, the whole file.
            ("bytes=5-4", .whole),
            ("bytes=0-1,5-6", .whole),
            ("bytes=0-1, 5-6", .whole),
            ("bytes=0x10-20", .whole),
            ("bytes=1e3-", .whole),
            ("bytes=+5-10", .whole),
            ("bytes=-5-", .whole),
            ("bytes=-", .whole),
            ("bytes=", .whole),
            ("bytes", .whole),
            ("items=0-5", .whole),
            ("bytes=\u{0}-5", .whole),
            ("bytes=0-5\u{0}", .whole),
            ("bytes=nan-", .whole),
            ("bytes=-inf", .whole),
            ("bytes=1.5-2", .whole),
            ("bytes=-1e308", .whole),
            ("bytes=-1e-300", .whole),
            ("bytes=٣-", .whole),
            ("", .whole),
        ]
        for row in table {
            #expect(MediaRange(row.header, size: 1000) == row.expected, "\(row.header)")
        }
    }

    @Test func edgesOfSize() {
        #expect(MediaRange("bytes=0-", size: 0) == .unsatisfiable)
        #expect(MediaRange("bytes=-5", size: 0) == .unsatisfiable)
        #expect(MediaRange("bytes=0-", size: 1) == .part(0...0))
        #expect(MediaRange("bytes=-5", size: 3) == .part(0...2))
        #expect(MediaRange("bytes=0-", size: Int64.max) == .part(0...(Int64.max - 1)))
        #expect(MediaRange("bytes=-1", size: Int64.max) == .part((Int64.max - 1)...(Int64.max - 1)))
        let huge = "bytes=" + String(repeating: "9", count: 100_000) + "-"
        #expect(MediaRange(huge, size: 1000) == .unsatisfiable)
    }
}

/// A scratch media mount: `seg.ts` (1,000 bytes), `play.m3u8`, and `big.ts` just over the size
/// bound, all modified at 2024-05-06T07:08:09Z.
private struct MediaMount {
    let folder: String
    let segment: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nseg.ts\n#EXT-X-ENDLIST\n".utf8)
    let big: [UInt8] = (0..<(1_048_576 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    /// 2024-05-06T07:08:09Z (a Monday).
    static let modified = Date(timeIntervalSince1970: 1_714_979_289)
    static let lastModified = "Mon, 06 May 2024 07:08:09 GMT"

    init() throws {
        self.folder = try makeScratchFolder()
        try self.put(self.segment, "seg.ts")
        try self.put(self.playlist, "play.m3u8")
        try self.put(self.big, "big.ts")
    }

    func put(_ bytes: [UInt8], _ name: String, modified: Date = Self.modified) throws {
        let path = self.folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
    }

    func configuration(_ clock: ManualWallClock) throws -> ServerConfiguration {
        var configuration = try demoConfiguration(clock: clock)
        configuration.mounts["t"] = self.folder
        return configuration
    }
}

@Suite(.realTime) struct MediaFileServingTests {
    /// GET, HEAD, ranges and conditional requests on a small segment and a playlist under `/media`.
    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func smallFilesAnswerEveryKindOfRequest() async throws {
        let mount = try MediaMount()
        defer { try? FileManager.default.removeItem(atPath: mount.folder) }
        try await withServer(try mount.configuration(ManualWallClock(t0))) { client in
            let files: [(path: String, bytes: [UInt8], type: String, cacheControl: String)] = [
                ("/media/t/seg.ts", mount.segment, "video/mp2t", "max-age=31536000, immutable"),
                ("/media/t/play.m3u8", mount.playlist, "application/vnd.apple.mpegurl", "max-age=300"),
            ]
            for file in files {
                let size = file.bytes.count
                let get = try await client.get(file.path)
                #expect(get.status == .ok)
                #expect(get.bytes == file.bytes)
                #expect(get.headers[.contentLength] == String(size))
                #expect(get.headers[.contentType] == file.type)
                #expect(get.headers[.cacheControl] == file.cacheControl)
                #expect(get.headers[.acceptRanges] == "bytes")
                #expect(get.headers[.lastModified] == MediaMount.lastModified)
                #expect(get.headers[.accessControlAllowOrigin] == "*")
                let etag = try #require(get.headers[.eTag])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 2, "strong: \(etag)")
                // The same bytes again: the same tag.
                #expect(try await client.get(file.path + "?x=1").headers[.eTag] == etag)

                let head = try await client.head(file.path)
                #expect(head.status == .ok && head.body.readableBytes == 0)
                for name in [HTTPField.Name.contentLength, .contentType, .cacheControl, .eTag, .lastModified] {
                    #expect(head.headers[name] == get.headers[name], "HEAD \(file.path) \(name)")
                }

                let ranges: [(header: String, first: Int, last: Int)] = [
                    ("bytes=0-9", 0, 9), ("bytes=-10", size - 10, size - 1), ("bytes=5-", 5, size - 1),
                    ("bytes=3-99999999999999999999", 3, size - 1),
                ]
                for range in ranges {
                    let part = try await client.get(file.path, headers: [.range: range.header])
                    #expect(part.status == .partialContent, "\(range.header)")
                    #expect(part.headers[.contentRange] == "bytes \(range.first)-\(range.last)/\(size)")
                    #expect(part.headers[.contentLength] == String(range.last - range.first + 1))
                    #expect(part.bytes == Array(file.bytes[range.first...range.last]), "\(range.header)")
                }
                for header in ["bytes=\(size)-", "bytes=-0", "bytes=99999999999999999999-"] {
                    let refused = try await client.get(file.path, headers: [.range: header])
                    #expect(refused.status == .rangeNotSatisfiable, "\(header)")
                    #expect(refused.headers[.contentRange] == "bytes */\(size)", "\(header)")
                    #expect(refused.headers[.cacheControl] == "no-store", "\(header)")
                    #expect(refused.json != nil, "\(header)")
                }
                // If-Range: the range only while the tag (or the exact date) still names the file.
                let kept = try await client.get(file.path, headers: [.range: "bytes=0-9", .ifRange: etag])
                #expect(kept.status == .partialContent && kept.bytes == Array(file.bytes[0...9]))
                let byDate = try await client.get(
                    file.path,
                    headers: [.range: "bytes=0-9", .ifRange: MediaMount.lastModified]
                )
                #expect(byDate.status == .partialContent)
                let changed = try await client.get(file.path, headers: [.range: "bytes=0-9", .ifRange: "\"other\""])
                #expect(changed.status == .ok && changed.bytes == file.bytes)
                // HEAD ignores Range.
                let headRange = try await client.head(file.path, headers: [.range: "bytes=0-9"])
                #expect(headRange.status == .ok && headRange.headers[.contentLength] == String(size))

                let same = try await client.get(file.path, headers: [.ifNoneMatch: etag])
                #expect(same.status == .notModified && same.body.readableBytes == 0)
                #expect(same.headers[.eTag] == etag && same.headers[.cacheControl] == file.cacheControl)
                #expect(try await client.head(file.path, headers: [.ifNoneMatch: etag]).status == .notModified)
                #expect(try await client.get(file.path, headers: [.ifNoneMatch: "W/" + etag]).status == .notModified)
                #expect(try await client.get(file.path, headers: [.ifNoneMatch: "\"x\""]).status == .ok)
                let since = try await client.get(file.path, headers: [.ifModifiedSince: MediaMount.lastModified])
                #expect(since.status == .notModified)
                let before = "Mon, 06 May 2024 07:08:08 GMT"
                #expect(try await client.get(file.path, headers: [.ifModifiedSince: before]).status == .ok)
            }
        }
    }

    /// A file that changes is served fresh once its check is due (at most a second later); a removed
    /// one is gone.
    @Test(.timeLimit(.minutes(1))) func aChangedFileIsServedFresh() async throws {
        let mount = try MediaMount()
        defer { try? FileManager.default.removeItem(atPath: mount.folder) }
        let clock = ManualWallClock(t0)
        try await withServer(try mount.configuration(clock)) { client in
            let first = try await client.get("/media/t/seg.ts")
            #expect(first.bytes == mount.segment)
            let oldTag = try #require(first.headers[.eTag])
            let replacement = Array("a new segment".utf8)
            try mount.put(replacement, "seg.ts", modified: MediaMount.modified.addingTimeInterval(60))
            // Within the second: the kept bytes.
            clock.advance(by: MediaTime(nanoseconds: 999_000_000))
            #expect(try await client.get("/media/t/seg.ts").bytes == mount.segment)
            clock.advance(by: MediaTime(nanoseconds: 1_000_000))
            let fresh = try await client.get("/media/t/seg.ts")
            #expect(fresh.bytes == replacement)
            #expect(fresh.headers[.contentLength] == String(replacement.count))
            #expect(fresh.headers[.lastModified] == "Mon, 06 May 2024 07:09:09 GMT")
            #expect(fresh.headers[.eTag] != oldTag)
            #expect(try await client.get("/media/t/seg.ts", headers: [.ifNoneMatch: oldTag]).status == .ok)
            let part = try await client.get("/media/t/seg.ts", headers: [.range: "bytes=-3"])
            #expect(part.headers[.contentRange] == "bytes 10-12/13" && part.text == "ent")

            // The same size, a new time: read again too.
            let sameSize = Array("A NEW SEGMENT".utf8)
            try mount.put(sameSize, "seg.ts", modified: MediaMount.modified.addingTimeInterval(120))
            clock.advance(by: MediaTime(seconds: 1))
            #expect(try await client.get("/media/t/seg.ts").bytes == sameSize)

            try FileManager.default.removeItem(atPath: mount.folder + "/seg.ts")
            clock.advance(by: MediaTime(seconds: 1))
            #expect(try await client.get("/media/t/seg.ts").status == .notFound)
        }
    }

    /// A file over the size bound is served whole and by range (through `FileMiddleware`, with the
    /// range resolved first), and is not kept in memory.
    @Test(.timeLimit(.minutes(1))) func aFileOverTheBoundIsStillServed() async throws {
        let mount = try MediaMount()
        defer { try? FileManager.default.removeItem(atPath: mount.folder) }
        let size = mount.big.count
        try await withServer(try mount.configuration(ManualWallClock(t0))) { client in
            let whole = try await client.get("/media/t/big.ts")
            #expect(whole.status == .ok && whole.bytes == mount.big)
            #expect(whole.headers[.contentLength] == String(size))
            #expect(whole.headers[.contentType] == "video/mp2t")
            #expect(whole.headers[.cacheControl] == "max-age=31536000, immutable")
            let tail = try await client.get("/media/t/big.ts", headers: [.range: "bytes=-5"])
            #expect(tail.status == .partialContent)
            #expect(tail.headers[.contentRange] == "bytes \(size - 5)-\(size - 1)/\(size)")
            #expect(tail.bytes == Array(mount.big[(size - 5)...]))
            let refused = try await client.get("/media/t/big.ts", headers: [.range: "bytes=\(size)-"])
            #expect(refused.status == .rangeNotSatisfiable && refused.headers[.contentRange] == "bytes */\(size)")
            let ignored = try await client.get("/media/t/big.ts", headers: [.range: "bytes=0-1,5-6"])
            #expect(ignored.status == .ok && ignored.body.readableBytes == size)
            let head = try await client.head("/media/t/big.ts")
            #expect(head.status == .ok && head.headers[.contentLength] == String(size))
        }
        let cache = MediaFileCache(mounts: ["t": mount.folder], clock: ManualWallClock(t0))
        let big = try #require(await cache.load("/media/t/big.ts"))
        #expect(big.body == nil && big.size == Int64(size))
        let small = try #require(await cache.load("/media/t/seg.ts"))
        #expect(small.body.map { Array($0.readableBytesView) } == mount.segment)
        #expect(cache.usage.count == 2 && cache.usage.bytes == 1000)
        // Another spelling of the same file is served but not kept.
        let spelled = try #require(await cache.load("/media/t/s%65g.ts"))
        #expect(spelled.body.map { Array($0.readableBytesView) } == mount.segment)
        #expect(cache.usage.count == 2)
        // Paths the media route refuses never get in.
        for key in [
            "/media/t/../t/seg.ts", "/media/t/%2e%2e/seg.ts", "/media/t/seg.ts/", "/media/u/seg.ts", "/media/t",
        ] {
            #expect(await cache.load(key[...]) == nil, "\(key)")
        }
    }

    /// Hostile `Range` headers, sent as raw bytes, on a small and a large file: never a 5xx.
    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func hostileRangesNeverFail() async throws {
        let mount = try MediaMount()
        defer { try? FileManager.default.removeItem(atPath: mount.folder) }
        try await withServer(try mount.configuration(ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            let headers = [
                "bytes=-0", "bytes=99999999999999999999-", "bytes=0-1,2-3,4-5", "bytes=\u{0}0-5", "bytes=0-5\u{0}",
                "bytes=-" + String(repeating: "9", count: 40), "bytes=-9223372036854775808", "bytes=1e308-",
                "bytes=nan-inf", "bytes=0x0-0xff", "bytes=-1e-300", "bytes=5-4",
                "bytes=" + String(repeating: "1", count: 6000),
                "bytes=0-0,-1", "bytes=%2e%2e-",
            ]
            for path in ["/media/t/seg.ts", "/media/t/big.ts"] {
                for header in headers {
                    let response = try await rawExchange(
                        port: port,
                        "GET \(path) HTTP/1.1\r\nHost: x\r\nRange: \(header)\r\nConnection: close\r\n\r\n"
                    )
                    #expect(response.status >= 200 && response.status < 500, "\(path) \(header): \(response.status)")
                }
            }
        }
    }
}
