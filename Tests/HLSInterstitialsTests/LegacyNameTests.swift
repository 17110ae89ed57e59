import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The eighth line of a legacy fixture (its date range) and the 1-based column of `needle` in it.
private func column(of needle: String, in path: String) throws -> Int {
    let line = Fixture.text(path).split(separator: "\n", omittingEmptySubsequences: false)[7]
    #expect(line.hasPrefix("#EXT-X-DATERANGE:"))
    let found = try #require(line.firstRange(of: needle))
    return line.utf8.distance(from: line.startIndex, to: found.lowerBound) + 1
}

/// The only event of a legacy fixture.
private func event(_ name: String, _ policy: DraftNamePolicy) throws -> InterstitialEvent {
    let playlist = try Fixture.media("legacy/" + name)
    let events = InterstitialEvent.events(in: playlist, draftNames: policy)
    #expect(events.count == 1)
    return try #require(events.first)
}

@Suite struct LegacyNameValidatorTests {
    /// What the validator must report for each fixture: rule, attribute it points at, and a text the
    /// fix hint must contain.
    static let cases: [(fixture: String, expected: [(rule: String, at: String, hint: String)])] = [
        ("x-cue.m3u8", [("INT-LEGACY-CUE", "X-CUE=", "CUE")]),
        ("x-enable-skip-after.m3u8", [("INT-DRAFT-SKIP-CONTROL", "X-ENABLE-SKIP-AFTER=", "X-SKIP-CONTROL-OFFSET")]),
        ("x-enable-skip-for.m3u8", [("INT-DRAFT-SKIP-CONTROL", "X-ENABLE-SKIP-FOR=", "X-SKIP-CONTROL-DURATION")]),
        ("x-skip-after.m3u8", [("INT-NONSPEC-SKIP", "X-SKIP-AFTER=", "X-SKIP-CONTROL-OFFSET")]),
        ("x-skip-button-start.m3u8", [("INT-NONSPEC-SKIP", "X-SKIP-BUTTON-START=", "X-SKIP-CONTROL-OFFSET")]),
        (
            "x-restrict-seek.m3u8",
            [
                ("INT-UNKNOWN-MEMBER", "X-RESTRICT=", "SKIP, JUMP"),
                ("INT-NONSPEC-RESTRICT", "X-RESTRICT=", "write SKIP"),
            ]
        ),
        ("x-prefetch-id.m3u8", [("INT-VENDOR-PREFETCH", "X-PREFETCH-ID=", "CLASS=\"com.apple.hls.preload\"")]),
        (
            "x-preload-ahead.m3u8",
            [("INT-VENDOR-PREFETCH", "X-PRELOAD-AHEAD=", "START-DATE and DURATION")]
        ),
        ("no-class.m3u8", [("INT-CLASS-VALUE", "#EXT-X-DATERANGE:", "add CLASS=\"com.apple.hls.interstitial\"")]),
        (
            "x-cue-shadowed.m3u8",
            [
                ("INT-LEGACY-CUE", "X-CUE=", "rename X-CUE to CUE"),
                ("INT-DRAFT-NAME-SHADOWED", "X-CUE=", "remove X-CUE"),
            ]
        ),
    ]

    @Test(arguments: cases.indices)
    func warnsAtTheAttributeWithTheSpecSpelling(_ index: Int) throws {
        let (fixture, expected) = Self.cases[index]
        let path = "legacy/" + fixture
        let validator = InterstitialValidator(configuration: .init(includesNotes: false))
        let diagnostics = validator.validate(playlist: Fixture.bytes(path), file: path)
        #expect(diagnostics.count == expected.count, "\(diagnostics.map(\.description))")
        for (diagnostic, want) in zip(diagnostics, expected) {
            #expect(diagnostic.rule.rawValue == want.rule)
            #expect(diagnostic.severity == .warning)
            #expect(
                diagnostic.location == SourceLocation(file: path, line: 8, column: try column(of: want.at, in: path))
            )
            #expect(diagnostic.hint.contains(want.hint), "\(diagnostic.hint)")
        }
    }

    @Test func everyDraftRuleIsNamedAndFoundByID() {
        for rule in InterstitialRule.draftNameRules {
            #expect(InterstitialRule(id: rule.id) == rule)
            #expect(rule.severity == .warning)
        }
        #expect(Set(DraftName.all.map(\.rule)).isSubset(of: Set(InterstitialRule.draftNameRules)))
        // The draft-name rules stay out of the rule-fixture list of interstitial-rules/.
        #expect(Set(InterstitialRule.all).isDisjoint(with: InterstitialRule.draftNameRules))
    }

    @Test func draftNamesOnAnOrdinaryDateRangeAreNotReported() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXTINF:6.0,
            a.ts
            #EXT-X-DATERANGE:ID="scores",CLASS="com.example.scores",START-DATE="2024-01-01T00:00:01.000Z",X-CUE="PRE",X-SKIP-AFTER=5,X-RESTRICT="SEEK"
            #EXT-X-ENDLIST

            """
        let diagnostics = InterstitialValidator().validate(playlist: text, file: "p.m3u8")
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
    }

    @Test func assetListDraftKeysAreReportedAtTheKey() {
        let validator = InterstitialValidator()
        let after = validator.draftNameDiagnostics(
            assetList: Fixture.bytes("legacy/enable-skip-after.json"),
            file: "a.json"
        )
        #expect(after.map(\.rule.rawValue) == ["INT-DRAFT-ASSET-LIST-SKIP-CONTROL"])
        // Line 5 is `  "SKIP-CONTROL": {"ENABLE-SKIP-AFTER": 5, …`: the key's quote is at column 20.
        #expect(after.first?.location == SourceLocation(file: "a.json", line: 5, column: 20))
        #expect(after.first?.hint.contains("to OFFSET") == true)
        // The asset's own ENABLE-SKIP-FOR (line 3) is not a SKIP-CONTROL key: only line 7 is reported.
        let forKey = validator.draftNameDiagnostics(assetList: Fixture.bytes("legacy/enable-skip-for.json"))
        #expect(forKey.map(\.location.line) == [7])
        #expect(forKey.first?.location.column == 5)
        #expect(forKey.first?.hint.contains("to DURATION") == true)
        let shadowed = validator.draftNameDiagnostics(
            assetList: Array(#"{"ASSETS": [], "SKIP-CONTROL": {"OFFSET": 1, "ENABLE-SKIP-AFTER": 2}}"#.utf8)
        )
        #expect(shadowed.map(\.rule.rawValue) == ["INT-DRAFT-ASSET-LIST-SKIP-CONTROL", "INT-DRAFT-NAME-SHADOWED"])
    }
}

@Suite struct LegacyNameEngineTests {
    @Test func xCueIsReadAsCueUnlessRefused() throws {
        #expect(try event("x-cue.m3u8", .accept).willPlayOnce)
        #expect(try !event("x-cue.m3u8", .refuse).willPlayOnce)
        // The default is accept.
        let playlist = try Fixture.media("legacy/x-cue.m3u8")
        #expect(InterstitialEvent.events(in: playlist).first?.willPlayOnce == true)
        #expect(DateRangeTracker(playlist: playlist).interstitialEvents.first?.willPlayOnce == true)
        #expect(
            DateRangeTracker(playlist: playlist, draftNames: .refuse).interstitialEvents.first?.willPlayOnce == false
        )
    }

    @Test func specCueWinsOverXCue() throws {
        let accepted = try event("x-cue-shadowed.m3u8", .accept)
        #expect(accepted.willPlayOnce)
        #expect(accepted.cue != .join)  // X-CUE="PRE" is ignored
    }

    @Test func draftSkipNamesAreReadAsSkipControl() throws {
        let after = try event("x-enable-skip-after.m3u8", .accept)
        #expect(after.skipControl?.offset == MediaTime(seconds: 5))
        #expect(after.skipControl?.duration == nil)
        #expect(!after.userDefinedAttributes.contains { $0.name == "X-ENABLE-SKIP-AFTER" })
        // Written back with the spec name.
        let written = try #require(after.dateRange())
        #expect(written.attributes["X-SKIP-CONTROL-OFFSET"]?.rawValue == "5")
        #expect(written.attributes["X-ENABLE-SKIP-AFTER"] == nil)

        let refused = try event("x-enable-skip-after.m3u8", .refuse)
        #expect(refused.skipControl == nil)
        #expect(refused.userDefinedAttributes.contains { $0.name == "X-ENABLE-SKIP-AFTER" })

        let skipFor = try event("x-enable-skip-for.m3u8", .accept)
        #expect(skipFor.skipControl?.offset == MediaTime(seconds: 5))
        #expect(skipFor.skipControl?.duration == MediaTime(seconds: 10))
        #expect(try event("x-enable-skip-for.m3u8", .refuse).skipControl?.duration == nil)

        #expect(try event("x-skip-after.m3u8", .accept).skipControl?.offset == MediaTime(seconds: 5))
        #expect(try event("x-skip-after.m3u8", .refuse).skipControl == nil)
    }

    @Test func ambiguousNamesAreNeverMapped() throws {
        for policy in DraftNamePolicy.allCases {
            let button = try event("x-skip-button-start.m3u8", policy)
            #expect(button.skipControl?.offset == MediaTime(seconds: 5))
            #expect(button.userDefinedAttributes.map(\.name) == ["X-SKIP-BUTTON-START"])
            let preload = try event("x-preload-ahead.m3u8", policy)
            #expect(preload.userDefinedAttributes.map(\.name) == ["X-PRELOAD-AHEAD"])
            // No CLASS: not an interstitial, whatever the policy.
            let playlist = try Fixture.media("legacy/no-class.m3u8")
            #expect(InterstitialEvent.events(in: playlist, draftNames: policy).isEmpty)
        }
    }

    @Test func restrictSeekIsReadAsSkip() throws {
        let accepted = try event("x-restrict-seek.m3u8", .accept)
        #expect(accepted.restrictions == [.skip, .jump])
        let refused = try event("x-restrict-seek.m3u8", .refuse)
        #expect(refused.restrictions == [.jump])
    }

    @Test func assetListDraftSkipKeysAreReadUnlessRefused() throws {
        let after = try AssetList.decode(Fixture.bytes("legacy/enable-skip-after.json"))
        #expect(after.skipControl?.offset == MediaTime(seconds: 5))
        #expect(after.skipControl?.labelID == "SKIP_AD")
        let refused = try AssetList.decode(Fixture.bytes("legacy/enable-skip-after.json"), draftNames: .refuse)
        #expect(refused.skipControl?.offset == nil)
        #expect(refused.skipControl?.otherMembers.map(\.key) == ["ENABLE-SKIP-AFTER"])

        let skipFor = try AssetList.decode(Fixture.bytes("legacy/enable-skip-for.json"))
        #expect(skipFor.skipControl?.offset == MediaTime(seconds: 5))
        #expect(skipFor.skipControl?.duration == MediaTime(seconds: 10))
        // The asset's ENABLE-SKIP-FOR is not a skip-control key.
        #expect(skipFor.assets.first?.otherMembers.map(\.key) == ["ENABLE-SKIP-FOR"])

        // The spec key wins when both are given.
        let both = try AssetList.decode(#"{"ASSETS": [], "SKIP-CONTROL": {"ENABLE-SKIP-AFTER": 2, "OFFSET": 1}}"#)
        #expect(both.skipControl?.offset == MediaTime(seconds: 1))
    }
}

@Suite struct LegacyNameFixerTests {
    /// Each fixture with the edit a person makes by hand: `nil` when nothing may change.
    static let edits: [(fixture: String, from: String, to: String)?] = [
        ("x-cue.m3u8", "X-CUE=\"ONCE\"", "CUE=\"ONCE\""),
        ("x-enable-skip-after.m3u8", "X-ENABLE-SKIP-AFTER=5", "X-SKIP-CONTROL-OFFSET=5"),
        ("x-enable-skip-for.m3u8", "X-ENABLE-SKIP-FOR=10", "X-SKIP-CONTROL-DURATION=10"),
        ("x-skip-after.m3u8", "X-SKIP-AFTER=5", "X-SKIP-CONTROL-OFFSET=5"),
        ("x-restrict-seek.m3u8", "X-RESTRICT=\"SEEK,JUMP\"", "X-RESTRICT=\"SKIP,JUMP\""),
        ("no-class.m3u8", "ID=\"ad1\",", "ID=\"ad1\",CLASS=\"com.apple.hls.interstitial\","),
    ]

    @Test(arguments: edits.indices)
    func rewritesToTheSpecSpellingAndNothingElse(_ index: Int) throws {
        let edit = try #require(Self.edits[index])
        let text = Fixture.text("legacy/" + edit.fixture)
        let expected = text.replacing(edit.from, with: edit.to)
        #expect(expected != text)
        let result = DraftNameFixer().fix(playlist: Array(text.utf8))
        #expect(String(decoding: result.bytes, as: UTF8.self) == expected)
        #expect(result.changes.count == 1)
        #expect(result.changes.first?.line == 8)
        #expect(result.unchanged.isEmpty)
        // The fixed playlist has no draft-name warning left, is a fixed point, and gives the same
        // events as the draft one read under accept.
        let diagnostics = InterstitialValidator().validate(playlist: result.bytes)
        #expect(!diagnostics.contains { InterstitialRule.draftNameRules.map(\.id).contains($0.rule) })
        #expect(!diagnostics.contains { $0.rule.rawValue == "INT-CLASS-VALUE" })
        #expect(DraftNameFixer().fix(playlist: result.bytes).bytes == result.bytes)
        let original = try MediaPlaylist(bytes: Array(text.utf8))
        let fixed = try MediaPlaylist(bytes: result.bytes)
        if edit.fixture != "no-class.m3u8" {
            #expect(InterstitialEvent.events(in: fixed, draftNames: .refuse) == InterstitialEvent.events(in: original))
        }
    }

    @Test(arguments: ["x-skip-button-start.m3u8", "x-prefetch-id.m3u8", "x-preload-ahead.m3u8", "x-cue-shadowed.m3u8"])
    func leavesAmbiguousAndShadowedNamesAlone(_ fixture: String) {
        let bytes = Fixture.bytes("legacy/" + fixture)
        let result = DraftNameFixer().fix(playlist: bytes)
        #expect(result.bytes == bytes)
        #expect(result.changes.isEmpty)
        #expect(result.unchanged.count == 1)
        #expect(result.unchanged.allSatisfy { $0.line == 8 })
    }

    @Test func keepsCRLFAndEveryOtherByte() {
        let text = Fixture.text("legacy/x-cue.m3u8").replacing("\n", with: "\r\n")
        let result = DraftNameFixer().fix(playlist: Array(text.utf8))
        #expect(String(decoding: result.bytes, as: UTF8.self) == text.replacing("X-CUE=", with: "CUE="))
    }

    @Test func sameIDUpdateOfAnInterstitialIsFixedToo() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z
            #EXTINF:6.0,
            a.ts
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-01T00:00:01.000Z",X-ASSET-URI="https://a.example/ad.m3u8"
            #EXT-X-DATERANGE:ID="ad",X-ENABLE-SKIP-AFTER=3
            #EXT-X-DATERANGE:ID="other",START-DATE="2024-01-01T00:00:01.000Z",X-ENABLE-SKIP-AFTER=3

            """
        let result = DraftNameFixer().fix(playlist: Array(text.utf8))
        #expect(result.changes.map(\.description) == ["7:26: X-ENABLE-SKIP-AFTER -> X-SKIP-CONTROL-OFFSET"])
    }

    @Test func assetListKeysAreRenamedInSkipControlOnly() {
        let after = Fixture.text("legacy/enable-skip-after.json")
        let fixedAfter = DraftNameFixer().fix(assetList: Array(after.utf8))
        #expect(
            String(decoding: fixedAfter.bytes, as: UTF8.self)
                == after.replacing("\"ENABLE-SKIP-AFTER\": 5", with: "\"OFFSET\": 5")
        )
        let skipFor = Fixture.text("legacy/enable-skip-for.json")
        let fixedFor = DraftNameFixer().fix(assetList: Array(skipFor.utf8))
        #expect(
            String(decoding: fixedFor.bytes, as: UTF8.self)
                == skipFor.replacing("\"ENABLE-SKIP-FOR\": 10", with: "\"DURATION\": 10")
        )
        #expect(fixedFor.changes.map(\.description) == ["7:6: ENABLE-SKIP-FOR -> DURATION"])
        let both = #"{"ASSETS": [], "SKIP-CONTROL": {"OFFSET": 1, "ENABLE-SKIP-AFTER": 2}}"#
        let fixedBoth = DraftNameFixer().fix(assetList: Array(both.utf8))
        #expect(fixedBoth.bytes == Array(both.utf8))
        #expect(fixedBoth.unchanged.count == 1)
    }
}
