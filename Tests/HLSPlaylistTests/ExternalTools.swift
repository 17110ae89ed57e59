import Foundation

/// Runs the command-line tools the referee tests use (Python's m3u8, ffmpeg).
enum ExternalTools {
    /// Set by `.ci/run`: a missing tool fails the test instead of skipping it.
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    static func run(_ arguments: [String], currentDirectory: URL? = nil) -> Result? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        // Standard error goes to a file so that neither pipe can fill up and block the child.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        guard let errorHandle = try? FileHandle(forWritingTo: errorFile) else { return nil }
        process.standardOutput = out
        process.standardError = errorHandle
        do { try process.run() } catch { return nil }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        let errors = (try? Data(contentsOf: errorFile)) ?? Data()
        return Result(
            status: process.terminationStatus,
            stdout: output,
            stderr: String(decoding: errors, as: UTF8.self)
        )
    }

    static func available(_ check: [String]) -> Bool {
        run(check)?.status == 0
    }

    static let hasPythonM3U8 = available(["python3", "-c", "import m3u8"])
    static let hasFFmpeg = available(["ffmpeg", "-version"])

    static func temporaryDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("intermission-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
