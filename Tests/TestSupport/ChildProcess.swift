import Foundation
import ProcessSpawn

#if canImport(Glibc)
import Glibc
#endif

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
/// in the process. Here the child is started by `ChildProcess` (posix_spawn, the one spawner the server
/// uses too), the pipes are drained on dedicated dispatch queues (so they never fill), the exit is
/// awaited without blocking the pool, and the process (or its whole group, with `newProcessGroup`)
/// gets SIGKILL when `timeout` passes or the calling task is cancelled.
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
///   - newProcessGroup: Start the child as the leader of a process group of its own and kill the
///     whole group, so that a kill reaches its descendants; whatever is left of the group gets
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
    let input = Pipe()
    let output = captureOutput ? Pipe() : nil
    let errors = captureOutput ? Pipe() : nil
    let child = try ChildProcess.spawn(
        executable.path,
        arguments,
        environment: environment,
        currentDirectory: currentDirectory?.path,
        standardInput: .descriptor(input.fileHandleForReading.fileDescriptor),
        standardOutput: output.map { .descriptor($0.fileHandleForWriting.fileDescriptor) } ?? .null,
        standardError: errors.map { .descriptor($0.fileHandleForWriting.fileDescriptor) } ?? .null,
        newProcessGroup: newProcessGroup
    )
    // The child holds its own copies: ours must close so that the readers see the end of file.
    try? input.fileHandleForReading.close()
    try? output?.fileHandleForWriting.close()
    try? errors?.fileHandleForWriting.close()
    let pid = child.pid

    async let stdout = drain(output)
    async let stderr = drain(errors)
    // Written off the pool: a child that does not read its input must not block us on a full pipe.
    let writer = input.fileHandleForWriting
    let bytes = stdin ?? []
    DispatchQueue(label: "runProcess.stdin").async {
        if !bytes.isEmpty { try? writer.write(contentsOf: bytes) }
        if !keepStdinOpen { try? writer.close() }
    }

    let exit = await withTaskCancellationHandler {
        if let timeout {
            // Past the limit the child is killed, and then waited for all the same.
            _ = try? await withDeadline(timeout, onTimeout: { child.signal(SIGKILL, toGroup: true) }) {
                await child.waitForExit()
            }
        }
        return await child.waitForExit()
    } onCancel: {
        child.signal(SIGKILL, toGroup: true)
    }
    // Linux does not hand out a pid while a process group still uses it as its id, so this reaches
    // only what the command started and left behind.
    if newProcessGroup { _ = kill(-pid, SIGKILL) }
    if keepStdinOpen { try? writer.close() }
    return ProcessResult(
        status: exit.status,
        signalled: exit.signalled,
        stdout: await stdout,
        stderr: await stderr,
        killed: child.wasSignalled
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

/// Returns once `child` has exited (and been reaped), or `limit` has passed; whether it exited.
@discardableResult
public func waitForExit(_ child: ChildProcess, within limit: Duration = .seconds(60)) async -> Bool {
    await waitUntil(within: limit, checkingEvery: .milliseconds(20)) { !child.isRunning }
}

/// Starts `executable` with `arguments`, its standard streams on `/dev/null`, and does not wait for
/// it: for clean-up that must start where nothing can wait (a deinitializer).
///
/// `ChildProcess` reaps it on a thread of its own when it exits.
///
/// - Returns: Whether it started.
@discardableResult
public func startUnwaited(_ executable: String, _ arguments: [String]) -> Bool {
    (try? ChildProcess.spawn(executable, arguments)) != nil
}
