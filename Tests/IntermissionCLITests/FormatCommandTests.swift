import Foundation
import IntermissionTestSupport
import ProcessSpawn
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

    /// Runs the binary with `arguments` in the repository folder, `stdin` as its input, to its exit;
    /// `environment` is added to the test's own.
    static func run(
        _ arguments: [String],
        stdin: [UInt8]? = nil,
        environment: [String: String] = [:]
    ) async throws -> Output {
        let result = try await runProcess(
            productsDirectory.appendingPathComponent("intermission"),
            arguments,
            currentDirectory: repository,
            environment: environment.isEmpty
                ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdin: stdin,
            timeout: .seconds(60)
        )
        return Output(
            status: result.status,
            stdout: result.stdout,
            stderr: String(decoding: result.stderr, as: UTF8.self)
        )
    }
}

@Suite(.realTime) struct FormatCommandTests {
    @Test(arguments: [
        "Examples/vod-interstitials.m3u8", "Examples/multivariant.m3u8",
        "Tests/Fixtures/playlists/odd-crlf-line-endings.m3u8",
    ])
    func formatPrintsTheInputByteForByte(_ path: String) async throws {
        let input = [UInt8](try Data(contentsOf: CLI.repository.appendingPathComponent(path)))
        let result = try await CLI.run(["format", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == input)
        let check = try await CLI.run(["format", path, "--check"])
        #expect(check.status == 0)
        #expect(check.stdout.isEmpty)
    }

    @Test func readsStandardInput() async throws {
        let text = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8)
        let result = try await CLI.run(["format", "-"], stdin: text)
        #expect(result.status == 0)
        #expect(result.stdout == text)
    }

    @Test func unusableInputExitsTwoWithOneLineReason() async throws {
        let missing = try await CLI.run(["format", "no/such/file.m3u8"])
        #expect(missing.status == 2)
        #expect(missing.stderr.split(separator: "\n").count == 1)
        #expect(missing.stderr.contains("no such file"))
        let notPlaylist = try await CLI.run(["format", "README.md"])
        #expect(notPlaylist.status == 2)
        #expect(notPlaylist.stderr.contains("not a playlist"))
        let unreachable = try await CLI.run(["format", "http://127.0.0.1:9/main.m3u8"])
        #expect(unreachable.status == 2)
        #expect(unreachable.stderr.split(separator: "\n").count == 1)
    }
}

@Suite(.realTime) struct FormatOverHTTPTests {
    @Test func formatsAPlaylistFetchedOverHTTP() async throws {
        let server = try #require(await PageServer(directory: CLI.repository.appendingPathComponent("Examples")))
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/vod-interstitials.m3u8"
        let expected = [UInt8](
            try Data(contentsOf: CLI.repository.appendingPathComponent("Examples/vod-interstitials.m3u8"))
        )
        let result = try await CLI.run(["format", url])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected)
        let missing = try await CLI.run(["format", "http://127.0.0.1:\(server.port)/nope.m3u8"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("404"))
    }
}
