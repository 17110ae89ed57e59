import AdInsertion
import HLSPlaylist
import Testing

@Suite struct InMemoryTrackingStoreTests {
    private func beacon(
        _ viewer: String,
        slot: Int,
        _ event: TrackingEvent,
        creative: String,
        plan: ViewerPlan = .a
    )
        -> Beacon
    {
        Beacon(
            key: BeaconKey(viewer: viewer, scope: "vod-demo", breakID: "mid", slot: slot, event: event),
            creativeID: creative,
            plan: plan,
            receivedAt: DateTime(millisecondsSince1970: 0)
        )
    }

    @Test func theFirstBeaconIsStoredAndCopiesAreCountedAsDuplicates() async throws {
        let store = InMemoryTrackingStore()
        let first = try await store.record(self.beacon("v", slot: 0, .impression, creative: "red"))
        let again = try await store.record(self.beacon("v", slot: 0, .impression, creative: "red"))
        let third = try await store.record(self.beacon("v", slot: 0, .impression, creative: "red"))
        #expect(first == BeaconRecording(isNew: true, duplicates: 0))
        #expect(again == BeaconRecording(isNew: false, duplicates: 1))
        #expect(third == BeaconRecording(isNew: false, duplicates: 2))
        // Another slot, event or viewer is another beacon.
        #expect(try await store.record(self.beacon("v", slot: 1, .impression, creative: "green")).isNew)
        #expect(try await store.record(self.beacon("v", slot: 0, .start, creative: "red")).isNew)
        #expect(try await store.record(self.beacon("w", slot: 0, .impression, creative: "red", plan: .c)).isNew)
        let lines = try await store.beaconCounts(.breakOf(scope: "vod-demo", breakID: "mid"))
        #expect(
            lines.map { "\($0.creativeID) \($0.plan.rawValue) \($0.event.rawValue) \($0.beacons) \($0.duplicates)" }
                == [
                    "green A impression 1 0", "red A impression 1 2", "red A start 1 0", "red C impression 1 0",
                ]
        )
        let red = try await store.beaconCounts(.creative("red"))
        #expect(red.count == 3 && red.allSatisfy { $0.scope == "*" && $0.breakID == "*" })
        #expect(try await store.beaconCounts(.breakOf(scope: "vod-demo", breakID: "other")).isEmpty)
    }

    @Test func eventsKeepVASTNamesAndQuartileFractions() {
        #expect(
            TrackingEvent.allCases.map(\.rawValue) == [
                "impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "clickTracking",
                "creativeView", "progress", "skip", "pause", "resume", "mute", "unmute", "error",
            ]
        )
        #expect(
            TrackingEvent.allCases.map(\.fraction) == [
                0, 0, 0.25, 0.5, 0.75, 1, nil, 0, nil, nil, nil, nil, nil, nil, nil,
            ]
        )
    }
}
