import Foundation
import IntermissionTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite(.realTime) struct ScheduleCommandTests {
    func json(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    }

    /// The example's expected playout (see Examples/README.md): pre-roll 0–15, primary 0–30, a
    /// 35 s pod, primary 30–60, post-roll 10 s.
    @Test func vodExampleFollowsTheJSONContract() async throws {
        let object = try await self.json(["schedule", "Examples/vod-interstitials.m3u8", "--json"])
        #expect(object["live"] as? Bool == false)
        #expect(object["primaryDuration"] as? Double == 60)
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(events.map { $0["id"] as? String } == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let midroll = events[1]
        for key in [
            "id", "startTime", "startDate", "cue", "duration", "resumeOffset", "resumeTime", "playoutLimit",
            "restrictions", "snap", "assetURI", "assetList", "timelineOccupies", "timelineStyle", "contentMayVary",
            "skipControl", "userAttributes",
        ] {
            #expect(midroll.keys.contains(key), "missing \(key)")
        }
        #expect(midroll["startTime"] as? Double == 30)
        #expect(midroll["restrictions"] as? [String] == ["SKIP", "JUMP"])
        #expect((midroll["userAttributes"] as? [String: Any])?["X-COM-EXAMPLE-BEACON"] != nil)
        let timeline = try #require(object["timeline"] as? [[String: Any]])
        #expect(
            timeline.map { $0["kind"] as? String } == [
                "interstitial", "primary", "interstitial", "interstitial", "primary", "interstitial",
            ]
        )
        #expect(timeline.map { $0["playoutStart"] as? Double } == [0, 15, 45, 60, 80, 110])
        #expect(timeline.last?["playoutEnd"] as? Double == 120)
        #expect(timeline[1]["integratedEnd"] as? Double == 30)
        #expect(timeline[2]["integratedStart"] as? Double == timeline[2]["integratedEnd"] as? Double)
    }

    @Test func liveJoinReportsTheStartOffset() async throws {
        let object = try await self.json([
            "schedule", "Tests/Fixtures/playlists/seed-wwdc22-live-join-start-offset.m3u8", "--live-join", "--json",
        ])
        #expect(object["live"] as? Bool == true)
        let start = try #require(object["start"] as? [String: Any])
        #expect(start["startOffset"] as? Double == 10)
        #expect(start["event"] as? String != nil)
    }

    @Test func tableAndSVG() async throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let result = try await CLI.run(["schedule", "Examples/vod-interstitials.m3u8", "--svg", svg.path])
        #expect(result.status == 0)
        let table = String(decoding: result.stdout, as: UTF8.self)
        #expect(table.contains("midroll-2"))
        #expect(table.split(separator: "\n").count >= 7)
        let data = try Data(contentsOf: svg)
        let parser = XMLParser(data: data)
        #expect(parser.parse(), "the SVG is not well-formed XML")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("<svg") || text.hasPrefix("<?xml"))
        #expect(text.contains("midroll-1") && text.contains("JUMP"))
    }

    /// Writes `text` to a temporary playlist and runs `intermission schedule` on it with `--svg`.
    func tableAndPicture(of text: String) async throws -> (table: String, svg: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let playlist = folder.appendingPathComponent("main.m3u8")
        try Data(text.utf8).write(to: playlist)
        let svg = folder.appendingPathComponent("picture.svg")
        let result = try await CLI.run(["schedule", playlist.path, "--svg", svg.path])
        #expect(result.status == 0, "\(result.stderr)")
        return (
            String(decoding: result.stdout, as: UTF8.self), String(decoding: try Data(contentsOf: svg), as: UTF8.self)
        )
    }

    @Test func tableHasOneRowPerItem() async throws {
        let result = try await CLI.run(["schedule", "Tests/Fixtures/playlists/seed-wwdc23-plans-abc.m3u8"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        // The fixture: a 10 s VOD primary with a 20 s pod of two events at 5 s (SKIP restricted).
        #expect(lines.count == 2 + 4)
        #expect(lines[0] == "VOD, primary 10 s, playout 30 s, integrated 10 s")
        #expect(lines[1].hasPrefix("#  kind          event  primary  playout  integrated  resume  restrictions"))
        #expect(lines[3] == "1  interstitial  ad1    5        5–15     5–5         5       SKIP")
    }

    @Test func pictureEscapesMarkupAndSurvivesExtremeTimes() async throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="a<b&c",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:05.000Z",DURATION=5,X-ASSET-URI="https://a.example/1.m3u8",X-RESTRICT="SKIP,JUMP"
            #EXT-X-DATERANGE:ID="far",CLASS="com.apple.hls.interstitial",START-DATE="2262-04-11T23:47:15.000Z",DURATION=9223372036.854775807,X-RESUME-OFFSET=-9223372036.854775807,X-ASSET-URI="https://a.example/2.m3u8"
            #EXTINF:6,
            s0.ts
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST

            """
        let (table, svg) = try await self.tableAndPicture(of: text)
        #expect(table.contains("a<b&c"))
        #expect(svg.contains("a&lt;b&amp;c") && !svg.contains("a<b"))
        #expect(svg.contains(">SKIP</text>") && svg.contains(">JUMP</text>"))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(XMLParser(data: Data(svg.utf8)).parse(), "the SVG is not well-formed XML")
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }

    @Test func playedOnceEventsAndNoInterstitials() async throws {
        let played = try await self.json([
            "schedule", "Examples/vod-interstitials.m3u8", "--json", "--played", "preroll",
        ])
        let timeline = try #require(played["timeline"] as? [[String: Any]])
        #expect(timeline.first?["kind"] as? String == "primary")
        let off = try await self.json(["schedule", "Examples/vod-interstitials.m3u8", "--json", "--no-interstitials"])
        #expect((off["timeline"] as? [[String: Any]])?.count == 1)
        let bad = try await CLI.run(["schedule", "Examples/vod-interstitials.m3u8", "--start", "soon"])
        #expect(bad.status != 0)
    }
}
