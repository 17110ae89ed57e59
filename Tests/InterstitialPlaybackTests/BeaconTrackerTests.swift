import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The beacon decisions as a value: the readings of slot starts, joins, clamping to the asset's
/// real end, pods, and hostile numbers.
@Suite struct BeaconTrackerTests {
    /// Signaling from JSON text.
    static func signaling(_ text: String) throws -> CreativeSignaling {
        try CreativeSignaling(json: try JSONValue.parse(text))
    }

    /// A slot of `duration` at `start` with impression, start, the quartiles and complete (no offsets).
    static func slot(start: String, duration: String = "10", ad: String = "ad") -> String {
        let types = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
        let tracking = types.map { "{\"type\":\"\($0)\",\"urls\":[\"/\(ad)/\($0)\"]}" }.joined(separator: ",")
        return "{\"type\":\"linear\",\"start\":\(start),\"duration\":\(duration),\"tracking\":[\(tracking)]}"
    }

    static func envelope(_ slots: [String], type: String = "slot") -> String {
        "{\"version\":2,\"type\":\"\(type)\",\"payload\":[" + slots.joined(separator: ",") + "]}"
    }

    /// The URLs that fire while the asset's playhead moves through `positions`.
    static func walk(
        _ tracker: inout BeaconTracker,
        asset: Int = 0,
        _ positions: [Double],
        duration: Double? = nil
    )
        -> [String]
    {
        positions.flatMap { position in
            tracker.advance(
                eventID: "e",
                asset: asset,
                position: MediaTime(seconds: position),
                duration: duration.map { MediaTime(seconds: $0) }
            ).map(\.url)
        }
    }

    @Test func typesWithoutOffsetsFireAtTheirFractionOfTheSlot() throws {
        var tracker = BeaconTracker()
        tracker.listLoaded(eventID: "e", assets: [(try Self.signaling(Self.envelope([Self.slot(start: "0")])), .zero)])
        #expect(Self.walk(&tracker, [0]) == ["/ad/impression", "/ad/start"])
        #expect(tracker.nextMoment(eventID: "e", asset: 0, after: .zero, duration: nil) == MediaTime(seconds: 2.5))
        #expect(Self.walk(&tracker, [2.4]).isEmpty)
        #expect(Self.walk(&tracker, [2.5, 5.1]) == ["/ad/firstQuartile", "/ad/midpoint"])
        #expect(Self.walk(&tracker, [9.99, 10, 10]) == ["/ad/thirdQuartile", "/ad/complete"])
        // Nothing twice, even if the playhead comes back.
        #expect(Self.walk(&tracker, [0, 10]).isEmpty)
    }

    /// DURATION is informational: an asset that really lasts 9.6 s fires `complete` at its end.
    @Test func momentsPastTheRealEndAreClampedToIt() throws {
        var tracker = BeaconTracker()
        tracker.listLoaded(eventID: "e", assets: [(try Self.signaling(Self.envelope([Self.slot(start: "0")])), .zero)])
        _ = Self.walk(&tracker, [0, 8], duration: 9.6)
        #expect(Self.walk(&tracker, [9.6], duration: 9.6) == ["/ad/complete"])
    }

    /// The second asset's slot written with the interstitial's clock (start 10) and one written
    /// with the asset's own (start 0) both fire from the second asset's start.
    @Test func slotStartsCountFromTheInterstitialOrTheAsset() throws {
        for start in ["10", "0"] {
            var tracker = BeaconTracker()
            let second = try Self.signaling(Self.envelope([Self.slot(start: start, ad: "b")]))
            tracker.listLoaded(eventID: "e", assets: [(nil, .zero), (second, MediaTime(seconds: 10))])
            #expect(Self.walk(&tracker, asset: 0, [0, 5]).isEmpty)
            #expect(Self.walk(&tracker, asset: 1, [0]) == ["/b/impression", "/b/start"], "start \(start)")
            #expect(Self.walk(&tracker, asset: 1, [2.5]) == ["/b/firstQuartile"], "start \(start)")
        }
    }

    /// A live join 6 s into the slot: its impression fires (the ad is shown), the moments it
    /// jumped over do not; the rest fire as reached.
    @Test func aJoinFiresTheImpressionOfTheSlotItLandsInOnly() throws {
        var tracker = BeaconTracker()
        let two = try Self.signaling(Self.envelope([Self.slot(start: "0", ad: "a"), Self.slot(start: "10", ad: "b")]))
        tracker.listLoaded(eventID: "e", assets: [(two, .zero)])
        #expect(Self.walk(&tracker, [6]) == ["/a/impression"])
        #expect(Self.walk(&tracker, [7.5, 10]) == ["/a/thirdQuartile", "/a/complete", "/b/impression", "/b/start"])
    }

    /// A pod envelope: the pod's own podStart/podEnd and each slot's events.
    @Test func podsFireTheirOwnEventsAndTheirSlots() throws {
        let pod = """
            {"start":0,"duration":20,"tracking":[{"type":"podStart","urls":["/pod/start"]},{"type":"podEnd","urls":["/pod/end"]}],
             "slots":[\(Self.slot(start: "0", ad: "a")),\(Self.slot(start: "10", ad: "b"))]}
            """
        var tracker = BeaconTracker()
        tracker.listLoaded(eventID: "e", assets: [(try Self.signaling(Self.envelope([pod], type: "pod")), .zero)])
        #expect(Self.walk(&tracker, [0]) == ["/pod/start", "/a/impression", "/a/start"])
        let rest = Self.walk(&tracker, [20])
        #expect(rest.first == "/a/firstQuartile")
        #expect(rest.last == "/pod/end")
        #expect(rest.count == 4 + 6 + 1)
    }

    /// Offsets that are not usable times (negative, huge) never crash: a negative one is untimed,
    /// a huge one is clamped to the asset's end.
    @Test func hostileNumbersAreBounded() throws {
        let text = """
            {"version":2,"type":"slot","payload":[{"start":-5,"duration":1e308,"tracking":[
             {"type":"impression","offset":-1,"urls":["/neg"]},{"type":"midpoint","offset":1e308,"urls":["/huge"]},
             {"type":"complete","urls":["/end"]}]}]}
            """
        var tracker = BeaconTracker()
        tracker.listLoaded(eventID: "e", assets: [(try Self.signaling(text), .zero)])
        // The negative offset falls back to the type's moment (impression: the start).
        #expect(Self.walk(&tracker, [0], duration: 10) == ["/neg"])
        #expect(Self.walk(&tracker, [10], duration: 10) == ["/huge", "/end"])
    }

    @Test func skipsFireTheCurrentSlotsSkipOnceAndEndTheEvent() throws {
        let text = """
            {"payload":[{"start":0,"duration":10,"tracking":[{"type":"skip","urls":["/a/skip"]},{"type":"complete","urls":["/a/end"]}]},
             {"start":10,"duration":10,"tracking":[{"type":"skip","urls":["/b/skip"]}]}]}
            """
        var tracker = BeaconTracker()
        tracker.listLoaded(eventID: "e", assets: [(try Self.signaling(text), .zero)])
        _ = Self.walk(&tracker, [0, 12])
        #expect(tracker.skipped(eventID: "e").map(\.url) == ["/b/skip"])
        #expect(tracker.skipped(eventID: "e").isEmpty)
        #expect(Self.walk(&tracker, [20]).isEmpty)
    }

    @Test func macrosAreFilled() {
        var tracker = BeaconTracker()
        let filled = tracker.fillMacros(
            "/e?c=[ERRORCODE]&cb=[CACHEBUSTING]&x=[CACHEBUSTING]&t=[TIMESTAMP]",
            errorCode: 405
        )
        let parts = filled.split(separator: "&")
        #expect(parts[0] == "/e?c=405")
        #expect(parts[1].dropFirst(3).count == 8 && parts[1] == "cb=" + parts[2].dropFirst(2))
        // A macro the player does not know is -1 (VAST 4.1), and nothing is encoded twice.
        #expect(parts[3] == "t=-1")
        #expect(tracker.fillMacros("/plain", errorCode: nil) == "/plain")
        #expect(
            tracker.fillMacros("/e?u=a%2Fb&x=[UNKNOWN]&c=%5BERRORCODE%5D", errorCode: 402) == "/e?u=a%2Fb&x=-1&c=402"
        )
    }
}
