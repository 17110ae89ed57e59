import Foundation
import IntermissionTestSupport
import Testing

/// `intermission schedule` and `intermission validate` read scheduled date ranges (Appendix H of
/// Apple's preliminary WWDC26 draft) from files next to the playlist and over HTTP.
@Suite(.timeLimit(.minutes(1)), .realTime)
struct ScheduleDocumentCommandTests {
    /// A VOD playlist of 6 s segments from PDT 2024-01-01T00:00:00Z with `EXT-X-DATERANGE` tags
    /// of the attributes given.
    static func playlist(segments: Int, schedules: [String]) -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z",
        ]
        lines += schedules.map { "#EXT-X-DATERANGE:" + $0 }
        for k in 0..<segments { lines += ["#EXTINF:6,", "s\(k).ts"] }
        return (lines + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n")
    }

    func json(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    }

    /// flat.m3u8's schedule "break" starts at 10 s (PDT 00:00:00): ad-1 at offset 0, ad-2 at
    /// offset 30, ad-3 at START-DATE 00:01:00, each tagged with the schedule's ID.
    @Test func flatScheduleFromAFileNextToThePlaylist() async throws {
        let object = try await self.json(["schedule", "Tests/Fixtures/schedules/flat.m3u8", "--json"])
        let events = try #require(object["events"] as? [[String: Any]])
        try #require(events.map { $0["id"] as? String } == ["ad-1", "ad-2", "ad-3"])
        #expect(events.map { $0["startTime"] as? Double } == [10, 40, 60])
        #expect(events.allSatisfy { $0["scheduleIdentifier"] as? String == "break" })
        #expect(events[1]["restrictions"] as? [String] == ["SKIP", "JUMP"])
        let skip = try #require(events[1]["skipControl"] as? [String: Any])
        #expect(skip["offset"] as? Double == 5)
        #expect(skip["labelId"] as? String == "SKIP_AD")
        let none = try await self.json(["schedule", "Tests/Fixtures/schedules/flat.m3u8", "--json", "--no-schedules"])
        #expect((none["events"] as? [[String: Any]])?.isEmpty == true)
    }

    /// A playlist event keeps `scheduleIdentifier` null in the JSON.
    @Test func playlistEventsHaveNoScheduleIdentifier() async throws {
        let object = try await self.json(["schedule", "Tests/Fixtures/schedules/flat-inline.m3u8", "--json"])
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0["scheduleIdentifier"] is NSNull })
    }

    /// The nested schedule "pod" of mixed.json carries its own ID (the nearest schedule).
    @Test func nestedScheduleEventsCarryTheNestedID() async throws {
        let object = try await self.json(["schedule", "Tests/Fixtures/schedules/mixed.m3u8", "--json"])
        let events = try #require(object["events"] as? [[String: Any]])
        let ids = Dictionary(
            uniqueKeysWithValues: events.map { ($0["id"] as? String ?? "", $0["scheduleIdentifier"] as? String) }
        )
        #expect(ids["pre"] == "show")
        #expect(ids["pod-ad-1"] == "pod")
        #expect(ids["pod-ad-2"] == "pod")
    }

    /// The table gets a `schedule` column, and the SVG names the schedule with each event.
    @Test func tableAndSVGShowTheSchedule() async throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("sched-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let result = try await CLI.run(["schedule", "Tests/Fixtures/schedules/flat.m3u8", "--svg", svg.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        let header = try #require(lines.first { $0.hasPrefix("#") })
        #expect(header.split(separator: " ").contains("schedule"))
        let row = try #require(lines.first { $0.contains(" ad-2 ") })
        #expect(row.split(separator: " ").contains("break"))
        let picture = try String(contentsOf: svg, encoding: .utf8)
        #expect(picture.contains("break/ad-2"))
        // A playlist without schedules keeps the old table.
        let plain = try await CLI.run(["schedule", "Examples/vod-interstitials.m3u8"])
        #expect(!String(decoding: plain.stdout, as: UTF8.self).contains("schedule"))
    }

    /// Over HTTP: the playlist and its schedules come from a loopback server; relative `X-URI`s
    /// resolve against the playlist's and the document's URLs.
    @Test func schedulesOverHTTP() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sched-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("s"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let playlist = Self.playlist(
            segments: 3,
            schedules: [
                #"ID="outer",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:06.000Z",X-URI="s/outer.json""#
            ]
        )
        try Data(playlist.utf8).write(to: folder.appendingPathComponent("main.m3u8"))
        try Data(
            #"{"DATERANGES":[{"CLASS":"com.apple.hls.daterange-schedule","ID":"inner","X-SCHEDULE-OFFSET":3,"X-URI":"inner.json"}]}"#
                .utf8
        ).write(to: folder.appendingPathComponent("s/outer.json"))
        try Data(
            #"{"DATERANGES":[{"CLASS":"com.apple.hls.interstitial","ID":"web-ad","X-SCHEDULE-OFFSET":2,"X-ASSET-URI":"ad.m3u8","X-RESUME-OFFSET":0}]}"#
                .utf8
        ).write(to: folder.appendingPathComponent("s/inner.json"))
        let server = try #require(await PageServer(directory: folder))
        defer { server.stop() }
        let port = server.port
        let base = "http://127.0.0.1:\(port)"
        let object = try await self.json(["schedule", base + "/main.m3u8", "--json"])
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(events.map { $0["id"] as? String } == ["web-ad"])
        // 6 s + 3 s + 2 s.
        #expect(events.first?["startTime"] as? Double == 11)
        #expect(events.first?["scheduleIdentifier"] as? String == "inner")
        #expect(events.first?["assetURI"] as? String == base + "/s/ad.m3u8")
    }

    /// `validate` reads the schedule documents and reports their rules with the document and a
    /// JSON pointer; an unreadable document is an error with its path.
    @Test func validateReportsDocumentRulesWithJSONLocations() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sched-val-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let playlist = Self.playlist(
            segments: 2,
            schedules: [
                #"ID="s1",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:06.000Z",X-URI="bad.json""#,
                #"ID="s2",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:07.000Z",X-URI="missing.json""#,
            ]
        )
        try Data(playlist.utf8).write(to: folder.appendingPathComponent("main.m3u8"))
        // The second entry has both START-DATE and X-SCHEDULE-OFFSET.
        try Data(
            #"{"DATERANGES":[{"CLASS":"com.apple.hls.interstitial","ID":"ok","X-SCHEDULE-OFFSET":1,"X-ASSET-URI":"a.m3u8"},{"CLASS":"com.apple.hls.interstitial","ID":"both","X-SCHEDULE-OFFSET":1,"START-DATE":"2024-01-01T00:00:08.000Z","X-ASSET-URI":"b.m3u8"}]}"#
                .utf8
        ).write(to: folder.appendingPathComponent("bad.json"))
        let path = folder.appendingPathComponent("main.m3u8").path
        let result = try await CLI.run(["validate", path, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        let documentIssues = array.filter { $0["pointer"] != nil }
        let both = try #require(documentIssues.first { ($0["pointer"] as? String)?.hasPrefix("/DATERANGES/1") == true })
        #expect(both["file"] as? String == folder.appendingPathComponent("bad.json").path)
        #expect((both["rule"] as? String)?.hasPrefix("INT-SCHEDULE-") == true)
        #expect(both["severity"] as? String == "error")
        #expect(!documentIssues.contains { ($0["pointer"] as? String)?.hasPrefix("/DATERANGES/0") == true })
        let missing = try #require(documentIssues.first { $0["rule"] as? String == "INT-SCHEDULE-UNREADABLE" })
        #expect(missing["file"] as? String == folder.appendingPathComponent("missing.json").path)
        // Text: document#pointer: severity[RULE]: message (hint).
        let text = try await CLI.run(["validate", path])
        let output = String(decoding: text.stdout, as: UTF8.self)
        #expect(output.contains(folder.appendingPathComponent("bad.json").path + "#/DATERANGES/1"))
    }
}
