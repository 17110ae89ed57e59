import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Synchronization
import Testing

/// A live channel that offers delivery directives: segment k covers wall time 2k…2k+2 s (the
/// demo primary's segments, looped) and exists once the clock passes 2k+2.
///
/// Date ranges appear and
/// disappear at given clock times, so delta updates have something to skip and to remove.
struct DirectiveChannel: Sendable {
    struct Range: Sendable {
        var id: String
        var tag: String
        var addedAt: Double
        var removedAt: Double?
    }

    var window = 10
    var serverControl = "CAN-SKIP-UNTIL=12,CAN-SKIP-DATERANGES=YES"
    var dateRanges: [Range] = []
    /// How many segments a delta update leaves out (those more than 12 s from the end).
    var skippedCount: Int { self.window - 6 }

    /// The playlist at `now`: full, or a delta update for `_HLS_skip=YES` / `v2`.
    func playlist(now: MediaTime, skip: String? = nil) -> String {
        let available = max(self.window, Int(now.seconds / 2))
        let first = available - self.window
        var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:2"]
        lines.append("#EXT-X-SERVER-CONTROL:\(self.serverControl)")
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(first)")
        var listed = first
        let clock = now.seconds
        if let skip {
            var attributes = "SKIPPED-SEGMENTS=\(self.skippedCount)"
            if skip == "v2" {
                let removed = self.dateRanges.filter { range in
                    range.removedAt.map { $0 <= clock && $0 > clock - 12 } ?? false
                }
                attributes += ",RECENTLY-REMOVED-DATERANGES=\"\(removed.map(\.id).joined(separator: "\t"))\""
            }
            lines.append("#EXT-X-SKIP:\(attributes)")
            listed = first + self.skippedCount
        }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Fixtures.date(Double(listed * 2)))")
        for range in self.dateRanges where range.addedAt <= clock && (range.removedAt.map { $0 > clock } ?? true) {
            // v2 leaves out the date ranges added more than CAN-SKIP-UNTIL ago.
            if skip == "v2", range.addedAt < clock - 12 { continue }
            lines.append(range.tag)
        }
        for k in listed..<available {
            lines.append("#EXTINF:2.000,")
            lines.append("/media/primary/seg-\(String(format: "%03d", k % 30)).ts")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A value tests share with fixture handlers.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { self.mutex = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { self.mutex.withLock { body(&$0) } }
}

/// The segments and date ranges two playlists must agree on after a merge.
func essentials(_ playlist: MediaPlaylist) -> (segments: [String], dateRanges: Set<String>) {
    let segments = playlist.segments.map { segment in
        "\(segment.mediaSequenceNumber) \(segment.uri) \(segment.duration.seconds) \(segment.date?.iso8601 ?? "-")"
    }
    return (segments, Set(playlist.dateRanges.map(\.dateRange.id)))
}

@Suite(.timeLimit(.minutes(1)))
struct LiveReloadTests {
    /// §6.3.8: with `CAN-BLOCK-RELOAD=YES` every reload asks for the next segment with `_HLS_msn`;
    /// the server holds it until that segment exists (on the virtual clock), and the player has it
    /// the moment it is published, without polling.
    @Test func blockingReloadsAskForTheNextSegment() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            let channel = DirectiveChannel(window: 6, serverControl: "CAN-BLOCK-RELOAD=YES")
            site.serveWaiting("/ll.m3u8") { request in
                if let msn = request.parameter("_HLS_msn").flatMap(Int.init) {
                    // Segment msn is published when the clock passes its end.
                    try? await clock.wait(until: MediaTime(seconds: Double(2 * (msn + 1))))
                }
                return .text(channel.playlist(now: clock.now))
            }
            let player = Player(item: PlayerItem(url: base + "/ll.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 130)
            let reloads = site.requests.filter { $0.path == "/ll.m3u8" }
            #expect(reloads.first?.query == nil)
            // At clock 100 the window ends with segment 49: then 50, 51, … one request each.
            let queries: [String] = reloads.dropFirst().map { $0.query ?? "" }
            #expect(queries.count >= 14)
            let expectedQueries: [String] = (0..<queries.count).map { k in "_HLS_msn=\(50 + k)" }
            #expect(queries == expectedQueries)
            // Each answer arrives when its segment is published: clock 102, 104, …
            let loads: [Double] = await player.entries("playlistLoaded").map { $0.time.seconds }
            let published: [Double] = (1...14).map { k in 100 + 2 * Double(k) }
            #expect(Array(loads.dropFirst().prefix(14)) == published)
            let log = await player.log
            #expect(!log.contains { $0.event == "error" })
            #expect(!log.contains { $0.event == "stalled" })
            // The player kept its distance from the live edge (joined 6 s behind it).
            #expect(abs(await player.currentTime.seconds - (130 - 6 - 88)) <= 2.1)
        }
    }

    /// With partial segments, a blocking reload asks for the next part (`_HLS_msn` and `_HLS_part`,
    /// in UTF-8 order): the parts of the segment being produced follow the last full segment.
    @Test func blockingReloadsAskForTheNextPart() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            // Four 0.5 s parts per 2 s segment; part p of segment m is published at 2m + 0.5(p+1).
            @Sendable func playlist(_ now: MediaTime) -> String {
                let units = Int(now.seconds * 2)  // half seconds
                let available = units / 4
                let parts = units % 4
                var lines = [
                    "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:2", "#EXT-X-PART-INF:PART-TARGET=0.5",
                ]
                lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5")
                lines.append("#EXT-X-MEDIA-SEQUENCE:\(available - 6)")
                lines.append("#EXT-X-PROGRAM-DATE-TIME:\(Fixtures.date(Double((available - 6) * 2)))")
                for k in (available - 6)..<available {
                    lines.append("#EXTINF:2.000,")
                    lines.append("/media/primary/seg-\(String(format: "%03d", k % 30)).ts")
                }
                for p in 0..<parts {
                    lines.append("#EXT-X-PART:DURATION=0.5,URI=\"/parts/\(available).\(p).ts\"")
                }
                return lines.joined(separator: "\n") + "\n"
            }
            site.serveWaiting("/ll.m3u8") { request in
                if let msn = request.parameter("_HLS_msn").flatMap(Int.init) {
                    let part = request.parameter("_HLS_part").flatMap(Int.init) ?? 3
                    try? await clock.wait(until: MediaTime(seconds: Double(2 * msn) + 0.5 * Double(part + 1)))
                }
                return .text(playlist(clock.now))
            }
            let player = Player(item: PlayerItem(url: base + "/ll.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 104)
            let asked = site.requests.filter { $0.path == "/ll.m3u8" }.dropFirst().map { $0.query ?? "" }
            #expect(
                Array(asked.prefix(8)) == [
                    "_HLS_msn=50&_HLS_part=0", "_HLS_msn=50&_HLS_part=1", "_HLS_msn=50&_HLS_part=2",
                    "_HLS_msn=50&_HLS_part=3",
                    "_HLS_msn=51&_HLS_part=0", "_HLS_msn=51&_HLS_part=1", "_HLS_msn=51&_HLS_part=2",
                    "_HLS_msn=51&_HLS_part=3",
                ]
            )
            #expect(!(await player.log).contains { $0.event == "error" })
        }
    }

    /// §6.3.7: `_HLS_skip=v2` delta updates leave out old segments and old date ranges, and list
    /// recent removals; the player merges each one into its copy, so its playlist equals the full
    /// one the server would have sent, date ranges included.
    @Test func deltaUpdatesMergeIntoTheFullPlaylist() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            var channel = DirectiveChannel()
            channel.dateRanges = [
                // Added long ago: every v2 delta leaves it out, yet it stays in the merged playlist.
                .init(
                    id: "promo",
                    tag:
                        "#EXT-X-DATERANGE:ID=\"promo\",CLASS=\"com.example.promo\",START-DATE=\"\(Fixtures.date(150))\",DURATION=30",
                    addedAt: 0
                ),
                // Removed at clock 110: deltas list it in RECENTLY-REMOVED-DATERANGES for 12 s.
                .init(
                    id: "gone",
                    tag: "#EXT-X-DATERANGE:ID=\"gone\",START-DATE=\"\(Fixtures.date(160))\",DURATION=5",
                    addedAt: 0,
                    removedAt: 110
                ),
                // Added at clock 112 (recent in the deltas that follow): an interstitial to schedule.
                .init(
                    id: "ad",
                    tag: Fixtures.interstitial(
                        "ad",
                        at: 260,
                        "X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",DURATION=10"
                    ),
                    addedAt: 112
                ),
            ]
            let answered = Shared<[MediaTime]>([])
            site.serve("/delta.m3u8") { [channel] request in
                let now = clock.now
                answered.withLock { $0.append(now) }
                return .text(channel.playlist(now: now, skip: request.parameter("_HLS_skip")))
            }
            let player = Player(item: PlayerItem(url: base + "/delta.m3u8"), clock: clock, loader: fixtureLoader())
            await player.play()
            try await player.run(until: 140)
            let reloads = site.requests.filter { $0.path == "/delta.m3u8" }
            #expect(reloads.first?.parameter("_HLS_skip") == nil)
            #expect(reloads.count >= 15)
            #expect(reloads.dropFirst().allSatisfy { $0.query == "_HLS_skip=v2" })
            let log = await player.log
            let deltas = log.filter { $0.event == "playlistLoaded" && $0["delta"]?.boolValue == true }
            #expect(deltas.count == reloads.count - 1)
            #expect(!log.contains { $0.event == "error" })
            // The merged playlist is the full playlist at the time of the last answer.
            let merged = try #require(await player.primaryMediaPlaylist)
            #expect(merged.skip == nil)
            let last = try #require(answered.withLock { $0.last })
            let full = try MediaPlaylist(parsing: channel.playlist(now: last))
            let (mergedSegments, mergedRanges) = essentials(merged)
            let (fullSegments, fullRanges) = essentials(full)
            #expect(mergedSegments == fullSegments)
            #expect(mergedRanges == ["promo", "ad"])
            #expect(mergedRanges == fullRanges)
            // The interstitial that arrived in a delta is scheduled.
            #expect(await InterstitialEventMonitor(player: player).events.map(\.identifier) == ["ad"])
        }
    }

    /// A delta the player cannot merge (it lacks what was skipped) makes it ask again without
    /// `_HLS_skip`, and a blocking delta request puts the directives in UTF-8 order.
    @Test func unmergeableDeltaIsReloadedInFull() async throws {
        try await withFixtureSite { base, site in
            let clock = VirtualPlaybackClock(start: 100)
            let channel = DirectiveChannel(serverControl: "CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12")
            let served = Shared(0)
            site.serveWaiting("/delta.m3u8") { request in
                let count = served.withLock { count -> Int in
                    count += 1
                    return count
                }
                if let msn = request.parameter("_HLS_msn").flatMap(Int.init) {
                    try? await clock.wait(until: MediaTime(seconds: Double(2 * (msn + 1))))
                }
                // A misconfigured cache answers the very first request with a delta.
                let skip = count == 1 ? "YES" : request.parameter("_HLS_skip")
                return .text(channel.playlist(now: clock.now, skip: skip))
            }
            let player = Player(
                item: PlayerItem(url: base + "/delta.m3u8?token=abc"),
                clock: clock,
                loader: fixtureLoader()
            )
            await player.play()
            try await player.run(until: 110)
            let queries = site.requests.filter { $0.path == "/delta.m3u8" }.map { $0.query ?? "" }
            #expect(queries.count >= 5)
            #expect(
                Array(queries.prefix(4)) == [
                    "token=abc", "token=abc", "_HLS_msn=50&_HLS_skip=YES&token=abc",
                    "_HLS_msn=51&_HLS_skip=YES&token=abc",
                ]
            )
            #expect(!(await player.log).contains { $0.event == "error" })
            let merged = try #require(await player.primaryMediaPlaylist)
            #expect(merged.segments.count == 10)
        }
    }
}
