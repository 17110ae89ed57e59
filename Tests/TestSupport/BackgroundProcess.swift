import Foundation
import ProcessSpawn
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A long-running child process that a test works with while it runs (a loopback origin, a
/// helper server): started by `ChildProcess` as the leader of a process group of its own, its
/// standard output collected as it comes, its standard input open for the test to write to, and
/// SIGKILL for its whole group when the test stops it or lets go of it.
///
/// The output is read by a thread of its own with `read(2)`, never on the concurrency pool, so a
/// child that prints nothing for a while blocks no test; the test looks at what came so far
/// (``output``) or waits for it under a deadline (``awaitOutput(within:_:)``).
public final class BackgroundProcess: Sendable {
    /// The running child.
    public let child: ChildProcess
    /// Everything the child has written to its standard output (and standard error when captured).
    private let collected: Collected
    /// The writing end of the child's standard input, until ``closeInput()`` or ``stop()``.
    private let input: Mutex<Int32?>

    /// What the reading thread has read so far; shared with that thread, which must not keep the
    /// process object alive (it would never be deinitialized while the child runs).
    private final class Collected: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The program's path (not looked up in `PATH`: `/usr/bin/env` does that).
    ///   - arguments: Its arguments.
    ///   - currentDirectory: Its working directory (the caller's when `nil`).
    ///   - environment: Its environment (the caller's when `nil`).
    ///   - captureError: Collect its standard error with its standard output; when `false` it goes
    ///     to `/dev/null`.
    /// - Throws: `SpawnError` when it cannot be started, `POSIXError` when no pipe can be made.
    public init(
        _ executable: String,
        _ arguments: [String],
        currentDirectory: String? = nil,
        environment: [String: String]? = nil,
        captureError: Bool = false
    ) throws {
        RealTime.expectHeld("a process in the background (\(executable))")
        let inputPipe = try Self.makePipe()
        let outputPipe: (read: Int32, write: Int32)
        do { outputPipe = try Self.makePipe() } catch {
            close(inputPipe.read)
            close(inputPipe.write)
            throw error
        }
        defer {
            // The child holds its own copies: ours must close so that the reader sees the end of
            // file when the child exits.
            close(inputPipe.read)
            close(outputPipe.write)
        }
        do {
            self.child = try ChildProcess.spawn(
                executable,
                arguments,
                environment: environment,
                currentDirectory: currentDirectory,
                standardInput: .descriptor(inputPipe.read),
                standardOutput: .descriptor(outputPipe.write),
                standardError: captureError ? .descriptor(outputPipe.write) : .null,
                newProcessGroup: true
            )
        } catch {
            close(inputPipe.write)
            close(outputPipe.read)
            throw error
        }
        self.input = Mutex(inputPipe.write)
        let collected = Collected()
        self.collected = collected
        let descriptor = outputPipe.read
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected.bytes.withLock { $0 += chunk[..<count] }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
        }
    }

    /// Kills whatever is left of the child's group.
    deinit { self.stop() }

    /// Everything the child has written so far.
    public var output: [UInt8] { self.collected.bytes.withLock { $0 } }

    /// ``output`` as UTF-8 text.
    public var outputText: String { String(decoding: self.output, as: UTF8.self) }

    /// Waits until `parse` finds what it looks for in the output so far (looking every 10 ms), the
    /// child exits, or `limit` of real time passes.
    ///
    /// - Returns: What `parse` found, or `nil`.
    public func awaitOutput<Found>(
        within limit: Duration = .seconds(30),
        _ parse: (String) -> Found?
    ) async -> Found? {
        var found: Found?
        await waitUntil(within: limit) {
            found = parse(self.outputText)
            return found != nil || !self.child.isRunning
        }
        return found ?? parse(self.outputText)
    }

    /// Writes `text` to the child's standard input; whether all of it was written (`false` once the
    /// input is closed or the child has gone).
    ///
    /// Small writes (a line) return at once: a pipe holds 64 KiB before a writer waits.
    @discardableResult
    public func write(_ text: String) -> Bool {
        self.input.withLock { descriptor in
            guard let descriptor else { return false }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                bytes = bytes.dropFirst(written)
            }
            return true
        }
    }

    /// Closes the child's standard input: a reader of it sees the end of file.
    public func closeInput() {
        self.input.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Sends SIGKILL to the child's whole group (unless it has exited) and closes its input.
    ///
    /// It does not wait: the `ChildProcess` reaps the child on its own thread
    /// (`waitForExit(_:within:)` waits for that).
    public func stop() {
        self.child.signal(SIGKILL, toGroup: true)
        self.closeInput()
    }

    /// A pipe whose two ends are closed on `exec` (the child gets its own copies through `dup2`).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}
