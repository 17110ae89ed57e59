import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// One fixture of `Tests/Fixtures/interstitial-rules`: `<RULE-ID>.bad.m3u8` breaks the rule,
/// `<RULE-ID>.good.m3u8` does not.
struct RuleFixture: CustomStringConvertible, Sendable {
    static let folder = "interstitial-rules"
    let rule: String
    let isBad: Bool

    var name: String { "\(self.rule).\(self.isBad ? "bad" : "good").m3u8" }
    var path: String { "\(RuleFixture.folder)/\(self.name)" }
    var description: String { self.name }

    static let all: [RuleFixture] = Fixture.names(in: folder).compactMap { name in
        guard name.hasSuffix(".m3u8") else { return nil }
        let stem = name.dropLast(".m3u8".count)
        if stem.hasSuffix(".bad") { return RuleFixture(rule: String(stem.dropLast(4)), isBad: true) }
        if stem.hasSuffix(".good") { return RuleFixture(rule: String(stem.dropLast(5)), isBad: false) }
        return nil
    }

    /// Every diagnostic for the fixture: a media playlist is validated (and, when marked as an
    /// interstitial asset, checked as one); a multivariant playlist is validated with every media
    /// playlist it references, as a presentation.
    func diagnostics() throws -> [PlaylistDiagnostic] {
        let validator = InterstitialValidator()
        let bytes = Fixture.bytes(self.path)
        var diagnostics = validator.validate(playlist: bytes, file: self.path)
        let parsed = PlaylistParser.parse(bytes)
        switch parsed.playlist {
        case .media(let playlist):
            if Fixture.text(self.path).contains("## intermission-fixture: interstitial-asset") {
                diagnostics += validator.validate(interstitialAsset: playlist, file: self.path)
            }
        case .multivariant(let multivariant):
            var media: [String: MediaPlaylist] = [:]
            for uri in InterstitialInserter.mediaPlaylistURIs(in: multivariant) {
                let path = URIReference.resolve(uri, against: self.path)
                let bytes = Fixture.bytes(path)
                #expect(!bytes.isEmpty, "missing \(path)")
                diagnostics += validator.validate(playlist: bytes, file: path)
                media[uri] = try MediaPlaylist(bytes: bytes, file: path)
            }
            #expect(media.count >= 2)
            diagnostics += validator.validate(multivariant: multivariant, file: self.path, mediaPlaylists: media)
        }
        return diagnostics
    }
}

@Suite struct RuleFixtureTests {
    @Test(arguments: RuleFixture.all.filter(\.isBad))
    func badFixtureReportsExactlyItsRule(_ fixture: RuleFixture) throws {
        let diagnostics = try fixture.diagnostics()
        #expect(!diagnostics.isEmpty)
        #expect(
            Set(diagnostics.map(\.rule.rawValue)) == [fixture.rule],
            "\(diagnostics.map(\.description).joined(separator: "\n"))"
        )
        if let rule = InterstitialRule(id: RuleID(fixture.rule)) {
            #expect(diagnostics.allSatisfy { $0.severity == rule.severity })
        }
    }

    @Test(arguments: RuleFixture.all.filter { !$0.isBad })
    func goodFixtureReportsNothing(_ fixture: RuleFixture) throws {
        let diagnostics = try fixture.diagnostics()
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description).joined(separator: "\n"))")
    }

    @Test func everyRuleHasABadAndAGoodFixture() {
        let bad = Set(RuleFixture.all.filter(\.isBad).map(\.rule))
        let good = Set(RuleFixture.all.filter { !$0.isBad }.map(\.rule))
        let expected = Set(
            InterstitialRule.all.map(\.id.rawValue) + [
                "HLS-ATTR-DUPLICATE", "HLS-ATTR-REQUIRED", "HLS-DATERANGE-NO-PDT",
            ]
        )
        #expect(bad == expected)
        #expect(good == expected)
        #expect(InterstitialRule.all.count == 39)
        #expect(Set(InterstitialRule.all.map(\.id)).count == InterstitialRule.all.count)
        #expect(InterstitialRule.all.allSatisfy { $0.id.rawValue.hasPrefix("INT-") })
    }
}
