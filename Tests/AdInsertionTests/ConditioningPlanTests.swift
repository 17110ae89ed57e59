import AdInsertion
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The pure half of creative conditioning: which media file, which ladder, which ffmpeg arguments.
@Suite("Creative conditioning plan")
struct ConditioningPlanTests {
    /// The demo primary's parameters: one 160x90 variant of 61,600 bit/s, H.264 Main 1.0, 15 fps,
    /// AAC-LC mono 22.05 kHz, 2 s segments.
    static let demo = ConditioningTarget(
        renditions: [.init(width: 160, height: 90, bandwidth: 61_600)],
        videoCodec: "avc1.4d400a",
        frameRate: 15,
        audioCodec: "mp4a.40.2",
        audioChannels: 1,
        audioSampleRate: 22_050,
        segmentDuration: 2
    )

    static func file(
        _ url: String,
        _ type: String = "video/mp4",
        delivery: String? = "progressive",
        bitrate: Int? = nil,
        _ width: Int? = nil,
        _ height: Int? = nil
    ) -> VASTMediaFile {
        VASTMediaFile(url: url, type: type, delivery: delivery, bitrate: bitrate, width: width, height: height)
    }

    static func target(largest width: Int, _ height: Int) -> ConditioningTarget {
        var target = Self.demo
        target.renditions = [.init(width: width, height: height, bandwidth: 3_000_000)]
        return target
    }

    @Test("the source is progressive, at least the largest rendition, the highest bitrate of those")
    func sourceChoice() {
        let a = Self.file("http://x/a.mp4", bitrate: 5000, 1920, 1080)
        let b = Self.file("http://x/b.mp4", bitrate: 2500, 1280, 720)
        let c = Self.file("http://x/c.mp4", bitrate: 800, 640, 360)
        let d = Self.file("http://x/d.mp4", delivery: "streaming", bitrate: 15000, 3840, 2160)
        let flv = Self.file("http://x/e.flv", "video/x-flv", bitrate: 9000, 1920, 1080)
        let vpaid = Self.file("http://x/vpaid.js", "application/javascript", delivery: "progressive", 1920, 1080)
        let hd = Self.target(largest: 1280, 720)
        // A and B cover 1280x720; A has the higher bitrate. Document order plays no part.
        #expect(ConditioningPlan.sourceFile([c, b, a, d, flv, vpaid], for: hd) == a)
        #expect(ConditioningPlan.sourceFile([a, b, c], for: hd) == a)
        // Nothing progressive covers 1080p: the largest progressive picture (B), not the streaming 4K.
        #expect(ConditioningPlan.sourceFile([c, d, b], for: Self.target(largest: 1920, 1080)) == b)
        // Streaming only when nothing is progressive.
        #expect(ConditioningPlan.sourceFile([flv, d], for: hd) == d)
        // Flash and VPAID are never media to condition.
        #expect(ConditioningPlan.sourceFile([flv, vpaid], for: hd) == nil)
        // A file of unknown size comes before one known to be too small.
        let unknown = Self.file("http://x/g.mp4", bitrate: 100)
        #expect(ConditioningPlan.sourceFile([c, unknown], for: hd) == unknown)
        // An MP4 that is a VPAID unit (VAST 2 writes apiFramework="VPAID" on the MediaFile): never.
        var unit = Self.file("http://x/vpaid.mp4", bitrate: 500, 1920, 1080)
        unit.apiFramework = "VPAID"
        #expect(ConditioningPlan.sourceFile([unit, c], for: hd) == c)
        #expect(ConditioningPlan.sourceFile([unit], for: hd) == nil)
        // Not over http(s): refused.
        #expect(ConditioningPlan.sourceFile([Self.file("file:///etc/passwd", bitrate: 1, 1920, 1080)], for: hd) == nil)
    }

    /// The value after `option` in `arguments`.
    static func value(_ option: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    @Test("ffmpeg is asked for the primary's codec profile and level, frame rate, audio and segment grid")
    func arguments() throws {
        let plan = ConditioningPlan(target: Self.demo, duration: MediaTime(seconds: 6))
        let arguments = try #require(plan.arguments(input: "/in/source", output: "/out"))
        func value(_ option: String) -> String? { Self.value(option, in: arguments) }
        #expect(value("-i") == "/in/source")
        #expect(
            value("-filter_complex")
                == "[0:v:0]fps=15.000,split=1[s0];[s0]scale=160:90:force_original_aspect_ratio=decrease,pad=160:90:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p[v0]"
        )
        #expect(value("-c:v") == "libx264")
        // avc1.4d400a: profile_idc 0x4d (77, Main), level_idc 0x0a (10, level 1.0).
        #expect(value("-profile:v") == "main")
        #expect(value("-level:v") == "1.0")
        // A keyframe every 2 s at 15 fps: 30 frames.
        #expect(value("-g") == "30")
        #expect(value("-force_key_frames") == "expr:gte(t,n_forced*2)")
        #expect(value("-c:a") == "aac")
        #expect(value("-ac") == "1")
        #expect(value("-ar") == "22050")
        // Audio: a quarter of 61,600 is 15,400, below the 16 kbit/s floor: 16,000.
        #expect(value("-b:a") == "16000")
        // Video: 80 % of 61,600 is 49,280, less 16,000 of audio: 33,280.
        #expect(value("-b:v:0") == "33280")
        #expect(value("-t") == "6.000")
        #expect(value("-hls_time") == "2")
        #expect(value("-hls_playlist_type") == "vod")
        #expect(value("-var_stream_map") == "v:0,a:0")
        #expect(arguments.last == "/out/v%v/prog.m3u8")
        #expect(arguments.filter { $0 == "-map" }.count == 2)
        #expect(!arguments.contains("lavfi"))
    }

    @Test("two rungs, 5.1 AC-3, and a source without audio (silence is made at the target's rate)")
    func ladderAndSilence() throws {
        let target = ConditioningTarget(
            renditions: [
                .init(width: 640, height: 360, bandwidth: 800_000),
                .init(width: 1280, height: 720, bandwidth: 3_000_000),
            ],
            videoCodec: "avc1.64001f",
            frameRate: 29.97,
            audioCodec: "ac-3",
            audioChannels: 6,
            audioSampleRate: 48_000,
            segmentDuration: 6
        )
        // Largest first.
        #expect(target.renditions.map(\.width) == [1280, 640])
        let plan = ConditioningPlan(target: target, duration: MediaTime(seconds: 15), sourceHasAudio: false)
        let arguments = try #require(plan.arguments(input: "in", output: "out"))
        func value(_ option: String) -> String? { Self.value(option, in: arguments) }
        #expect(value("-profile:v") == "high")
        #expect(value("-level:v") == "3.1")
        // 29.97 fps × 6 s = 179.82: 180 frames.
        #expect(value("-g") == "180")
        #expect(value("-f") == "lavfi")
        #expect(arguments.contains("anullsrc=r=48000:cl=5.1"))
        #expect(arguments.filter { $0 == "1:a:0" }.count == 2)
        #expect(value("-c:a") == "ac3")
        #expect(value("-ac") == "6")
        // 6 × 64 kbit/s = 384,000; a quarter of 800,000 is 200,000: 200,000.
        #expect(value("-b:a") == "200000")
        #expect(value("-b:v:0") == "2200000")
        #expect(value("-b:v:1") == "440000")
        #expect(value("-var_stream_map") == "v:0,a:0 v:1,a:1")
        #expect(value("-filter_complex")?.hasPrefix("[0:v:0]fps=29.970,split=2[s0][s1];[s0]scale=1280:720") == true)
    }

    @Test("codecs conditioning cannot write are refused with a reason, before any ffmpeg run")
    func unsupported() {
        var target = Self.demo
        target.videoCodec = "hvc1.2.4.L123.B0"
        let plan = ConditioningPlan(target: target, duration: MediaTime(seconds: 10))
        #expect(plan.unsupported?.contains("hvc1.2.4.L123.B0") == true)
        #expect(plan.arguments(input: "a", output: "b") == nil)
        var heAAC = Self.demo
        heAAC.audioCodec = "mp4a.40.5"
        #expect(ConditioningPlan(target: heAAC, duration: MediaTime(seconds: 10)).unsupported != nil)
        #expect(ConditioningPlan(target: Self.demo, duration: .zero).unsupported != nil)
        #expect(ConditioningPlan(target: Self.demo, duration: MediaTime(seconds: 10)).unsupported == nil)
    }

    @Test("the multivariant playlist states the primary's codecs, size, frame rate and the measured peak")
    func multivariant() throws {
        let plan = ConditioningPlan(target: Self.demo, duration: MediaTime(seconds: 6))
        let text = plan.multivariant(peakBandwidths: [70_123])
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:3
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=70123,RESOLUTION=160x90,FRAME-RATE=15.000,CODECS="avc1.4d400a,mp4a.40.2"
                v0/prog.m3u8

                """
        )
        guard case .multivariant(let parsed) = try Playlist(bytes: Array(text.utf8)) else {
            Issue.record("not a multivariant playlist")
            return
        }
        #expect(parsed.variants.first?.frameRate == 15)
    }

    @Test("the ladder keeps one rung per size (its highest bandwidth), largest first")
    func ladder() throws {
        let text = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
            a.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
            b.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2"
            c.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"
            d.m3u8

            """
        guard case .multivariant(let playlist) = try Playlist(bytes: Array(text.utf8)) else {
            Issue.record("not a multivariant playlist")
            return
        }
        #expect(
            ConditioningTarget.ladder(of: playlist.variants) == [
                .init(width: 1280, height: 720, bandwidth: 3_000_000),
                .init(width: 640, height: 360, bandwidth: 900_000),
            ]
        )
    }

    @Test("with conditioning on, an MP4-only ad resolves to the file to condition; Flash or VPAID only is 403")
    func resolution() throws {
        let mp4 = try VASTDecoder.decode(vastFixture("no-hls.xml")).0
        var resolution = AdServerResolution(breakDuration: MediaTime(seconds: 30))
        // Off: 403, as before.
        #expect(resolution.walk(mp4, answering: nil).failures.map(\.code) == [.noSupportedMediaFile])
        resolution.conditioning = Self.demo
        let walk = resolution.walk(mp4, answering: nil)
        #expect(walk.failures.isEmpty)
        let ad = try #require(walk.ads.first)
        #expect(ad.source?.url == "http://ads.test/media/ad.mp4")
        #expect(ad.uri == "http://ads.test/media/ad.mp4")
        #expect(ad.duration == MediaTime(seconds: 10))
        let flash = VASTDocument(ads: [
            VASTAd(
                kind: .inLine,
                creatives: [
                    VASTCreative(
                        id: "flash",
                        linear: VASTLinear(
                            duration: MediaTime(seconds: 15),
                            mediaFiles: [
                                Self.file("http://x/a.flv", "video/x-flv", bitrate: 500, 640, 360),
                                Self.file("http://x/v.swf", "application/x-shockwave-flash", 640, 360),
                            ]
                        )
                    )
                ]
            )
        ])
        #expect(resolution.walk(flash, answering: nil).failures.map(\.code) == [.noSupportedMediaFile])
        #expect(resolution.walk(flash, answering: nil).ads.isEmpty)
    }
}

/// The IAB's public VAST samples (`Tests/Fixtures/vast-iab`), walked without I/O: what plays once
/// progressive files are conditioned, and the VAST error of what does not.
@Suite("IAB VAST samples with conditioning")
struct IABSampleTests {
    static func walk(_ name: String, conditioning: Bool) throws -> AdServerResolution.Walk {
        var resolution = AdServerResolution(breakDuration: MediaTime(seconds: 60))
        if conditioning { resolution.conditioning = ConditioningPlanTests.demo }
        return resolution.walk(try VASTDecoder.decode(Fixture.bytes("vast-iab/" + name)).0, answering: nil)
    }

    @Test("without conditioning none plays; with it the linear progressive MP4s resolve to their best file")
    func samples() throws {
        // The 1280x720 file has the highest bitrate of those that cover the 160x90 primary.
        let playing: [String: String] = [
            "vast4.2-Inline_Simple.xml":
                "https://github.com/inetra/VAST_Samples/raw/master/VAST/VAST-4.0-Short-Intro.mp4",
            "vast4.1-SSAI_stitching_mezzanine_file_support-test.xml":
                "https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro.mp4",
            "vast2.0-Inline_LinearRegular_VAST2.0.xml":
                "https://github.com/inetra/VAST_Samples/raw/master/VAST/VAST-4.0-Short-Intro.mp4",
        ]
        for (name, source) in playing {
            #expect(try Self.walk(name, conditioning: false).failures.map(\.code) == [.noSupportedMediaFile], "\(name)")
            let walk = try Self.walk(name, conditioning: true)
            #expect(walk.failures.isEmpty, "\(name)")
            #expect(walk.ads.map { $0.source?.url } == [source], "\(name)")
        }
        let failing: [String: VASTErrorCode] = [
            "vast2.0-Inline_LinearVAST2vpaid.xml": .noSupportedMediaFile,
            "vast2.0-Tremor-vast2VPAIDLinear.xml": .noSupportedMediaFile,
            "vast4.2-Inline_Non-Linear_Tag-test.xml": .unexpectedLinearity,
        ]
        for (name, code) in failing {
            let walk = try Self.walk(name, conditioning: true)
            #expect(walk.ads.isEmpty, "\(name)")
            #expect(walk.failures.map(\.code) == [code], "\(name)")
        }
        // The wrapper asks for a document elsewhere (unreachable offline: 301 when fetched).
        let wrapper = try Self.walk("vast4.2-Wrapper_Tag-test.xml", conditioning: true)
        #expect(wrapper.ads.isEmpty && wrapper.failures.isEmpty)
        #expect(wrapper.pending.map(\.url).first?.hasPrefix("https://raw.githubusercontent.com/") == true)
    }
}
