import Foundation
import IntermissionTestSupport
import Testing

@Suite(.realTime) struct ValidateCommandTests {
    @Test(arguments: ["Examples/vod-interstitials.m3u8", "Examples/live-window.m3u8", "Examples/airplay-plans.m3u8"])
    func examplesHaveNoErrors(_ path: String) async throws {
        let result = try await CLI.run(["validate", path])
        #expect(result.status == 0, "\(String(decoding: result.stdout, as: UTF8.self))")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.allSatisfy { !$0.contains(": error[") })
    }

    @Test func reportsErrorsWithLocationRuleAndExitOne() async throws {
        let path = "Tests/Fixtures/invalid/cue-pre-and-post.m3u8"
        let result = try await CLI.run(["validate", path])
        #expect(result.status == 1)
        let text = String(decoding: result.stdout, as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.contains("error[") })
        // file:line:col: severity[RULE]: message
        let parts = line.split(separator: ":", maxSplits: 3)
        #expect(parts[0] == Substring(path))
        #expect(Int(parts[1]) ?? 0 > 1)
        #expect(Int(parts[2]) ?? 0 >= 1)
        #expect(line.contains("error[INT-CUE-PRE-POST]"))
        let json = try await CLI.run(["validate", path, "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        #expect(array.contains { $0["rule"] as? String == "INT-CUE-PRE-POST" && $0["severity"] as? String == "error" })
    }

    @Test func checksEveryMediaPlaylistOfAPresentation() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tag =
            #"#EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2025-01-01T00:00:04.000Z",DURATION=10,X-ASSET-URI="https://ads.example/ad1.m3u8",X-RESUME-OFFSET=0"#
        func media(_ withTag: Bool) -> String {
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
                + (withTag ? tag + "\n" : "") + "#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n"
        }
        try media(true).write(to: dir.appendingPathComponent("hi.m3u8"), atomically: true, encoding: .utf8)
        try media(false).write(to: dir.appendingPathComponent("lo.m3u8"), atomically: true, encoding: .utf8)
        let main =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nlo.m3u8\n"
        try main.write(to: dir.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        let result = try await CLI.run(["validate", dir.appendingPathComponent("main.m3u8").path])
        #expect(result.status == 1)
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("error[INT-PRESENTATION-COVERAGE]"))
        // The tag in both, but with another value in one: not the same set.
        try media(true).replacingOccurrences(of: "DURATION=10", with: "DURATION=12")
            .write(to: dir.appendingPathComponent("lo.m3u8"), atomically: true, encoding: .utf8)
        let mismatch = try await CLI.run(["validate", dir.appendingPathComponent("main.m3u8").path])
        #expect(mismatch.status == 1)
        #expect(String(decoding: mismatch.stdout, as: UTF8.self).contains("error[INT-PRESENTATION-MISMATCH]"))
        // With the same tag in both, the presentation is consistent.
        try media(true).write(to: dir.appendingPathComponent("lo.m3u8"), atomically: true, encoding: .utf8)
        let fixed = try await CLI.run(["validate", dir.appendingPathComponent("main.m3u8").path])
        #expect(fixed.status == 0, "\(String(decoding: fixed.stdout, as: UTF8.self))")
    }
}

@Suite(.realTime) struct InsertCommandTests {
    static let plain =
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n# keep me\n#EXTINF:4.000,\na.ts\n#EXTINF:4.000,\nb.ts\n#EXTINF:4.000,\nc.ts\n#EXT-X-ENDLIST\n"

    @Test func insertsAValidTagAndAddsProgramDateTime() async throws {
        let result = try await CLI.run(
            [
                "insert", "-", "--id", "ad1", "--start", "5", "--asset-uri", "https://ads.example/ad1/main.m3u8",
                "--duration", "15", "--resume-offset", "0", "--restrict", "SKIP,JUMP", "--cue", "ONCE",
                "--attribute", "X-COM-EXAMPLE-BEACON=abc",
            ],
            stdin: Array(Self.plain.utf8)
        )
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: result.stdout, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let tag = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:") })
        #expect(tag.contains(#"ID="ad1""#))
        #expect(tag.contains(#"START-DATE="2000-01-01T00:00:05.000Z""#))
        #expect(tag.contains(#"X-RESTRICT="SKIP,JUMP""#))
        #expect(tag.contains(#"CUE="ONCE""#))
        #expect(tag.contains(#"X-COM-EXAMPLE-BEACON="abc""#))
        // The tag sits among the tags of the segment that plays at 5 s (b.ts).
        let tagIndex = lines.firstIndex(of: tag)!
        #expect(lines[tagIndex...].first { !$0.hasPrefix("#") } == "b.ts")
        // Every original line is still there, in order.
        var remaining = Self.plain.split(separator: "\n").map(String.init)[...]
        for line in lines where remaining.first == line { remaining = remaining.dropFirst() }
        #expect(remaining.isEmpty)
        #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:2000-01-01T00:00:00.000Z\n"))
        // And the result validates.
        let check = try await CLI.run(["validate", "-"], stdin: result.stdout)
        #expect(check.status == 0, "\(String(decoding: check.stdout, as: UTF8.self))")
    }

    @Test func refusesDuplicateIDAndBadArguments() async throws {
        let once = try await CLI.run(
            ["insert", "-", "--id", "x", "--start", "1", "--asset-list", "list.json"],
            stdin: Array(Self.plain.utf8)
        )
        #expect(once.status == 0, "\(once.stderr)")
        let twice = try await CLI.run(
            ["insert", "-", "--id", "x", "--start", "2", "--asset-list", "list.json"],
            stdin: once.stdout
        )
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("x"))
        let both = try await CLI.run([
            "insert", "-", "--id", "y", "--start", "1", "--asset-list", "l.json", "--asset-uri", "https://a/b.m3u8",
        ])
        #expect(both.status != 0)
        let relative = try await CLI.run(
            ["insert", "-", "--id", "y", "--start", "1", "--asset-uri", "ad.m3u8"],
            stdin: Array(Self.plain.utf8)
        )
        #expect(relative.status == 1)
    }

    @Test func writesTheSameTagIntoEveryMediaPlaylist() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("insert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("v"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.plain.write(to: dir.appendingPathComponent("v/hi.m3u8"), atomically: true, encoding: .utf8)
        try Self.plain.replacingOccurrences(of: ".ts", with: "-lo.ts")
            .write(to: dir.appendingPathComponent("v/lo.m3u8"), atomically: true, encoding: .utf8)
        let main =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nv/hi.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nv/lo.m3u8\n"
        try main.write(to: dir.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
        let result = try await CLI.run([
            "insert", dir.appendingPathComponent("main.m3u8").path, "--id", "mid", "--start", "2025-01-01T00:00:06Z",
            "--asset-list", "https://ads.example/list.json", "-o", dir.appendingPathComponent("out").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let hi = try String(contentsOf: dir.appendingPathComponent("out/v/hi.m3u8"), encoding: .utf8)
        let lo = try String(contentsOf: dir.appendingPathComponent("out/v/lo.m3u8"), encoding: .utf8)
        let tagHi = hi.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") }
        let tagLo = lo.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") }
        #expect(tagHi.count == 1)
        #expect(tagHi == tagLo)
        let check = try await CLI.run(["validate", dir.appendingPathComponent("main.m3u8").path])
        #expect(check.status == 0)
    }
}

/// `intermission validate --profile podcast`, as a user runs it on the podcast fixtures: each bad
/// fixture reports its rule at file:line:col, only with the profile; the good episode is clean.
@Suite(.realTime) struct ValidatePodcastProfileTests {
    static let rules = [
        "INT-PODCAST-ATTRIBUTE-REQUIRED", "INT-PODCAST-CUE-POST", "INT-PODCAST-NOT-VOD", "INT-PODCAST-SNAP",
        "INT-PODCAST-SEGMENT-BOUNDARY", "INT-PODCAST-AUDIO-ONLY-VARIANT",
    ]

    @Test(arguments: Self.rules)
    func eachBadFixtureReportsItsRuleOnlyWithTheProfile(_ rule: String) async throws {
        let path = "Tests/Fixtures/podcast/\(rule).bad.m3u8"
        let result = try await CLI.run(["validate", "--profile", "podcast", path])
        let text = String(decoding: result.stdout, as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.contains("[\(rule)]") }, "\(text)")
        let parts = line.split(separator: ":", maxSplits: 3)
        #expect(parts[0] == Substring(path))
        #expect(Int(parts[1]) ?? 0 >= 1 && Int(parts[2]) ?? 0 >= 1, "\(line)")
        #expect(result.status == (line.contains(": error[") ? 1 : 0))
        let plain = try await CLI.run(["validate", path])
        #expect(!String(decoding: plain.stdout, as: UTF8.self).contains("INT-PODCAST"))
    }

    @Test(arguments: ["Tests/Fixtures/podcast/episode.m3u8", "Tests/Fixtures/podcast/episode-audio.m3u8"])
    func theGoodEpisodeIsClean(_ path: String) async throws {
        let result = try await CLI.run(["validate", "--profile", "podcast", path])
        #expect(result.status == 0)
        #expect(!String(decoding: result.stdout, as: UTF8.self).contains("INT-PODCAST"))
    }

    @Test func anUnknownProfileIsRefused() async throws {
        let result = try await CLI.run(["validate", "--profile", "radio", "Tests/Fixtures/podcast/episode.m3u8"])
        #expect(result.status == 64)
    }
}
