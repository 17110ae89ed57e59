import GroupCoordination
import HLSPlaylist
import Testing

@Suite struct CompatibilityTests {
    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    @Test func vodParticipantsWithDifferentAdsButTheSameContentAreCompatible() {
        let bob = ParticipantDescription(isLive: false, itemDuration: Self.s(600))
        let alice = ParticipantDescription(
            isLive: false,
            itemDuration: Self.s(645.05),
            nonPrimaryRanges: [
                NonPrimaryTimeRange(identifier: "warning", start: .zero, duration: Self.s(15)),
                NonPrimaryTimeRange(identifier: "ad", start: Self.s(100), duration: Self.s(30)),
            ]
        )
        #expect(alice.contentDuration == Self.s(600.05))
        #expect(CompatibilityCheck().reasons(joining: alice, group: bob).isEmpty)
        #expect(CompatibilityCheck().reasons(joining: bob, group: alice).isEmpty)
    }

    @Test func differentContentIsRefusedWithTheDurations() {
        let group = ParticipantDescription(isLive: false, itemDuration: Self.s(600))
        let other = ParticipantDescription(
            isLive: false,
            itemDuration: Self.s(630),
            nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "ad", start: Self.s(10), duration: Self.s(20))]
        )
        let reasons = CompatibilityCheck().reasons(joining: other, group: group)
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("610.000 s here") == true)
        #expect(reasons.first?.contains("600.000 s in the group") == true)
        // A wider tolerance lets it in.
        #expect(CompatibilityCheck(tolerance: Self.s(15)).reasons(joining: other, group: group).isEmpty)
    }

    @Test func liveStitchedBreaksMustLastAsLong() {
        let group = ParticipantDescription(
            isLive: true,
            nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "break-7", start: Self.s(60), duration: Self.s(30))]
        )
        let same = ParticipantDescription(
            isLive: true,
            nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "break-7", start: Self.s(12), duration: Self.s(30.05))]
        )
        let longer = ParticipantDescription(
            isLive: true,
            nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "break-7", start: Self.s(12), duration: Self.s(45))]
        )
        let unrelated = ParticipantDescription(
            isLive: true,
            nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "break-8", start: Self.s(12), duration: Self.s(45))]
        )
        #expect(CompatibilityCheck().reasons(joining: same, group: group).isEmpty)
        #expect(CompatibilityCheck().reasons(joining: unrelated, group: group).isEmpty)
        let reasons = CompatibilityCheck().reasons(joining: longer, group: group)
        #expect(reasons == ["live stitched break \"break-7\" lasts 45.000 s here and 30.000 s in the group"])
    }

    @Test func liveAndVODDoNotMix() {
        let live = ParticipantDescription(isLive: true)
        let vod = ParticipantDescription(isLive: false, itemDuration: Self.s(60))
        #expect(
            CompatibilityCheck().reasons(joining: live, group: vod) == [
                "the group plays a VOD stream and this participant a live one"
            ]
        )
        #expect(CompatibilityCheck().reasons(joining: ParticipantDescription(isLive: false), group: vod).count == 1)
    }
}
