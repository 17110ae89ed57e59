import Foundation
import IntermissionTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `intermission serve` logs about an upstream never carries the user, password or query of
/// its configured URL.
@Suite(.timeLimit(.minutes(1)), .realTime)
struct ServeLogCommandTests {
    @Test func upstreamSecretsAreRedactedInTheLog() async throws {
        let folder = try ServeProcess.scratchFolder("log")
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("serve.yaml")
        // Port 9 (discard) on loopback: nothing listens, the connection is refused.
        try Data(
            """
            server:
              port: 0
              database: "memory:"
            channels:
              - id: secret
                upstream: http://operator:pa55word@127.0.0.1:9/live/main.m3u8?token=s3cr3t

            """.utf8
        ).write(to: config)
        let server = try ServeProcess(["serve", "--config", config.path])
        defer { server.kill() }
        let address = try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/live/secret/main\.m3u8"#)
        let url = try #require(address.flatMap(URL.init(string:)), "no live URL in the start-up log\n\(server.text)")
        let (body, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 502)
        let answer = String(decoding: body, as: UTF8.self)
        let logged = try #require(
            try await server.firstLog(matching: "[^\\n]*upstream failed"),
            "nothing logged\n\(server.text)"
        )
        #expect(logged.contains("REDACTED@127.0.0.1:9/live/main.m3u8?REDACTED"), "\(logged)")
        for text in [server.text, answer] {
            #expect(!text.contains("pa55word") && !text.contains("s3cr3t") && !text.contains("operator"), "\(text)")
        }
    }
}
