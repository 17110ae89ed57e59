import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// `GET /`: the web page over loopback, its headers, and what it shows.
@Suite(.realTime) struct WebPageTests {
    /// The page lists the demo channel and asset with their timelines, breaks, the live edge and the
    /// decisions made for them, under a strict Content-Security-Policy whose nonce is the script's.
    @Test func pageShowsChannelsAssetsBreaksAndDecisions() async throws {
        // Two minutes into the channel: `auto-0` (the first break, at 120 s) is on air.
        let clock = ManualWallClock(t0 + 125)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let live = try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_primary_id=viewer-live")
            #expect(live.status == .ok, "\(live.text)")
            let vod = try await client.get("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=viewer-vod")
            #expect(vod.status == .ok, "\(vod.text)")
            // With the admin token the page names the viewers (without it, keyed tags: see
            // ViewerIdentityTests).
            let page = try await client.get("/", headers: [.authorization: "Bearer secret"])
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-store")
            let text = page.text
            #expect(text.hasPrefix("<!DOCTYPE html>"))
            // The channel and the asset, with their playlist links.
            #expect(text.contains("data-channel=\"demo\""))
            #expect(text.contains("data-asset=\"demo\""))
            #expect(text.contains("href=\"/live/demo/main.m3u8\""))
            #expect(text.contains("href=\"/vod/demo/main.m3u8\""))
            // Four timelines drawn inline (the two VOD assets, and the two live channels with their edge).
            #expect(text.components(separatedBy: "<svg xmlns=\"http://www.w3.org/2000/svg\"").count - 1 == 4)
            #expect(text.contains("data-asset=\"podcast\""))
            #expect(!text.contains("<?xml"))
            #expect(text.contains("<title>live edge</title>"))
            // The live edge date: the end of the window at 125 s (a 6 s segment grid from t0).
            #expect(text.contains("class=\"live-edge\">2025-01-01T00:02:0"))
            // Breaks: the planned live break on air, and the four VOD breaks.
            for id in ["auto-0", "preroll", "midroll-1", "midroll-2", "postroll"] {
                #expect(text.contains("<td class=\"break-id\">\(id)</td>"), "break \(id) missing")
            }
            #expect(text.contains("<tr class=\"on-air\"><td class=\"break-id\">auto-0</td>"))
            // The decisions, with their viewers and creatives (red is worth most: first in both pods).
            #expect(text.contains("<span class=\"viewer\">viewer-live</span>: red"))
            #expect(text.contains("<span class=\"viewer\">viewer-vod</span>: red, green"))
            #expect(text.contains("<span id=\"decision-count\">2</span>"))
            // One start-break button per live channel; beacons have their marked place.
            #expect(text.components(separatedBy: "class=\"start-break\"").count - 1 == 2)
            #expect(text.contains("id=\"beacons\""))
            // Nothing from outside: a nonce-only CSP, and the one script and style carry its nonce.
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.hasPrefix("default-src 'none'; script-src 'nonce-"))
            #expect(csp.contains("connect-src 'self'") && csp.contains("frame-ancestors 'none'"))
            let nonce = try #require(csp.split(separator: "'").first { $0.hasPrefix("nonce-") }?.dropFirst(6))
            #expect(nonce.count == 32)
            #expect(text.contains("<script nonce=\"\(nonce)\">") && text.contains("<style nonce=\"\(nonce)\">"))
            #expect(text.components(separatedBy: "<script").count - 1 == 1)
            #expect(!text.contains("src=\"http") && !text.contains("href=\"http"))
            // A fresh nonce per answer.
            let again = try await client.get("/")
            #expect(again.headers[.contentSecurityPolicy] != csp)
        }
    }

    /// The beacons column counts the distinct beacons of each listed break per event, from the
    /// server's tracking store (duplicates left out).
    @Test func pageCountsTheBeaconsOfEachBreak() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 125))
        configuration.tracking = TrackingConfiguration(key: Array("web-page-beacons-key-0123456789ab".utf8))
        configuration.tracking.beacons = true
        try await withServer(configuration) { client in
            #expect(try await client.get("/").text.contains("No beacons received yet."))
            var paths: [String] = []
            for viewer in ["w1", "w2"] {
                let list = try await client.get(
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=\(viewer)"
                )
                let first = try #require(try AssetList.decode(list.bytes).assets.first?.creativeSignaling())
                for type in ["impression", "start"] {
                    let url = try #require(first.payload.first?.tracking?.first { $0.type == type }?.urls.first)
                    paths.append(String(url[try #require(url.range(of: "/v1/track/")).lowerBound...]))
                }
            }
            // Both viewers' impressions (one sent twice) and one start.
            for path in [paths[0], paths[0], paths[2], paths[1]] {
                #expect(try await client.get(path).status == .noContent)
            }
            let text = try await client.get("/").text
            let table = try #require(text.range(of: "<table class=\"beacons\" id=\"beacons\">"))
            let rows = text[table.upperBound...].components(separatedBy: "<tr><td>").dropFirst().map {
                $0.components(separatedBy: "</td>").prefix(4).joined(separator: " ").replacingOccurrences(
                    of: "<td>",
                    with: ""
                )
            }
            #expect(rows == ["vod-demo midroll-1 impression 2", "vod-demo midroll-1 start 1"])
        }
    }

    /// HEAD answers the page's headers without a body; other methods are refused with 405 and JSON;
    /// unknown paths are still JSON 404s.
    @Test func headOtherMethodsAndUnknownPaths() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let head = try await client.execute(uri: "/", method: .head, headers: [:], body: nil) { $0 }
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == "text/html; charset=utf-8")
            #expect(head.headers[.contentSecurityPolicy] != nil)
            let post = try await client.execute(uri: "/", method: .post, headers: [:], body: nil) { $0 }
            #expect(post.status == .methodNotAllowed)
            #expect(post.json?["error"]?["code"]?.stringValue == "methodNotAllowed")
            for path in ["/index.html", "/nope", "/openapi.json", "/%3Cscript%3E"] {
                let answer = try await client.get(path)
                #expect(answer.status == .notFound, "\(path)")
                #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true, "\(path)")
                #expect(answer.json?["error"]?["code"]?.stringValue == "notFound", "\(path)")
            }
        }
    }

    /// IDs, break IDs and viewers with markup and quotes in them are shown as text: the page holds
    /// no tag, attribute or script that came from them.
    @Test func hostileIDsRenderInert() async throws {
        let hostile = "x<script>alert(\"pwned\")</script>'\"><img src=x onerror=alert(1)>"
        let escaped =
            "x&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;&#39;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 125))
        configuration.adInsertion.assets[0].id = hostile
        configuration.adInsertion.assets[0].breaks[1].id = "mid<b onclick='x'>"
        configuration.adInsertion.channels[0].id = hostile + "-live"
        try await withServer(configuration) { client in
            let page = try await client.get("/")
            #expect(page.status == .ok)
            let text = page.text
            #expect(text.contains("data-asset=\"\(escaped)\""))
            #expect(text.contains("data-channel=\"\(escaped)-live\""))
            #expect(text.contains("mid&lt;b onclick=&#39;x&#39;&gt;"))
            #expect(!text.contains("<script>alert"))
            #expect(!text.contains("<img"))
            #expect(!text.contains("onclick='x'"))
            #expect(!text.contains("<b onclick"))
            #expect(text.components(separatedBy: "<script").count - 1 == 1)
            // Links to the playlists are percent-encoded paths.
            #expect(text.contains("href=\"/vod/x%3Cscript%3Ealert%28%22pwned%22%29%3C%2Fscript%3E"))
        }
    }

    /// A decision whose viewer ID holds markup is listed as text.
    @Test func hostileViewerRendersInert() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 125))) { client in
            let viewer = "<svg/onload=alert(2)>\"'"
            let query = try #require(viewer.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let decided = try await client.get("/v1/asset-lists/vod-demo/preroll.json?_HLS_primary_id=\(query)")
            #expect(decided.status == .ok, "\(decided.text)")
            let text = try await client.get("/", headers: [.authorization: "Bearer secret"]).text
            #expect(text.contains("<span class=\"viewer\">&lt;svg/onload=alert(2)&gt;&quot;&#39;</span>"))
            #expect(!text.contains("<svg/onload"))
        }
    }

    /// The escaping itself: the five characters, control characters, and nothing else changed.
    @Test func escapingCoversMarkupAndControlCharacters() {
        #expect(HTMLText.escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&#39;f")
        #expect(HTMLText.escape("nul\u{0}bell\u{7}del\u{7F}c1\u{85}") == "nul\u{FFFD}bell\u{FFFD}del\u{FFFD}c1\u{FFFD}")
        #expect(HTMLText.escape("tab\tline\n é 😀") == "tab\tline\n é 😀")
        #expect(HTMLText.escape(String(repeating: "<", count: 100_000)).count == 400_000)
    }
}
