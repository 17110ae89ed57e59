import Foundation
import IntermissionTestSupport
import Testing

/// `runProcess` (IntermissionTestSupport), which every test target uses to run tools: it must not
/// hold a thread of the concurrency pool while a child runs, must not deadlock on full pipes, and
/// must kill on timeout.
@Suite(.timeLimit(.minutes(2)), .realTime)
struct RunProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    /// More children than the pool has threads, each waiting for a file that a task on the pool
    /// creates only after all of them started: a helper that blocked a pool thread per child would
    /// never let that task run (the children are then killed at the safety timeout).
    @Test func childrenWaitingForAPoolTaskDoNotStarveIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let children = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        let go = folder.appendingPathComponent("go").path
        let results = try await withThrowingTaskGroup(of: ProcessResult?.self) { group in
            for k in 0..<children {
                group.addTask {
                    try await runProcess(
                        Self.shell,
                        ["-c", "touch '\(folder.path)/started-\(k)'; while [ ! -e '\(go)' ]; do sleep 0.05; done"],
                        timeout: .seconds(60)
                    )
                }
            }
            group.addTask {
                try await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(20)) {
                    try FileManager.default.contentsOfDirectory(atPath: folder.path).count >= children
                }
                _ = FileManager.default.createFile(atPath: go, contents: nil)
                return nil
            }
            var results: [ProcessResult] = []
            for try await result in group { if let result { results.append(result) } }
            return results
        }
        #expect(results.count == children)
        #expect(results.allSatisfy { $0.status == 0 && !$0.killed })
    }

    /// 1 MiB on each of standard output and standard error (far beyond a pipe's 64 KiB) arrives whole.
    @Test func bothPipesAreDrainedWhileTheChildWrites() async throws {
        let result = try await runProcess(
            Self.shell,
            ["-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero | tr '\\0' 'e' >&2"],
            timeout: .seconds(60)
        )
        #expect(result.status == 0)
        #expect(result.stdout.count == 1_048_576 && result.stdout.allSatisfy { $0 == 0 })
        #expect(result.stderr.count == 1_048_576 && result.stderr.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    /// Standard input arrives and is closed, so that `cat` ends; with `keepStdinOpen` it does not
    /// end, and the timeout kills it (SIGKILL) after it echoed what it had.
    @Test func standardInputIsWrittenAndClosedOrKeptOpen() async throws {
        let bytes = Array("line one\nline two\0\n".utf8) + [0xFF, 0x00]
        let echoed = try await runProcess(URL(fileURLWithPath: "/bin/cat"), [], stdin: bytes, timeout: .seconds(60))
        #expect(echoed.status == 0 && !echoed.killed)
        #expect(echoed.stdout == bytes)

        let open = try await runProcess(
            URL(fileURLWithPath: "/bin/cat"),
            [],
            stdin: Array("head\n".utf8),
            keepStdinOpen: true,
            timeout: .milliseconds(500)
        )
        #expect(open.killed && open.signalled && open.status == SIGKILL)
        #expect(open.stdout == Array("head\n".utf8))
    }

    /// A child that never ends is killed at the timeout together with its process group (the
    /// grandchild `sleep` would otherwise hold the output pipe open and the helper would wait on it).
    @Test func timeoutKillsTheProcessGroup() async throws {
        let result = try await runProcess(
            Self.shell,
            ["-c", "sleep 600 & wait"],
            newProcessGroup: true,
            timeout: .milliseconds(500)
        )
        #expect(result.killed)
        #expect(result.signalled || result.status != 0)
    }

    /// Exit codes come back as they are; a missing program throws.
    @Test func exitStatusAndMissingProgram() async throws {
        let result = try await runProcess(Self.shell, ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3 && !result.signalled && !result.killed)
        #expect(result.stdout == Array("out\n".utf8) && result.stderr == Array("err\n".utf8))
        await #expect(throws: (any Error).self) {
            try await runProcess(URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"), [])
        }
    }
}
