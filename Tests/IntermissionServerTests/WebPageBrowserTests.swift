import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// The web page in headless Chromium over the DevTools protocol (`scripts/realclient/cdp_page.py`):
/// what a person sees, a screenshot, and the start-break button with the admin token.
///
/// Needs chromium and Python's websocket-client (`.ci/run` installs both). Skipped without them
/// unless INTERMISSION_REQUIRE_REFEREES=1.
@Suite(.serialized, .realTime) struct WebPageBrowserTests {
    static let repository = Fixture.repository
    static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"
    static var available: Bool {
        ["/usr/bin/chromium", "/usr/local/bin/chromium"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The page's result, as the driver prints it.
    struct Result: Decodable {
        var loaded: Bool
        var text: String?
        var svg_count: Int?
        var breaks_before: [String]?
        var started: Bool?
        var status: String?
        var breaks_after: [String]?
        var console: [String]?
        var shots: [String]
    }

    /// PNG width and height from the IHDR chunk, when `bytes` is a PNG.
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            bytes[12..<16] == Array("IHDR".utf8)[...]
        else { return nil }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test(.enabled(if: WebPageBrowserTests.available || WebPageBrowserTests.required), .timeLimit(.minutes(3)))
    func pageInChromiumShowsTheDemoAndStartsABreak() async throws {
        try #require(Self.available, "chromium is required (see .ci/run)")
        // Two minutes into the channel: `auto-0` is on air; the clock stands still, so the break
        // started from the page starts at the same instant and is on air too.
        let configuration = try demoConfiguration(clock: ManualWallClock(t0 + 125))
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            // A decision, so the page has one to list.
            #expect(
                try await client.get("/v1/asset-lists/vod-demo/preroll.json?_HLS_primary_id=chromium").status == .ok
            )
            let out = Self.repository.appendingPathComponent(".build-realclient/webpage")
            try? FileManager.default.removeItem(at: out)
            let run = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", Self.repository.appendingPathComponent("scripts/realclient/cdp_page.py").path,
                    "http://127.0.0.1:\(port)/", "--outdir", out.path, "--token", "secret", "--timeout", "40",
                ],
                timeout: .seconds(150)
            )
            let stdout = String(decoding: run.stdout, as: UTF8.self)
            #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self).suffix(2000))")
            let result = try JSONDecoder().decode(Result.self, from: Data(run.stdout))
            #expect(result.loaded, "\(stdout.prefix(2000))")
            // What a person reads: the channel, the asset, their breaks, the decision, the edge.
            let text = try #require(result.text)
            for words in ["Live channels", "VOD assets", "demo", "auto-0", "preroll", "midroll-1", "postroll"] {
                #expect(text.contains(words), "'\(words)' not on the page: \(text.prefix(1500))")
            }
            // The viewer as its keyed tag (the browser sends no admin token with the page).
            #expect(text.contains(": red") && !text.contains("chromium: red"), "\(text.prefix(3000))")
            #expect(text.contains("live edge"))
            // The VOD assets (`demo`, `podcast`) and the two demo channels (`demo`, `demo-schedule`).
            #expect(result.svg_count == 4)
            #expect(result.breaks_before?.contains { $0.hasPrefix("admin-") } == false)
            // The button, with the token: the page reloads with the new break listed.
            #expect(result.started == true, "\(result.console ?? [])")
            let after = try #require(result.breaks_after)
            let started = try #require(after.first { $0.hasPrefix("admin-") })
            #expect(result.status?.contains("Break \(started) started on demo") == true, "\(result.status ?? "")")
            // The server has it too.
            let listed = try await client.admin(.get, "/v1/admin/channels/demo/breaks").text
            #expect(listed.contains("\"id\":\"\(started)\""))
            // The CSP let the page's own script run and blocked nothing of it.
            #expect(
                !(result.console ?? []).contains { $0.contains("Content Security Policy") },
                "\(result.console ?? [])"
            )
            // The screenshots: real PNGs of the window, big enough to hold a drawn page.
            #expect(result.shots.count == 2)
            for shot in result.shots {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: shot)))
                let size = try #require(Self.pngSize(bytes), "\(shot) is not a PNG")
                #expect(size.width == 1280 && size.height >= 800, "\(size)")
                #expect(bytes.count > 30_000, "\(shot): \(bytes.count) bytes")
            }
        }
    }
}
