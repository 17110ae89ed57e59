import Foundation
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// Every child process starts through `ChildProcess` (posix_spawn): the server's `ToolRunner` and the
/// tests' `runProcess` alike, safely from any number of tasks at once.
@Suite(.realTime) struct ProcessSpawnTests {
    /// 32 children through the server's path and 32 through the tests' path, 64 started at once (more
    /// would only load the machine that the other suites share); each prints its own index, so a
    /// mixed-up stream or a lost exit shows.
    @Test(.timeLimit(.minutes(2)))
    func manyChildrenStartAtOnceFromTheServerAndTheTests() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let shell = URL(fileURLWithPath: "/bin/sh")
        let outputs = try await withThrowingTaskGroup(of: (String, String, Int32).self) { group in
            for index in 0..<32 {
                group.addTask {
                    let run = try await ToolRunner.run(
                        shell.path,
                        ["-c", "echo tool-\(index); exit \(index % 3)"],
                        scratch: scratch.path,
                        timeout: .seconds(90)
                    )
                    return ("tool-\(index)", String(decoding: run.stdout, as: UTF8.self), run.status)
                }
                group.addTask {
                    let result = try await runProcess(
                        shell,
                        ["-c", "echo test-\(index); exit \(index % 3)"],
                        timeout: .seconds(90)
                    )
                    return ("test-\(index)", String(decoding: result.stdout, as: UTF8.self), result.status)
                }
            }
            var outputs: [String: (String, Int32)] = [:]
            for try await (name, output, status) in group { outputs[name] = (output, status) }
            return outputs
        }
        #expect(outputs.count == 64)
        for index in 0..<32 {
            for name in ["tool-\(index)", "test-\(index)"] {
                #expect(outputs[name]?.0 == name + "\n", "\(name)")
                #expect(outputs[name]?.1 == Int32(index % 3), "\(name)")
            }
        }
    }

    /// A child that outlives its limit is killed, and says so.
    @Test func aToolPastItsLimitIsKilled() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try await ToolRunner.run("/bin/sleep", ["60"], scratch: scratch.path, timeout: .milliseconds(100))
        #expect(run.killed)
        #expect(run.signalled)
        #expect(run.status == SIGKILL)
    }

    /// The time limit runs on the clock given: the child lives until that clock passes it, and is
    /// killed then, with no real time waited.
    @Test func theTimeLimitRunsOnTheClockGiven() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clock = ManualClock()
        let running = Task {
            try await ToolRunner.run("/bin/sleep", ["60"], scratch: scratch.path, timeout: .seconds(3600), clock: clock)
        }
        #expect(await waitUntil { clock.deadlines == [ManualClock.Instant(offset: .seconds(3600))] })
        clock.advance(by: .seconds(3599))
        #expect(clock.sleeperCount == 1, "the limit passed early")
        clock.advance(by: .seconds(1))
        let run = try await withDeadline(.seconds(30)) { try await running.value }
        #expect(run?.killed == true)
        #expect(run?.signalled == true)
        #expect(run?.status == SIGKILL)
    }

    /// A program that does not exist is an error, not a crash or a hang.
    @Test func aMissingProgramIsAnError() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        await #expect(throws: ToolError.self) {
            try await ToolRunner.run("/nonexistent/tool", [], scratch: scratch.path, timeout: .seconds(5))
        }
        await #expect(throws: (any Error).self) {
            try await runProcess(URL(fileURLWithPath: "/nonexistent/tool"), [])
        }
    }
}
