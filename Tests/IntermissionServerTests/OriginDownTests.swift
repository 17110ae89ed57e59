import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// An HTTP origin on loopback serving the files of `folder`, that stops answering (closes each
/// connection without a word) while `folder/down` exists.
private func switchableOrigin(folder: String) async -> PageServer? {
    await PageServer(
        handler: """
            import os
            if os.path.exists("\(folder)/down"):
                self.close_connection = True
                return
            path = "\(folder)" + self.path.split("?")[0]
            if ".." in path or not os.path.isfile(path):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = open(path, "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            """
    )
}

/// A media playlist of `count` 2 s segments from `first`, dated from t0.
private func mediaPlaylist(first: Int, count: Int, ended: Bool) -> String {
    var lines = [
        "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)",
        "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z",
    ]
    for n in first..<(first + count) { lines += ["#EXTINF:2.0,", "s\(n).ts"] }
    if ended { lines.append("#EXT-X-ENDLIST") }
    return lines.joined(separator: "\n") + "\n"
}

/// The origin of a VOD asset or a live upstream stops answering and comes back, over loopback.
@Suite(.realTime) struct OriginDownTests {
    @Test(.timeLimit(.minutes(1))) func vodPlaylistsReadBeforeAreServedWhileTheOriginIsDown() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let variants =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhigh.m3u8\n"
        try write(variants, to: folder + "/movie/main.m3u8")
        try write(mediaPlaylist(first: 0, count: 10, ended: true), to: folder + "/movie/low.m3u8")
        try write(mediaPlaylist(first: 0, count: 10, ended: true), to: folder + "/movie/high.m3u8")
        let origin = try #require(await switchableOrigin(folder: folder))
        defer { origin.stop() }
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.adInsertion.assets.append(
            VODAsset(
                id: "remote",
                origin: "http://127.0.0.1:\(origin.port)/movie/",
                breaks: [VODBreak(id: "mid", position: .midRoll(6), duration: 10)]
            )
        )
        try await withServer(configuration) { client in
            let main = try await client.get("/vod/remote/main.m3u8")
            let low = try await client.get("/vod/remote/low.m3u8")
            #expect(main.status == .ok && low.status == .ok)
            #expect(low.text.contains("s9.ts") && low.text.contains("ID=\"mid\""), "\(low.text)")

            try write("", to: folder + "/down")
            // What was read before is answered as it was.
            let mainAgain = try await client.get("/vod/remote/main.m3u8")
            let lowAgain = try await client.get("/vod/remote/low.m3u8")
            #expect(mainAgain.status == .ok && mainAgain.text == main.text)
            #expect(lowAgain.status == .ok && lowAgain.text == low.text)
            // A playlist never read is a 502 with a JSON error, and counted.
            let high = try await client.get("/vod/remote/high.m3u8")
            #expect(high.status == .badGateway, "\(high.text)")
            #expect(high.json?["error"]?["code"]?.stringValue == "upstream", "\(high.text)")
            #expect(high.json?["error"]?["message"]?.stringValue?.contains("127.0.0.1:\(origin.port)") == true)
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains(#"intermission_origin_failures_total{scope="vod-remote"} 1"#), "\(metrics)")

            // Back: the playlist it could not read is served.
            try FileManager.default.removeItem(atPath: folder + "/down")
            let highBack = try await client.get("/vod/remote/high.m3u8")
            #expect(highBack.status == .ok && highBack.text.contains("s9.ts"), "\(highBack.text)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aLiveUpstreamThatStopsAnsweringIsReportedThenServedAgain() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write(mediaPlaylist(first: 100, count: 3, ended: false), to: folder + "/up/live.m3u8")
        let origin = try #require(await switchableOrigin(folder: folder))
        defer { origin.stop() }
        let clock = ManualWallClock(t0 + 6)
        var configuration = try demoConfiguration(clock: clock)
        configuration.adInsertion.channels.append(
            LiveChannel(id: "flaky", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"))
        )
        try await withServer(configuration) { client in
            let good = try await client.get("/live/flaky/live.m3u8")
            #expect(good.status == .ok && good.text.contains("s102.ts"), "\(good.text)")

            try write("", to: folder + "/down")
            clock.advance(by: 4)
            // Within three target durations (6 s) the last good window stands in.
            let standIn = try await client.get("/live/flaky/live.m3u8")
            #expect(standIn.status == .ok && standIn.text == good.text)
            clock.advance(by: 3)
            let down = try await client.get("/live/flaky/live.m3u8")
            #expect(down.status == .serviceUnavailable, "\(down.text)")
            #expect(down.headers[.retryAfter] == "2")
            #expect(down.json?["error"]?["code"]?.stringValue == "upstreamUnavailable", "\(down.text)")
            let health = try await client.admin(.get, "/health")
            #expect(health.json?["status"]?.stringValue == "degraded")
            let entry = health.json?["channels"]?.arrayValue?.first { $0["id"]?.stringValue == "flaky" }
            #expect(entry?["state"]?.stringValue == "unreachable", "\(health.text)")
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains(#"intermission_origin_failures_total{scope="live-flaky"}"#), "\(metrics)")

            // Back: a new window, and healthy again.
            try write(mediaPlaylist(first: 101, count: 3, ended: false), to: folder + "/up/live.m3u8")
            try FileManager.default.removeItem(atPath: folder + "/down")
            let back = try await client.get("/live/flaky/live.m3u8")
            #expect(back.status == .ok && back.text.contains("s103.ts"), "\(back.text)")
            #expect(try await client.get("/health").json?["status"]?.stringValue == "ok")
        }
    }
}
