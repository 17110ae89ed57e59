import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The schedule's JSON contract (the table and the SVG picture are the CLI's: see
/// `ScheduleCommandTests` in IntermissionCLITests).
@Suite struct ScheduleRenderingTests {
    @Test func jsonFollowsTheContract() throws {
        var configuration = Schedule.Configuration()
        configuration.start = .liveJoin
        let schedule = Schedule(
            primary: try ScheduleFixture.playlist("seed-wwdc22-live-join-start-offset"),
            configuration: configuration
        )
        let data = Data(schedule.jsonDescription.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 1)
        #expect(object["live"] as? Bool == true)
        #expect(object["primaryDuration"] as? Double == 30)
        let events = try #require(object["events"] as? [[String: Any]])
        let event = try #require(events.first)
        for key in [
            "id", "startTime", "startDate", "cue", "duration", "resumeOffset", "resumeTime", "playoutLimit",
            "restrictions", "snap", "assetURI", "assetList", "timelineOccupies", "timelineStyle", "contentMayVary",
            "skipControl", "userAttributes",
        ] {
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
