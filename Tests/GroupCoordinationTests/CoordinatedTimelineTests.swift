import GroupCoordination
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct CoordinatedTimelineTests {
    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    /// Alice's item: a 5 s statutory warning at 0 and a 20 s ad at 30 s, neither of which Bob has.
    static let alice = CoordinatedTimeline(nonPrimaryRanges: [
        NonPrimaryTimeRange(identifier: "ad", start: s(30), duration: s(20)),
        NonPrimaryTimeRange(identifier: "warning", start: s(0), duration: s(5)),
    ])

    @Test func leftOutRangesDoNotCountOnTheGroupsTimeline() {
        let t = Self.alice
        #expect(t.nonPrimaryRanges.map(\.identifier) == ["warning", "ad"])
        #expect(t.coordinatedTime(of: .primary(Self.s(5))) == .zero)
        #expect(t.coordinatedTime(of: .primary(Self.s(12))) == Self.s(7))
        #expect(t.coordinatedTime(of: .primary(Self.s(30))) == Self.s(25))
        #expect(t.coordinatedTime(of: .primary(Self.s(50))) == Self.s(25))
        #expect(t.coordinatedTime(of: .primary(Self.s(61))) == Self.s(36))
        #expect(t.coordinatedDuration(ofItemDuration: Self.s(100)) == Self.s(75))
    }

    @Test func insideARangeTheParticipantStandsAtItsStart() {
        let placement = Self.alice.placement(of: .primary(Self.s(42)))
        #expect(placement?.time == Self.s(25))
        #expect(placement?.nonPrimaryRange?.identifier == "ad")
        let warning = Self.alice.placement(of: .primary(Self.s(2)))
        #expect(warning?.time == .zero)
        #expect(warning?.nonPrimaryRange?.identifier == "warning")
        #expect(Self.alice.placement(of: .primary(Self.s(20)))?.nonPrimaryRange == nil)
    }

    @Test func aCoordinatedTimeOnABoundaryLandsBeforeTheRange() {
        // The group moved to 25 s (the start of Alice's ad): Alice lands before her ad and plays it.
        #expect(Self.alice.itemPosition(at: Self.s(25)) == .primary(Self.s(30)))
        #expect(Self.alice.itemPosition(at: Self.s(25.5)) == .primary(Self.s(50.5)))
        #expect(Self.alice.itemPosition(at: .zero) == .primary(Self.s(5)))
        #expect(Self.alice.itemPosition(at: Self.s(3)) == .primary(Self.s(8)))
    }

    @Test func aSeekIntoARangeSnapsToItsStart() {
        #expect(Self.alice.snappedSeekTarget(for: Self.s(44)) == Self.s(30))
        #expect(Self.alice.snappedSeekTarget(for: Self.s(50)) == Self.s(50))
        #expect(Self.alice.snappedSeekTarget(for: Self.s(29.999)) == Self.s(29.999))
    }

    @Test func overlappingRangesMerge() {
        let t = CoordinatedTimeline(nonPrimaryRanges: [
            NonPrimaryTimeRange(identifier: "a", start: Self.s(10), duration: Self.s(10)),
            NonPrimaryTimeRange(identifier: "b", start: Self.s(15), duration: Self.s(10)),
            NonPrimaryTimeRange(identifier: "empty", start: Self.s(40), duration: .zero),
        ])
        #expect(t.nonPrimaryRanges.count == 1)
        #expect(t.nonPrimaryRanges[0].end == Self.s(25))
        #expect(t.coordinatedTime(of: .primary(Self.s(30))) == Self.s(15))
    }

    @Test func sharedInterstitialsArePlayedTogether() {
        // A rating card everyone sees (X-CONTENT-MAY-VARY="NO"), 8 s at primary 20 s, resuming at 20 s.
        let t = CoordinatedTimeline(sharedInterstitials: [
            SharedInterstitial(identifier: "rating", primaryTime: Self.s(20), duration: Self.s(8))
        ])
        #expect(t.coordinatedTime(of: .primary(Self.s(10))) == Self.s(10))
        #expect(t.coordinatedTime(of: .primary(Self.s(20))) == Self.s(20))  // before the card
        #expect(t.coordinatedTime(of: .interstitial("rating", offset: Self.s(3))) == Self.s(23))
        #expect(t.coordinatedTime(of: .primary(Self.s(21))) == Self.s(29))
        #expect(t.coordinatedTime(of: .interstitial("other", offset: .zero)) == nil)
        #expect(t.itemPosition(at: Self.s(20)) == .primary(Self.s(20)))
        #expect(t.itemPosition(at: Self.s(24)) == .interstitial("rating", offset: Self.s(4)))
        #expect(t.itemPosition(at: Self.s(28.5)) == .primary(Self.s(20.5)))
    }

    @Test func aSharedInterstitialWithAResumeOffsetSkipsThatMuchPrimary() {
        let t = CoordinatedTimeline(sharedInterstitials: [
            SharedInterstitial(
                identifier: "live-card",
                primaryTime: Self.s(20),
                duration: Self.s(8),
                resumeOffset: Self.s(8)
            )
        ])
        #expect(t.itemPosition(at: Self.s(29)) == .primary(Self.s(29)))
        #expect(t.coordinatedTime(of: .primary(Self.s(40))) == Self.s(40))
    }

    @Test func mappingBothWaysRoundTripsOutsideTheRanges() {
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<50 {
            var ranges: [NonPrimaryTimeRange] = []
            var cursor = MediaTime.zero
            for index in 0..<Int.random(in: 0...6, using: &generator) {
                cursor = cursor + MediaTime(milliseconds: Int64.random(in: 0...30_000, using: &generator))
                let length = MediaTime(milliseconds: Int64.random(in: 1...20_000, using: &generator))
                ranges.append(NonPrimaryTimeRange(identifier: "r\(index)", start: cursor, duration: length))
                cursor = cursor + length
            }
            let timeline = CoordinatedTimeline(nonPrimaryRanges: ranges.shuffled(using: &generator))
            let leftOut = ranges.reduce(MediaTime.zero) { $0 + $1.duration }
            let end = cursor + MediaTime(seconds: 10)
            #expect(timeline.coordinatedDuration(ofItemDuration: end) == end - leftOut)
            for _ in 0..<40 {
                let time = MediaTime(milliseconds: Int64.random(in: 0...end.milliseconds, using: &generator))
                guard let coordinated = timeline.coordinatedTime(of: .primary(time)) else {
                    Issue.record("no coordinated time for \(time)")
                    continue
                }
                let merged = timeline.nonPrimaryRanges
                if let range = merged.first(where: { $0.contains(time) }) {
                    #expect(timeline.itemPosition(at: coordinated) == .primary(range.start))
                } else if merged.contains(where: { $0.end == time }) {
                    // The end of a range is the same group moment as its start.
                    #expect(timeline.coordinatedTime(of: timeline.itemPosition(at: coordinated)) == coordinated)
                } else {
                    #expect(timeline.itemPosition(at: coordinated) == .primary(time))
                }
            }
        }
    }
}
