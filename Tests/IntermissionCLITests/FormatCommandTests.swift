import Foundation
import Testing

/// Runs the built `intermission` binary as a user would.
enum CLI {
    static let productsDirectory: URL = {
        // The test runner lives in the build products directory (…/debug/IntermissionPackageTests.xctest).
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url
    }()

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        FileManager.default.createFile(atPath: errorFile.path, contents: nil)
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
    @Test(arguments: ["Examples/vod-interstitials.m3u8", "Examples/multivariant.m3u8", "Tests/Fixtures/playlists/odd-crlf-line-endings.m3u8"])
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
