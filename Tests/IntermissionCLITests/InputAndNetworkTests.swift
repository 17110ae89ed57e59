import Foundation
import IntermissionTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Input is read head first, and network failures are said in words, with `--timeout`.
@Suite(.timeLimit(.minutes(2)), .realTime)
struct InputAndNetworkTests {
    /// Runs the CLI with a standard input that stays open until the process exits (a pipe whose
    /// writer never closes), after writing `head`; kills it after `limit` seconds.
    static func runWithOpenInput(
        _ arguments: [String],
        head: [UInt8],
        limit: Double = 20
    ) async throws -> CLI.Output {
        let result = try await runProcess(
            CLI.productsDirectory.appendingPathComponent("intermission"),
            arguments,
            currentDirectory: CLI.repository,
            stdin: head,
            keepStdinOpen: true,
            timeout: .milliseconds(Int(limit * 1000))
        )
        return CLI.Output(
            status: result.status,
            stdout: result.stdout,
            stderr: String(decoding: result.stderr, as: UTF8.self)
        )
    }

    @Test(arguments: ["validate", "format", "schedule", "insert"])
    func openPipeWithABadFirstLineIsAnsweredAtOnce(_ command: String) async throws {
        var arguments = [command, "-"]
        if command == "insert" {
            arguments += ["--id", "a", "--start", "1", "--asset-uri", "https://a.example/a.m3u8"]
        }
        let result = try await Self.runWithOpenInput(arguments, head: Array("<html>\n<body>".utf8))
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(
            result.stderr == "intermission: <stdin>: not a playlist (the first line is not #EXTM3U)\n",
            "\(command)"
        )
    }

    @Test func namedPipeWithABadFirstLineIsAnsweredAtOnce() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // The writer opens the pipe, writes one bad line and keeps it open until the CLI is done.
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            let line = Array("not a playlist\n".utf8)
            _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            _ = done.wait(timeout: .now() + 60)
            close(fd)
        }
        writer.start()
        let result = try await CLI.run(["validate", path])
        done.signal()
        #expect(result.status == 2)
        #expect(result.stderr == "intermission: \(path): not a playlist (the first line is not #EXTM3U)\n")
    }

    @Test func hugeFileWithABadFirstLineIsRefusedFromItsHead() async throws {
        // 100 MB of not-a-playlist, made sparse (holes read as zero bytes) so the test writes little.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).m3u8")
        _ = FileManager.default.createFile(atPath: url.path, contents: Data("#EXTM3X\n".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(truncate(url.path, 100_000_000) == 0)
        let result = try await CLI.run(["validate", url.path])
        #expect(result.status == 2)
        #expect(result.stderr == "intermission: \(url.path): not a playlist (the first line is not #EXTM3U)\n")
        // A BOM before #EXTM3U is fine; a lone BOM or an empty file is not a playlist.
        for (bytes, ok) in [
            ([0xEF, 0xBB, 0xBF] + Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n".utf8), true),
            ([0xEF, 0xBB, 0xBF], false), ([], false), (Array("#EXTM3".utf8), false),
        ] as [([UInt8], Bool)] {
            let result = try await CLI.run(["format", "-"], stdin: bytes)
            #expect((result.status == 0) == ok, "\(bytes)")
        }
    }

    @Test func refusedConnectionIsSaidInWords() async throws {
        for command in ["validate", "format", "schedule"] {
            let result = try await CLI.run([command, "http://127.0.0.1:1/main.m3u8", "--timeout", "5"])
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr == "intermission: cannot connect to 127.0.0.1:1: connection refused\n", "\(command)")
        }
        let play = try await CLI.run(["play", "http://127.0.0.1:1/main.m3u8", "--json", "--timeout", "5"])
        #expect(play.status == 2)
        #expect(
            play.stderr.hasSuffix("intermission: cannot connect to 127.0.0.1:1: connection refused\n"),
            "\(play.stderr)"
        )
    }

    /// A loopback listener that completes the TCP handshake but never answers.
    static func silentListener() throws -> (descriptor: CInt, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        #expect(bound == 0)
        #expect(listen(fd, 16) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func silentServerTimesOutWithTheGivenTimeout() async throws {
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let url = "http://127.0.0.1:\(port)/main.m3u8"
        let started = Date()
        let result = try await CLI.run(["validate", url, "--timeout", "1"])
        #expect(result.status == 2)
        #expect(result.stderr == "intermission: no answer from \(url) within 1 s\n")
        // Not before the 1 s asked for, and before the default's 30 s: so --timeout took effect.
        // (The process's own start-up counts here too; a loaded machine has taken 26 s in all.)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 1 && elapsed < 30, "\(elapsed) s")
        let play = try await CLI.run(["play", url, "--json", "--timeout", "1.5"])
        #expect(play.status == 2)
        #expect(play.stderr.hasSuffix("intermission: no answer from \(url) within 1.5 s\n"), "\(play.stderr)")
    }

    @Test(arguments: [
        "0", "-1", "-0", "nan", "inf", "1e308", "1e3", "0x10", "3600.001", "1234567890123456789012345678901234567890",
        " 5",
    ])
    func timeoutOutsideItsRangeIsRefused(_ value: String) async throws {
        // `--timeout=VALUE`, so that "-1" is not taken for an option.
        let result = try await CLI.run(["format", "Examples/vod-interstitials.m3u8", "--timeout=\(value)"])
        #expect(result.status != 0, "\(value)")
        #expect(result.stderr.contains("--timeout takes seconds from 0.001 to 3600"), "\(value): \(result.stderr)")
    }

    @Test(arguments: [
        "-1", "-0", "nan", "inf", "1e308", "1e3", "0x10", "1000000000.001", "1234567890123456789012345678901234567890",
        " 5",
    ])
    func skipTimeOutsideItsRangeIsRefused(_ value: String) async throws {
        let result = try await CLI.run(["play", "http://127.0.0.1:1/main.m3u8", "--skip=\(value)"])
        #expect(result.status != 0, "\(value)")
        #expect(result.stderr.contains("--skip takes clock seconds from 0 to 1e9"), "\(value): \(result.stderr)")
    }

    @Test func timeoutInsideItsRangeIsAccepted() async throws {
        for value in ["0.001", "30", "3600", "2.5"] {
            let result = try await CLI.run(["format", "Examples/vod-interstitials.m3u8", "--timeout", value])
            #expect(result.status == 0, "\(value): \(result.stderr)")
        }
    }

    @Test func scheduleReportsUnusableEventsOnStandardError() async throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="bad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:05.000Z",CUE="PRE,POST",DURATION=5,X-ASSET-URI="https://a.example/a.m3u8"
            #EXTINF:10,
            a.ts
            #EXT-X-ENDLIST

            """
        let result = try await CLI.run(["schedule", "-", "--json"], stdin: Array(text.utf8))
        #expect(result.status == 0)
        #expect(result.stderr.contains("<stdin>:5:"))
        #expect(result.stderr.contains("error[INT-CUE-PRE-POST]"))
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("\"unusable\""))
    }

    @Test func insertRefusesNumbersOutOfRange() async throws {
        let playlist = Array(
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n".utf8
        )
        let base = ["insert", "-", "--id", "a", "--asset-uri", "https://a.example/a.m3u8"]
        let cases: [([String], String)] = [
            (["--start=9223372037"], "--start takes seconds"),
            (["--start=1e3"], "--start takes seconds"),
            (["--start", "1", "--duration=-5"], "--duration takes decimal seconds of at least 0"),
            (["--start", "1", "--duration=1e308"], "--duration takes decimal seconds"),
            (["--start", "1", "--playout-limit=0"], "--playout-limit takes decimal seconds above 0"),
            (["--start", "1", "--resume-offset=-9223372036.9"], "--resume-offset takes decimal seconds"),
            (["--start", "1", "--resume-offset=nan"], "--resume-offset takes decimal seconds"),
        ]
        for (extra, message) in cases {
            let result = try await CLI.run(base + extra, stdin: playlist)
            #expect(result.status != 0, "\(extra)")
            #expect(result.stderr.contains(message), "\(extra): \(result.stderr)")
        }
        let fine = try await CLI.run(
            base + ["--start", "1", "--duration=0", "--resume-offset=-9223372036", "--playout-limit=0.5"],
            stdin: playlist
        )
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(String(decoding: fine.stdout, as: UTF8.self).contains("X-RESUME-OFFSET=-9223372036,"))
    }
}
