import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct ScheduleCommandTests {
    func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    }

    /// The example's expected playout (see Examples/README.md): pre-roll 0–15, primary 0–30, a
    /// 35 s pod, primary 30–60, post-roll 10 s.
    @Test func vodExampleFollowsTheJSONContract() throws {
        let object = try self.json(["schedule", "Examples/vod-interstitials.m3u8", "--json"])
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
        #expect(timeline.map { $0["kind"] as? String } == ["interstitial", "primary", "interstitial", "interstitial", "primary", "interstitial"])
        #expect(timeline.map { $0["playoutStart"] as? Double } == [0, 15, 45, 60, 80, 110])
        #expect(timeline.last?["playoutEnd"] as? Double == 120)
        #expect(timeline[1]["integratedEnd"] as? Double == 30)
        #expect(timeline[2]["integratedStart"] as? Double == timeline[2]["integratedEnd"] as? Double)
    }

    @Test func liveJoinReportsTheStartOffset() throws {
        let object = try self.json([
            "schedule", "Tests/Fixtures/playlists/seed-wwdc22-live-join-start-offset.m3u8", "--live-join", "--json",
        ])
        #expect(object["live"] as? Bool == true)
        let start = try #require(object["start"] as? [String: Any])
        #expect(start["startOffset"] as? Double == 10)
        #expect(start["event"] as? String != nil)
    }

    @Test func tableAndSVG() throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let result = try CLI.run(["schedule", "Examples/vod-interstitials.m3u8", "--svg", svg.path])
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

    @Test func playedOnceEventsAndNoInterstitials() throws {
        let played = try self.json(["schedule", "Examples/vod-interstitials.m3u8", "--json", "--played", "preroll"])
        let timeline = try #require(played["timeline"] as? [[String: Any]])
        #expect(timeline.first?["kind"] as? String == "primary")
        let off = try self.json(["schedule", "Examples/vod-interstitials.m3u8", "--json", "--no-interstitials"])
        #expect((off["timeline"] as? [[String: Any]])?.count == 1)
        let bad = try CLI.run(["schedule", "Examples/vod-interstitials.m3u8", "--start", "soon"])
        #expect(bad.status != 0)
    }
}
