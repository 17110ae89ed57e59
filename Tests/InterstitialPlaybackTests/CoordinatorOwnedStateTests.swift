import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The state the coordinator took over from the player: beacon plans, preloads, the item's start
/// and post-rolls, the app's events, and the list URLs asset URIs resolve against.
///
/// Inputs in,
/// actions out, with no player, clock or network.
@Suite struct CoordinatorOwnedStateTests {
    static let listURL = "https://ads.example/lists/pod.json?slot=1"

    /// An asset-list event "ad" at 20 s whose list is `/lists/pod.json`.
    static func listEvent() -> InterstitialEvent {
        var event = InterstitialEvent(identifier: "ad", time: 20)
        event.assetListURI = "/lists/pod.json"
        return event
    }

    // MARK: Beacons

    /// `machine` firing beacons, with event "a" playing (its list requested from ``listURL``) and
    /// one 10 s ad whose impression and pause beacons are relative URIs.
    static func beaconMachine() throws -> InterstitialCoordinator {
        var machine = try CoordinatorSequencingTests.playing("a", "").machine
        machine.firesBeacons = true
        machine.beaconPolicy = BeaconQueue.Policy(limit: 8, attempts: 1, retryDelay: 1)
        machine.assetListRequested(eventID: "a", url: Self.listURL)
        let tracking = ["impression", "pause"].map { "{\"type\":\"\($0)\",\"urls\":[\"track/\($0)\"]}" }
        let slot =
            "{\"type\":\"linear\",\"start\":0,\"duration\":10,\"tracking\":[" + tracking.joined(separator: ",") + "]}"
        let signaling = BeaconTrackerTests.envelope([slot])
        let list = try AssetList.decode(
            "{\"ASSETS\":[{\"URI\":\"a.m3u8\",\"DURATION\":10,\"X-AD-CREATIVE-SIGNALING\":\(signaling)}]}"
        )
        #expect(machine.planBeacons(eventID: "a", list: list).isEmpty)
        _ = machine.startCurrentAsset(url: "https://ads.example/lists/a.m3u8")
        return machine
    }

    @Test func theImpressionIsSentOnceMediaArrivedResolvedAgainstTheListURL() throws {
        var machine = try Self.beaconMachine()
        let nothing = AssetFacts(mediaArrived: false, duration: 10, url: "https://ads.example/lists/a.m3u8")
        #expect(
            machine.assetProgressed(nothing, primaryPosition: 20, primaryBase: "https://p.example/m.m3u8", now: 1)
                .isEmpty
        )
        #expect(machine.nextBeacon(now: 1) == nil, "no media, no impression")
        var arrived = nothing
        arrived.mediaArrived = true
        _ = machine.assetProgressed(arrived, primaryPosition: 20, primaryBase: "https://p.example/m.m3u8", now: 2)
        #expect(machine.nextBeacon(now: 2) == .sendBeacon(url: "https://ads.example/lists/track/impression"))
        _ = machine.beaconAnswered(CoordinatorSequencingTests.answer(204), now: 3)
        // Moving on sends nothing again.
        _ = machine.assetProgressed(arrived, primaryPosition: 20, primaryBase: "https://p.example/m.m3u8", now: 4)
        #expect(machine.nextBeacon(now: 4) == nil)
        // The viewer pauses: the pause beacon.
        _ = machine.viewerActed("pause", primaryBase: "https://p.example/m.m3u8", now: 5)
        #expect(machine.nextBeacon(now: 5) == .sendBeacon(url: "https://ads.example/lists/track/pause"))
    }

    @Test func withoutClientBeaconsNothingIsPlannedOrSent() throws {
        var machine = try CoordinatorSequencingTests.playing("a", "").machine
        let list = try AssetList.decode(#"{"ASSETS":[{"URI":"a.m3u8","DURATION":10,"X-AD-CREATIVE-SIGNALING":7}]}"#)
        #expect(machine.planBeacons(eventID: "a", list: list).isEmpty, "an unreadable signaling is not even read")
        _ = machine.startCurrentAsset(url: "a.m3u8")
        let facts = AssetFacts(mediaArrived: true, duration: 10, url: "a.m3u8")
        #expect(machine.assetProgressed(facts, primaryPosition: 20, primaryBase: "", now: 1).isEmpty)
        #expect(machine.viewerActed("pause", primaryBase: "", now: 1).isEmpty)
        #expect(machine.nextBeacon(now: 1) == nil)
    }

    @Test func anUnreadableSignalingIsLoggedAgainstTheListURL() throws {
        var machine = InterstitialCoordinator()
        machine.firesBeacons = true
        machine.assetListRequested(eventID: "a", url: Self.listURL)
        let list = try AssetList.decode(#"{"ASSETS":[{"URI":"a.m3u8","DURATION":10,"X-AD-CREATIVE-SIGNALING":7}]}"#)
        let actions = machine.planBeacons(eventID: "a", list: list)
        guard case .emit(.beaconFailed(let eventID, let type, nil, let url, let reason))? = actions.first,
            actions.count == 1
        else {
            Issue.record("one failed beacon: \(actions)")
            return
        }
        #expect(eventID == "a" && type == "*" && url == Self.listURL)
        #expect(reason.hasPrefix("unreadable X-AD-CREATIVE-SIGNALING"))
    }

    // MARK: Preloads

    @Test func aPreloadIsScheduledRequestedOnceAnsweredAndUsedForItsTarget() throws {
        let preload =
            "#EXT-X-DATERANGE:ID=\"p\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2026-01-01T00:00:10.000Z\","
            + "DURATION=20,X-URI=\"/l.json\",X-TARGET-ID=\"ad\",X-TARGET-CLASS=\"com.apple.hls.interstitial\""
        let target =
            "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:40.000Z\","
            + "X-ASSET-LIST=\"/lists/ad.json\""
        let playlist = try CoordinatorBreakTests.playlist([preload, target], live: true)
        var tracker = DateRangeTracker()
        tracker.update(with: playlist)
        var machine = InterstitialCoordinator()
        machine.seedPreloads(7)
        // No schedule yet: nothing is followed.
        #expect(machine.preloadRangesRead(tracker.preloadRanges, playhead: 0, forward: 6).isEmpty)
        machine.known.scheduleChanged(try CoordinatorBreakTests.context([preload, target], live: true).schedule)
        let scheduled = machine.preloadRangesRead(tracker.preloadRanges, playhead: 0, forward: 6)
        let entry = try #require(machine.preloads.entries["p"])
        // Its window 10…30, cut at the usual request (40 - 6 = 34): the moment inside it.
        #expect(entry.moment >= 10 && entry.moment <= 30)
        #expect(machine.nextPreloadMoment == entry.moment)
        // Its timer comes from the coordinator's own preloads: 1 ms past the moment, at rate 1.
        let readings = TimerReadings(
            rate: 1,
            finished: false,
            primaryStalled: false,
            primaryPosition: 0,
            list: nil,
            schedule: machine.known.schedule,
            playhead: .primary(0)
        )
        let armed = machine.armTimers(readings, now: 100) { nil }
        #expect(armed == .armTimer(.preload, at: 100 + entry.moment + MediaTime(milliseconds: 1)))
        guard case .emit(.preloadScheduled(let rangeID, let targetID, _, _, _))? = scheduled.first,
            scheduled.count == 1
        else {
            Issue.record("scheduled: \(scheduled)")
            return
        }
        #expect(rangeID == "p" && targetID == "ad")
        #expect(machine.requestDuePreloads(playhead: entry.moment - MediaTime(milliseconds: 1)).isEmpty)
        let due = machine.requestDuePreloads(playhead: entry.moment)
        #expect(due.map(\.rangeID) == ["p"] && due.map(\.uri) == ["/l.json"])
        #expect(machine.requestDuePreloads(playhead: entry.moment + 5).isEmpty, "each range is requested once")
        #expect(machine.nextPreloadMoment == nil)
        // While the request is under way, the break waits for it.
        guard case .wait = machine.takePreload(for: "ad", target: tracker["ad"]).use else {
            Issue.record("the break waits for the preload")
            return
        }
        let answer = CoordinatorSequencingTests.answer(200)
        let fetched = machine.preloadAnswered(rangeID: "p", url: "https://cdn.example/l.json?_HLS_primary_id=P", answer)
        #expect(fetched == [.emit(.preloadFetched(rangeID: "p", targetID: "ad", status: 200, error: nil))])
        #expect(machine.listURLs["ad"] == "https://cdn.example/l.json?_HLS_primary_id=P")
        let used = machine.takePreload(for: "ad", target: tracker["ad"])
        guard case .use = used.use else {
            Issue.record("the answer stands in for the request: \(used.actions)")
            return
        }
        #expect(used.actions == [.emit(.preloadUsed(rangeID: "p", targetID: "ad"))])
        #expect(machine.known.isLoading("ad"), "the list is awaited as the answer is handed over")
        guard case .none = machine.takePreload(for: "ad", target: tracker["ad"]).use else {
            Issue.record("a preload is used once")
            return
        }
    }

    @Test func anAnswerForARangeDroppedMeanwhileKeepsNothing() {
        var machine = InterstitialCoordinator()
        #expect(
            machine.preloadAnswered(rangeID: "gone", url: "https://x/l.json", CoordinatorSequencingTests.answer(200))
                .isEmpty
        )
        #expect(machine.preloads.entries.isEmpty && machine.listURLs.isEmpty)
    }

    // MARK: The app's events

    @Test func controllerEventsReplaceThePlaylistsAndAnEmptySetGivesThemBack() {
        var machine = InterstitialCoordinator()
        let s1 = InterstitialEvent(identifier: "s1", time: 10)
        let s2 = InterstitialEvent(identifier: "s2", time: 30)
        let app = InterstitialEvent(identifier: "app", time: 20)
        #expect(machine.setControllerEvents([app], playlistIDs: ["s1"]) == [.placeEventsAgain])
        #expect(machine.item.controllerEvents == [app])
        // s1 was in the playlist when the app set its events: left out; s2 came later: it joins.
        #expect(machine.effectiveEvents(playlist: [s1, s2], automatic: true) == [app, s2])
        #expect(machine.effectiveEvents(playlist: [s1, s2], automatic: false) == [app])
        // An app event with a playlist event's identifier stands for it.
        let over = InterstitialEvent(identifier: "s2", time: 40)
        _ = machine.setControllerEvents([over], playlistIDs: [])
        #expect(machine.effectiveEvents(playlist: [s1, s2], automatic: true) == [over, s1])
        #expect(machine.setControllerEvents([], playlistIDs: ["s1", "s2"]) == [.placeEventsAgain])
        #expect(machine.item.controllerEvents == nil)
        #expect(machine.effectiveEvents(playlist: [s1, s2], automatic: true) == [s1, s2])
    }

    @Test func anUnusablePlaylistEventIsLoggedOnceWhileItsDefectsStay() {
        var machine = InterstitialCoordinator()
        let broken = CoordinatorDecisionTests.unusable("x", ["both X-ASSET-URI and X-ASSET-LIST"])
        let fine = InterstitialCoordinatorTests.event("ok")
        let first = machine.readPlaylistEvents([broken, fine])
        #expect(first.usable.map(\.identifier) == ["ok"])
        #expect(first.actions.count == 1)
        #expect(machine.item.ignored["x"] == broken.defects)
        let again = machine.readPlaylistEvents([broken, fine])
        #expect(again.usable.map(\.identifier) == ["ok"] && again.actions.isEmpty)
    }

    // MARK: The item's start and post-rolls

    /// A coordinator with the break of "a" (at 20 s) begun, its first event not begun yet.
    static func breakBegun() throws -> InterstitialCoordinator {
        let context = try CoordinatorBreakTests.context([CoordinatorBreakTests.daterange("a", at: 20, "")])
        var machine = InterstitialCoordinator()
        let plan = try #require(machine.breakDue(in: context, at: 20, now: 100))
        #expect(machine.beginBreak(plan.run) == [.primaryPlays, .beginEvent("a")])
        return machine
    }

    @Test func theItemsInterstitialStartIsUsedOnceByTheFirstEventBegun() throws {
        let start = InterstitialStart(eventID: "a", offset: 3)
        var machine = try Self.breakBegun()
        machine.enterUnderWay("a", itemStart: start)
        #expect(machine.currentBreak?.joinOffset == 3)
        #expect(machine.item.usedInterstitialStart)
        // A first event that is not the one named uses it up all the same.
        var other = try Self.breakBegun()
        other.enterUnderWay("b", itemStart: start)
        other.enterUnderWay("a", itemStart: start)
        #expect(other.currentBreak?.joinOffset == .zero)
    }

    @Test func aSeeksPendingStartComesFirstAndIsWithdrawnWhenTheSeekIsRefused() throws {
        var machine = try Self.breakBegun()
        machine.enterOnNextBegin(InterstitialStart(eventID: "a", offset: 2))
        machine.enterUnderWay("a", itemStart: InterstitialStart(eventID: "a", offset: 5))
        #expect(machine.currentBreak?.joinOffset == 2)
        #expect(machine.item.pendingInterstitialStart == nil && !machine.item.usedInterstitialStart)
        var refused = try Self.breakBegun()
        refused.enterOnNextBegin(InterstitialStart(eventID: "a", offset: 2))
        refused.enterOnNextBegin(nil)
        refused.enterUnderWay("a", itemStart: nil)
        #expect(refused.currentBreak?.joinOffset == .zero)
    }

    @Test func theStartIsResolvedAtTheFirstPlaylistAndThePostRollsBeginOnce() throws {
        var machine = InterstitialCoordinator()
        #expect(machine.primaryPlaylistArrived() == [.resolveStart])
        #expect(machine.primaryPlaylistArrived().isEmpty)
        let post = CoordinatorBreakTests.daterange("post", at: 0, "CUE=\"POST\"")
        let context = try CoordinatorBreakTests.context([post])
        #expect(machine.primaryReachedEnd(in: nil, at: 60, now: 1) == nil, "no schedule yet")
        #expect(!machine.item.postrollsStarted)
        let reached = machine.primaryReachedEnd(in: context, at: 60, now: 1)
        let begun = try #require(reached)
        guard case .beginBreak(let plan)? = begun.first, begun.count == 1 else {
            Issue.record("the post-rolls' break: \(begun)")
            return
        }
        #expect(plan.run.queue == ["post"])
        #expect(machine.item.postrollsStarted)
        #expect(machine.primaryReachedEnd(in: context, at: 60, now: 2) == nil)
    }

    // MARK: Asset URIs

    /// The failures among `actions`: each asset's index and why.
    static func failures(_ actions: [InterstitialCoordinator.Action]) -> [Int: String] {
        var found: [Int: String] = [:]
        for case .emit(.interstitialAssetFailed(_, let index, let error)) in actions {
            #expect(error.code == .invalidURL)
            found[index] = error.message
        }
        return found
    }

    @Test func relativeAssetURIsResolveAgainstTheListURLAndHostileOnesFailWithAReason() throws {
        var machine = InterstitialCoordinator()
        machine.assetListRequested(eventID: "ad", url: Self.listURL)
        #expect(machine.known.isLoading("ad"))
        let huge = "https://ads.example/" + String(repeating: "a", count: 100 * 1024) + ".m3u8"
        let uris = [
            "red.m3u8", "../media/blue.m3u8", "//other.example/green.m3u8", "%2e%2e/%2e%2e/x.m3u8", huge,
            "ad\u{0}.m3u8", "http://[::1/x.m3u8", "bad%zz.m3u8", "", "https://abs.example/y.m3u8#t",
        ]
        let list = AssetList(assets: uris.map { AssetList.Asset(uri: $0, duration: MediaTime(seconds: 5)) })
        let actions = machine.assetListDecoded(list, eventID: "ad", event: Self.listEvent(), primaryID: "P1")
        #expect(Array(actions.suffix(2)) == [.applyJoin, .checkTransitions])
        guard case .loaded(let slots, _)? = machine.known.lists["ad"] else {
            Issue.record("the list is loaded")
            return
        }
        let id = "_HLS_primary_id=P1"
        #expect(slots[0].url == "https://ads.example/lists/red.m3u8?\(id)")
        #expect(slots[1].url == "https://ads.example/media/blue.m3u8?\(id)")
        #expect(
            slots[2].url == "https://other.example/green.m3u8?\(id)",
            "a scheme-relative URI keeps the list's scheme"
        )
        #expect(
            slots[3].url == "https://ads.example/lists/%2e%2e/%2e%2e/x.m3u8?\(id)",
            "encoded dots are not dot segments"
        )
        #expect(slots[9].url == "https://abs.example/y.m3u8?\(id)#t")
        #expect(slots.map(\.failed) == [false, false, false, false, true, true, true, true, true, false])
        let failures = Self.failures(actions)
        #expect(Set(failures.keys) == [4, 5, 6, 7, 8])
        #expect(failures[4] == "the asset URI has \(huge.utf8.count) bytes, more than 65536")
        #expect(failures[5] == "the asset URI contains the control character 0x0")
        #expect(failures[6]?.contains("not a closed IP literal") == true)
        #expect(failures[7] == "the asset URI has a % not followed by two hex digits")
        #expect(failures[8] == "the asset URI is empty")
        #expect(!actions.contains { if case .cancelEvent = $0 { true } else { false } }, "a list's event plays on")
    }

    @Test func aHostileAssetURIOfAnAssetURIEventCancelsItWithAReason() throws {
        var machine = InterstitialCoordinator()
        var event = InterstitialEvent(identifier: "uri", time: 10)
        event.assetURIs = ["/ads/a\u{7F}.m3u8"]
        let known = machine.assetURIsKnown(of: event, base: "https://p.example/live/m.m3u8", primaryID: "P")
        let actions = try #require(known)
        let error = PlaybackError(code: .invalidURL, message: "the asset URI contains the control character 0x7F")
        #expect(
            actions == [
                .emit(.interstitialAssetFailed(eventID: "uri", index: 0, error: error)), .cancelEvent("uri"),
                .emit(.eventWasUnscheduled(event, error)),
            ]
        )
        var fine = InterstitialEvent(identifier: "ok", time: 30)
        fine.assetURIs = ["../ads/b.m3u8"]
        #expect(
            machine.assetURIsKnown(of: fine, base: "https://p.example/live/m.m3u8", primaryID: "P")?.isEmpty == true
        )
        guard case .loaded(let slots, _)? = machine.known.lists["ok"] else {
            Issue.record("the asset is known at once")
            return
        }
        #expect(slots.map(\.url) == ["https://p.example/ads/b.m3u8?_HLS_primary_id=P"] && !slots[0].failed)
        #expect(machine.assetURIsKnown(of: Self.listEvent(), base: "https://p.example/", primaryID: "P") == nil)
    }
}
