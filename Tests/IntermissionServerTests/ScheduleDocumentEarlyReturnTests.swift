import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// The schedule document of a break that returned early, and each entry's signaling times.
@Suite(.realTime) struct ScheduleDocumentEarlyReturnTests {
    /// Three 10 s ads, the second and third with signaling that counts from the pod's start.
    static func pod() -> AssetList {
        var assets = (1...3).map { AssetList.Asset(uri: "ad\($0).m3u8", duration: 10) }
        for index in 1...2 {
            let slot = CreativeSignaling.Item(
                start: JSONNumber(index * 10),
                duration: JSONNumber(10),
                slots: index == 2 ? [CreativeSignaling.Item(start: JSONNumber(25))] : nil
            )
            assets[index].setCreativeSignaling(CreativeSignaling(payload: [slot]))
        }
        return AssetList(assets: assets)
    }

    static func entries(_ document: JSONValue) -> [JSONValue] {
        document["DATERANGES"]?.arrayValue ?? []
    }

    @Test func withoutAReturnEveryAdPlaysWhole() {
        let entries = Self.entries(
            ScheduleController.document(Self.pod(), breakID: "b", restrictions: [], snap: ["OUT", "IN"])
        )
        #expect(entries.map { $0["ID"]?.stringValue } == ["b-1", "b-2", "b-3"])
        #expect(entries.map { $0["X-SCHEDULE-OFFSET"]?.numberValue?.doubleValue } == [0, 10, 20])
        #expect(entries.map { $0["X-RESUME-OFFSET"]?.numberValue?.doubleValue } == [10, 10, 10])
        #expect(entries.allSatisfy { $0["X-PLAYOUT-LIMIT"] == nil })
        #expect(entries.map { $0["X-SNAP"]?.stringValue } == ["OUT", nil, "IN"])
    }

    /// A return 15 s in: the third ad is left out, the second stops 5 s in and resumes the primary
    /// there, and the break's `IN` moves to it.
    @Test func aReturnCutsTheAdUnderWayAndDropsTheRest() {
        let entries = Self.entries(
            ScheduleController.document(
                Self.pod(),
                breakID: "b",
                restrictions: [],
                snap: ["OUT", "IN"],
                playoutLimit: 15
            )
        )
        #expect(entries.map { $0["ID"]?.stringValue } == ["b-1", "b-2"])
        #expect(entries.map { $0["X-PLAYOUT-LIMIT"]?.numberValue?.doubleValue } == [nil, 5])
        #expect(entries.map { $0["X-RESUME-OFFSET"]?.numberValue?.doubleValue } == [10, 5])
        #expect(entries.map { $0["DURATION"]?.numberValue?.doubleValue } == [10, 10])
        #expect(entries.map { $0["X-SNAP"]?.stringValue } == ["OUT", "IN"])
    }

    /// A return where an ad starts: that ad and the rest are left out, the one before is whole.
    @Test func aReturnAtAnAdsStartDropsItWhole() {
        let entries = Self.entries(
            ScheduleController.document(Self.pod(), breakID: "b", restrictions: [], playoutLimit: 20)
        )
        #expect(entries.map { $0["ID"]?.stringValue } == ["b-1", "b-2"])
        #expect(entries.allSatisfy { $0["X-PLAYOUT-LIMIT"] == nil })
    }

    /// Signaling `start`s (of slots, pods and a pod's slots) count from each ad's own start.
    @Test func signalingCountsFromEachAdsOwnStart() throws {
        let entries = Self.entries(ScheduleController.document(Self.pod(), breakID: "b", restrictions: []))
        #expect(entries[0][CreativeSignaling.key] == nil)
        let second = try CreativeSignaling(json: try #require(entries[1][CreativeSignaling.key]))
        #expect(second.payload.map { $0.start?.doubleValue } == [0])
        let third = try CreativeSignaling(json: try #require(entries[2][CreativeSignaling.key]))
        #expect(third.payload.map { $0.start?.doubleValue } == [0])
        #expect(third.payload[0].slots?.map { $0.start?.doubleValue } == [5])
        #expect(third.payload[0].duration?.doubleValue == 10)
    }
}
