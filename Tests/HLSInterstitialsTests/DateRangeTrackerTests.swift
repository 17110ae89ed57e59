import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct DateRangeTrackerTests {
    /// A live playlist of three 6 s segments from 2024-05-01T10:00:00Z with date ranges after the first.
    static func live(_ ranges: [String], sequence: Int = 0, header: [String] = []) throws -> MediaPlaylist {
        let lines =
            ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:\(sequence)"] + header + [
                "#EXT-X-PROGRAM-DATE-TIME:2024-05-01T10:00:00.000Z", "#EXTINF:6.0,", "s0.ts",
            ] + ranges.map { "#EXT-X-DATERANGE:" + $0 } + ["#EXTINF:6.0,", "s1.ts", "#EXTINF:6.0,", "s2.ts"]
        return try MediaPlaylist(parsing: lines.joined(separator: "\n") + "\n")
    }

    static let a =
        #"ID="a",CLASS="com.apple.hls.interstitial",START-DATE="2024-05-01T10:00:10.000Z",PLANNED-DURATION=30,X-ASSET-LIST="https://ads.example.com/a.json""#
    static let b = #"ID="b",CLASS="com.example.marker",START-DATE="2024-05-01T10:00:02.000Z""#
    static let c =
        #"ID="c",CLASS="com.apple.hls.interstitial",START-DATE="2024-05-01T10:00:40.000Z",DURATION=10,X-ASSET-URI="https://ads.example.com/c.m3u8""#

    @Test func tracksAddsUpdatesAndRemovals() throws {
        var tracker = DateRangeTracker()
        let first = tracker.update(with: try Self.live([Self.a, Self.b]))
        #expect(first == DateRangeUpdate(added: ["a", "b"]))
        #expect(tracker.ids == ["a", "b"])

        let second = tracker.update(with: try Self.live([Self.a, #"ID="a",DURATION=20.0"#, Self.c], sequence: 1))
        #expect(second.added == ["c"])
        #expect(second.updated == ["a"])
        #expect(second.removed == ["b"])
        #expect(second.diagnostics.isEmpty)
        #expect(tracker.ids == ["a", "c"])
        #expect(tracker["a"]?.duration == 20)
        #expect(
            tracker["a"]?.attributes.names == [
                "ID", "CLASS", "START-DATE", "PLANNED-DURATION", "X-ASSET-LIST", "DURATION",
            ]
        )

        let events = tracker.interstitialEvents
        #expect(events.map(\.identifier) == ["a", "c"])
        #expect(events[0].duration == 20)
        #expect(events[0].plannedDuration == 30)
        #expect(events[0].assetListURI == "https://ads.example.com/a.json")
        #expect(events[1].assetURIs == ["https://ads.example.com/c.m3u8"])

        let unchanged = tracker.update(with: try Self.live([Self.a, #"ID="a",DURATION=20"#, Self.c], sequence: 2))
        #expect(unchanged.isEmpty)
        #expect(unchanged.diagnostics.isEmpty)  // 20 and 20.0 are the same value
    }

    /// After a removal the remaining ranges keep their places: a later reload updates, removes and
    /// adds the right ones, a range that comes back is added anew, and each event follows its range.
    @Test func rangesAfterARemovalKeepTheirPlaces() throws {
        var tracker = DateRangeTracker()
        tracker.update(with: try Self.live([Self.b, Self.a, Self.c]))
        #expect(tracker.update(with: try Self.live([Self.a, Self.c], sequence: 1)).removed == ["b"])
        let third = tracker.update(with: try Self.live([Self.a, Self.c, #"ID="c",X-PLAYOUT-LIMIT=5"#], sequence: 2))
        #expect(third == DateRangeUpdate(updated: ["c"]))
        #expect(tracker.ids == ["a", "c"])
        #expect(tracker.interstitialEvents.map(\.identifier) == ["a", "c"])
        #expect(tracker.interstitialEvents.last?.playoutLimit == MediaTime(seconds: 5))
        let fourth = tracker.update(with: try Self.live([Self.c, Self.b], sequence: 3))
        #expect(fourth.added == ["b"] && fourth.removed == ["a"] && fourth.updated.isEmpty)
        #expect(tracker.ids == ["c", "b"])
        #expect(tracker.interstitialEvents.map(\.identifier) == ["c"])
        #expect(tracker["c"]?.attributes.names.last == "X-PLAYOUT-LIMIT")
        // The same playlist again changes nothing.
        #expect(tracker.update(with: try Self.live([Self.c, Self.b], sequence: 3)).isEmpty)
    }

    @Test func aChangedValueIsADiagnosticAndTheFirstValueWins() throws {
        var tracker = DateRangeTracker()
        tracker.update(with: try Self.live([Self.a, #"ID="a",DURATION=20.0"#]))
        let playlist = try Self.live([Self.a, #"ID="a",DURATION=25.0,X-PLAYOUT-LIMIT=12"#])
        let change = tracker.update(with: playlist, file: "live.m3u8")
        #expect(change.updated == ["a"])  // X-PLAYOUT-LIMIT was added
        #expect(tracker["a"]?.duration == 20)
        #expect(tracker["a"]?.attributes["X-PLAYOUT-LIMIT"]?.rawValue == "12")
        let diagnostic = try #require(change.diagnostics.first)
        #expect(change.diagnostics.count == 1)
        #expect(diagnostic.rule == "INT-DATERANGE-CHANGED")
        #expect(diagnostic.severity == .error)
        // Line 9 is the second DATERANGE; "DURATION" starts after `#EXT-X-DATERANGE:ID="a",`.
        #expect(
            diagnostic.location
                == SourceLocation(file: "live.m3u8", line: 9, column: "#EXT-X-DATERANGE:ID=\"a\",".utf8.count + 1)
        )
        #expect(playlist.lines[8].text.hasPrefix("#EXT-X-DATERANGE:ID=\"a\",DURATION=25.0"))
        // Reported once, not at every reload.
        #expect(tracker.update(with: playlist).diagnostics.isEmpty)
    }

    @Test func deltaUpdatesRemoveOnlyRecentlyRemovedRanges() throws {
        var tracker = DateRangeTracker()
        tracker.update(with: try Self.live([Self.a, Self.b, Self.c]))
        let delta = try Self.live(
            [],
            sequence: 3,
            header: ["#EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES=\"b\tgone-long-ago\""]
        )
        let change = tracker.update(with: delta)
        #expect(change.removed == ["b"])
        #expect(tracker.ids == ["a", "c"])
        // A delta update that skipped segments but not date ranges lists every range: absent ones go.
        let segmentsOnly = try Self.live([Self.c], sequence: 4, header: ["#EXT-X-SKIP:SKIPPED-SEGMENTS=3"])
        #expect(tracker.update(with: segmentsOnly).removed == ["a"])
    }

    @Test func mergesSameIDTagsWithinOnePlaylist() throws {
        let augmented = DateRangeTracker(playlist: try Fixture.media("playlists/interstitial-same-id-augment.m3u8"))
        #expect(augmented.ids == ["break-9"])
        #expect(augmented.interstitialEvents.first?.duration == MediaTime("27.5"))
        #expect(augmented.interstitialEvents.first?.plannedDuration == 30)
        #expect(augmented.interstitialEvents.first?.playoutLimit == MediaTime("27.5"))

        let playlist = try MediaPlaylist(parsing: Fixture.text("invalid/same-id-changed-attribute-value.m3u8"))
        var tracker = DateRangeTracker()
        let change = tracker.update(with: playlist)
        #expect(change.added == ["ad1"])
        #expect(change.updated.isEmpty)  // added in this same update
        #expect(change.diagnostics.map(\.rule) == ["INT-DATERANGE-CHANGED"])
        #expect(change.diagnostics.first?.location.line == 10)  // the second ad1 tag
        let event = try #require(tracker.interstitialEvents.first)
        #expect(event.duration == 15)
        #expect(event.playoutLimit == 12)
        #expect(InterstitialEvent.events(in: playlist) == [event])
    }

    @Test func followsTheEarlyReturnReloads() throws {
        var tracker = DateRangeTracker()
        var changes: [DateRangeUpdate] = []
        for k in 1...5 {
            changes.append(
                tracker.update(with: try Fixture.media("playlists/seed-wwdc21-early-return-reload-\(k).m3u8"))
            )
        }
        #expect(changes[0].added == ["break-1"])
        #expect(changes[1...3].allSatisfy { $0.isEmpty })
        #expect(changes[4].updated == ["break-1"])
        #expect(changes.allSatisfy { $0.diagnostics.isEmpty })
        #expect(tracker.interstitialEvents.first?.playoutLimit == 12)
        #expect(tracker.interstitialEvents.first?.duration == 15)
    }

    /// The tracker keeps each range's event between reloads; after every kind of reload its events
    /// must be those its merged ranges make now.
    @Test func keptEventsFollowEveryReload() throws {
        let d =
            #"ID="d",CLASS="com.apple.hls.interstitial",START-DATE="2024-05-01T10:00:50.000Z",X-ASSET-URI="https://ads.example.com/d.m3u8""#
        let reloads: [MediaPlaylist] = [
            try Self.live([Self.a, Self.b]),
            try Self.live([Self.a, Self.b, Self.c], sequence: 1),
            try Self.live([Self.a, #"ID="a",X-PLAYOUT-LIMIT=12.5"#, Self.c], sequence: 2),
            try Self.live([Self.c, d, #"ID="c",X-RESTRICT="SKIP""#], sequence: 3),
            try Self.live([Self.c, d, #"ID="d",CUE="ONCE""#], sequence: 4),
            try Self.live([Self.a], sequence: 5),
        ]
        var tracker = DateRangeTracker()
        for reload in reloads {
            tracker.update(with: reload)
            #expect(tracker.interstitialEvents == tracker.dateRanges.compactMap { InterstitialEvent(dateRange: $0) })
        }
        // The reloads above did change the events: an early return, a restriction, a cue.
        var check = DateRangeTracker(playlist: reloads[1])
        check.update(with: reloads[2])
        #expect(check.interstitialEvents.first?.playoutLimit == MediaTime(seconds: 12.5))
        check.update(with: reloads[3])
        #expect(check.interstitialEvents.map(\.identifier) == ["c", "d"])
        #expect(check.interstitialEvents.first?.restrictions == [.skip])
        check.update(with: reloads[4])
        #expect(check.interstitialEvents.last?.willPlayOnce == true)
    }
}
