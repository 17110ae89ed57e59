import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

@Suite struct ScheduleRenderingTests {
    /// A VOD with a pre-roll, a restricted pod, a RANGE event replacing content, a negative offset
    /// and a post-roll.
    static var mixed: Schedule {
        let playlist = ScheduleFixture.uniform(count: 20, duration: 6)
        func event(_ id: String, _ time: Int, _ duration: Int, offset: MediaTime? = .zero) -> InterstitialEvent {
            var event = InterstitialEvent(identifier: id, time: MediaTime(seconds: time))
            event.duration = MediaTime(seconds: duration)
            event.resumptionOffset = offset
            event.assetURIs = ["https://ads.example.com/\(id).m3u8"]
            return event
        }
        var pre = event("preroll", 0, 8)
        pre.cue = .join
        var a = event("ad-a", 20, 15)
        a.restrictions = [.skip, .jump]
        var b = event("ad-b", 20, 10)
        b.restrictions = [.skip]
        var range = event("replace", 50, 12, offset: nil)
        range.timelineOccupancy = .range
        let recap = event("recap", 80, 6, offset: -10)
        var post = event("postroll", 0, 10)
        post.cue = .leave
        return Schedule(primary: playlist, events: [pre, a, b, range, recap, post])
    }

    @Test func writeSamples() throws {
        guard let dir = ProcessInfo.processInfo.environment["SCHEDULE_SVG_DIR"] else { return }
        for name in ["seed-wwdc22-preroll-postroll-once", "seed-wwdc21-restrict-jump", "seed-wwdc22-replace-stitched-ad", "seed-wwdc22-live-join-start-offset", "seed-wwdc23-plans-abc"] {
            let schedule = Schedule(primary: try ScheduleFixture.playlist(name))
            try schedule.svg().write(toFile: dir + "/" + name + ".svg", atomically: true, encoding: .utf8)
            print(schedule.table)
        }
        try ScheduleRenderingTests.mixed.svg().write(toFile: dir + "/mixed.svg", atomically: true, encoding: .utf8)
        print(ScheduleRenderingTests.mixed.table)
    }
}

extension ScheduleRenderingTests {
    @Test func svgIsAStandaloneDocument() throws {
        let svg = ScheduleRenderingTests.mixed.svg(width: 800)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains(">SKIP</text>") && svg.contains(">JUMP</text>"))
        #expect(svg.contains("marker-end=\"url(#arrow)\""))
        // Well-formed: every element opened is closed (self-closing or paired).
        var depth = 0
        var index = svg.startIndex
        while let open = svg[index...].firstIndex(of: "<") {
            guard let close = svg[open...].firstIndex(of: ">") else { break }
            let tag = svg[open...close]
            if tag.hasPrefix("<?") {
            } else if tag.hasPrefix("</") {
                depth -= 1
            } else if !tag.hasSuffix("/>") {
                depth += 1
            }
            #expect(depth >= 0)
            index = svg.index(after: close)
        }
        #expect(depth == 0)
        // An ID with markup characters is escaped.
        var event = InterstitialEvent(identifier: "a<b&c", time: 5)
        event.duration = 5
        let escaped = Schedule(primary: ScheduleFixture.uniform(count: 3, duration: 6), events: [event]).svg()
        #expect(escaped.contains("a&lt;b&amp;c") && !escaped.contains("a<b"))
    }

    @Test func tableHasOneRowPerItem() throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc23-plans-abc"))
        let lines = schedule.table.split(separator: "\n")
        #expect(lines.count == 2 + schedule.items.count)
        #expect(lines[0] == "VOD, primary 10 s, playout 30 s, integrated 10 s")
        #expect(lines[1].hasPrefix("#  kind          event  primary  playout  integrated  resume  restrictions"))
        #expect(lines[3] == "1  interstitial  ad1    5        5–15     5–5         5       SKIP")
    }

    @Test func jsonFollowsTheContract() throws {
        var configuration = Schedule.Configuration()
        configuration.start = .liveJoin
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc22-live-join-start-offset"),
            configuration: configuration
        )
        let data = Data(schedule.jsonDescription.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["live"] as? Bool == true)
        #expect(object["primaryDuration"] as? Double == 30)
        let events = try #require(object["events"] as? [[String: Any]])
        let event = try #require(events.first)
        for key in ["id", "startTime", "startDate", "cue", "duration", "resumeOffset", "resumeTime", "playoutLimit",
            "restrictions", "snap", "assetURI", "assetList", "timelineOccupies", "timelineStyle", "contentMayVary",
            "skipControl", "userAttributes"]
        {
            #expect(event.keys.contains(key), "events[].\(key)")
        }
        #expect(event["startDate"] as? String == "2022-06-06T18:30:05.000Z")
        #expect(event["assetURI"] is NSNull)
        let timeline = try #require(object["timeline"] as? [[String: Any]])
        #expect(timeline[0]["kind"] as? String == "interstitial")
        #expect(timeline[0]["event"] as? String == "live-pod-1201")
        #expect(timeline[0]["resumeTime"] as? Double == 20)
        for key in ["playoutStart", "playoutEnd", "integratedStart", "integratedEnd", "primaryStart"] {
            #expect(timeline[0].keys.contains(key))
        }
        #expect(timeline[1]["primaryEnd"] as? Double == 30)
        let start = try #require(object["start"] as? [String: Any])
        #expect(start["primaryTime"] as? Double == 15)
        #expect(start["event"] as? String == "live-pod-1201")
        #expect(start["startOffset"] as? Double == 10)
        // No start requested on VOD: no "start" member.
        let vod = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc23-plans-abc"))
        #expect(!vod.jsonDescription.contains("\"start\""))
        #expect(vod.jsonDescription.contains("\"userAttributes\": {}"))
    }
}
