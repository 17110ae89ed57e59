import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// An early return on a schedule date range (`X-PLAYOUT-LIMIT`) cuts the interstitials it
/// scheduled: what starts at or after the return goes, the one under way ends there.
@Suite struct ScheduleBookCutTests {
    static let start = DateTime(iso8601: "2025-01-01T00:02:00.000Z")!

    /// A 10 s ad at `offset` seconds from the schedule's start, resuming 10 s later.
    static func ad(_ id: String, at offset: Int, limit: MediaTime? = nil) -> InterstitialEvent {
        var event = InterstitialEvent(identifier: id, date: Self.start + MediaTime(seconds: offset))
        event.duration = 10
        event.resumptionOffset = 10
        event.playoutLimit = limit
        return event
    }

    @Test func anAdOverBeforeTheReturnIsKeptAsItIs() {
        let ad = Self.ad("a", at: 0)
        #expect(ScheduleBook.cut(ad, at: Self.start + MediaTime(seconds: 13)) == ad)
        #expect(ScheduleBook.cut(ad, at: Self.start + MediaTime(seconds: 10)) == ad)
    }

    @Test func theAdUnderWayStopsAndResumesAtTheReturn() throws {
        let cut = try #require(ScheduleBook.cut(Self.ad("b", at: 10), at: Self.start + MediaTime(seconds: 13)))
        #expect(cut.playoutLimit == 3)
        #expect(cut.resumptionOffset == 3)
        #expect(cut.duration == 10)
        // A shorter limit of its own is kept.
        let own = try #require(
            ScheduleBook.cut(Self.ad("b", at: 10, limit: 2), at: Self.start + MediaTime(seconds: 13))
        )
        #expect(own.playoutLimit == 2)
        #expect(own.resumptionOffset == 3)
    }

    @Test func anAdFromTheReturnOnDoesNotPlay() {
        #expect(ScheduleBook.cut(Self.ad("b", at: 10), at: Self.start + MediaTime(seconds: 10)) == nil)
        #expect(ScheduleBook.cut(Self.ad("b", at: 10), at: Self.start + MediaTime(seconds: 4)) == nil)
    }

    @Test func anAdWithoutADurationGetsTheLimit() throws {
        var open = InterstitialEvent(identifier: "c", date: Self.start)
        open.duration = nil
        let cut = try #require(ScheduleBook.cut(open, at: Self.start + MediaTime(seconds: 7)))
        #expect(cut.playoutLimit == 7)
        #expect(cut.resumptionOffset == nil)
    }
}
