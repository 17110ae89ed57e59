import Foundation
import ProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

/// What one run of an external tool (ffmpeg, ffprobe) left.
struct ToolRun: Sendable {
    /// The exit code, or the signal number when `signalled`.
    var status: Int32
    /// Whether a signal ended it.
    var signalled: Bool
    /// Whether it was killed at its time limit (or because the task was cancelled).
    var killed: Bool
    /// Its standard output (the first 4 MiB).
    var stdout: [UInt8]
    /// The end of its standard error (the last 4 KiB), for messages.
    var stderr: String

    /// Whether it exited with 0.
    var succeeded: Bool { !self.signalled && self.status == 0 }
}

/// Runs external tools as subprocesses, without blocking a thread of the concurrency pool, within a
/// time limit, and under `nice` and `prlimit` when they are installed.
struct ToolRunner: Sendable {
    /// `prlimit`'s path, if installed.
    var prlimit: String?
    /// `nice`'s path, if installed.
    var nice: String?

    /// Finds `prlimit` and `nice` on `PATH`.
    static func detect() -> ToolRunner {
        ToolRunner(prlimit: Self.locate("prlimit"), nice: Self.locate("nice"))
    }

    /// The path of `program`: itself when it names a path (it must be executable), else the first
    /// executable of that name in `PATH`; `nil` when there is none.
    static func locate(_ program: String) -> String? {
        let files = FileManager.default
        if program.contains("/") { return files.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + program
            if files.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether CPU and memory limits are applied (`prlimit` and `nice` found).
    var limitsApplied: Bool { self.prlimit != nil && self.nice != nil }

    /// The command that runs `executable` under the limits: `prlimit --as=… --cpu=… -- nice -n …`
    /// before it when both are installed (each execs the next, so the process is the tool itself).
    func command(
        _ executable: String,
        _ arguments: [String],
        memory: Int,
        cpuSeconds: Int,
        niceness: Int
    ) -> (String, [String]) {
        guard let prlimit = self.prlimit, let nice = self.nice else { return (executable, arguments) }
        return (
            prlimit,
            ["--as=\(memory)", "--cpu=\(cpuSeconds)", "--", nice, "-n", String(niceness), executable] + arguments
        )
    }

    /// Runs `executable` with `arguments`, its output going to files in `scratch`; SIGKILL when
    /// `timeout` passes on `clock` or the calling task is cancelled.
    static func run(
        _ executable: String,
        _ arguments: [String],
        scratch: String,
        timeout: Duration,
        clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> ToolRun {
        let outPath = scratch + "/stdout-\(UUID().uuidString)"
        let errPath = scratch + "/stderr-\(UUID().uuidString)"
        let files = FileManager.default
        guard files.createFile(atPath: outPath, contents: nil), files.createFile(atPath: errPath, contents: nil),
            let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath)
        else {
            throw ToolError(message: "cannot write in \(scratch)")
        }
        defer {
            try? out.close()
            try? err.close()
            try? files.removeItem(atPath: outPath)
            try? files.removeItem(atPath: errPath)
        }
        let child: ChildProcess
        do {
            // A process group of its own, as Foundation's `Process` gave it: a signal sent to the
            // server's group (Ctrl-C in a terminal) does not reach the tool, which the server kills.
            child = try ChildProcess.spawn(
                executable,
                arguments,
                standardOutput: .descriptor(out.fileDescriptor),
                standardError: .descriptor(err.fileDescriptor),
                newProcessGroup: true
            )
        } catch {
            throw ToolError(message: error.description)
        }
        let exit = await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await clock.sleep(for: timeout, tolerance: nil)
                    guard !Task.isCancelled else { return }
                    child.signal(SIGKILL)
                }
                let exit = await child.waitForExit()
                group.cancelAll()
                return exit
            }
        } onCancel: {
            child.signal(SIGKILL)
        }
        let stdout = (try? Self.head(outPath, limit: 4 << 20)) ?? []
        let stderr = String(decoding: (try? Self.tail(errPath, limit: 4096)) ?? [], as: UTF8.self)
        return ToolRun(
            status: exit.status,
            signalled: exit.signalled,
            killed: child.wasSignalled,
            stdout: stdout,
            stderr: stderr
        )
    }

    /// The first `limit` bytes of a file.
    static func head(_ path: String, limit: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return Array(try handle.read(upToCount: limit) ?? Data())
    }

    /// The last `limit` bytes of a file.
    static func tail(_ path: String, limit: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size > UInt64(limit) ? size - UInt64(limit) : 0)
        return Array(try handle.readToEnd() ?? Data())
    }
}

/// A tool that could not be run.
struct ToolError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    var message: String

    /// The message.
    var description: String { self.message }
}
