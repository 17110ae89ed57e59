import HLSInterstitials
import HLSPlaylist
import Testing

/// The incremental update compares every event of a reload with the one before, with a faster
/// comparison than `==`.
///
/// A field that comparison forgot would leave the schedule holding the old
/// event after a reload that changes only that field; each case here changes one field.
@Suite struct ScheduleChangeDetectionTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXT-X-DATERANGE:ID="a",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",\
        DURATION=10,X-ASSET-URI="https://ads.example.com/a/main.m3u8",X-RESUME-OFFSET=0
        #EXT-X-DATERANGE:ID="b",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:18.000Z",\
        X-ASSET-LIST="https://ads.example.com/v1/asset-lists/b.json?_HLS_interstitial_id=b",\
        X-COM-EXAMPLE-BEACON="https://track.example.com/v1/imp/b"
        #EXTINF:6,
        s0.ts
        #EXTINF:6,
        s1.ts
        #EXTINF:6,
        s2.ts
        #EXTINF:6,
        s3.ts
        #EXTINF:6,
        s4.ts
        #EXT-X-ENDLIST

        """

    /// One change to the second event, by the field it touches.
    static let changes: [(String, @Sendable (inout InterstitialEvent) -> Void)] = [
        ("start", { $0.start = .time(MediaTime(seconds: 24)) }),
        ("assetURIs", { $0.assetURIs = ["https://ads.example.com/c/main.m3u8"] }),
        ("assetListURI", { $0.assetListURI = "https://ads.example.com/v1/asset-lists/b2.json" }),
        ("restrictions", { $0.restrictions = [.skip] }),
        ("resumptionOffset", { $0.resumptionOffset = MediaTime(seconds: 3) }),
        ("playoutLimit", { $0.playoutLimit = MediaTime(seconds: 5) }),
        ("cue", { $0.cue = .join }),
        ("willPlayOnce", { $0.willPlayOnce = true }),
        ("alignsStart", { $0.alignsStartWithPrimarySegmentBoundary = true }),
        ("alignsResumption", { $0.alignsResumptionWithPrimarySegmentBoundary = true }),
        ("timelineOccupancy", { $0.timelineOccupancy = .range }),
        ("supplementsPrimaryContent", { $0.supplementsPrimaryContent = true }),
        ("contentMayVary", { $0.contentMayVary = false }),
        ("duration", { $0.duration = MediaTime(seconds: 7) }),
        ("plannedDuration", { $0.plannedDuration = MediaTime(seconds: 8) }),
        ("skipControl", { $0.skipControl = SkipControl(offset: MediaTime(seconds: 2), labelID: "skip") }),
        (
            "userDefinedAttributes",
            { $0.userDefinedAttributes[0].value = .quoted("https://track.example.com/v1/imp/b2") }
        ),
        (
            "defects",
            {
                $0.defects = [
                    .init(rule: .durationValue, attribute: nil, message: "changed", hint: "a hint")
                ]
            }
        ),
        ("scheduleIdentifier", { $0.scheduleIdentifier = "schedule-2" }),
    ]

    @Test(arguments: 0..<changes.count)
    func aReloadThatChangesOneFieldReachesTheSchedule(change: Int) throws {
        let (field, apply) = Self.changes[change]
        let primary = try MediaPlaylist(parsing: Self.playlist)
        let before = InterstitialEvent.events(in: primary)
        try #require(before.count == 2 && before[1].userDefinedAttributes.count == 1)
        var after = before
        apply(&after[1])
        try #require(after[1] != before[1], "\(field): the change must change the event")
        // Text equal in bytes but from another allocation, as a fresh parse gives it.
        after[0].assetURIs = after[0].assetURIs.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        var schedule = Schedule(primary: primary, events: before)
        let update = schedule.update(primary: primary, events: after)
        #expect(update.firstChangedItem != nil, "\(field)")
        #expect(schedule.event("b")?.event == after[1], "\(field)")
        #expect(schedule == Schedule(primary: primary, events: after), "\(field)")
    }

    @Test func aReloadThatChangesNothingChangesNothing() throws {
        let primary = try MediaPlaylist(parsing: Self.playlist)
        var schedule = Schedule(primary: primary, events: InterstitialEvent.events(in: primary))
        let update = schedule.update(primary: primary, events: InterstitialEvent.events(in: primary))
        #expect(update == ScheduleUpdate(firstChangedItem: nil, isRebuilt: false))
    }
}
