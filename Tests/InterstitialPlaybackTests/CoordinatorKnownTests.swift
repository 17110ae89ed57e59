import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@testable import InterstitialPlayback

/// What the coordinator knows of lists, events and the schedule changes only through its inputs:
/// each input is checked on the machine (no player, clock or network), and the player's sources
/// are checked to write none of the coordinator's fields themselves.
@Suite struct CoordinatorKnownTests {
    /// A machine awaiting the list of the asset-list event "ad".
    static func awaitingList() -> InterstitialCoordinator {
        var machine = InterstitialCoordinator()
        machine.assetListRequested(eventID: "ad", url: CoordinatorOwnedStateTests.listURL)
        return machine
    }

    @Test func aListThatCannotBeHadIsKeptFailedAndCancelsItsEvent() {
        var machine = Self.awaitingList()
        let event = CoordinatorOwnedStateTests.listEvent()
        let error = PlaybackError(code: .invalidAssetList, message: "not JSON")
        let actions = machine.assetListFailed("ad", event: event, error: error, playing: false)
        guard case .failed(let kept)? = machine.known.lists["ad"] else {
            Issue.record("the list is kept as failed: \(String(describing: machine.known.lists["ad"]))")
            return
        }
        #expect(kept.message == "not JSON")
        #expect(!machine.known.isLoading("ad"))
        #expect(actions.first == .cancelEvent("ad"))
        #expect(actions.last == .checkTransitions)
        #expect(actions.contains(.emit(.eventWasUnscheduled(event, error))))
        // Playing already: the event is cancelled but not reported unscheduled.
        var playing = Self.awaitingList()
        let whilePlaying = playing.assetListFailed("ad", event: event, error: error, playing: true)
        #expect(!whilePlaying.contains(.emit(.eventWasUnscheduled(event, error))))
    }

    @Test func anAssetFailsOnlyWhenItsListHasIt() throws {
        var machine = Self.awaitingList()
        let error = PlaybackError(code: .transport, message: "reset")
        let event = CoordinatorOwnedStateTests.listEvent()
        // Nothing loaded yet, and indices outside the list: no failure, nothing marked.
        let early = machine.assetFailedToLoad("ad", index: 0, event: event, error: error, playing: false)
        #expect(early == nil)
        let list = AssetList(assets: ["a.m3u8", "b.m3u8"].map { AssetList.Asset(uri: $0, duration: 5) })
        _ = machine.assetListDecoded(list, eventID: "ad", event: event, primaryID: "P1")
        for index in [-1, 2, Int.max, Int.min] {
            let outside = machine.assetFailedToLoad("ad", index: index, event: event, error: error, playing: false)
            #expect(outside == nil, "index \(index)")
        }
        let failed = machine.assetFailedToLoad("ad", index: 1, event: event, error: error, playing: false)
        let actions = try #require(failed)
        #expect(actions == [.emit(.interstitialAssetFailed(eventID: "ad", index: 1, error: error))])
        guard case .loaded(let slots, _)? = machine.known.lists["ad"] else {
            Issue.record("the list stays loaded")
            return
        }
        #expect(slots.map(\.failed) == [false, true])
        // Cleared: the list is forgotten, and a late failure of its asset changes nothing.
        machine.listCleared("ad")
        #expect(machine.known.lists["ad"] == nil)
        let late = machine.assetFailedToLoad("ad", index: 0, event: event, error: error, playing: false)
        #expect(late == nil)
    }

    @Test func replacedEventsReportThePreparedOnesThatNoLongerFit() {
        var machine = Self.awaitingList()
        let ad = CoordinatorOwnedStateTests.listEvent()
        let other = InterstitialEvent(identifier: "other", time: 40)
        let first = machine.eventsReplaced(by: [ad, other], playing: nil)
        #expect(first == StaleEvents())
        #expect(machine.known.events == [ad, other])
        // "ad" has its list prepared; taking it away reports it, "other" (nothing prepared) not.
        let stale = machine.eventsReplaced(by: [], playing: nil)
        #expect(stale.unscheduled == [ad])
        #expect(stale.replaced.isEmpty)
        #expect(machine.known.events.isEmpty)
    }

    @Test func placingTheEventsKeepsTheScheduleAndMarksAnEventPlayed() throws {
        let playlist = try CoordinatorBreakTests.playlist(
            [
                CoordinatorBreakTests.daterange("a", at: 20, "X-RESUME-OFFSET=5"),
                CoordinatorBreakTests.daterange("b", at: 40, "X-RESUME-OFFSET=3"),
            ],
            live: false
        )
        let events = Schedule(primary: playlist).events.map(\.event)
        var machine = InterstitialCoordinator()
        machine.primaryOffsetMoved(to: 12)
        #expect(machine.known.offset == 12)
        machine.placeEvents(rebuilding: false, primary: [playlist], events: events, startTime: nil)
        let schedule = try #require(machine.known.schedule)
        #expect(schedule.events.map(\.event.identifier) == ["a", "b"])
        #expect(schedule.configuration.playedEventIDs.isEmpty)
        machine.markPlayed("a")
        #expect(machine.known.schedule?.configuration.playedEventIDs == ["a"])
        // Placed again: the schedule is updated in place and keeps what it knew.
        machine.placeEvents(rebuilding: false, primary: [playlist], events: events, startTime: nil)
        #expect(machine.known.schedule?.configuration.playedEventIDs == ["a"])
        #expect(machine.known.schedule?.events.map(\.event.identifier) == ["a", "b"])
    }

    /// The player reports through the coordinator's inputs: outside the coordinator's own files,
    /// no source of the module assigns one of its fields or calls a mutating method of the books
    /// it owns (`known`, `beacons`, `preloads`, `item`, `beaconQueue`, `listURLs`).
    @Test func thePlayerWritesNoFieldOfTheCoordinator() throws {
        let folder = Fixture.repository.appendingPathComponent("Sources/InterstitialPlayback")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Interstitials/InterstitialCoordinator") }
        #expect(files.count > 20, "the module's sources are found (\(folder.path))")
        let assignment = try Regex(#"coordinator(\.[A-Za-z]+)+(\[[^\]]*\])?\s*(=|\+=|-=)[^=]"#)
        let bookCall = try Regex(#"coordinator\.(known|beacons|preloads|item|beaconQueue|listURLs)\.([A-Za-z]+)\("#)
        // The books' read-only methods the player may call.
        let reads: Set<String> = ["isLoading"]
        var writes: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if line.contains(assignment) { writes.append("\(file):\(number + 1): \(code)") }
                for match in line.matches(of: bookCall) {
                    let method = String(line[match.output[2].range!])
                    if !reads.contains(method) { writes.append("\(file):\(number + 1): \(code)") }
                }
            }
        }
        #expect(writes.isEmpty, "\(writes.joined(separator: "\n"))")
    }
}
