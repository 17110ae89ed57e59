import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Serializes the start of child processes across the test run.
private let spawnLock = NSLock()

/// Starts `process`, one start at a time across the whole test run: Foundation's `Process.run()`
/// on Linux crashed the test runner (a bad pointer in `memcpy` inside `Process.run()`), and a child
/// once died of SIGSEGV before it ran, while many suites started processes at once.
public func startProcess(_ process: Process) throws {
    spawnLock.lock()
    defer { spawnLock.unlock() }
    try process.run()
}

/// What a child process left behind: its exit status, everything it wrote, and whether it was killed.
public struct ProcessResult: Sendable {
    /// `terminationStatus`: the exit code, or the signal number when `signalled`.
    public var status: Int32
    /// Whether a signal ended the process (`terminationReason == .uncaughtSignal`).
    public var signalled: Bool
    /// Everything written to standard output (empty when it was not captured).
    public var stdout: [UInt8]
    /// Everything written to standard error (empty when it was not captured).
    public var stderr: [UInt8]
    /// Whether the helper sent SIGKILL (timeout or task cancellation).
    public var killed: Bool
}

/// Runs a child process without blocking a thread of the Swift concurrency pool.
///
/// Swift Testing runs every test on the cooperative pool (two threads on a two-core machine), so a
/// test that waits in `waitUntilExit()`, `readDataToEndOfFile()` or `usleep` stalls every other test
/// in the process. Here the pipes are drained on dedicated dispatch queues (so they never fill), the
/// exit is awaited through `terminationHandler`, and the process (or its whole group, with
/// `newProcessGroup`) gets SIGKILL when `timeout` passes or the calling task is cancelled.
///
/// - Parameters:
///   - executable: The program to run.
///   - arguments: Its arguments.
///   - currentDirectory: Its working directory (the caller's when `nil`).
///   - environment: Its environment (the caller's when `nil`).
///   - stdin: Bytes written to its standard input; `nil` gives it an empty input.
///   - keepStdinOpen: Keep the writing end of standard input open until the process exits
///     (a reader that waits for more input never sees end of file).
///   - captureOutput: Capture standard output and standard error; when `false` both go to
///     `/dev/null`.
///   - newProcessGroup: Kill the child's whole process group (Foundation makes each child the leader
///     of its own), so that a kill reaches its descendants; whatever is left of the group gets
///     SIGKILL after the child exits.
///   - timeout: How long to wait for it to exit before SIGKILL; `nil` waits as long as it takes.
public func runProcess(
    _ executable: URL,
    _ arguments: [String],
    currentDirectory: URL? = nil,
    environment: [String: String]? = nil,
    stdin: [UInt8]? = nil,
    keepStdinOpen: Bool = false,
    captureOutput: Bool = true,
    newProcessGroup: Bool = false,
    timeout: Duration? = nil
) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    if let environment { process.environment = environment }
    let input = Pipe()
    process.standardInput = input
    let output = captureOutput ? Pipe() : nil
    let errors = captureOutput ? Pipe() : nil
    process.standardOutput = output ?? FileHandle.nullDevice
    process.standardError = errors ?? FileHandle.nullDevice
    let exit = ExitSignal()
    process.terminationHandler = { _ in exit.fire() }
    try startProcess(process)
    let pid = process.processIdentifier
    // Foundation starts every child as the leader of a process group of its own (an earlier `setsid`
    // wrapper then forked, and the command outlived the process we waited for); kill that group.
    let grouped = newProcessGroup && getpgid(pid) == pid
    let target = grouped ? -pid : pid

    async let stdout = drain(output)
    async let stderr = drain(errors)
    // Written off the pool: a child that does not read its input must not block us on a full pipe.
    let writer = input.fileHandleForWriting
    let bytes = stdin ?? []
    DispatchQueue(label: "runProcess.stdin").async {
        if !bytes.isEmpty { try? writer.write(contentsOf: bytes) }
        if !keepStdinOpen { try? writer.close() }
    }

    let killer = timeout.map { limit in
        Task {
            try await Task.sleep(for: limit)
            exit.kill(target)
        }
    }
    await withTaskCancellationHandler {
        await exit.wait()
    } onCancel: {
        exit.kill(target)
    }
    killer?.cancel()
    // Linux does not hand out a pid while a process group still uses it as its id, so this reaches
    // only what the command started and left behind.
    if grouped { _ = kill(-pid, SIGKILL) }
    if keepStdinOpen { try? writer.close() }
    return ProcessResult(
        status: process.terminationStatus,
        signalled: process.terminationReason == .uncaughtSignal,
        stdout: await stdout,
        stderr: await stderr,
        killed: exit.wasKilled
    )
}

/// Reads `pipe` to its end on a dedicated queue; empty without a pipe.
private func drain(_ pipe: Pipe?) async -> [UInt8] {
    guard let pipe else { return [] }
    return await withCheckedContinuation { continuation in
        // A queue of our own (overcommitting) rather than a global one: the read may block for long.
        DispatchQueue(label: "runProcess.drain").async {
            continuation.resume(returning: [UInt8](pipe.fileHandleForReading.readDataToEndOfFile()))
        }
    }
}

/// The exit of one child process, awaited once, and whether the helper killed it.
///
/// `@unchecked Sendable`: every stored property is read and written only while `lock` is held, and
/// the continuation is resumed exactly once (by `fire`, or at once by `wait` when already fired).
private final class ExitSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var exited = false
    private var killed = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// Called by `terminationHandler`.
    func fire() {
        let waiter = self.lock.withLock {
            self.exited = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    /// Returns once the process has exited.
    func wait() async {
        await withCheckedContinuation { continuation in
            let now = self.lock.withLock {
                if self.exited { return true }
                self.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// SIGKILL to `target` (a pid, or a negated process-group id) unless the process already exited.
    func kill(_ target: pid_t) {
        self.lock.withLock {
            guard !self.exited else { return }
            self.killed = true
            _ = Foundation.kill(target, SIGKILL)
        }
    }

    /// Whether `kill` sent a signal.
    var wasKilled: Bool { self.lock.withLock { self.killed } }
}

/// Reads the first output of a long-running child (for example the line where a server names its
/// port) without blocking the concurrency pool: the first chunk `availableData` returns from
/// `handle`, or empty at end of file.
public func firstChunk(of handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "firstChunk").async {
            continuation.resume(returning: handle.availableData)
        }
    }
}

/// Returns once `process` (already started) has exited, looking every `interval` with `Task.sleep`
/// rather than blocking a thread as `waitUntilExit()` does.
public func waitForExit(_ process: Process, every interval: Duration = .milliseconds(20)) async {
    while process.isRunning { try? await Task.sleep(for: interval) }
}
