import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// One fixture of `Tests/Fixtures/podcast`: `<RULE-ID>.bad.m3u8` breaks exactly that podcast rule;
/// `episode.m3u8` (with `episode-audio.m3u8`) is a conforming audio-only episode with a pre-roll, a
/// mid-roll and a post-roll.
struct PodcastFixture: CustomStringConvertible, Sendable {
    static let folder = "podcast"
    let name: String

    var path: String { "\(PodcastFixture.folder)/\(self.name)" }
    var description: String { self.name }
    /// The rule a `.bad` fixture breaks.
    var rule: String? { self.name.hasSuffix(".bad.m3u8") ? String(self.name.dropLast(".bad.m3u8".count)) : nil }

    static let bad: [PodcastFixture] = Fixture.names(in: folder).filter { $0.hasSuffix(".bad.m3u8") }.map {
        PodcastFixture(name: $0)
    }
    static let episode = PodcastFixture(name: "episode.m3u8")

    /// Every diagnostic, checked the way `intermission validate --profile` checks: the playlist,
    /// and for a multivariant playlist each media playlist it references and the presentation.
    func diagnostics(profile: ValidationProfile?) throws -> [PlaylistDiagnostic] {
        let validator = InterstitialValidator()
        let bytes = Fixture.bytes(self.path)
        #expect(!bytes.isEmpty, "missing \(self.path)")
        var diagnostics = validator.validate(playlist: bytes, file: self.path, profile: profile)
        guard case .multivariant(let multivariant) = PlaylistParser.parse(bytes).playlist else { return diagnostics }
        var media: [String: MediaPlaylist] = [:]
        for uri in InterstitialInserter.mediaPlaylistURIs(in: multivariant) {
            let path = URIReference.resolve(uri, against: self.path)
            let child = Fixture.bytes(path)
            #expect(!child.isEmpty, "missing \(path)")
            diagnostics += validator.validate(playlist: child, file: path, profile: profile)
            media[uri] = try MediaPlaylist(bytes: child, file: path)
        }
        #expect(!media.isEmpty)
        diagnostics += validator.validate(multivariant: multivariant, file: self.path, mediaPlaylists: media)
        return diagnostics
    }
}

private func rules(_ diagnostics: [PlaylistDiagnostic]) -> Set<String> { Set(diagnostics.map(\.rule.rawValue)) }

private func listing(_ diagnostics: [PlaylistDiagnostic]) -> String {
    diagnostics.map(\.description).joined(separator: "\n")
}

@Suite struct PodcastProfileTests {
    @Test func theConformingEpisodeReportsNothing() throws {
        let diagnostics = try PodcastFixture.episode.diagnostics(profile: .podcast)
        #expect(diagnostics.isEmpty, "\(listing(diagnostics))")
        // It is what the brief asks for: audio-only, with a pre-, a mid- and a post-roll.
        let media = try MediaPlaylist(bytes: Fixture.bytes("podcast/episode-audio.m3u8"))
        let interstitials = media.dateRanges.map(\.dateRange).filter(\.isInterstitial)
        #expect(interstitials.map(\.id) == ["preroll", "midroll", "postroll"])
        #expect(interstitials.last?.attributes[.cue]?.stringList == ["POST"])
    }

    @Test(arguments: PodcastFixture.bad)
    func badFixtureReportsExactlyItsRule(_ fixture: PodcastFixture) throws {
        let diagnostics = try fixture.diagnostics(profile: .podcast)
        #expect(rules(diagnostics) == [fixture.rule!], "\(listing(diagnostics))")
        let rule = try #require(InterstitialRule(id: RuleID(fixture.rule!)))
        #expect(InterstitialRule.podcastRules.contains(rule))
        #expect(diagnostics.allSatisfy { $0.severity == rule.severity && !$0.hint.isEmpty })
        #expect(diagnostics.allSatisfy { $0.location.line >= 1 && $0.location.file != nil })
    }

    @Test(arguments: PodcastFixture.bad)
    func withoutTheProfileNoPodcastRuleIsReported(_ fixture: PodcastFixture) throws {
        let diagnostics = try fixture.diagnostics(profile: nil)
        #expect(!diagnostics.contains { $0.rule.rawValue.hasPrefix("INT-PODCAST-") }, "\(listing(diagnostics))")
    }

    @Test func everyPodcastRuleHasABadFixture() {
        #expect(Set(PodcastFixture.bad.compactMap(\.rule)) == Set(InterstitialRule.podcastRules.map(\.id.rawValue)))
        #expect(InterstitialRule.podcastRules.count == 15)
        #expect(Set(InterstitialRule.podcastRules).isDisjoint(with: InterstitialRule.all))
        #expect(InterstitialRule.podcastRules.allSatisfy { $0.id.rawValue.hasPrefix("INT-PODCAST-") })
        #expect(ValidationProfile.podcast.rules == InterstitialRule.podcastRules)
        #expect(ValidationProfile(rawValue: "podcast") == .podcast)
    }

    @Test(arguments: Fixture.all(in: PodcastFixture.folder))
    func fixtureRoundTripsByteForByte(_ fixture: Fixture) {
        let bytes = fixture.bytes
        #expect(!bytes.isEmpty)
        #expect(PlaylistParser.parse(bytes, options: .init(mode: .lenient)).playlist.serialized() == bytes)
    }

    // MARK: - Edges

    /// The conforming episode with the mid-roll's START-DATE replaced.
    func episode(midrollAt start: String) -> String {
        Fixture.text("podcast/episode-audio.m3u8").replacingOccurrences(
            of: "START-DATE=\"2026-01-01T00:00:30.000Z\"",
            with: "START-DATE=\"\(start)\""
        )
    }

    func podcastRules(_ text: String) -> [PlaylistDiagnostic] {
        InterstitialValidator().validate(playlist: Array(text.utf8), file: "e.m3u8", profile: .podcast)
            .filter { $0.rule.rawValue.hasPrefix("INT-PODCAST-") }
    }

    @Test func theBoundaryToleranceIsOneMillisecond() throws {
        #expect(PodcastLimits.boundaryTolerance == MediaTime(milliseconds: 1))
        let original = self.episode(midrollAt: "2026-01-01T00:00:30.000Z")
        #expect(original == Fixture.text("podcast/episode-audio.m3u8"))
        #expect(self.podcastRules(self.episode(midrollAt: "2026-01-01T00:00:30.0009Z")).isEmpty)
        #expect(self.podcastRules(self.episode(midrollAt: "2026-01-01T00:00:29.999Z")).isEmpty)
        let off = self.podcastRules(self.episode(midrollAt: "2026-01-01T00:00:30.002Z"))
        #expect(off.map(\.rule.rawValue) == ["INT-PODCAST-SEGMENT-BOUNDARY"])
        // The diagnostic points at START-DATE of the mid-roll's tag and names the boundary.
        let diagnostic = try #require(off.first)
        #expect(diagnostic.location.line == 8)
        #expect(diagnostic.location.column > 1)
        #expect(diagnostic.hint.contains("2026-01-01T00:00:30"))
    }

    @Test func boundariesFollowProgramDateTimeAcrossADiscontinuity() {
        // A second PROGRAM-DATE-TIME jumps the dates by an hour: boundaries are from each segment's date.
        var text = self.episode(midrollAt: "2026-01-01T01:00:06.000Z")
        text = text.replacingOccurrences(
            of: "#EXTINF:6.000,\naudio/seg5.aac",
            with:
                "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z\n#EXTINF:6.000,\naudio/seg5.aac"
        )
        text = text.replacingOccurrences(of: "2026-01-01T00:00:54.000Z", with: "2026-01-01T01:00:18.000Z")
        #expect(self.podcastRules(text).isEmpty, "\(listing(self.podcastRules(text)))")
        let off = text.replacingOccurrences(of: "2026-01-01T01:00:06.000Z", with: "2026-01-01T00:00:36.000Z")
        // 00:00:36 is not a boundary any more: the dates after the discontinuity start at 01:00.
        #expect(self.podcastRules(off).map(\.rule.rawValue).contains("INT-PODCAST-SEGMENT-BOUNDARY"))
    }

    @Test func extremeDatesAndDurationsSaturateInsteadOfTrapping() {
        // The last segment lasts 9,223,372,036 s, so the episode's end saturates at the latest date.
        let cases: [(start: String, rules: Set<String>)] = [
            ("1677-09-21T00:12:45Z", ["INT-PODCAST-DATE-BOUNDS", "INT-PODCAST-SEGMENT-BOUNDARY"]),
            ("2262-04-11T23:47:15.999Z", ["INT-PODCAST-CUE-POST", "INT-PODCAST-SEGMENT-BOUNDARY"]),
            ("2026-01-01T00:00:30.000Z", []),
        ]
        for (start, expected) in cases {
            var text = self.episode(midrollAt: start)
            text = text.replacingOccurrences(
                of: "#EXTINF:6.000,\naudio/seg9.aac",
                with: "#EXTINF:9223372036,\naudio/seg9.aac"
            )
            let diagnostics = self.podcastRules(text)
            #expect(rules(diagnostics) == expected, "\(start): \(listing(diagnostics))")
        }
        // A 100 KB START-DATE is no date: the spec's rules report it, the profile has no cue point to check.
        let long = self.episode(midrollAt: String(repeating: "9", count: 100_000))
        #expect(self.podcastRules(long).isEmpty)
        #expect(
            InterstitialValidator().validate(playlist: Array(long.utf8), profile: .podcast)
                .contains { $0.rule.rawValue == "INT-DATE-VALUE" }
        )
    }

    @Test func aPostRollAtTheEndNeedsCuePostAndAnEarlierStart() {
        let text = Fixture.text("podcast/INT-PODCAST-CUE-POST.bad.m3u8")
        let fixed = text.replacingOccurrences(
            of: "START-DATE=\"2026-01-01T00:01:00.000Z\"",
            with: "START-DATE=\"2026-01-01T00:00:54.000Z\""
        ).replacingOccurrences(of: ",X-SNAP=\"OUT,IN\"\n#EXTINF", with: ",CUE=\"POST\"\n#EXTINF")
        #expect(fixed != text)
        #expect(self.podcastRules(fixed).isEmpty, "\(listing(self.podcastRules(fixed)))")
        // CUE="POST" alone is not enough at the very end: the validator's 2 s margin applies.
        let late = text.replacingOccurrences(of: ",X-SNAP=\"OUT,IN\"\n#EXTINF", with: ",CUE=\"POST\"\n#EXTINF")
        #expect(self.podcastRules(late).map(\.rule.rawValue) == ["INT-PODCAST-DATE-BOUNDS"])
    }

    @Test func aVideoPodcastNeedsResolutionOnVideoVariantsAndAnAudioOnlyVariant() {
        let validator = InterstitialValidator()
        let good = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="a.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2350000,RESOLUTION=1920x1080,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
            v.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=131404,AVERAGE-BANDWIDTH=128000,CODECS="mp4a.40.2",AUDIO="aud"
            a.m3u8

            """
        #expect(validator.validate(playlist: Array(good.utf8), file: "m.m3u8", profile: .podcast).isEmpty)
        let noResolution = good.replacingOccurrences(of: "RESOLUTION=1920x1080,", with: "")
        let diagnostics = validator.validate(playlist: Array(noResolution.utf8), file: "m.m3u8", profile: .podcast)
        #expect(diagnostics.map(\.rule.rawValue) == ["INT-PODCAST-VARIANT-ATTRIBUTE"])
        #expect(diagnostics.first?.location.line == 4)
        #expect(diagnostics.first?.message.contains("RESOLUTION") == true)
        // A text codec makes no variant a video variant; HEVC does.
        let text = good.replacingOccurrences(of: "CODECS=\"mp4a.40.2\",", with: "CODECS=\"mp4a.40.2,wvtt\",")
        #expect(validator.validate(playlist: Array(text.utf8), file: "m.m3u8", profile: .podcast).isEmpty)
        let hevc = good.replacingOccurrences(
            of: "CODECS=\"mp4a.40.2\",",
            with: "CODECS=\"hvc1.2.4.L123.B0,mp4a.40.2\","
        )
        #expect(
            Set(validator.validate(playlist: Array(hevc.utf8), file: "m.m3u8", profile: .podcast).map(\.rule.rawValue))
                == ["INT-PODCAST-VARIANT-ATTRIBUTE", "INT-PODCAST-AUDIO-ONLY-VARIANT"]
        )
        let old = good.replacingOccurrences(of: "#EXT-X-VERSION:4", with: "#EXT-X-VERSION:3")
        #expect(
            validator.validate(playlist: Array(old.utf8), file: "m.m3u8", profile: .podcast).map(\.rule.rawValue)
                == ["INT-PODCAST-VERSION"]
        )
    }
}
