import ArgumentParser
import Foundation
import Hummingbird
import IntermissionServer
import IntermissionStore
import Logging

/// `intermission serve`: the ad-insertion server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve VOD and live presentations with server-guided ad insertion (HLS Interstitials).",
        discussion: """
            Playlists get interstitial DATERANGE tags whose X-ASSET-LIST points back at this server; \
            ads are decided when a player asks for the asset list. --demo serves the bundled demo media \
            offline at /vod/demo/main.m3u8, /live/demo/main.m3u8, /live/demo-schedule/main.m3u8 (breaks as \
            scheduled date ranges) and /vod/podcast/main.m3u8 (an audio-only podcast episode). SIGTERM or Ctrl-C stops the server \
            after the requests in flight. The DocC article 'The configuration file' (Sources/IntermissionServer/Documentation.docc) documents every key.
            """
    )

    @Option(
        name: .long,
        help: "A YAML configuration file (every key is in the server's DocC article 'The configuration file')."
    )
    var config: String?

    @Option(name: .long, help: "The port to listen on, 0 to 65535 (default 8080; 0 picks a free one).")
    var port: String?

    @Option(name: .long, help: "The address to bind (default 127.0.0.1).")
    var host: String?

    @Option(
        name: .long,
        help:
            "Where to store decisions: a file path or sqlite:PATH (default intermission.sqlite), postgres://USER@HOST:PORT/DATABASE (shared by several instances), or memory:."
    )
    var database: String?

    @Option(
        name: .long,
        help:
            "The most connections open at once, 1 to 1048576; more are closed at accept (default: the descriptor limit less a quarter of it; never more)."
    )
    var maxConnections: String?

    @Flag(name: .long, help: "Serve the bundled demo media (works offline).")
    var demo = false

    func validate() throws {
        if self.config == nil && !self.demo {
            throw ValidationError("give --config FILE, --demo, or both")
        }
    }

    func run() async throws {
        var configuration = ServerConfiguration()
        do {
            if self.demo { configuration = try ServerConfiguration.demo(base: configuration) }
            if let file = self.config {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    printError("intermission: \(file): cannot be read")
                    throw ExitCode(2)
                }
                let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
                configuration = try ConfigurationFile.parse(text).apply(to: configuration, relativeTo: folder)
            }
        } catch let error as ConfigurationError {
            printError("intermission: \(self.config ?? "configuration"): \(error.message)")
            throw ExitCode(2)
        }
        if let text = self.port {
            // Read here rather than by the argument parser, so a bad port is exit 2 like a bad key.
            guard text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = Int(text),
                InputLimits.port.contains(port)
            else {
                printError("intermission: --port: must be an integer from 0 to 65535, got '\(text.prefix(40))'")
                throw ExitCode(2)
            }
            configuration.port = port
        }
        if let text = self.maxConnections {
            guard text.utf8.count <= 7, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let maximum = Int(text), InputLimits.maximumConnections.contains(maximum)
            else {
                printError(
                    "intermission: --max-connections: must be an integer from 1 to 1048576, got '\(text.prefix(40))'"
                )
                throw ExitCode(2)
            }
            configuration.maximumConnections = maximum
        }
        if let host = self.host { configuration.hostname = host }
        if let database = self.database { configuration.database = database }
        // The level as a constant: the bootstrap closure is `@Sendable` and must not capture the `var`.
        let logLevel = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let app = try await buildApplication(configuration: configuration)
        try await app.runService()
    }
}
