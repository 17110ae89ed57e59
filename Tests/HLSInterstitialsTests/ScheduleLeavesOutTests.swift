import HLSInterstitials
import HLSPlaylist
import Testing

/// The schedule leaves out what cannot play: played `ONCE` events do not move the primary, and
/// interstitials whose date ranges the validator rejects as unusable get no item and a diagnostic.
@Suite struct ScheduleLeavesOutTests {
    /// A 30 s VOD primary (three 10 s segments from 2024-01-01T00:00:00Z) with `tags` after the
    /// first segment's PROGRAM-DATE-TIME (line 5 onwards).
    static func vod(_ tags: String) -> String {
        """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
        \(tags)
        #EXTINF:10,
        a.ts
        #EXTINF:10,
        b.ts
        #EXTINF:10,
        c.ts
        #EXT-X-ENDLIST

        """
    }

    /// A live primary: five 6 s segments, no ENDLIST, no HOLD-BACK (the join point is 3 target
    /// durations, 18 s, from the 30 s end: 12 s).
    static func live(_ tags: String) -> String {
        """
        #EXTM3U
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
        \(tags)
        #EXTINF:6,
        a.ts
        #EXTINF:6,
        b.ts
        #EXTINF:6,
        c.ts
        #EXTINF:6,
        d.ts
        #EXTINF:6,
        e.ts

        """
    }

    static let asset = "X-ASSET-URI=\"https://ads.example/a/main.m3u8\""

    static func interstitial(_ id: String, at seconds: Int, _ attributes: String) -> String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2024-01-01T00:00:\(seconds < 10 ? "0" : "")\(seconds).000Z\",\(attributes)"
    }

    static func schedule(
        _ text: String,
        played: Set<String> = [],
        start: Schedule.StartRequest? = nil
    ) throws -> Schedule {
        var configuration = Schedule.Configuration()
        configuration.playedEventIDs = played
        configuration.start = start
        // Lenient: an out-of-range number is a parser error too, and the schedule must cope with it.
        let playlist = try #require(PlaylistParser.parse(text).playlist.media)
        return Schedule(primary: playlist, configuration: configuration)
    }

    // MARK: - Played ONCE events

    @Test func playedPreRollDoesNotMoveTheVODPrimary() throws {
        let text = Self.vod(
            Self.interstitial("pre", at: 0, "CUE=\"PRE,ONCE\",DURATION=10,X-RESUME-OFFSET=7," + Self.asset)
        )
        // Not played yet: the pre-roll plays, then the primary resumes 7 s in.
        let fresh = try Self.schedule(text, start: .beginning)
        #expect(rows(fresh) == ["pre 0–7 0–10 0–0", "primary 7–30 10–33 0–23"])
        #expect(fresh.start?.primaryTime == 7)
        // Played: nothing moves the primary; its first 7 s are shown.
        let played = try Self.schedule(text, played: ["pre"], start: .beginning)
        #expect(rows(played) == ["primary 0–30 0–30 0–30"])
        #expect(played.start?.primaryTime == .zero)
        #expect(played.start?.prerollEventIDs == [])
        #expect(played.event("pre")?.status == .alreadyPlayed)
        #expect(played.event("pre")?.cumulativeResumeOffset == .zero)
        // Without a requested start the timeline is the same.
        #expect(rows(try Self.schedule(text, played: ["pre"])) == ["primary 0–30 0–30 0–30"])
    }

    @Test func playedPreRollLeavesTheLivePrimaryAtTheJoinPoint() throws {
        let text = Self.live(
            Self.interstitial("pre", at: 0, "CUE=\"PRE,ONCE\",DURATION=5,X-RESUME-OFFSET=4," + Self.asset)
        )
        let fresh = try Self.schedule(text)
        #expect(fresh.start?.requestedTime == 12)
        #expect(fresh.start?.primaryTime == 16)
        #expect(fresh.start?.prerollEventIDs == ["pre"])
        let played = try Self.schedule(text, played: ["pre"])
        #expect(played.start?.requestedTime == 12)
        #expect(played.start?.primaryTime == 12)
        #expect(played.start?.prerollEventIDs == [])
        #expect(played.items.first?.primary == ScheduleItem.Span(start: 12, end: 30))
    }

    @Test func playedMidRollShowsTheContentItReplaced() throws {
        // No X-RESUME-OFFSET: on VOD the event replaces its 5 s of primary (10–15) when it plays.
        let text = Self.vod(Self.interstitial("mid", at: 10, "CUE=\"ONCE\",DURATION=5," + Self.asset))
        #expect(
            rows(try Self.schedule(text)) == [
                "primary 0–10 0–10 0–10", "mid 10–15 10–15 10–10", "primary 15–30 15–30 10–25",
            ]
        )
        let played = try Self.schedule(text, played: ["mid"])
        #expect(rows(played) == ["primary 0–30 0–30 0–30"])
        #expect(played.event("mid")?.status == .alreadyPlayed)

        // A given offset is not applied either.
        let given = Self.vod(
            Self.interstitial("mid", at: 10, "CUE=\"ONCE\",DURATION=5,X-RESUME-OFFSET=8," + Self.asset)
        )
        #expect(rows(try Self.schedule(given, played: ["mid"])) == ["primary 0–30 0–30 0–30"])
    }

    @Test func playedEventInAPodAddsNoOffset() throws {
        // Two events at 10 s: "a" (ONCE, offset 3) has played, "b" (offset 2) plays: resume at 12.
        let text = Self.vod(
            Self.interstitial("a", at: 10, "CUE=\"ONCE\",DURATION=4,X-RESUME-OFFSET=3," + Self.asset) + "\n"
                + Self.interstitial("b", at: 10, "DURATION=6,X-RESUME-OFFSET=2," + Self.asset)
        )
        let schedule = try Self.schedule(text, played: ["a"])
        #expect(rows(schedule) == ["primary 0–10 0–10 0–10", "b 10–12 10–16 10–10", "primary 12–30 16–34 10–28"])
        #expect(schedule.event("b")?.cumulativeResumeOffset == 2)
        #expect(schedule.event("b")?.resumeTime == 12)
        // A start at 11 s lands in b's replaced span, not in a's.
        let landed = try Self.schedule(text, played: ["a"], start: .time(11))
        #expect(landed.start?.eventID == "b")
        #expect(landed.start?.offsetIntoEvent == 1)
    }

    // MARK: - Unusable date ranges

    struct UnusableCase: Sendable, CustomStringConvertible {
        let name: String
        /// The attributes after START-DATE.
        let attributes: String
        let rule: String
        /// The attribute the diagnostic points at (`nil`: the tag).
        let attribute: String?
        var description: String { self.name }
    }

    static let unusable: [UnusableCase] = [
        .init(
            name: "neither asset",
            attributes: "DURATION=5,X-RESUME-OFFSET=5",
            rule: "INT-ASSET-MISSING",
            attribute: nil
        ),
        .init(
            name: "both assets",
            attributes: "DURATION=5,X-RESUME-OFFSET=5,\(asset),X-ASSET-LIST=\"l.json\"",
            rule: "INT-ASSET-BOTH",
            attribute: "X-ASSET-LIST"
        ),
        .init(
            name: "CUE PRE and POST",
            attributes: "CUE=\"PRE,POST\",DURATION=5,X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-CUE-PRE-POST",
            attribute: "CUE"
        ),
        .init(
            name: "negative DURATION",
            attributes: "DURATION=-5,X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-DURATION-VALUE",
            attribute: "DURATION"
        ),
        .init(
            name: "DURATION out of range",
            attributes: "DURATION=9223372037,X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-DURATION-VALUE",
            attribute: "DURATION"
        ),
        .init(
            name: "negative PLANNED-DURATION",
            attributes: "PLANNED-DURATION=-1,X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-DURATION-VALUE",
            attribute: "PLANNED-DURATION"
        ),
        .init(
            name: "END-DATE before START-DATE",
            attributes: "END-DATE=\"2024-01-01T00:00:05.000Z\",X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-END-DATE-BEFORE-START",
            attribute: "END-DATE"
        ),
        .init(
            name: "END-DATE contradicts DURATION",
            attributes: "DURATION=5,END-DATE=\"2024-01-01T00:00:20.000Z\",X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-END-DATE-MISMATCH",
            attribute: "END-DATE"
        ),
        .init(
            name: "END-DATE not a date",
            attributes: "END-DATE=\"soon\",X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-DATE-VALUE",
            attribute: "END-DATE"
        ),
        .init(
            name: "unquoted X-ASSET-URI",
            attributes: "DURATION=5,X-RESUME-OFFSET=5,X-ASSET-URI=https://ads.example/a.m3u8",
            rule: "INT-ATTRIBUTE-TYPE",
            attribute: "X-ASSET-URI"
        ),
        .init(
            name: "X-RESUME-OFFSET not a number",
            attributes: "DURATION=5,X-RESUME-OFFSET=soon,\(asset)",
            rule: "INT-RESUME-OFFSET-VALUE",
            attribute: "X-RESUME-OFFSET"
        ),
        .init(
            name: "X-RESUME-OFFSET out of range",
            attributes: "DURATION=5,X-RESUME-OFFSET=-99999999999,\(asset)",
            rule: "INT-RESUME-OFFSET-VALUE",
            attribute: "X-RESUME-OFFSET"
        ),
        .init(
            name: "X-PLAYOUT-LIMIT zero",
            attributes: "DURATION=5,X-RESUME-OFFSET=5,X-PLAYOUT-LIMIT=0,\(asset)",
            rule: "INT-PLAYOUT-LIMIT-VALUE",
            attribute: "X-PLAYOUT-LIMIT"
        ),
        .init(
            name: "X-PLAYOUT-LIMIT negative",
            attributes: "DURATION=5,X-RESUME-OFFSET=5,X-PLAYOUT-LIMIT=-3,\(asset)",
            rule: "INT-PLAYOUT-LIMIT-VALUE",
            attribute: "X-PLAYOUT-LIMIT"
        ),
        .init(
            name: "END-ON-NEXT with DURATION",
            attributes: "END-ON-NEXT=YES,DURATION=5,X-RESUME-OFFSET=5,\(asset)",
            rule: "INT-END-ON-NEXT-WITH-END",
            attribute: "END-ON-NEXT"
        ),
    ]

    @Test(arguments: unusable)
    func unusableInterstitialIsLeftOut(_ c: UnusableCase) throws {
        // The bad event at 10 s would skip 5 s of primary (X-RESUME-OFFSET=5) if it were scheduled.
        let text = Self.vod(Self.interstitial("bad", at: 10, c.attributes))
        let schedule = try Self.schedule(text)
        #expect(rows(schedule) == ["primary 0–30 0–30 0–30"], "\(c)")
        #expect(schedule.event("bad")?.status == .unusable, "\(c)")
        #expect(schedule.event("bad")?.status.description == "unusable")
        #expect(schedule.integratedDuration == 30 && schedule.playoutDuration == 30, "\(c)")

        let diagnostics = schedule.diagnostics(file: "main.m3u8")
        let diagnostic = try #require(diagnostics.first { $0.rule.rawValue == c.rule }, "\(c)")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location.file == "main.m3u8")
        #expect(diagnostic.location.line == 5, "\(c)")
        // The column of the attribute at fault, counted in the tag line (1 for the tag itself).
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[4]
        let expectedColumn =
            c.attribute.map { name in
                line.utf8.count
                    - (line.split(separator: ",").drop { !$0.hasPrefix(name + "=") }.joined(separator: ",").utf8.count)
                    + 1
            } ?? 1
        #expect(diagnostic.location.column == expectedColumn, "\(c)")
        #expect(diagnostic.message.contains("left out"))
        #expect(!diagnostic.hint.isEmpty)

        // The validator rejects the same tag with the same rule: one source of truth for "unusable".
        let validator = InterstitialValidator().validate(playlist: text, file: "main.m3u8")
        #expect(validator.contains { $0.rule.rawValue == c.rule && $0.location.line == 5 }, "\(c)")
        #expect(InterstitialRule(id: RuleID(c.rule))?.makesEventUnusable == true, "\(c)")
    }

    @Test func usableControlMovesThePrimary() throws {
        // The same tag with nothing wrong plays and skips 10–15: what the unusable ones must not do.
        let text = Self.vod(Self.interstitial("good", at: 10, "DURATION=5,X-RESUME-OFFSET=5," + Self.asset))
        let schedule = try Self.schedule(text)
        #expect(rows(schedule) == ["primary 0–10 0–10 0–10", "good 10–15 10–15 10–10", "primary 15–30 15–30 10–25"])
        #expect(schedule.diagnostics().isEmpty)
        #expect(schedule.event("good")?.event.defects == [])
    }

    @Test func unusablePreRollIsNotPlayedFirst() throws {
        let text = Self.vod(
            Self.interstitial("bad-pre", at: 0, "CUE=\"PRE\",DURATION=5,X-RESUME-OFFSET=5") + "\n"
                + Self.interstitial("good-pre", at: 0, "CUE=\"PRE\",DURATION=4,X-RESUME-OFFSET=0," + Self.asset)
        )
        let schedule = try Self.schedule(text, start: .beginning)
        #expect(schedule.start?.prerollEventIDs == ["good-pre"])
        #expect(schedule.start?.primaryTime == .zero)
        #expect(rows(schedule) == ["good-pre 0–0 0–4 0–0", "primary 0–30 4–34 0–30"])
        #expect(schedule.diagnostics().map(\.rule.rawValue) == ["INT-ASSET-MISSING"])
        // Events are listed last, after the placeable ones.
        #expect(schedule.events.map(\.identifier) == ["good-pre", "bad-pre"])
    }

    @Test func unusableEventStaysOutAcrossLiveUpdates() throws {
        let before = try MediaPlaylist(parsing: Self.live(""))
        var schedule = Schedule(primary: before)
        let tag = Self.interstitial("bad", at: 20, "CUE=\"PRE,POST\",DURATION=5," + Self.asset)
        let after = try MediaPlaylist(parsing: Self.live(tag) + "#EXTINF:6,\nf.ts\n")
        schedule.update(primary: after, events: InterstitialEvent.events(in: after))
        #expect(schedule.event("bad")?.status == .unusable)
        #expect(!schedule.items.contains { $0.eventID == "bad" })
        #expect(schedule.items.last?.primary.end == 36)
        #expect(schedule.diagnostics().first?.rule.rawValue == "INT-CUE-PRE-POST")
    }

    @Test func relativeAssetURIIsReportedButStillScheduled() throws {
        let text = Self.vod(
            Self.interstitial("rel", at: 10, "DURATION=5,X-RESUME-OFFSET=5,X-ASSET-URI=\"ad/main.m3u8\"")
        )
        let schedule = try Self.schedule(text)
        #expect(schedule.event("rel")?.status == .scheduled)
        #expect(
            InterstitialValidator().validate(playlist: text).contains {
                $0.rule == InterstitialRule.assetURIRelative.id
            }
        )
        #expect(!InterstitialRule.assetURIRelative.makesEventUnusable)
    }

    @Test func eventsMadeInCodeHaveNoDefects() {
        // Client-scheduled events (no date range) are the caller's business: never "unusable".
        let event = InterstitialEvent(identifier: "x", time: 5)
        #expect(event.defects.isEmpty && event.isUsable)
        let schedule = Schedule(primary: try! MediaPlaylist(parsing: Self.vod("")), events: [event])
        #expect(schedule.event("x")?.status == .scheduled)
    }

    @Test func variableReferencesAreNotJudgedBeforeSubstitution() throws {
        let range = try DateRange(
            parsing: Self.interstitial("v", at: 10, "DURATION={$d},X-ASSET-URI=\"{$host}/a.m3u8\"")
        )
        let event = try #require(InterstitialEvent(dateRange: range))
        #expect(event.defects.isEmpty)
    }
}
