import Foundation
import GroupCoordination
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct StitchedRangesTests {
    static func playlist(_ name: String) throws -> MediaPlaylist {
        try MediaPlaylist(parsing: Fixture(name: "playlists/\(name)").text)
    }

    @Test func dateRangeMarkersSpanTheirStatedDurationAcrossDiscontinuities() throws {
        let playlist = try Self.playlist("stitched-ads-vod.m3u8")
        let found = StitchedRanges.find(in: playlist)
        #expect(found.map(\.range.identifier) == ["ad-1", "ad-2"])
        // ad-1: 6 + 3 s, a discontinuity, 6 s: one 15 s break as its DURATION says.
        #expect(found[0].range.start == MediaTime(seconds: 12))
        #expect(found[0].range.duration == MediaTime(seconds: 15))
        // ad-2 states no duration: it ends at the next discontinuity.
        #expect(found[1].range.start == MediaTime(seconds: 39))
        #expect(found[1].range.duration == MediaTime(seconds: 6))
        #expect(found.allSatisfy { !$0.isOpen })
        // What every participant shares: 12 + 12 + 4.5 s of content.
        let timeline = CoordinatedTimeline(nonPrimaryRanges: found.map(\.range))
        #expect(timeline.coordinatedDuration(ofItemDuration: playlist.duration) == MediaTime(seconds: 28.5))
    }

    @Test func cueOutAndCueInMarkALiveBreakAndAnOpenOne() throws {
        let playlist = try Self.playlist("stitched-ads-live.m3u8")
        let found = StitchedRanges.find(in: playlist)
        #expect(found.map(\.range.identifier) == ["cue-101", "cue-105"])
        #expect(found[0].range.start == MediaTime(seconds: 6))
        #expect(found[0].range.duration == MediaTime(seconds: 12))
        #expect(!found[0].isOpen)
        #expect(found[1].range.start == MediaTime(seconds: 30))
        #expect(found[1].isOpen)
        let withoutCues = StitchedRanges.find(in: playlist, options: .init(usesCueOutTags: false))
        #expect(withoutCues.isEmpty)
    }

    @Test func theTalksPlaylistTakesRangesTheAppNames() throws {
        // The SharePlay talk's VOD has no markers: the app knows its ads, here by the PDT of each
        // break, turned into date-range IDs of a copy with markers added.
        var text = try Self.playlist("seed-shareplay-vod-stitched-ads-discontinuity.m3u8").serializedText
        text = text.replacingFirst(
            "#EXT-X-PROGRAM-DATE-TIME:2022-06-06T20:00:39.039Z\n",
            with: "#EXT-X-PROGRAM-DATE-TIME:2022-06-06T20:00:39.039Z\n"
                + "#EXT-X-DATERANGE:ID=\"break-1\",START-DATE=\"2022-06-06T20:00:39.039Z\",DURATION=45.045\n"
        )
        let playlist = try MediaPlaylist(parsing: text)
        let found = StitchedRanges.find(in: playlist, options: .init(dateRangeIDs: ["break-1"]))
        #expect(found.count == 1)
        #expect(found[0].range.start == MediaTime(seconds: 39.039))
        #expect(found[0].range.duration == MediaTime(seconds: 45.045))  // both ads: 15.015 + 30.03
        #expect(StitchedRanges.find(in: playlist).isEmpty)  // no SCTE35-OUT, no CUE-OUT: not a marker
    }

    @Test func interstitialsAreNeverStitchedRanges() throws {
        let playlist = try Self.playlist("seed-wwdc21-replace-stitched-ad.m3u8")
        #expect(StitchedRanges.find(in: playlist).isEmpty)
    }

    @Test func cueOutDurationsAreReadStrictly() throws {
        let base =
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXT-X-DISCONTINUITY\n#EXT-X-CUE-OUT:VALUE\n"
            + "#EXTINF:6,\nb.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:6,\nc.ts\n#EXT-X-ENDLIST\n"
        for value in [
            "DURATION=nan", "DURATION=1e308", "DURATION=-5", "9223372036854775807", "", "BOGUS=12", "DURATION=12abc",
        ] {
            let playlist = try MediaPlaylist(parsing: base.replacingFirst("VALUE", with: value))
            let found = StitchedRanges.find(in: playlist)
            // No usable duration: the range ends at the next discontinuity.
            #expect(found.count == 1, "\(value)")
            #expect(found.first?.range.duration == MediaTime(seconds: 6), "\(value)")
        }
    }
}

extension MediaPlaylist {
    var serializedText: String { String(decoding: self.serialized(), as: UTF8.self) }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = self.range(of: target) else { return self }
        return self.replacingCharacters(in: range, with: replacement)
    }
}
