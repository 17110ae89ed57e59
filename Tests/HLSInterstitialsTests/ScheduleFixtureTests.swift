import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Seed and spec playlists under `Tests/Fixtures/playlists`, and small builders for schedule tests.
enum ScheduleFixture {
    /// The playlist `Tests/Fixtures/playlists/{name}.m3u8`.
    static func playlist(_ name: String) throws -> MediaPlaylist {
        try Fixture.playlist(name)
    }

    /// A VOD or live playlist of `count` segments of `duration` seconds, with PROGRAM-DATE-TIME
    /// on the first segment (or every segment) from `date`.
    static func uniform(
        count: Int,
        duration: MediaTime,
        targetDuration: Int? = nil,
        date: DateTime = DateTime(iso8601: "2024-01-01T00:00:00.000Z")!,
        everySegment: Bool = false,
        live: Bool = false,
        mediaSequence: Int = 0
    ) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n"
        let target = targetDuration ?? Int((duration.nanoseconds + 999_999_999) / 1_000_000_000)
        text += "#EXT-X-TARGETDURATION:\(target)\n#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)\n"
        if !live { text += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        var current = date
        for k in 0..<count {
            if k == 0 || everySegment { text += "#EXT-X-PROGRAM-DATE-TIME:\(current.iso8601)\n" }
            text += "#EXTINF:\(duration),\nseg\(k).ts\n"
            current = current + duration
        }
        if !live { text += "#EXT-X-ENDLIST\n" }
        return try! MediaPlaylist(parsing: text)
    }

    /// A date `seconds` after 2024-01-01T00:00:00Z.
    static func date(_ seconds: Double) -> DateTime {
        DateTime(iso8601: "2024-01-01T00:00:00.000Z")! + MediaTime(seconds: seconds)
    }
}

extension MediaTime {
    /// Seconds from a double, for tests.
    static func s(_ value: Double) -> MediaTime { MediaTime(seconds: value) }
}

@Suite struct ScheduleFixtureTests {
    @Test func loadsSeeds() throws {
        let playlist = try ScheduleFixture.playlist("seed-wwdc21-single-ad-at-5s")
        #expect(playlist.duration == 30)
    }
}
