import Foundation
import IntermissionTestSupport
import Testing

/// `intermission serve` refuses bad settings at start, through the built binary: exit 2 and a
/// message naming the key, never a trap, a silently ignored key or a port other than the one asked.
@Suite(.timeLimit(.minutes(2)), .realTime)
struct ServeConfigurationTests {
    /// Runs the binary and kills it after `seconds` (a server that started instead of refusing).
    static func serve(
        _ arguments: [String],
        seconds: Double = 20
    ) async throws -> (status: Int32, stderr: String, killed: Bool) {
        let result = try await runProcess(
            CLI.productsDirectory.appendingPathComponent("intermission"),
            ["serve"] + arguments,
            currentDirectory: CLI.repository,
            timeout: .milliseconds(Int(seconds * 1000))
        )
        return (result.status, String(decoding: result.stderr, as: UTF8.self), result.killed)
    }

    static let cases: [(yaml: String, key: String)] = [
        ("server:\n  port: 0\n  database: \"memory:\"\n  upstreamTimeout: 1e300\n", "server.upstreamTimeout"),
        ("server:\n  port: 0\n  database: \"memory:\"\n  upstreamTimeout: -5\n", "server.upstreamTimeout"),
        ("server:\n  port: 0\n  database: \"memory:\"\n  upstreamTimout: 5\n", "server.upstreamTimout"),
        ("server:\n  port: 70000\n  database: \"memory:\"\n", "server.port"),
        ("server:\n  port: 0\n  database: \"memory:\"\nrepeatWindow: .nan\n", "repeatWindow"),
    ]

    @Test(arguments: Self.cases.indices) func aBadConfigurationExits2NamingTheKey(_ index: Int) async throws {
        let (yaml, key) = Self.cases[index]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Self.serve(["--config", file.path])
        #expect(!result.killed, "the server started with \(yaml)")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(key), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test(arguments: ["70000", "-1", "65536", "1e300", "0x1F90", "9223372036854775808"]) func aBadPortExits2(
        _ port: String
    ) async throws {
        let result = try await Self.serve(["--demo", "--database", "memory:", "--port=\(port)"])
        #expect(!result.killed, "the server started on --port \(port)")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--port"), "\(result.stderr)")
    }

    @Test(arguments: ["0", "-1", "1048577", "1e300", "0x10", "9223372036854775808", "12a"])
    func aBadConnectionCapExits2(_ value: String) async throws {
        let result = try await Self.serve(["--demo", "--database", "memory:", "--port=0", "--max-connections=\(value)"])
        #expect(!result.killed, "the server started with --max-connections \(value)")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--max-connections"), "\(result.stderr)")
    }
}
