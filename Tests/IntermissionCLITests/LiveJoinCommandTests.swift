import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `intermission play` joining a live break 12 s in, through the built binaries: the server
/// answers the whole 20 s break, the player enters the list 12 s in (plays the last 8 s of it),
/// and resumes where D.2 says for live without X-RESUME-OFFSET: the break's start plus its duration.
@Suite(.timeLimit(.minutes(2)), .realTime)
struct LiveJoinCommandTests {
    @Test func joiningTwelveSecondsIntoABreakPlaysTheLastEightSecondsOfTheList() async throws {
        let folder = try ServeProcess.scratchFolder("join")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The player joins three target durations (6 s) behind the last whole 2 s segment. With the
        // channel started at S and its first break at S + 30 s, launching the player 48.3 s after S
        // puts the last segment's end at 48 s and the join at 42 s: 12 s into the break. The
        // playlist read may come up to 1.7 s after the launch and still land there.
        // 20 s leave the server room to start while every other suite runs beside it.
        let launch = Date().addingTimeInterval(20)
        let start = launch.addingTimeInterval(-48.3)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let config = folder.appendingPathComponent("join.yaml")
        try Data(
            """
            channels:
              - id: join
                loop: /media/demo/primary/
                playlist: main.m3u8
                window: 6
                startDate: \(formatter.string(from: start))
                breaks:
                  every: 120
                  duration: 20
                  offset: 30

            """.utf8
        ).write(to: config)
        let server = try ServeProcess([
            "serve", "--demo", "--config", config.path, "--port", "0", "--database", "memory:",
        ])
        defer { server.kill() }
        let url = try #require(
            try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/live/join/main\.m3u8"#, tries: 50),
            "no live URL in the start-up log"
        )
        let wait = launch.timeIntervalSinceNow
        try #require(wait > 0, "the server took more than 20 s to start")
        // Launched once the served window ends at 48 s (24 whole segments): the state the launch
        // instant stands for, read from the server rather than waited for on the wall clock.
        await waitUntil(within: .seconds(wait + 10), checkingEvery: .milliseconds(50)) {
            await Self.completedSegments(multivariant: url) >= 24
        }

        // 8 s of the ad, then 2 s of the primary.
        let played = try await CLI.run(["play", url, "--json", "--until", "10"])
        #expect(played.status == 0, "\(played.stderr)")
        let entries = jsonLines(played.stdout)
        let text = String(decoding: played.stdout, as: UTF8.self)
        func events(_ name: String) -> [[String: Any]] { entries.filter { $0["event"] as? String == name } }

        let listRequest = try #require(
            events("request").first {
                ($0["url"] as? String)?.contains("/v1/asset-lists/live-join/auto-0.json") == true
            },
            "no asset-list request\n\(text)"
        )
        // 12 s in when the player's first playlist read comes within 1.7 s of its launch; on a
        // machine so busy that it comes later, the join lands a segment (2 s) or two later, and the
        // checks below follow the offset the player sent.
        let requested = (listRequest["url"] as? String) ?? ""
        let offsetText = requested.components(separatedBy: "_HLS_start_offset=").dropFirst().first?.prefix { $0 != "&" }
        let offset = try #require(offsetText.flatMap { Double($0) }, "no _HLS_start_offset in \(requested)")
        #expect([12, 14, 16].contains(offset), "joined \(offset) s into the break")
        // The whole break: 20 s of ads, green (worth less) first, red where the viewer sees it.
        let loaded = try #require(events("assetListLoaded").first)
        #expect(loaded["assets"] as? Int == 2)
        #expect(loaded["duration"] as? Double == 20)
        let started = events("interstitialAssetStarted").filter { $0["eventID"] as? String == "auto-0" }
        #expect(started.map { ($0["url"] as? String)?.contains("/ad-red/") == true } == [true], "\(text)")
        // The event starts `offset` before the join point (the player reports the join point as
        // `primaryTime` and how far into the event it is as `joinedAt`); it plays the last
        // 20 - offset seconds of the list (8 s when it joined 12 s in) and resumes the primary at
        // the break's start plus its 20 s.
        let paused = try #require(
            events("currentEventDidChange").first { $0["eventID"] as? String == "auto-0" },
            "\(text)"
        )
        let resumed = try #require(events("primaryResumed").first, "no resume\n\(text)")
        let joinPoint = try #require(paused["primaryTime"] as? Double)
        #expect(paused["joinedAt"] as? Double == offset, "\(paused)")
        let breakStart = joinPoint - offset
        let resume = try #require(resumed["primaryTime"] as? Double)
        #expect(abs(resume - (breakStart + 20)) < 0.1, "break at \(breakStart), resumed at \(resume)\n\(text)")
        let finished = try #require(events("eventDidFinish").first { $0["eventID"] as? String == "auto-0" })
        #expect(abs((finished["playoutTime"] as? Double ?? 0) - (20 - offset)) < 0.1, "\(finished)")
        // In wall time too, the primary resumes 20 - offset seconds after the event began (counted
        // from the event's start, not the process's: a loaded machine starts the player late).
        let began = try #require(paused["t"] as? Double, "\(paused)")
        #expect(abs((resumed["t"] as? Double ?? 0) - began - (20 - offset)) < 0.5, "\(paused)\n\(resumed)")

        _ = try await server.terminate()
    }

    /// How many segments the live channel at `multivariant` has completed: its media playlist's
    /// `EXT-X-MEDIA-SEQUENCE` plus the segments in its window (0 when it cannot be read).
    static func completedSegments(multivariant: String) async -> Int {
        func text(_ url: URL) async -> String {
            guard let (body, _) = try? await URLSession.shared.data(from: url) else { return "" }
            return String(decoding: body, as: UTF8.self)
        }
        guard let base = URL(string: multivariant),
            let variant = await text(base).split(separator: "\n").first(where: { !$0.hasPrefix("#") && !$0.isEmpty }),
            let media = URL(string: String(variant), relativeTo: base)
        else { return 0 }
        let lines = await text(media).split(separator: "\n")
        let tag = "#EXT-X-MEDIA-SEQUENCE:"
        guard let sequence = lines.first(where: { $0.hasPrefix(tag) }).flatMap({ Int($0.dropFirst(tag.count)) })
        else { return 0 }
        return sequence + lines.filter { $0.hasPrefix("#EXTINF") }.count
    }
}

/// `intermission serve` (the built binary) in the background, its output in a log file.
final class ServeProcess {
    let process: ChildProcess
    let log: URL
    private let handle: FileHandle

    /// Starts `intermission` with `arguments` in the repository folder; with `descriptorLimit`,
    /// under `ulimit -n` of that many descriptors (soft and hard), through `/bin/sh`.
    init(_ arguments: [String], descriptorLimit: Int? = nil) throws {
        RealTime.expectHeld("`intermission serve`")
        self.log = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: self.log.path, contents: nil)
        self.handle = try FileHandle(forWritingTo: self.log)
        let binary = CLI.productsDirectory.appendingPathComponent("intermission")
        let (executable, all) =
            descriptorLimit.map {
                ("/bin/sh", ["-c", "ulimit -n \($0) && exec \"$0\" \"$@\"", binary.path] + arguments)
            } ?? (binary.path, arguments)
        // A process group of its own, as Foundation's `Process` made it.
        self.process = try ChildProcess.spawn(
            executable,
            all,
            currentDirectory: CLI.repository.path,
            standardOutput: .descriptor(self.handle.fileDescriptor),
            standardError: .descriptor(self.handle.fileDescriptor),
            newProcessGroup: true
        )
    }

    deinit {
        try? self.handle.close()
        try? FileManager.default.removeItem(at: self.log)
    }

    /// A new empty folder under the temporary directory, for the caller to remove.
    static func scratchFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The log so far.
    var text: String { String(decoding: (try? Data(contentsOf: self.log)) ?? Data(), as: UTF8.self) }

    /// The first text of the log that matches `pattern` (a regular expression), looking every
    /// 100 ms, at most `tries` times.
    func firstLog(matching pattern: String, tries: Int = 300) async throws -> String? {
        var found: String?
        await waitUntil(within: .milliseconds(100 * tries), checkingEvery: .milliseconds(100)) {
            let text = self.text
            found = text.range(of: pattern, options: .regularExpression).map { String(text[$0]) }
            return found != nil
        }
        return found
    }

    /// SIGTERM, then up to 10 s for it to exit; whether it did.
    func terminate() async throws -> Bool {
        Foundation.kill(self.process.processIdentifier, SIGTERM)
        await waitForExit(self.process, within: .seconds(10))
        return !self.process.isRunning
    }

    /// SIGKILL, if it still runs.
    func kill() {
        self.process.signal(SIGKILL)
    }
}

/// What the tests read of a child as they read Foundation's `Process`.
extension ChildProcess {
    /// Its process id.
    var processIdentifier: pid_t { self.pid }

    /// Its exit code (or the signal that ended it); -1 while it runs.
    var terminationStatus: Int32 { self.exit?.status ?? -1 }

    /// Whether a signal ended it; `.exit` while it runs.
    var terminationReason: Process.TerminationReason { self.exit?.signalled == true ? .uncaughtSignal : .exit }
}
