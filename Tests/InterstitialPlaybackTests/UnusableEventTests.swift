import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// The player leaves out what cannot play: interstitials whose date ranges are unusable are not
/// loaded, played or allowed to move the primary, and a played `CUE="PRE,ONCE"` pre-roll does not
/// move the primary when that part is played again.
///
/// Served from the fixture site in memory, on a virtual clock.
@Suite(.timeLimit(.minutes(1)))
struct UnusableEventTests {
    struct Family: Sendable, CustomStringConvertible {
        let name: String
        /// The bad tag's attributes after START-DATE (the event sits at 4 s).
        let attributes: String
        let rule: String
        var description: String { self.name }
    }

    static let families: [Family] = [
        Family(name: "no asset", attributes: "DURATION=10,X-RESUME-OFFSET=4", rule: "INT-ASSET-MISSING"),
        Family(
            name: "two assets",
            attributes:
                "X-ASSET-LIST=\"/lists/bad.json\",X-ASSET-URI=\"https://ads.invalid/a.m3u8\",DURATION=10,X-RESUME-OFFSET=4",
            rule: "INT-ASSET-BOTH"
        ),
        Family(
            name: "CUE with PRE and POST",
            attributes: "CUE=\"PRE,POST\",X-ASSET-LIST=\"/lists/bad.json\",DURATION=10,X-RESUME-OFFSET=4",
            rule: "INT-CUE-PRE-POST"
        ),
        Family(
            name: "negative duration",
            attributes: "DURATION=-5,X-ASSET-LIST=\"/lists/bad.json\",X-RESUME-OFFSET=4",
            rule: "INT-DURATION-VALUE"
        ),
        Family(
            name: "END-DATE before START-DATE",
            attributes: "END-DATE=\"\(Fixtures.date(1))\",X-ASSET-LIST=\"/lists/bad.json\",X-RESUME-OFFSET=4",
            rule: "INT-END-DATE-BEFORE-START"
        ),
        Family(
            name: "malformed resume offset",
            attributes: "X-RESUME-OFFSET=soon,X-ASSET-LIST=\"/lists/bad.json\",DURATION=10",
            rule: "INT-RESUME-OFFSET-VALUE"
        ),
    ]

    @Test(arguments: families)
    func unusableEventIsNeitherLoadedNorPlayed(_ family: Family) async throws {
        try await withFixtureSite { base, site in
            // 12 s of primary; the bad event at 4 s would skip 4 s of it; the good one at 8 s plays.
            let ranges = [
                Fixtures.interstitial("bad", at: 4, family.attributes),
                Fixtures.interstitial(
                    "good",
                    at: 8,
                    "X-ASSET-LIST=\"/lists/pod.json\",X-RESUME-OFFSET=0,DURATION=10"
                ),
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 12, dateRanges: ranges)))
            site.serve("/lists/pod.json", .json(assetList(base, ["green"])))
            site.serve("/lists/bad.json", .json(assetList(base, ["red"])))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            #expect(
                summaries(log) == [
                    "list:good", "current:good", "asset:good#0", "finished:good", "current:nil", "resumed@8.0", "ended",
                ],
                "\(family)"
            )
            // 12 s of primary, none of it skipped, and the good ad's 10 s.
            #expect(log.last!.time >= 22 && log.last!.time < 23, "\(family)")
            #expect(
                !site.requests.contains { $0.path == "/lists/bad.json" || $0.path.hasPrefix("/media/ad-red") },
                "\(family)"
            )
            let ignored = await player.entries("eventIgnored")
            #expect(ignored.map { $0["eventID"]?.stringValue } == ["bad"], "\(family)")
            #expect(ignored.first?["rule"]?.stringValue == family.rule, "\(family)")
            let shown = await InterstitialEventMonitor(player: player).events.map(\.identifier)
            #expect(shown == ["good"], "\(family)")
        }
    }

    /// A `PRE,ONCE` pre-roll with `X-RESUME-OFFSET=6` plays once and resumes at 6; once it has
    /// played, the primary's first 6 s belong to the timeline again: a seek back to 2 s plays them
    /// and the pre-roll is not triggered again.
    @Test func playedPreRollDoesNotMoveThePrimary() async throws {
        try await withFixtureSite { base, site in
            let ranges = [
                Fixtures.interstitial(
                    "pre",
                    at: 0,
                    "CUE=\"PRE,ONCE\",X-ASSET-LIST=\"/lists/pre.json\",X-RESUME-OFFSET=6,DURATION=10"
                )
            ]
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: 20, dateRanges: ranges)))
            site.serve("/lists/pre.json", .json(assetList(base, ["blue"])))
            let player = try await play(base + "/vod/prog.m3u8") { player in
                // Clock 20 s: 10 s of pre-roll, then the primary from 6 s to 16 s.
                await player.schedule(.seek(to: 2), at: 20)
            }
            let log = await player.log
            #expect(summaries(log).filter { $0 == "current:pre" }.count == 1)
            #expect(summaries(log).contains("resumed@6.0"))
            let seek = try #require(await player.entries("seekResolved").first)
            #expect(seek["granted"]?.doubleValue == 2)
            // 10 s of pre-roll, 10 s of primary (6–16), then 18 s from 2 s to the end.
            #expect(log.last!.time >= 38 && log.last!.time < 39)
            // The timeline is the whole primary again: 0–20 on every axis.
            let snapshot = await player.integratedTimelineSnapshot()
            #expect(snapshot.segments.map(\.kind) == [.primary])
            #expect(snapshot.segments.first?.primary == ScheduleItem.Span(start: 0, end: 20))
            #expect(snapshot.duration == 20)
        }
    }
}
