import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where one of a child's standard streams comes from or goes to.
public struct StandardStream: Sendable {
    /// The open file descriptor to give the child, or `nil` for `/dev/null`.
    let descriptor: Int32?

    /// `/dev/null`.
    public static let null = StandardStream(descriptor: nil)

    /// An open file descriptor of this process (a pipe's end, a file), duplicated into the child.
    ///
    /// The caller keeps its own copy and closes it when done (for a pipe's writing end, right after
    /// the spawn, so that the reader sees the end of file when the child exits).
    public static func descriptor(_ descriptor: Int32) -> StandardStream {
        StandardStream(descriptor: descriptor)
    }
}

/// How a child process ended.
public struct ProcessExit: Sendable, Hashable {
    /// The exit code, or the signal number when `signalled`.
    public var status: Int32
    /// Whether a signal ended the process.
    public var signalled: Bool

    /// Whether it exited with 0.
    public var succeeded: Bool { !self.signalled && self.status == 0 }

    /// Decodes a `waitpid` status word: the low seven bits hold the signal number (0 for a normal
    /// exit), the next byte the exit code.
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        if signal == 0 {
            self.status = (waitStatus >> 8) & 0xff
            self.signalled = false
        } else {
            self.status = signal
            self.signalled = true
        }
    }
}

/// A child process that could not be started.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value that the failing call returned.
    public var code: Int32
    /// The program that was to run.
    public var executable: String
    /// What failed (`posix_spawn`, `reaper thread`, ...).
    public var operation: String

    /// The operation, the program and the system's message for `code`.
    public var description: String {
        "\(self.operation) failed for \(self.executable): \(String(cString: strerror(self.code)))"
    }
}

/// A child process started with `posix_spawn`, and its exit, awaited without blocking a thread of
/// the concurrency pool.
///
/// Every child process that Intermission starts (the server's ffmpeg and ffprobe, the test suites'
/// commands) is started here. Foundation's `Process.run()` on Linux reads `/proc/self/fd` to close
/// the descriptors the child should not inherit, and on Swift 6.3 that read can run past the end of
/// its buffer and crash the caller (a `memcpy` in `Process.run()`), more often when many processes
/// start at once; `posix_spawn` closes them in the child (`closefrom`) and is safe to call from any
/// number of threads at a time.
///
/// One detached thread per child waits for its exit. It first waits without reaping
/// (`waitid` with `WNOWAIT`), then marks the child as gone under the lock, then reaps it: a
/// ``signal(_:)`` made under the same lock therefore never reaches another process that was given
/// the same pid afterwards.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// Its exit once reaped, and the tasks waiting for it.
    private let state = Mutex<State>(State())

    /// Whether the child was made the leader of a new process group (whose id is `pid`).
    public let leadsProcessGroup: Bool

    private struct State {
        /// Set once the child has exited (before it is reaped).
        var gone = false
        var signalSent = false
        var exit: ProcessExit?
        var waiters: [CheckedContinuation<ProcessExit, Never>] = []
    }

    private init(pid: pid_t, leadsProcessGroup: Bool) {
        self.pid = pid
        self.leadsProcessGroup = leadsProcessGroup
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The program's path (not looked up in `PATH`).
    ///   - arguments: Its arguments, without the program name (the child's `argv[0]` is `executable`).
    ///   - environment: Its environment; this process's own when `nil`.
    ///   - currentDirectory: Its working directory; this process's own when `nil`.
    ///   - standardInput: Its standard input.
    ///   - standardOutput: Its standard output.
    ///   - standardError: Its standard error.
    ///   - newProcessGroup: Make the child the leader of a process group of its own, so that a signal
    ///     to the group (``signal(_:toGroup:)``) reaches whatever it starts.
    /// - Returns: The running child.
    /// - Throws: ``SpawnError`` when the program cannot be started (it does not exist, is not
    ///   executable, or the system refuses a new process or thread).
    public static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        currentDirectory: String? = nil,
        standardInput: StandardStream = .null,
        standardOutput: StandardStream = .null,
        standardError: StandardStream = .null,
        newProcessGroup: Bool = false
    ) throws(SpawnError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams = [standardInput, standardOutput, standardError]
        for (target, stream) in streams.enumerated() {
            if let descriptor = stream.descriptor {
                posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
            } else {
                let flags = target == 0 ? O_RDONLY : O_WRONLY
                posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", flags, 0)
            }
        }
        if let currentDirectory {
            guard let symbol = Self.symbol(Self.addChdirAddress) else {
                throw SpawnError(code: ENOSYS, executable: executable, operation: "changing directory")
            }
            let result = unsafeBitCast(symbol, to: AddChdir.self)(&actions, currentDirectory)
            guard result == 0 else {
                throw SpawnError(code: result, executable: executable, operation: "changing directory")
            }
        }
        // Everything else this process has open stays out of the child.
        if let symbol = Self.symbol(Self.addCloseFromAddress) {
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no blocked signal and every signal at its default (this process
        // ignores SIGPIPE, for one).
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        sigdelset(&signals, SIGKILL)
        sigdelset(&signals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { values in values.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }

        var pid: pid_t = 0
        let result = argv.withUnsafeBufferPointer { argvBuffer in
            if let envp {
                return envp.withUnsafeBufferPointer { envpBuffer in
                    posix_spawn(
                        &pid,
                        executable,
                        &actions,
                        &attributes,
                        argvBuffer.baseAddress!,
                        envpBuffer.baseAddress!
                    )
                }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, argvBuffer.baseAddress!, environ)
        }
        guard result == 0 else { throw SpawnError(code: result, executable: executable, operation: "posix_spawn") }

        let child = ChildProcess(pid: pid, leadsProcessGroup: newProcessGroup)
        let started = child.startReaper()
        guard started == 0 else {
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            throw SpawnError(code: started, executable: executable, operation: "starting the reaper thread")
        }
        return child
    }

    /// Whether the child has not been reaped yet (once `false`, ``exit`` is known).
    public var isRunning: Bool { self.state.withLock { $0.exit == nil } }

    /// The child's exit, once it has been reaped; `nil` before.
    public var exit: ProcessExit? { self.state.withLock { $0.exit } }

    /// Returns the child's exit once it has exited.
    ///
    /// Not cancellable: a caller that gives up kills the child (``signal(_:toGroup:)``) and then
    /// waits, so that the child is always reaped.
    public func waitForExit() async -> ProcessExit {
        await withCheckedContinuation { (continuation: CheckedContinuation<ProcessExit, Never>) in
            let exit = self.state.withLock { state -> ProcessExit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let exit { continuation.resume(returning: exit) }
        }
    }

    /// Sends `signal` to the child (or to its process group when `toGroup` and it leads one), unless
    /// it has already exited.
    ///
    /// - Returns: Whether the signal was sent.
    @discardableResult
    public func signal(_ signal: Int32, toGroup: Bool = false) -> Bool {
        self.state.withLock { state in
            guard !state.gone else { return false }
            let target = toGroup && self.leadsProcessGroup ? -self.pid : self.pid
            guard kill(target, signal) == 0 else { return false }
            state.signalSent = true
            return true
        }
    }

    /// Whether ``signal(_:toGroup:)`` sent a signal before the child exited.
    public var wasSignalled: Bool { self.state.withLock { $0.signalSent } }

    /// Starts the detached thread that waits for the child's exit; returns `pthread_create`'s result.
    private func startReaper() -> Int32 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 128 << 10)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread,
            &attributes,
            { context in
                Unmanaged<ChildProcess>.fromOpaque(context!).takeRetainedValue().reap()
                return nil
            },
            context
        )
        if result != 0 { Unmanaged<ChildProcess>.fromOpaque(context).release() }
        return result
    }

    /// Runs on the reaper thread: waits for the exit, marks the child gone, reaps it, and resumes the
    /// waiters.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(self.pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        self.state.withLock { $0.gone = true }
        var status: Int32 = 0
        while waitpid(self.pid, &status, 0) == -1 && errno == EINTR {}
        let exit = ProcessExit(waitStatus: status)
        let waiters = self.state.withLock { state in
            state.exit = exit
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which the Glibc module does
    /// not import: its address, looked up once, or `nil` on an older C library.
    private static let addChdirAddress = ChildProcess.address(of: "posix_spawn_file_actions_addchdir_np")

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), likewise.
    private static let addCloseFromAddress = ChildProcess.address(of: "posix_spawn_file_actions_addclosefrom_np")

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// The address of the C function `name` in the process (`RTLD_DEFAULT`), as an integer so that
    /// it can be kept in a `static let`.
    private static func address(of name: String) -> Int? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { Int(bitPattern: $0) }
    }

    /// The pointer back from ``address(of:)``.
    private static func symbol(_ address: Int?) -> UnsafeRawPointer? {
        address.flatMap { UnsafeRawPointer(bitPattern: $0) }
    }

    private typealias AddChdir =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32
}
