import Foundation
import Synchronization

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
    /// `timeout` passes or the calling task is cancelled.
    static func run(
        _ executable: String,
        _ arguments: [String],
        scratch: String,
        timeout: Duration
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let waiter = ExitWaiter()
        process.terminationHandler = { _ in waiter.exited() }
        try process.run()
        let pid = process.processIdentifier
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    waiter.killing()
                    kill(pid, SIGKILL)
                }
                await waiter.wait()
                group.cancelAll()
            }
        } onCancel: {
            waiter.killing()
            kill(pid, SIGKILL)
        }
        let stdout = (try? Self.head(outPath, limit: 4 << 20)) ?? []
        let stderr = String(decoding: (try? Self.tail(errPath, limit: 4096)) ?? [], as: UTF8.self)
        return ToolRun(
            status: process.terminationStatus,
            signalled: process.terminationReason == .uncaughtSignal,
            killed: waiter.killed,
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

/// Waits for a process's exit, announced by its termination handler (which may run before anyone
/// waits), and remembers whether it was killed.
final class ExitWaiter: Sendable {
    private let state = Mutex<(exited: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let killedFlag = Mutex(false)

    /// Notes that the process is being killed (at its time limit or on cancellation).
    func killing() {
        self.killedFlag.withLock { $0 = true }
    }

    /// Whether ``killing()`` was called.
    var killed: Bool { self.killedFlag.withLock { $0 } }

    /// Called once the process exited.
    func exited() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.exited = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the process exited (not on cancellation: the caller kills it then).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = self.state.withLock { state -> Bool in
                if state.exited { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
