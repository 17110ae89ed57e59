import Foundation
import IntermissionTestSupport

/// Runs the command-line tools the referee tests use (Python's m3u8, ffmpeg).
enum ExternalTools {
    /// Set by `.ci/run`: a missing tool fails the test instead of skipping it.
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// Runs `arguments` through `/usr/bin/env` to its exit; `nil` when it cannot start.
    static func run(_ arguments: [String], currentDirectory: URL? = nil) async -> Result? {
        guard
            let result = try? await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments,
                currentDirectory: currentDirectory
            )
        else { return nil }
        return Result(
            status: result.status,
            stdout: Data(result.stdout),
            stderr: String(decoding: result.stderr, as: UTF8.self)
        )
    }

    /// Whether `check` runs and exits 0.
    static func available(_ check: [String]) async -> Bool {
        await run(check)?.status == 0
    }

    /// Whether Python's m3u8 package imports (probed once, off the pool's threads).
    static var hasPythonM3U8: Bool {
        get async { await pythonM3U8Probe.value }
    }

    /// Whether ffmpeg runs (probed once, off the pool's threads).
    static var hasFFmpeg: Bool {
        get async { await ffmpegProbe.value }
    }

    private static let pythonM3U8Probe = Task { await available(["python3", "-c", "import m3u8"]) }
    private static let ffmpegProbe = Task { await available(["ffmpeg", "-version"]) }

    static func temporaryDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("intermission-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
