import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Schedule documents of `Tests/Fixtures/schedules`, served (in the tests' minds) from `base`.
enum ScheduleDocuments {
    static let base = "https://example.com/s/"

    /// The fixture `schedules/{name}`, decoded with its URL as the document name.
    static func decoded(_ name: String) throws(DateRangeScheduleDecodingError) -> DateRangeSchedule.Decoded {
        try DateRangeSchedule.decode(Fixture.bytes("schedules/" + name), document: base + name)
    }

    /// The fetch results of fixture documents, keyed by absolute URL.
    static func documents(_ names: [String]) -> [String: DateRangeScheduleResolver.Document] {
        var result: [String: DateRangeScheduleResolver.Document] = [:]
        for name in names {
            result[base + name] = Result { () throws(DateRangeScheduleDecodingError) in
                try DateRangeSchedule.decode(Fixture.bytes("schedules/" + name), document: base + name).schedule
            }
        }
        return result
    }

    static func date(_ text: String) -> DateTime { DateTime(iso8601: text)! }

    /// The diagnostics as `rule pointer` lines.
    static func summary(_ diagnostics: [ScheduleDiagnostic]) -> [String] {
        diagnostics.map { "\($0.rule.id) \($0.location.pointer)" }
    }
}

@Suite struct ScheduleDocumentDecodingTests {
    @Test func flatDocumentKeepsEveryEntryAndItsJSONValues() throws {
        let decoded = try ScheduleDocuments.decoded("flat.json")
        #expect(decoded.diagnostics.isEmpty)
        let ranges = decoded.schedule.dateRanges
        #expect(ranges.map(\.id) == ["ad-1", "ad-2", "ad-3"])
        #expect(ranges[0].start == .offset(.zero))
        #expect(ranges[1].start == .offset(MediaTime(seconds: 30)))
        #expect(ranges[2].start == .date(ScheduleDocuments.date("2024-01-01T00:01:00.000Z")))
        #expect(ranges.allSatisfy { $0.isInterstitial })
        #expect(ranges[2]["X-TRACKING"] == ["impression": ["https://t.example.com/i"]])
        #expect(
            ranges[2].location
                == ScheduleLocation(document: ScheduleDocuments.base + "flat.json", pointer: "/DATERANGES/2")
        )
    }

    @Test func malformedEntriesAreReportedAtTheirJSONPointerAndLeftOut() throws {
        let decoded = try ScheduleDocuments.decoded("malformed-entries.json")
        #expect(decoded.schedule.dateRanges.map(\.id) == ["ok"])
        #expect(decoded.schedule.dateRanges[0]["DURATION"] == nil)
        #expect(
            ScheduleDocuments.summary(decoded.diagnostics) == [
                "INT-SCHEDULE-ENTRY-TYPE /DATERANGES/0",
                "INT-SCHEDULE-CLASS-MISSING /DATERANGES/1",
                "INT-SCHEDULE-ID-MISSING /DATERANGES/2",
                "INT-SCHEDULE-START-BOTH /DATERANGES/3/X-SCHEDULE-OFFSET",
                "INT-SCHEDULE-START-MISSING /DATERANGES/4",
                "INT-SCHEDULE-OFFSET-VALUE /DATERANGES/5/X-SCHEDULE-OFFSET",
                "INT-SCHEDULE-OFFSET-VALUE /DATERANGES/6/X-SCHEDULE-OFFSET",
                "INT-SCHEDULE-OFFSET-VALUE /DATERANGES/7/X-SCHEDULE-OFFSET",
                "INT-SCHEDULE-DATE-VALUE /DATERANGES/8/START-DATE",
                "INT-SCHEDULE-ATTRIBUTE-TYPE /DATERANGES/9/DURATION",
                "INT-SCHEDULE-UNKNOWN-KEY /DATERANGES/9/BOGUS",
                "INT-SCHEDULE-STRING-VALUE /DATERANGES/9/X-NOTE",
                "INT-SCHEDULE-ID-DUPLICATE /DATERANGES/10/ID",
                "INT-SCHEDULE-NESTED-URI-MISSING /DATERANGES/11",
            ]
        )
        #expect(
            decoded.diagnostics.allSatisfy { $0.location.document == ScheduleDocuments.base + "malformed-entries.json" }
        )
        #expect(decoded.diagnostics.allSatisfy { !$0.hint.isEmpty })
        #expect(decoded.diagnostics.first { $0.rule == .unknownKey }?.severity == .warning)
        #expect(decoded.diagnostics.first { $0.rule == .startBoth }?.severity == .error)
    }

    @Test(arguments: [
        ("malformed-not-json.json", "INT-SCHEDULE-JSON"),
        ("malformed-top-array.json", "INT-SCHEDULE-SHAPE"),
        ("malformed-no-dateranges.json", "INT-SCHEDULE-SHAPE"),
    ])
    func unreadableDocumentsThrowWithTheirURL(name: String, code: String) {
        do {
            _ = try ScheduleDocuments.decoded(name)
            Issue.record("\(name) decoded")
        } catch {
            #expect(error.code == RuleID(code))
            #expect(error.location.document == ScheduleDocuments.base + name)
            #expect(error.description.hasPrefix(ScheduleDocuments.base + name))
        }
    }

    @Test func nonJSONReportsTheByteOffset() {
        #expect(throws: DateRangeScheduleDecodingError.self) { try DateRangeSchedule.decode("{\"DATERANGES\": [}") }
        do {
            _ = try DateRangeSchedule.decode("{\"DATERANGES\": [}")
        } catch {
            #expect(error.byteOffset == 16)
        }
    }

    @Test func hostileSizesAreBounded() throws {
        let options = DateRangeSchedule.Options(
            maximumBytes: 4096,
            maximumDateRanges: 3,
            maximumDepth: 8,
            maximumStringLength: 100
        )
        let big = "{\"DATERANGES\": [], \"X\": \"" + String(repeating: "a", count: 100_000) + "\"}"
        #expect(throws: DateRangeScheduleDecodingError.self) { try DateRangeSchedule.decode(big, options: options) }
        let deep = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        let deepDocument =
            "{\"DATERANGES\": [{\"CLASS\": \"c\", \"ID\": \"d\", \"X-SCHEDULE-OFFSET\": 0, \"X-D\": \(deep)}]}"
        do {
            _ = try DateRangeSchedule.decode(deepDocument, options: options)
            Issue.record("a 50-deep document decoded with a depth limit of 8")
        } catch {
            #expect(error.code == ScheduleRule.invalidJSON.id)
        }
        let entry = "{\"CLASS\": \"c\", \"ID\": \"x\", \"X-SCHEDULE-OFFSET\": 0}"
        let many = "{\"DATERANGES\": [" + Array(repeating: entry, count: 4).joined(separator: ",") + "]}"
        do {
            _ = try DateRangeSchedule.decode(many, options: options)
            Issue.record("4 entries decoded with a limit of 3")
        } catch {
            #expect(error.code == ScheduleRule.tooMany.id)
            #expect(error.location.pointer == "/DATERANGES")
        }
        let long =
            "{\"DATERANGES\": [{\"CLASS\": \"com.apple.hls.interstitial\", \"ID\": \"l\", \"X-SCHEDULE-OFFSET\": 0, \"X-ASSET-URI\": \"https://a/\(String(repeating: "b", count: 200))\"}]}"
        let decoded = try DateRangeSchedule.decode(long, options: options)
        #expect(
            ScheduleDocuments.summary(decoded.diagnostics) == ["INT-SCHEDULE-STRING-VALUE /DATERANGES/0/X-ASSET-URI"]
        )
        #expect(decoded.schedule.dateRanges.first?["X-ASSET-URI"] == nil)
    }

    @Test func offsetEdges() throws {
        func offsetDiagnostics(_ value: String) throws -> [String] {
            let text = "{\"DATERANGES\": [{\"CLASS\": \"c\", \"ID\": \"x\", \"X-SCHEDULE-OFFSET\": \(value)}]}"
            return ScheduleDocuments.summary(try DateRangeSchedule.decode(text).diagnostics)
        }
        #expect(try offsetDiagnostics("-0") == [])
        #expect(try offsetDiagnostics("9223372036") == [])
        #expect(try offsetDiagnostics("9223372037") == ["INT-SCHEDULE-OFFSET-VALUE /DATERANGES/0/X-SCHEDULE-OFFSET"])
        #expect(try offsetDiagnostics("-0.001") == ["INT-SCHEDULE-OFFSET-VALUE /DATERANGES/0/X-SCHEDULE-OFFSET"])
        #expect(
            try offsetDiagnostics("9223372036854775807") == [
                "INT-SCHEDULE-OFFSET-VALUE /DATERANGES/0/X-SCHEDULE-OFFSET"
            ]
        )
        #expect(try offsetDiagnostics("null") == ["INT-SCHEDULE-OFFSET-VALUE /DATERANGES/0/X-SCHEDULE-OFFSET"])
    }

    @Test func idIsOptionalWhenConfigured() throws {
        let text = "{\"DATERANGES\": [{\"CLASS\": \"c\", \"X-SCHEDULE-OFFSET\": 0}]}"
        #expect(try DateRangeSchedule.decode(text).schedule.dateRanges.isEmpty)
        let lenient = try DateRangeSchedule.decode(text, options: .init(requiresID: false))
        #expect(lenient.diagnostics.isEmpty)
        #expect(lenient.schedule.dateRanges.count == 1)
    }

    @Test func pointerTokensAreEscaped() throws {
        let text = "{\"DATERANGES\": [{\"CLASS\": \"c\", \"ID\": \"x\", \"X-SCHEDULE-OFFSET\": 0, \"A/B~C\": 1}]}"
        let decoded = try DateRangeSchedule.decode(text)
        #expect(ScheduleDocuments.summary(decoded.diagnostics) == ["INT-SCHEDULE-UNKNOWN-KEY /DATERANGES/0/A~1B~0C"])
    }
}

@Suite struct ScheduleDocumentResolutionTests {
    let resolver = DateRangeScheduleResolver()

    @Test func offsetsCountFromTheScheduleStart() throws {
        let playlist = try Fixture.media("schedules/flat.m3u8")
        let pending = self.resolver.resolve(
            playlist: playlist,
            playlistURL: ScheduleDocuments.base + "flat.m3u8",
            documents: [:]
        )
        #expect(pending.pendingURLs == [ScheduleDocuments.base + "flat.json"])
        #expect(pending.events.isEmpty)
        let resolved = self.resolver.resolve(
            playlist: playlist,
            playlistURL: ScheduleDocuments.base + "flat.m3u8",
            documents: ScheduleDocuments.documents(["flat.json"])
        )
        #expect(resolved.isComplete)
        #expect(resolved.diagnostics.isEmpty)
        #expect(resolved.events.map(\.identifier) == ["ad-1", "ad-2", "ad-3"])
        #expect(
            resolved.events.map(\.date) == [
                ScheduleDocuments.date("2024-01-01T00:00:10.000Z"),
                ScheduleDocuments.date("2024-01-01T00:00:40.000Z"),
                ScheduleDocuments.date("2024-01-01T00:01:00.000Z"),
            ]
        )
        #expect(resolved.events.allSatisfy { $0.scheduleIdentifier == "break" })
        #expect(resolved.events.allSatisfy { $0.isUsable })
        #expect(resolved.events[2].assetListURI == "https://example.com/s/lists/ad3.json")
        #expect(resolved.events[2].playoutLimit == MediaTime(seconds: 20))
        #expect(resolved.events[2].alignsStartWithPrimarySegmentBoundary)
        #expect(resolved.events[2].alignsResumptionWithPrimarySegmentBoundary)
        #expect(resolved.events[0].restrictions == [.skip, .jump])
    }

    @Test func scheduledInterstitialMatchesTheSameInterstitialInThePlaylist() throws {
        let scheduledPlaylist = try Fixture.media("schedules/flat.m3u8")
        let inlinePlaylist = try Fixture.media("schedules/flat-inline.m3u8")
        let resolved = self.resolver.resolve(
            playlist: scheduledPlaylist,
            playlistURL: ScheduleDocuments.base + "flat.m3u8",
            documents: ScheduleDocuments.documents(["flat.json"])
        )
        let scheduledEvents =
            InterstitialEvent.events(in: scheduledPlaylist) + resolved.events.filter { $0.identifier == "ad-2" }
        #expect(scheduledEvents.count == 1)
        let scheduled = Schedule(primary: scheduledPlaylist, events: scheduledEvents)
        let inline = Schedule(primary: inlinePlaylist)
        let fromSchedule = try #require(scheduled.event("ad-2"))
        let fromPlaylist = try #require(inline.event("ad-2"))
        #expect(fromSchedule.event.scheduleIdentifier == "break")
        #expect(fromPlaylist.event.scheduleIdentifier == nil)
        var stripped = fromSchedule
        stripped.event.scheduleIdentifier = nil
        #expect(stripped == fromPlaylist)
        #expect(scheduled.items == inline.items)
        #expect(fromSchedule.event.restrictions == [.skip, .jump])
        #expect(fromSchedule.event.resumptionOffset == .zero)
        #expect(fromSchedule.event.willPlayOnce)
        #expect(
            fromSchedule.event.skipControl
                == SkipControl(offset: MediaTime(seconds: 5), duration: MediaTime(seconds: 10), labelID: "SKIP_AD")
        )
        #expect(fromSchedule.event.time == nil)
        #expect(scheduled.playoutDuration == MediaTime(seconds: 135))
        #expect(scheduled.items.first { $0.isInterstitial }?.restrictions == [.skip, .jump])
    }

    @Test func mixedClassesAndNestedOffsetsCountFromTheNestedStart() throws {
        let playlist = try Fixture.media("schedules/mixed.m3u8")
        let url = ScheduleDocuments.base + "mixed.m3u8"
        let first = self.resolver.resolve(
            playlist: playlist,
            playlistURL: url,
            documents: ScheduleDocuments.documents(["mixed.json"])
        )
        #expect(first.pendingURLs == [ScheduleDocuments.base + "nested/pod.json"])
        #expect(first.events.map(\.identifier) == ["pre"])
        #expect(first.events[0].cue == .join)
        #expect(first.events[0].assetURIs == ["https://example.com/s/ads/pre.m3u8"])
        #expect(first.otherDateRanges.map(\.id) == ["chapter-2"])
        #expect(first.otherDateRanges[0].class == "com.example.chapter")
        #expect(first.otherDateRanges[0].startDate == ScheduleDocuments.date("2024-01-01T00:00:30.000Z"))
        #expect(first.otherDateRanges[0].attributes["X-TITLE"]?.quotedString == "Part two")
        #expect(first.otherDateRanges[0].attributes["X-FLAGS"] == nil)
        let all = self.resolver.resolve(
            playlist: playlist,
            playlistURL: url,
            documents: ScheduleDocuments.documents(["mixed.json", "nested/pod.json"])
        )
        #expect(all.isComplete)
        #expect(all.events.map(\.identifier) == ["pre", "pod-ad-1", "pod-ad-2"])
        #expect(all.events[1].date == ScheduleDocuments.date("2024-01-01T00:01:15.000Z"))
        #expect(all.events[2].date == ScheduleDocuments.date("2024-01-01T00:01:15.500Z"))
        #expect(all.events[1].assetURIs == ["https://example.com/s/nested/pod1.m3u8"])
        #expect(all.events.map(\.scheduleIdentifier) == ["show", "pod", "pod"])
        // Whatever names the scheduleIdentifier, each event's playlist schedule is known.
        #expect(all.playlistScheduleIDs == ["pre": "show", "pod-ad-1": "show", "pod-ad-2": "show"])
        let outer = DateRangeScheduleResolver(identifierSource: .outermost)
        let outerIDs = outer.resolve(
            playlist: playlist,
            playlistURL: url,
            documents: ScheduleDocuments.documents(["mixed.json", "nested/pod.json"])
        )
        #expect(outerIDs.events.map(\.scheduleIdentifier) == ["show", "show", "show"])
        let playlistBase = DateRangeScheduleResolver(relativeURIBase: .playlist)
        let fromPlaylist = playlistBase.resolve(
            playlist: playlist,
            playlistURL: "https://cdn.example.com/p/mixed.m3u8",
            documents: [
                "https://cdn.example.com/p/mixed.json": ScheduleDocuments.documents(["mixed.json"]).values.first!
            ]
        )
        #expect(fromPlaylist.pendingURLs == ["https://cdn.example.com/p/nested/pod.json"])
        #expect(fromPlaylist.events.first?.assetURIs == ["https://cdn.example.com/p/ads/pre.m3u8"])
        let schedule = Schedule(primary: playlist, events: InterstitialEvent.events(in: playlist) + all.events)
        #expect(schedule.event("pod-ad-1")?.event.scheduleIdentifier == "pod")
        #expect(schedule.items.first?.eventID == "pre")
        #expect(schedule.items.filter(\.isInterstitial).compactMap(\.eventID) == ["pre", "pod-ad-1", "pod-ad-2"])
    }

    @Test func cyclesAreRefused() {
        let reference = DateRangeScheduleResolver.Reference(
            id: "top",
            url: ScheduleDocuments.base + "cycle-a.json",
            start: ScheduleDocuments.date("2024-01-01T00:00:00.000Z")
        )
        let resolved = self.resolver.resolve(
            references: [reference],
            documents: ScheduleDocuments.documents(["cycle-a.json", "cycle-b.json"])
        )
        #expect(resolved.events.map(\.identifier) == ["a-ad", "b-ad"])
        #expect(resolved.events[1].date == ScheduleDocuments.date("2024-01-01T00:00:12.000Z"))
        #expect(resolved.pendingURLs.isEmpty)
        #expect(resolved.diagnostics.map(\.rule) == [.cycle])
        #expect(
            resolved.diagnostics[0].location
                == ScheduleLocation(document: ScheduleDocuments.base + "cycle-b.json", pointer: "/DATERANGES/1")
        )
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        #expect(DateRangeScheduleResolver.maximumNestingDepth == 8)
        var documents: [String: DateRangeScheduleResolver.Document] = [:]
        for level in 1...12 {
            let text = """
                {"DATERANGES": [
                  {"CLASS": "com.apple.hls.interstitial", "ID": "ad-\(level)", "X-SCHEDULE-OFFSET": 1, "X-ASSET-URI": "https://a/\(level).m3u8"},
                  {"CLASS": "com.apple.hls.daterange-schedule", "ID": "s-\(level + 1)", "X-SCHEDULE-OFFSET": 10, "X-URI": "d\(level + 1).json"}
                ]}
                """
            documents["https://example.com/d\(level).json"] = .success(try DateRangeSchedule.decode(text).schedule)
        }
        let reference = DateRangeScheduleResolver.Reference(
            id: "s-1",
            url: "https://example.com/d1.json",
            start: ScheduleDocuments.date("2024-01-01T00:00:00.000Z")
        )
        let resolved = self.resolver.resolve(references: [reference], documents: documents)
        #expect(resolved.events.map(\.identifier) == (1...8).map { "ad-\($0)" })
        #expect(resolved.events.last?.date == ScheduleDocuments.date("2024-01-01T00:01:11.000Z"))
        #expect(resolved.diagnostics.map(\.rule) == [.tooDeep])
        #expect(resolved.pendingURLs.isEmpty)
    }

    @Test func unreadableScheduleIsAnErrorWithItsURL() {
        let url = ScheduleDocuments.base + "malformed-not-json.json"
        let reference = DateRangeScheduleResolver.Reference(
            id: "s",
            url: url,
            start: ScheduleDocuments.date("2024-01-01T00:00:00.000Z")
        )
        let resolved = self.resolver.resolve(
            references: [reference],
            documents: ScheduleDocuments.documents(["malformed-not-json.json"])
        )
        #expect(resolved.events.isEmpty)
        #expect(resolved.diagnostics.map(\.rule) == [.unreadable])
        #expect(resolved.diagnostics.first?.location.document == url)
        #expect(resolved.diagnostics.first?.message.contains(url) == true)
    }

    @Test func scheduledDefectsMakeTheEventUnusableLikeInThePlaylist() throws {
        let text = """
            {"DATERANGES": [{"CLASS": "com.apple.hls.interstitial", "ID": "x", "X-SCHEDULE-OFFSET": 0,
              "X-ASSET-URI": "https://a/x.m3u8", "X-ASSET-LIST": "https://a/x.json", "CUE": ["PRE", "POST"]}]}
            """
        let schedule = try DateRangeSchedule.decode(text).schedule
        let reference = DateRangeScheduleResolver.Reference(
            id: "s",
            url: "https://a/s.json",
            start: ScheduleDocuments.date("2024-01-01T00:00:00.000Z")
        )
        let resolved = self.resolver.resolve(
            references: [reference],
            documents: ["https://a/s.json": .success(schedule)]
        )
        #expect(resolved.events.first?.defects.map(\.rule) == [.assetBoth, .cuePreAndPost])
    }
}

@Suite struct ScheduleDocumentTagTests {
    @Test func scheduleTagRules() {
        let playlist = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXT-X-DATERANGE:ID="ok",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:00.000Z",X-URI="s.json"
            #EXT-X-DATERANGE:ID="none",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:00.000Z"
            #EXT-X-DATERANGE:ID="empty",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:00.000Z",X-URI=""
            #EXT-X-DATERANGE:ID="cue",CLASS="com.apple.hls.daterange-schedule",START-DATE="2024-01-01T00:00:00.000Z",X-URI="c.json",CUE="PRE"
            #EXTINF:6,
            seg0.ts
            #EXT-X-ENDLIST
            """
        let diagnostics = InterstitialValidator().validate(playlist: playlist, file: "main.m3u8")
            .filter { $0.rule.description.hasPrefix("INT-SCHEDULE-") }
        #expect(
            diagnostics.map { "\($0.rule) \($0.location.line)" } == [
                "INT-SCHEDULE-URI-MISSING 5", "INT-SCHEDULE-URI-TYPE 6", "INT-SCHEDULE-CUE 7",
            ]
        )
        #expect(diagnostics.allSatisfy { $0.location.file == "main.m3u8" && !$0.hint.isEmpty })
    }

    @Test func fixturePlaylistsRoundTrip() throws {
        for name in ["flat.m3u8", "flat-inline.m3u8", "mixed.m3u8"] {
            let bytes = Fixture.bytes("schedules/" + name)
            let playlist = try MediaPlaylist(bytes: bytes)
            #expect(playlist.serialized() == bytes, "\(name)")
        }
    }

    @Test func everyRuleHasAUniqueID() {
        #expect(Set(ScheduleRule.all.map(\.id)).count == ScheduleRule.all.count)
        #expect(ScheduleRule.all.allSatisfy { ScheduleRule(id: $0.id) == $0 })
    }
}
