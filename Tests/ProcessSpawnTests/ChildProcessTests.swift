import IntermissionTestSupport
import ProcessSpawn
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ChildProcess` alone: exits and signals are reported as they happened, a signal never reaches
/// a child once it is gone, and a program that cannot start is an error. (The server's tools and
/// the tests' commands through it, many at once, are tested in IntermissionServerTests.)
@Suite(.realTime) struct ChildProcessTests {
    @Test(.timeLimit(.minutes(1)), arguments: [0, 1, 2, 127])
    func anExitStatusIsReported(status: Int32) async throws {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "exit \(status)"])
        let exit = await child.waitForExit()
        #expect(exit.status == status && !exit.signalled)
        #expect(exit.succeeded == (status == 0))
        #expect(!child.isRunning && child.exit == exit && !child.wasSignalled)
    }

    /// A child killed is reported as signalled; once reaped, no signal is sent any more.
    @Test(.timeLimit(.minutes(1))) func aSignalledChildIsReportedAndNotSignalledAgain() async throws {
        let child = try ChildProcess.spawn("/bin/sleep", ["60"])
        #expect(child.signal(SIGKILL))
        let exit = await child.waitForExit()
        #expect(exit.status == SIGKILL && exit.signalled)
        #expect(child.wasSignalled && !child.isRunning)
        #expect(!child.signal(SIGKILL))
    }

    /// A child that leads a process group of its own ends with a signal sent to the group.
    @Test(.timeLimit(.minutes(1))) func aSignalToTheGroupEndsTheChildThatLeadsIt() async throws {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "/bin/sleep 60 & wait"], newProcessGroup: true)
        #expect(child.leadsProcessGroup)
        #expect(child.signal(SIGTERM, toGroup: true))
        let exit = await child.waitForExit()
        #expect(exit.signalled && exit.status == SIGTERM)
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: SpawnError.self) { try ChildProcess.spawn("/nonexistent/tool", []) }
        do {
            _ = try ChildProcess.spawn("/nonexistent/tool", [])
        } catch {
            #expect(error.executable == "/nonexistent/tool")
            #expect(error.description.contains("/nonexistent/tool"))
        }
    }
}
