import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Testing

/// A VOD media playlist of `count` segments of 2 s, without PROGRAM-DATE-TIME.
func vodPlaylist(count: Int, prefix: String = "seg") -> String {
    var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    for k in 0..<count { text += "#EXTINF:2.000000,\n\(prefix)-\(k).ts\n" }
    return text + "#EXT-X-ENDLIST\n"
}

func errors(_ bytes: [UInt8]) -> [PlaylistDiagnostic] {
    InterstitialValidator().validate(playlist: bytes).filter { $0.severity == .error }
}

func dateRangeLines(_ bytes: [UInt8]) -> [String] {
    String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE") }.map(
        String.init
    )
}

let t0 = DateTime(iso8601: "2025-01-01T00:00:00.000Z")!

@Suite struct VODDecorationTests {
    let asset = VODAsset(
        id: "demo",
        origin: "https://origin.example.com/movie/",
        breaks: [
            VODBreak(id: "post", position: .postRoll, duration: 10),
            VODBreak(id: "pre", position: .preRoll, duration: 10, once: true),
            VODBreak(id: "mid1", position: .midRoll(20), duration: 15),
        ]
    )

    @Test func everyMediaPlaylistGetsTheSameValidTags() throws {
        let video = try MediaPlaylist(parsing: vodPlaylist(count: 30, prefix: "v"))
        let audio = try MediaPlaylist(parsing: vodPlaylist(count: 30, prefix: "a"))
        let decorator = VODDecorator(
            asset: self.asset,
            reference: video,
            locator: AssetListLocator(baseURL: "https://ads.example.com/")
        )
        let v = decorator.decorate(video, playlistURL: "https://origin.example.com/movie/video.m3u8").serialized()
        let a = decorator.decorate(audio, playlistURL: "https://origin.example.com/movie/audio/a.m3u8").serialized()
        #expect(errors(v).isEmpty, "\(errors(v))")
        #expect(errors(a).isEmpty, "\(errors(a))")
        #expect(dateRangeLines(v) == dateRangeLines(a))
        let lines = dateRangeLines(v)
        #expect(lines.count == 3)
        #expect(
            lines[0].contains("ID=\"pre\"") && lines[0].contains("CUE=\"PRE,ONCE\"")
                && lines[0].contains("X-RESUME-OFFSET=0")
        )
        #expect(lines[1].contains("ID=\"mid1\"") && lines[1].contains("START-DATE=\"2025-01-01T00:00:20.000Z\""))
        #expect(lines[2].contains("CUE=\"POST\"") && lines[2].contains("START-DATE=\"2025-01-01T00:01:00.000Z\""))
        #expect(
            lines[1].contains(
                "X-ASSET-LIST=\"https://ads.example.com/v1/asset-lists/vod-demo/mid1.json?_HLS_interstitial_id=mid1\""
            )
        )
        let text = String(decoding: a, as: UTF8.self)
        #expect(text.contains("https://origin.example.com/movie/audio/a-0.ts"))
        #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z"))
        let parsed = try MediaPlaylist(bytes: v)
        let events = InterstitialEvent.events(in: parsed)
        #expect(events.map(\.identifier) == ["pre", "mid1", "post"])
        #expect(events[1].resumptionOffset == .zero)
    }

    /// `profile: podcast`: the tags `validate --profile podcast` asks for, whatever the breaks say.
    @Test func thePodcastProfileWritesApplesPodcastTags() throws {
        var asset = self.asset
        asset.profile = .podcast
        // 4 s segments and version 7, as the podcast rules want of the media.
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for k in 0..<15 { text += "#EXTINF:4.000,\na-\(k).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        asset.breaks[2].position = .midRoll(24)
        let episode = try MediaPlaylist(parsing: text)
        let decorator = VODDecorator(asset: asset, reference: episode, locator: AssetListLocator())
        let bytes = decorator.decorate(episode, playlistURL: "/media/podcast/prog.m3u8").serialized()
        let found = InterstitialValidator().validate(playlist: bytes, file: "prog.m3u8", profile: .podcast)
            .filter { $0.severity != .note }
        #expect(found.isEmpty, "\(found.map(\.description))")
        let lines = dateRangeLines(bytes)
        #expect(lines.count == 3)
        #expect(lines[0].contains(#"ID="pre""#) && !lines[0].contains("CUE=") && !lines[0].contains("ONCE"))
        #expect(lines[1].contains(#"X-SNAP="OUT,IN""#) && !lines[1].contains("X-RESTRICT"))
        #expect(lines[2].contains(#"CUE="POST""#) && !lines[2].contains("X-SNAP"))
        // Without the profile the same breaks break the podcast rules: the profile is what fixes them.
        let plain = VODDecorator(asset: self.asset, reference: episode, locator: AssetListLocator())
            .decorate(episode, playlistURL: "/media/podcast/prog.m3u8").serialized()
        let rules = Set(
            InterstitialValidator().validate(playlist: plain, profile: .podcast).filter { $0.severity == .error }
                .map(\.rule)
        )
        #expect(rules.contains("INT-PODCAST-CUE-VALUE") && rules.contains("INT-PODCAST-ATTRIBUTE-REQUIRED"), "\(rules)")
    }

    @Test func multivariantKeepsMediaPlaylistsRelative() throws {
        let text =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nprog.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000\nhttps://origin.example.com/movie/hi/prog.m3u8\n"
        let playlist = try MultivariantPlaylist(parsing: text)
        let decorated = VODDecorator.decorate(
            multivariant: playlist,
            playlistURL: "https://origin.example.com/movie/main.m3u8"
        )
        #expect(decorated.variants.map(\.uri) == ["prog.m3u8", "hi/prog.m3u8"])
    }
}

@Suite struct DecisionTests {
    let inventory = [
        Creative(id: "cheap5", uri: "https://ads.example.com/c5.m3u8", duration: 5, value: 1),
        Creative(id: "gold5", uri: "https://ads.example.com/g5.m3u8", duration: 5, value: 9),
        Creative(id: "silver10", uri: "https://ads.example.com/s10.m3u8", duration: 10, value: 5),
    ]

    /// A decision service over this suite's inventory.
    func service(store: some DecisionStore, repeatWindow: MediaTime = 600) -> AdDecisionService {
        AdDecisionService(
            decider: AdDecider(inventory: self.inventory),
            policy: DecisionPolicy(repeatWindow: repeatWindow),
            store: store
        )
    }

    @Test func aLateJoinerGetsTheWholeBreakWithTheMostValuableWhereItWillSeeThem() {
        let decider = AdDecider(inventory: self.inventory)
        let key = DecisionKey(viewer: "v1", scope: "live-x", breakID: "b1")
        // From the start: most valuable first (gold 9, silver 5; cheap no longer fits in 15 s).
        let full = decider.decide(key, breakDuration: 15, startOffset: nil, excluding: [], now: t0)
        #expect(full.assets.map(\.creativeID) == ["gold5", "silver10"])
        #expect(full.podDuration == 15)
        #expect(
            decider.decide(key, breakDuration: 15, startOffset: .zero, excluding: [], now: t0).assets == full.assets
        )
        // Joining 10 s in: still 15 s of ads (the list spans the whole break), but silver fills the
        // 10 s the viewer will not see, and gold plays from 10 s to 15 s, where it will.
        let late = decider.decide(key, breakDuration: 15, startOffset: 10, excluding: [], now: t0)
        #expect(late.assets.map(\.creativeID) == ["silver10", "gold5"])
        #expect(late.assets.reduce(MediaTime.zero) { $0 + $1.duration } == 15)
        #expect(late.podDuration == 15)
        #expect(late.startOffset == 10)
        // An offset at or past the end: the same whole-break answer.
        let past = decider.decide(key, breakDuration: 15, startOffset: 40, excluding: [], now: t0)
        #expect(past.assets.map(\.creativeID) == ["silver10", "gold5"])
        let seen = decider.decide(key, breakDuration: 15, startOffset: 10, excluding: ["gold5"], now: t0)
        #expect(seen.assets.map(\.creativeID) == ["cheap5", "silver10"])
    }

    /// A presentation's `inventory` and a creative's `scopes` both narrow the choice.
    @Test func aPodHoldsOnlyCreativesThePresentationAndTheCreativeAllow() async throws {
        var inventory = self.inventory
        inventory.append(
            Creative(
                id: "audio",
                uri: "https://ads.example.com/a.m3u8",
                duration: 5,
                value: 100,
                scopes: ["vod-episode"]
            )
        )
        let decider = AdDecider(inventory: inventory)
        func pod(_ scope: String, allowed: Set<String>? = nil) -> [String] {
            let key = DecisionKey(viewer: "v", scope: scope, breakID: "b")
            return decider.decide(key, breakDuration: 20, startOffset: nil, excluding: [], allowed: allowed, now: t0)
                .assets.map(\.creativeID)
        }
        #expect(pod("vod-movie") == ["gold5", "silver10", "cheap5"])
        #expect(pod("vod-episode") == ["audio", "gold5", "silver10"])
        #expect(pod("vod-episode", allowed: ["audio", "cheap5"]) == ["audio", "cheap5"])
        #expect(pod("vod-movie", allowed: ["audio", "cheap5"]) == ["cheap5"])
        #expect(pod("vod-movie", allowed: []) == [])
        // The service applies the presentation's list to stored and anonymous decisions alike.
        let service = AdDecisionService(
            decider: decider,
            policy: DecisionPolicy(repeatWindow: 600),
            store: InMemoryAdStore(),
            allowed: ["audio"]
        )
        let scope = AdScope(kind: .vod, name: "episode")
        for viewer in ["listener", nil] {
            let made = try await service.decision(
                viewer: viewer,
                scope: scope,
                breakID: "b",
                breakDuration: 20,
                startOffset: nil,
                now: t0
            )
            #expect(made.decision.assets.map(\.creativeID) == ["audio"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func theStoredDecisionIsTheWholeAnswerWhateverTheNextOffset() async throws {
        let store = InMemoryAdStore()
        let service = self.service(store: store)
        let scope = AdScope(kind: .vod, name: "movie")
        // A VOD seek into a replaced span asks with an offset too.
        let first = try await service.decide("seeker", scope, "mid", offset: 12, at: t0)
        #expect(first.isNew)
        #expect(first.decision.assets.map(\.creativeID) == ["silver10", "gold5"])
        for offset: MediaTime? in [nil, .zero, 3, MediaTime(milliseconds: 14_500)] {
            let again = try await service.decide("seeker", scope, "mid", offset: offset, at: t0 + 1)
            #expect(!again.isNew)
            #expect(again.decision == first.decision)
        }
    }

    @Test(.timeLimit(.minutes(1))) func anonymousRequestsAreNotStoredAndDoNotChangeEachOthersPods() async throws {
        let store = InMemoryAdStore()
        let service = self.service(store: store)
        let scope = AdScope(kind: .live, name: "x")
        let late = try await service.decide(nil, scope, "b", offset: MediaTime("19.5"), at: t0)
        #expect(late.decision.assets.map(\.creativeID) == ["silver10", "gold5"])
        for viewer: String? in [nil, ""] {
            let fresh = try await service.decide(viewer, scope, "b", at: t0 + 1)
            #expect(fresh.decision.assets.map(\.creativeID) == ["gold5", "silver10"])
        }
        // No frequency capping: the same creatives again, and nothing kept.
        let next = try await service.decide(nil, scope, "b2", at: t0 + 2)
        #expect(next.decision.assets.map(\.creativeID) == ["gold5", "silver10"])
        #expect(try await store.decisionCount() == 0)
    }

    @Test(.timeLimit(.minutes(1))) func sameQuestionSameAnswerAndNoRepeatsWithinTheWindow() async throws {
        let store = InMemoryAdStore()
        let service = self.service(store: store)
        let scope = AdScope(kind: .live, name: "x")
        let first = try await service.decide("v1", scope, "b1", at: t0)
        let again = try await service.decide("v1", scope, "b1", offset: 3, at: t0 + 5)
        #expect(first.isNew && !again.isNew)
        #expect(first.decision == again.decision)
        let next = try await service.decide("v1", scope, "b2", at: t0 + 60)
        #expect(next.decision.assets.map(\.creativeID) == ["cheap5"])
        let other = try await service.decide("v2", scope, "b2", at: t0 + 60)
        #expect(other.decision.assets.map(\.creativeID) == ["gold5", "silver10"])
        let later = try await service.decide("v1", scope, "b3", at: t0 + 700)
        #expect(later.decision.assets.map(\.creativeID) == ["gold5", "silver10"])
        #expect(try await store.decisionCount() == 4)
    }

    @Test(.timeLimit(.minutes(1))) func aZeroWindowAllowsRepeats() async throws {
        let service = self.service(store: InMemoryAdStore(), repeatWindow: .zero)
        let scope = AdScope(kind: .vod, name: "x")
        let first = try await service.decide("v1", scope, "b1", at: t0)
        let second = try await service.decide("v1", scope, "b2", at: t0)
        #expect(first.decision.assets.map(\.creativeID) == ["gold5", "silver10"])
        #expect(second.decision.assets.map(\.creativeID) == first.decision.assets.map(\.creativeID))
    }
}

@Suite struct LiveLoopTests {
    func loop(window: Int = 4) throws -> LiveLoop {
        let source = try MediaPlaylist(parsing: vodPlaylist(count: 5))
        return try LiveLoop(
            source: source,
            sourceURL: "/media/demo/primary/prog.m3u8",
            startDate: t0,
            windowSize: window
        )
    }

    @Test func windowSlidesWithSequenceNumbersAcrossLoops() throws {
        let loop = try self.loop()
        var previousFirst = -1
        var lastDate: DateTime?
        for second in stride(from: 8, through: 60, by: 2) {
            let now = t0 + MediaTime(seconds: second)
            let bytes = loop.render(at: now, breaks: [], lookahead: 30, locator: AssetListLocator())
            #expect(errors(bytes).isEmpty)
            let playlist = try MediaPlaylist(bytes: bytes)
            let segments = Array(playlist.segments)
            #expect(segments.count == 4)
            #expect(playlist.mediaSequence == second / 2 - 4)
            #expect(playlist.mediaSequence > previousFirst)
            previousFirst = playlist.mediaSequence
            for segment in segments {
                // Segment k belongs to loop k / 5: one discontinuity per loop.
                #expect(segment.discontinuitySequenceNumber == segment.mediaSequenceNumber / 5)
                #expect(segment.uri == "/media/demo/primary/seg-\(segment.mediaSequenceNumber % 5).ts")
                #expect(segment.programDateTime == t0 + MediaTime(seconds: 2 * segment.mediaSequenceNumber))
            }
            if let lastDate { #expect(segments.last!.programDateTime! >= lastDate) }
            lastDate = segments.last!.programDateTime
        }
    }

    @Test func breaksAreAnnouncedAheadAndEarlyReturnKeepsTheID() throws {
        let loop = try self.loop(window: 6)
        let plan = LiveBreakPlan(interval: 120, duration: 20)
        let now = t0 + MediaTime(seconds: 100)
        var breaks = plan.breaks(channel: "demo", startDate: t0, from: now - 60, to: now + 30)
        #expect(breaks.map(\.id) == ["auto-0"])
        let locator = AssetListLocator()
        let before = String(
            decoding: loop.render(at: now, breaks: breaks, lookahead: 30, locator: locator),
            as: UTF8.self
        )
        #expect(before.contains("ID=\"auto-0\"") && before.contains("START-DATE=\"2025-01-01T00:02:00.000Z\""))
        #expect(before.contains("X-ASSET-LIST=\"/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0\""))
        breaks[0].playoutLimit = 8
        let during = loop.render(at: t0 + MediaTime(seconds: 130), breaks: breaks, lookahead: 30, locator: locator)
        #expect(errors(during).isEmpty)
        let line = try #require(dateRangeLines(during).first)
        #expect(line.contains("ID=\"auto-0\"") && line.contains("X-PLAYOUT-LIMIT=8") && line.contains("DURATION=20"))
        // Once the break has slid out of the window with its segments, its tag goes.
        let after = loop.render(at: t0 + MediaTime(seconds: 200), breaks: breaks, lookahead: 30, locator: locator)
        #expect(dateRangeLines(after).isEmpty)
    }
}

@Suite struct BreakPlanTests {
    let plan = LiveBreakPlan(interval: 120, duration: 20)

    @Test func aPlannedBreakIsFoundDirectlyByItsID() {
        let found = self.plan.plannedBreak(id: "auto-3", channel: "demo", startDate: t0)
        #expect(found?.startDate == t0 + MediaTime(seconds: 480))
        #expect(found?.duration == 20 && found?.origin == .scheduled)
        #expect(found == self.plan.breaks(channel: "demo", startDate: t0, from: t0 + 480, to: t0 + 480).first)
        // 2025 + 61,900,552 × 120 s is still a representable date (year 2260): found, at once.
        let far = self.plan.plannedBreak(id: "auto-61900552", channel: "demo", startDate: t0)
        #expect(
            far?.startDate == DateTime(nanosecondsSince1970: t0.nanosecondsSince1970 + 120_000_000_000 * 61_900_553)
        )
    }

    @Test func idsThatAreNotPlainIndexesOrDoNotFitAreNotBreaks() {
        let ids = [
            "auto-", "auto--1", "auto-+1", "auto-01", "auto-1e5", "auto-0x10", "auto- 1", "auto-1.0", "auto-١",
            "auto-9223372036854775807", "auto-76861433640", "auto-99999999999999999999999999999999999999",
            "auto-\u{0}1", "news", "", "auto-" + String(repeating: "9", count: 100_000),
        ]
        for id in ids {
            #expect(self.plan.plannedBreak(id: id, channel: "demo", startDate: t0) == nil, "\(id.prefix(40))")
        }
        // The last index whose break still fits: found; the next one: not.
        let maximum = (Int64.max - t0.nanosecondsSince1970 - 120_000_000_000 - 20_000_000_000) / 120_000_000_000
        #expect(self.plan.plannedBreak(id: "auto-\(maximum)", channel: "demo", startDate: t0) != nil)
        #expect(self.plan.plannedBreak(id: "auto-\(maximum + 1)", channel: "demo", startDate: t0) == nil)
    }

    @Test func listingNearTheEndOfTimeStopsInsteadOfWrapping() {
        let late = DateTime(nanosecondsSince1970: Int64.max - 1_000_000_000_000)
        // A window near the largest date: at most the breaks that fit, no wrapped dates.
        let breaks = self.plan.breaks(
            channel: "demo",
            startDate: t0,
            from: late,
            to: DateTime(nanosecondsSince1970: .max)
        )
        #expect(breaks.count <= 9)
        #expect(breaks.allSatisfy { $0.startDate >= t0 })
        let early = self.plan.breaks(
            channel: "demo",
            startDate: t0,
            from: DateTime(nanosecondsSince1970: .min),
            to: t0 + 300
        )
        #expect(early.map(\.id) == ["auto-0", "auto-1"])
        #expect(self.plan.breaks(channel: "demo", startDate: t0, from: t0 + 300, to: t0).isEmpty)
    }
}

/// `cueOnce` of a channel (``LiveChannel/marksMidRollsOnce``): mid-rolls get `CUE="ONCE"`, other breaks
/// keep their cue, and without it nothing changes.
@Suite struct MidRollsOnceTests {
    /// Four breaks inside the window at 100 s of a 6-segment loop of 2 s segments.
    func breaks() -> [LiveBreak] {
        let start = t0 + MediaTime(seconds: 96)
        return [
            LiveBreak(id: "mid", channel: "demo", startDate: start, duration: 2, updatedAt: t0),
            LiveBreak(id: "pre", channel: "demo", startDate: start, duration: 2, cue: ["PRE"], updatedAt: t0),
            LiveBreak(id: "post", channel: "demo", startDate: start, duration: 2, cue: ["POST"], updatedAt: t0),
            LiveBreak(id: "once", channel: "demo", startDate: start, duration: 2, cue: ["ONCE"], updatedAt: t0),
        ]
    }

    /// The `CUE` members of each date range, by ID (`nil`: no `CUE`), as our parser reads them.
    func cues(_ bytes: [UInt8]) throws -> [String: String?] {
        var result: [String: String?] = [:]
        for placed in try MediaPlaylist(bytes: bytes).dateRanges {
            result[placed.dateRange.id] = .some(placed.dateRange.cue?.joined(separator: ","))
        }
        return result
    }

    @Test func aLoopedChannelMarksMidRollsOnceOnlyWhenAsked() throws {
        let source = try MediaPlaylist(parsing: vodPlaylist(count: 5))
        let loop = try LiveLoop(source: source, sourceURL: "/media/p/prog.m3u8", startDate: t0, windowSize: 6)
        let now = t0 + MediaTime(seconds: 100)
        let marked = loop.render(
            at: now,
            breaks: self.breaks(),
            lookahead: 30,
            locator: AssetListLocator(),
            midRollsOnce: true
        )
        #expect(errors(marked).isEmpty, "\(errors(marked))")
        #expect(try self.cues(marked) == ["mid": "ONCE", "pre": "PRE", "post": "POST", "once": "ONCE"])
        #expect(dateRangeLines(marked).contains { $0.contains("ID=\"mid\"") && $0.contains(",CUE=\"ONCE\"") })
        let plain = loop.render(at: now, breaks: self.breaks(), lookahead: 30, locator: AssetListLocator())
        #expect(try self.cues(plain) == ["mid": nil, "pre": "PRE", "post": "POST", "once": "ONCE"])
    }

    @Test func anUpstreamChannelMarksMidRollsOnceOnlyWhenAsked() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:01:30.000Z\n"
        for k in 0..<5 { text += "#EXTINF:2,\ns\(k).ts\n" }
        let playlist = try MediaPlaylist(parsing: text)
        func decorated(_ once: Bool) -> [UInt8] {
            LiveDecorator.decorate(
                playlist,
                playlistURL: "http://up.example.com/live/p.m3u8",
                breaks: self.breaks(),
                lookahead: 30,
                locator: AssetListLocator(),
                midRollsOnce: once
            ).serialized()
        }
        #expect(errors(decorated(true)).isEmpty, "\(errors(decorated(true)))")
        #expect(try self.cues(decorated(true)) == ["mid": "ONCE", "pre": "PRE", "post": "POST", "once": "ONCE"])
        #expect(try self.cues(decorated(false)) == ["mid": nil, "pre": "PRE", "post": "POST", "once": "ONCE"])
    }
}

@Suite struct SCTE35Tests {
    @Test func outBecomesABreakAndAnEarlyInAddsAPlayoutLimit() throws {
        var text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:10\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
        text +=
            "#EXT-X-DATERANGE:ID=\"splice-1\",START-DATE=\"2025-01-01T00:00:04.000Z\",PLANNED-DURATION=30,SCTE35-OUT=0xFC30\n"
        for k in 0..<5 { text += "#EXTINF:2,\ns\(k).ts\n" }
        let playlist = try MediaPlaylist(parsing: text)
        let created = SCTE35Translator.breaks(in: playlist, channel: "up", known: [:], defaultDuration: 60, now: t0)
        #expect(created.count == 1)
        #expect(created[0].id == "scte-splice-1" && created[0].duration == 30 && created[0].origin == .scte35)
        let decorated = LiveDecorator.decorate(
            playlist,
            playlistURL: "http://up.example.com/live/p.m3u8",
            breaks: created,
            lookahead: 30,
            locator: AssetListLocator()
        ).serialized()
        #expect(errors(decorated).isEmpty, "\(errors(decorated))")
        #expect(String(decoding: decorated, as: UTF8.self).contains("http://up.example.com/live/s0.ts"))
        #expect(
            dateRangeLines(decorated).contains {
                $0.contains("ID=\"scte-splice-1\"") && $0.contains("com.apple.hls.interstitial")
            }
        )

        let inText = text + "#EXT-X-DATERANGE:ID=\"splice-1\",DURATION=12,SCTE35-IN=0xFC30\n#EXTINF:2,\ns5.ts\n"
        let updated = SCTE35Translator.breaks(
            in: try MediaPlaylist(parsing: inText),
            channel: "up",
            known: ["scte-splice-1": created[0]],
            defaultDuration: 60,
            now: t0 + 20
        )
        #expect(updated.count == 1 && updated[0].playoutLimit == 12 && updated[0].duration == 30)
    }
}

/// Issue 25, part 4: the other marker styles packagers write become breaks too, read through the
/// SCTE-35 decoder (`SCTE35CueReader`).
@Suite struct SCTE35MarkerStyleTests {
    /// SCTE 35's splice_insert example (out of the network, event 0x4800008F, 60.293567 s).
    static let spliceOut = "/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo="
    /// The same event back into the network (made with threefive from the example).
    static let spliceIn = "/DAqAAAAAAAA///wDwVIAACPf0/+c2nALgAAAAAACgAIQ1VFSQAAATXqkiVF"

    /// 2 s segments from `t0`, `markers[k]` before segment `k`.
    static func playlist(_ markers: [Int: String], from first: Int = 0, count: Int = 10) throws -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:\((t0 + MediaTime(seconds: 2 * first)).iso8601)\n"
        for k in first..<(first + count) {
            if let marker = markers[k] { text += marker + "\n" }
            text += "#EXTINF:2,\ns\(k).ts\n"
        }
        return try MediaPlaylist(parsing: text)
    }

    @Test func cueOutMakesABreakAndALaterCueInReturnsEarly() throws {
        let first = try Self.playlist([
            2: "#EXT-X-CUE-OUT:DURATION=30", 3: "#EXT-X-CUE-OUT-CONT:ElapsedTime=2,Duration=30",
        ])
        let created = SCTE35Translator.breaks(in: first, channel: "up", known: [:], defaultDuration: 60, now: t0)
        #expect(created.count == 1)
        let made = try #require(created.first)
        #expect(made.startDate == t0 + MediaTime(seconds: 4) && made.duration == 30 && made.origin == .scte35)
        // A later window starts inside the break: the continuation names the same break, and the
        // CUE-IN 12 s after its start ends it early.
        let later = try Self.playlist(
            [5: "#EXT-X-CUE-OUT-CONT:ElapsedTime=6,Duration=30", 8: "#EXT-X-CUE-IN"],
            from: 5
        )
        let updated = SCTE35Translator.breaks(
            in: later,
            channel: "up",
            known: [made.id: made],
            defaultDuration: 60,
            now: t0 + 20
        )
        #expect(updated.map(\.id) == [made.id])
        #expect(updated.first?.playoutLimit == 12 && updated.first?.duration == 30)
    }

    @Test func base64SpliceInsertsOpenAndCloseTheirEvent() throws {
        let playlist = try Self.playlist([
            1: "#EXT-OATCLS-SCTE35:\(Self.spliceOut)\n#EXT-X-ASSET:CAID=0x0000000020FB6501",
            6: "#EXT-X-SPLICEPOINT-SCTE35:\(Self.spliceIn)",
        ])
        let breaks = SCTE35Translator.breaks(in: playlist, channel: "up", known: [:], defaultDuration: 60, now: t0)
        #expect(breaks.count == 1)
        let made = try #require(breaks.first)
        #expect(made.id == "scte-splice-\(0x4800_008F)")
        #expect(made.startDate == t0 + MediaTime(seconds: 2))
        #expect(abs(made.duration.seconds - 60.293567) < 0.000_01)
        #expect(made.playoutLimit == 10)
    }

    @Test func segmentationTypesOutsideTheConfiguredOnesMakeNoBreak() throws {
        let timeSignal = "/DA0AAAAAAAA///wBQb+cr0AUAAeAhxDVUVJSAAAjn/PAAGlmbAICAAAAAAsoKGKNAIAmsnRfg=="
        let playlist = try Self.playlist([3: "#EXT-X-SCTE35:CUE=\"\(timeSignal)\""])
        let byDefault = SCTE35Translator.breaks(in: playlist, channel: "up", known: [:], defaultDuration: 60, now: t0)
        #expect(byDefault.map(\.duration) == [307])
        let chaptersOnly = SCTE35CueReader(breakStarts: [.chapterStart], breakEnds: [.chapterEnd])
        #expect(
            SCTE35Translator.breaks(
                in: playlist,
                channel: "up",
                known: [:],
                defaultDuration: 60,
                reader: chaptersOnly,
                now: t0
            ).isEmpty
        )
    }
}

@Suite struct AssetListLocatorTests {
    /// The asset-list URL built without parsing equals the one `withInterstitialID` gives the
    /// same path, whatever the base and the break ID.
    @Test func theURLEqualsTheParsedOne() {
        let bases: [String?] = [
            nil, "https://ads.example.com", "HTTPS://Ads.Example.com/", "http://h:8080/prefix",
            "https://h/p?x=1", "https://h/p#f", "data:text/plain,x", "ftp://h/a", "//h/a", "https\u{1A}//h",
        ]
        let ids = ["break-1", "a b", "é", "x?y#z&w=1", "%41", "", String(repeating: "k", count: 2000)]
        for base in bases {
            let locator = AssetListLocator(baseURL: base)
            for id in ids {
                let scope = AdScope(kind: .live, name: "ch1")
                var path = locator.baseURL ?? ""
                path += "/v1/asset-lists/\(scope.rawValue)/\(id).json"
                #expect(
                    locator.url(scope: scope, breakID: id) == InterstitialRequestURL.withInterstitialID(id, in: path),
                    "\(base ?? "nil") \(id)"
                )
            }
        }
        #expect(
            AssetListLocator(baseURL: "https://ads.example.com/").url(
                scope: AdScope(kind: .live, name: "ch1"),
                breakID: "a b"
            )
                == "https://ads.example.com/v1/asset-lists/live-ch1/a b.json?_HLS_interstitial_id=a%20b"
        )
    }
}

@Suite struct PlainRelativeURITests {
    /// The fast path gives what the full RFC 3986 resolution gives, wherever it is taken, and is
    /// not taken for anything that needs parsing.
    @Test func theFastPathAgreesWithFullResolution() {
        let bases = [
            "http://h/live/main.m3u8", "https://cdn.example.com:8443/a/b/prog.m3u8?token=x#f",
            "HTTPS://H/a/", "http://h/a/../b/p.m3u8", "http://h/./p.m3u8", "http://h", "http://h?x/y/",
            "/media/demo/prog.m3u8", "ftp://h/a/p.m3u8", "http:///p.m3u8", "hTtP://h/a/.../p.m3u8",
            "http://h/a/..b/p.m3u8", "http://h/a/../", "http://h/a/b/..", "http://h/%2e%2e/p.m3u8",
            "http\u{1A}//h/a/p.m3u8", "http:/\u{0F}h/a/p.m3u8", "https://h/é/p.m3u8", "http:", "",
        ]
        let references = [
            "seg-1.ts", "1080p/seg-00001.ts", "a.b/c~d_e-f.ts", "...", "a/.../b.ts", "./seg.ts", "../seg.ts",
            "a/../b.ts", "a/./b.ts", "a//b.ts", "/abs.ts", "//other/x.ts", "http://o/x.ts", "seg.ts?x=1",
            "seg.ts#t", "s%20g.ts", "s g.ts", "a:b.ts", ".", "..", "", "a/", String(repeating: "a", count: 3000),
        ]
        for base in bases {
            for reference in references {
                let full = URIReference.resolve(reference, against: base)
                if let folder = PlainRelativeURI.base(of: base), PlainRelativeURI.isPlain(reference) {
                    #expect(folder + reference == full, "\(reference) against \(base)")
                }
            }
        }
        #expect(PlainRelativeURI.base(of: "http://h/live/main.m3u8") == "http://h/live/")
        // A playlist at the root: the authority's slash is the folder's (this once trapped).
        #expect(PlainRelativeURI.base(of: "http://127.0.0.1:9/upstream.m3u8") == "http://127.0.0.1:9/")
        #expect(PlainRelativeURI.base(of: "http:?") == nil)
        #expect(PlainRelativeURI.base(of: "https://#") == nil)
        #expect(
            PlainRelativeURI.base(of: "https://cdn.example.com:8443/a/b/prog.m3u8?token=x/y")
                == "https://cdn.example.com:8443/a/b/"
        )
        for notPlain in ["http://h", "http://h/a/../p.m3u8", "/media/demo/prog.m3u8", "ftp://h/p", "http:///p.m3u8"] {
            #expect(PlainRelativeURI.base(of: notPlain) == nil, "\(notPlain)")
        }
        for plain in ["seg-1.ts", "1080p/seg-00001.ts", "...", "a/.../b.ts", ".x", "x."] {
            #expect(PlainRelativeURI.isPlain(plain), "\(plain)")
        }
        for notPlain in [
            "./seg.ts", "../seg.ts", "a/../b.ts", "a//b", "/abs.ts", "a/", ".", "..", "", "a:b", "s%20g", "s\u{0}g",
            "é.ts",
        ] {
            #expect(!PlainRelativeURI.isPlain(notPlain), "\(notPlain)")
        }
        #expect(!PlainRelativeURI.isPlain(String(repeating: "a", count: 100_000)))
    }

    /// The same for server paths, the playlist URLs of local origins (VOD decoration takes it).
    @Test func theServerPathFastPathAgreesWithFullResolution() {
        let bases = [
            "/media/demo/prog.m3u8", "/p.m3u8", "/a/b/", "/a/../b/p.m3u8", "/a/./p.m3u8", "/a//b/p.m3u8",
            "//host/p.m3u8", "/a/p.m3u8?x=/y/", "/a/p.m3u8#f/g", "media/p.m3u8", "/a%20b/p.m3u8",
        ]
        let references = ["seg-1.ts", "1080p/seg-00001.ts", "a.b/c~d_e-f.ts", "...", "a/.../b.ts", ".x"]
        for base in bases {
            for reference in references {
                guard let folder = VODDecorator.pathFolder(of: base) else { continue }
                #expect(PlainRelativeURI.isPlain(reference))
                #expect(folder + reference == URIReference.resolve(reference, against: base), "\(reference) \(base)")
            }
        }
        #expect(VODDecorator.pathFolder(of: "/media/demo/prog.m3u8") == "/media/demo/")
        #expect(VODDecorator.pathFolder(of: "/a%20b/p.m3u8") == "/a%20b/")
        for notPlain in ["/a/../b/p.m3u8", "/a/./p.m3u8", "/a//b/p.m3u8", "//host/p.m3u8", "/a/p?x", "/a#f", "p.m3u8"] {
            #expect(VODDecorator.pathFolder(of: notPlain) == nil, "\(notPlain)")
        }
    }
}

extension AdDecisionService {
    /// The decision for a 15 s break (every break these tests ask about lasts 15 s).
    func decide(
        _ viewer: String?,
        _ scope: AdScope,
        _ breakID: String,
        offset: MediaTime? = nil,
        at now: DateTime
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        try await self.decision(
            viewer: viewer,
            scope: scope,
            breakID: breakID,
            breakDuration: 15,
            startOffset: offset,
            now: now
        )
    }
}
