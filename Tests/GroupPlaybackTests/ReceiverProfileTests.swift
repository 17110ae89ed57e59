import Foundation
import GroupPlayback
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct ReceiverProfileTests {
    static func profile(_ name: String) throws -> ReceiverProfile {
        let bytes = try Data(contentsOf: Fixture.repository.appendingPathComponent("Examples/\(name)"))
        return try ReceiverProfile.decode(Array(bytes))
    }

    static func multivariant(_ name: String) throws -> MultivariantPlaylist {
        try MultivariantPlaylist(parsing: Fixture(name: "playlists/\(name)").text)
    }

    @Test func codecsAreReadAsFamilies() {
        #expect(CodecFamily("avc1.640028") == .video("avc"))
        #expect(CodecFamily("avc3.4d401f") == .video("avc"))
        #expect(CodecFamily("hev1.1.6.L93.B0") == .video("hevc"))
        #expect(CodecFamily("dvh1.08.06") == .video("dolby-vision"))
        #expect(CodecFamily("mp4a.40.2") == .audio("aac"))
        #expect(CodecFamily("mp4a.40.34") == .audio("mp3"))
        #expect(CodecFamily("ec-3") == .audio("ec-3"))
        #expect(CodecFamily("mp4a.a6") == .audio("ec-3"))
        #expect(CodecFamily("wvtt") == .other)
        #expect(CodecFamily("") == .other)
    }

    @Test func theFormatOfAVariantComesFromItsAttributesAndAudioGroup() throws {
        let playlist = try Self.multivariant("multivariant-hevc-hdr-score-iframes.m3u8")
        let formats = playlist.variants.map { MediaFormat(variant: $0, renditions: playlist.renditions) }
        #expect(
            formats[0]
                == MediaFormat(
                    videoCodec: "avc",
                    videoRange: "SDR",
                    width: 1280,
                    height: 720,
                    frameRate: 23.976,
                    audioCodec: "aac",
                    audioChannels: "2",
                    audioSampleRate: 48_000
                )
        )
        #expect(formats[1].videoCodec == "hevc")
        #expect(formats[1].videoRange == "PQ")
        #expect(formats[2].videoCodec == "dolby-vision")  // SUPPLEMENTAL-CODECS
        #expect(formats[2].audioChannels == "16/JOC")
        #expect(formats[2].channelCount == 16)
        #expect(formats[0].aspectRatio == "16:9")
    }

    @Test func eachReceiverChoosesWhatItCanPlay() throws {
        let playlist = try Self.multivariant("multivariant-hevc-hdr-score-iframes.m3u8")
        #expect(try Self.profile("receiver-high-end.json").chooseVariant(in: playlist)?.uri == "dv_2160/prog.m3u8")
        #expect(try Self.profile("receiver-low-end.json").chooseVariant(in: playlist)?.uri == "sdr_720/prog.m3u8")
    }

    @Test func aLowEndReceiverFlagsAnHEVCAdInsideAnAVCPrimary() throws {
        let low = try Self.profile("receiver-low-end.json")
        let primaryPlaylist = try Self.multivariant("multivariant-hevc-hdr-score-iframes.m3u8")
        let adPlaylist = try Self.multivariant("multivariant-interstitial-ad-hevc.m3u8")
        let primary = MediaFormat(
            variant: try #require(low.chooseVariant(in: primaryPlaylist)),
            renditions: primaryPlaylist.renditions
        )
        let ad = MediaFormat(variant: adPlaylist.variants[0], renditions: adPlaylist.renditions)
        let risks = TransitionRisk.assess(primary: primary, interstitial: ad, on: low)
        let changes = risks.compactMap(\.change)
        #expect(changes == [.videoCodec, .frameRate, .aspectRatio, .audioCodec, .channelLayout, .sampleRate])
        #expect(
            risks.first { $0.change == .videoCodec }?.message
                == "the video codec changes from avc to hevc: Low-end receiver (HD SDR, stereo AAC) may pause to switch"
        )
        #expect(risks.first { $0.change == .frameRate }.map { [$0.primary, $0.interstitial] } == ["23.976", "25"])
        #expect(risks.first { $0.change == .aspectRatio }.map { [$0.primary, $0.interstitial] } == ["16:9", "4:3"])
        // It cannot decode the ad's 5.1 E-AC-3 audio at all.
        let unplayable = risks.filter { $0.change == nil }.map(\.message)
        #expect(unplayable.count == 2)
        #expect(unplayable.allSatisfy { $0.contains("cannot play the interstitial") })
    }

    /// An audio-only ad in a video primary takes the video decoder and output away, and a silent ad
    /// the audio's: both are reported (neither was, since a missing codec compared as unknown).
    @Test func aTrackThatAppearsOrDisappearsIsARisk() throws {
        let low = try Self.profile("receiver-low-end.json")
        let primary = MediaFormat(
            videoCodec: "avc",
            width: 1280,
            height: 720,
            frameRate: 25,
            audioCodec: "aac",
            audioChannels: "2"
        )
        let audioOnly = MediaFormat(
            variant: VariantStream(
                attributes: try AttributeList(parsing: #"BANDWIDTH=64000,CODECS="mp4a.40.2""#),
                uri: "a.m3u8"
            )
        )
        let risks = TransitionRisk.assess(primary: primary, interstitial: audioOnly, on: low)
        #expect(risks.map(\.change) == [.videoCodec])
        #expect(risks.first.map { [$0.primary, $0.interstitial] } == ["avc", "none"])
        #expect(
            risks.first?.message
                == "the interstitial has no video where the primary has avc: Low-end receiver (HD SDR, stereo AAC) may pause to switch"
        )
        // Back from an audio-only primary (a podcast) to a video ad.
        let back = TransitionRisk.assess(primary: audioOnly, interstitial: primary, on: low)
        #expect(back.map(\.change) == [.videoCodec])
        #expect(back.first?.message.hasPrefix("the interstitial has video (avc) where the primary has none") == true)
        // A silent video ad.
        var silent = primary
        silent.audioCodec = nil
        silent.audioChannels = nil
        #expect(TransitionRisk.assess(primary: primary, interstitial: silent, on: low).map(\.change) == [.audioCodec])
        // Without CODECS nothing is known to be missing: no risk.
        let unknown = MediaFormat(
            variant: VariantStream(attributes: try AttributeList(parsing: "BANDWIDTH=64000"), uri: "a.m3u8")
        )
        #expect(TransitionRisk.assess(primary: primary, interstitial: unknown, on: low).isEmpty)
        // A receiver that does not mind codec changes is told nothing.
        let high = try Self.profile("receiver-high-end.json")
        if !high.slowTransitions.contains(.videoCodec) {
            #expect(TransitionRisk.assess(primary: primary, interstitial: audioOnly, on: high).isEmpty)
        }
    }

    @Test func aHighEndReceiverOnlyMindsItsSlowChanges() throws {
        let high = try Self.profile("receiver-high-end.json")
        let primaryPlaylist = try Self.multivariant("multivariant-hevc-hdr-score-iframes.m3u8")
        let adPlaylist = try Self.multivariant("multivariant-interstitial-ad-hevc.m3u8")
        let primary = MediaFormat(
            variant: try #require(high.chooseVariant(in: primaryPlaylist)),
            renditions: primaryPlaylist.renditions
        )
        let ad = MediaFormat(variant: adPlaylist.variants[0], renditions: adPlaylist.renditions)
        let risks = TransitionRisk.assess(primary: primary, interstitial: ad, on: high)
        #expect(risks.map(\.change) == [.videoRange])  // PQ to SDR
        // The same format on both sides is no risk anywhere.
        #expect(
            TransitionRisk.assess(primary: ad, interstitial: ad, on: try Self.profile("receiver-low-end.json"))
                .allSatisfy { $0.change == nil }
        )
    }

    @Test func hostileProfilesAreRefusedWithEveryProblem() throws {
        let good = try String(
            contentsOf: Fixture.repository.appendingPathComponent("Examples/receiver-low-end.json"),
            encoding: .utf8
        )
        let cases: [(String, String)] = [
            (
                good.replacingOccurrences(of: "\"maximumWidth\": 1920", with: "\"maximumWidth\": 9223372036854775807"),
                "profile-invalid"
            ),
            (
                good.replacingOccurrences(of: "\"maximumWidth\": 1920", with: "\"maximumWidth\": 1e308"),
                "profile-not-json"
            ),
            (
                good.replacingOccurrences(of: "\"maximumFrameRate\": 30", with: "\"maximumFrameRate\": 0"),
                "profile-invalid"
            ),
            (
                good.replacingOccurrences(of: "\"maximumAudioChannels\": 2", with: "\"maximumAudioChannels\": -2"),
                "profile-invalid"
            ),
            (
                good.replacingOccurrences(of: "\"aac\"]", with: "\"\(String(repeating: "a", count: 100_000))\"]"),
                "profile-too-large"
            ),
            (good.replacingOccurrences(of: "\"slowTransitions\"", with: "\"slowTransitionz\""), "profile-not-json"),
            (good.replacingOccurrences(of: "\"frameRate\"", with: "\"teleport\""), "profile-not-json"),
            ("{\"name\": \"a\u{0}\"}", "profile-not-json"),
            ("", "profile-not-json"),
        ]
        for (text, code) in cases {
            do {
                _ = try ReceiverProfile.decode(Array(text.utf8))
                Issue.record("accepted a profile that should fail with \(code)")
            } catch {
                #expect(error.code == code, "\(error)")
                #expect(!error.problems.isEmpty)
            }
        }
    }
}
