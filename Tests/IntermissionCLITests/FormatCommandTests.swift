import Foundation
import IntermissionTestSupport
import Testing

/// Runs the built `intermission` binary as a user would.
enum CLI {
    static let productsDirectory: URL = {
        // The test runner lives in the build products directory (…/debug/IntermissionPackageTests.xctest).
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url
    }()

    /// The repository root: commands run there, so fixture paths are relative to it.
    static let repository = Fixture.repository

    struct Output {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("intermission")
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let out = Pipe()
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = out
        process.standardError = errorHandle
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        let errors = String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        return Output(status: process.terminationStatus, stdout: [UInt8](data), stderr: errors)
    }
}

@Suite struct FormatCommandTests {
    @Test(arguments: [
        "Examples/vod-interstitials.m3u8", "Examples/multivariant.m3u8",
        "Tests/Fixtures/playlists/odd-crlf-line-endings.m3u8",
    ])
    func formatPrintsTheInputByteForByte(_ path: String) throws {
        let input = [UInt8](try Data(contentsOf: CLI.repository.appendingPathComponent(path)))
        let result = try CLI.run(["format", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == input)
        let check = try CLI.run(["format", path, "--check"])
        #expect(check.status == 0)
        #expect(check.stdout.isEmpty)
    }

    @Test func readsStandardInput() throws {
        let text = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8)
        let result = try CLI.run(["format", "-"], stdin: text)
        #expect(result.status == 0)
        #expect(result.stdout == text)
    }

    @Test func unusableInputExitsTwoWithOneLineReason() throws {
        let missing = try CLI.run(["format", "no/such/file.m3u8"])
        #expect(missing.status == 2)
        #expect(missing.stderr.split(separator: "\n").count == 1)
        #expect(missing.stderr.contains("no such file"))
        let notPlaylist = try CLI.run(["format", "README.md"])
        #expect(notPlaylist.status == 2)
        #expect(notPlaylist.stderr.contains("not a playlist"))
        let unreachable = try CLI.run(["format", "http://127.0.0.1:9/main.m3u8"])
        #expect(unreachable.status == 2)
        #expect(unreachable.stderr.split(separator: "\n").count == 1)
    }
}

/// A static file server on loopback (Python's http.server), for commands that read URLs.
final class StaticServer {
    let process = Process()
    let port: Int

    init?(directory: URL) {
        let out = Pipe()
        self.process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        self.process.arguments = [
            "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path,
        ]
        self.process.standardOutput = out
        self.process.standardError = FileHandle.nullDevice
        do { try self.process.run() } catch { return nil }
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("port "), Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "port "),
            let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
            return nil
        }
        self.port = port
    }

    /// Stops the server.
    ///
    /// SIGKILL, because the child may inherit a signal mask that blocks SIGTERM.
    func stop() {
        guard self.process.isRunning else { return }
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }

    deinit { self.stop() }
}

@Suite struct FormatOverHTTPTests {
    @Test func formatsAPlaylistFetchedOverHTTP() throws {
        let server = try #require(StaticServer(directory: CLI.repository.appendingPathComponent("Examples")))
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/vod-interstitials.m3u8"
        let expected = [UInt8](
            try Data(contentsOf: CLI.repository.appendingPathComponent("Examples/vod-interstitials.m3u8"))
        )
        let result = try CLI.run(["format", url])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        let missing = try CLI.run(["format", "http://127.0.0.1:\(server.port)/nope.m3u8"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("404"))
    }
}
