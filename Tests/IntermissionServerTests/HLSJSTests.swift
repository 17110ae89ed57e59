import AdInsertion
import Foundation
import HLSPlaylist
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// hls.js 1.6 in headless Chromium (a real interstitials client) plays the demo VOD through the
/// server: the pre-roll and both mid-rolls start, their asset lists load, the primary resumes.
///
/// Needs chromium, Python's websocket-client and hls.js extracted to `.build-realclient/www/lib/hls.mjs`
/// (`.ci/run` sets this up). Skipped without them unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite(.serialized) struct HLSJSTests {
    static let repository = Fixture.repository
    static let hlsjs = repository.appendingPathComponent(".build-realclient/www/lib/hls.mjs")
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"

    static var available: Bool {
        FileManager.default.fileExists(atPath: hlsjs.path)
            && ["/usr/bin/chromium", "/usr/local/bin/chromium"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            }
    }

    @Test(.enabled(if: HLSJSTests.available || HLSJSTests.required), .timeLimit(.minutes(3)))
    func hlsJSPlaysTheDemoPreRollAndMidRolls() async throws {
        try #require(Self.available, "chromium and hls.js are required (see .ci/run)")
        // The page and hls.js come from a static server; the stream from ours (CORS allows it).
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("hlsjs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: www.appendingPathComponent("lib"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: www) }
        try FileManager.default.copyItem(at: Self.hlsjs, to: www.appendingPathComponent("lib/hls.mjs"))
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("scripts/realclient/interstitials.html"),
            to: www.appendingPathComponent("interstitials.html")
        )
        let page = try #require(PageServer(directory: www))
        defer { page.stop() }

        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        // The virtual clock does not move: let every break have ads even for the same viewer.
        configuration.adInsertion.policy.repeatWindow = .zero
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            let out = www.appendingPathComponent("out")
            let src = "http://127.0.0.1:\(port)/vod/demo/main.m3u8"
            let url = "http://127.0.0.1:\(page.port)/interstitials.html?src=\(src)&rate=4&until=45&timeout=100"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", Self.repository.appendingPathComponent("scripts/realclient/cdp_run.py").path, url,
                "--timeout", "110", "--outdir", out.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var waited = 0
            while process.isRunning && waited < 1500 {  // 150 s at most
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let log = (try? String(contentsOf: out.appendingPathComponent("log.txt"), encoding: .utf8)) ?? ""
            let lines = log.split(separator: "\n")
            func has(_ event: String, _ id: String) -> Bool {
                lines.contains { $0.contains("] \(event) ") && $0.contains("event=\(id) ") }
            }
            #expect(log.contains("isSupported=true"), "\(log.prefix(2000))")
            for id in ["preroll", "midroll-1", "midroll-2"] {
                #expect(has("ASSET_LIST_LOADED", id), "no asset list for \(id)")
                #expect(has("INTERSTITIAL_ASSET_STARTED", id), "\(id) did not start")
                #expect(has("INTERSTITIAL_ENDED", id), "\(id) did not end")
            }
            let midroll1Assets = lines.filter {
                $0.contains("] INTERSTITIAL_ASSET_STARTED ") && $0.contains("event=midroll-1 ")
            }
            #expect(midroll1Assets.count == 2, "midroll-1 is a pod of two ads")
            #expect(lines.filter { $0.contains("] INTERSTITIALS_PRIMARY_RESUMED ") }.count >= 3)
            #expect(log.contains("DONE until reached"), "\(log.suffix(2000))")
        }
    }
}

/// Python's http.server on loopback for the probe page (or any Python HTTP server script).
final class PageServer: Sendable {
    let process: Process
    let port: Int

    convenience init?(directory: URL) {
        self.init(arguments: ["-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]) { text in
            // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
            guard let range = text.range(of: "port ") else { return nil }
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Runs `python3 -u` with `arguments`; `port` finds the port in what it prints first.
    init?(arguments: [String], port: (String) -> Int?) {
        let process = Process()
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u"] + arguments
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let text = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = port(text) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        self.process = process
        self.port = port
    }

    /// Stops the server.
    ///
    /// SIGKILL, because the child may inherit a signal mask that blocks SIGTERM.
    func stop() {
        guard self.process.isRunning else { return }
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }
}
