import AdInsertion
import Foundation
import GroupPlayback
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionHTTP
import IntermissionStoreTestSupport
import IntermissionTestSupport
import InterstitialPlayback
import NIOCore
import Synchronization
import Testing

@testable import IntermissionServer

/// A loopback ad server for conditioning: `/vast.xml` answers one linear ad whose only media file
/// is `media` (a progressive MP4 at `/creative.mp4`, or a path that answers 404), and every request
/// for a media file is counted.
actor ConditioningAdServer {
    private(set) var mediaRequests: [String] = []

    func asked(_ path: String) { self.mediaRequests.append(path) }

    func count(_ path: String) -> Int { self.mediaRequests.filter { $0 == path }.count }

    /// The VAST document of one 6 s ad whose media file is `base + media`.
    static func vast(base: String, media: String, seconds: Int = 6) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <VAST version="4.0">
          <Ad id="progressive-ad">
            <InLine>
              <AdSystem>loopback</AdSystem>
              <AdTitle>Progressive only</AdTitle>
              <Impression><![CDATA[\(base)/impression]]></Impression>
              <Creatives>
                <Creative id="mp4-creative">
                  <Linear>
                    <Duration>00:00:0\(seconds)</Duration>
                    <MediaFiles>
                      <MediaFile delivery="progressive" type="video/mp4" width="1920" height="1080" bitrate="4000"><![CDATA[\(base)\(media)]]></MediaFile>
                      <MediaFile delivery="progressive" type="video/x-flv" width="1920" height="1080" bitrate="9000"><![CDATA[\(base)/creative.flv]]></MediaFile>
                    </MediaFiles>
                  </Linear>
                </Creative>
              </Creatives>
            </InLine>
          </Ad>
        </VAST>
        """
    }

    /// Runs `body` with the ad server listening on loopback, serving `file` as `/creative.mp4`.
    static func with<T: Sendable>(
        media: String,
        file: String?,
        _ body: @escaping @Sendable (_ base: String, _ server: ConditioningAdServer) async throws -> T
    ) async throws -> T {
        let server = ConditioningAdServer()
        let base = Mutex("")
        let router = Router()
        router.get("vast.xml") { _, _ -> Response in
            let text = Self.vast(base: base.withLock { $0 }, media: media)
            return Response(
                status: .ok,
                headers: [.contentType: "application/xml"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        router.get("{name}") { request, _ -> Response in
            await server.asked(request.uri.path)
            guard request.uri.path == "/creative.mp4", let file,
                let data = FileManager.default.contents(atPath: file)
            else { throw HTTPError(.notFound) }
            return Response(
                status: .ok,
                headers: [.contentType: "video/mp4"],
                body: .init(byteBuffer: ByteBuffer(bytes: Array(data)))
            )
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            base.withLock { $0 = "http://127.0.0.1:\(client.port!)" }
            return try await body(base.withLock { $0 }, server)
        }
    }
}

/// Creative conditioning end to end: a progressive MP4 from a real ad server's answer becomes HLS
/// that matches the demo primary, left out of pods until it is ready.
@Suite("Creative conditioning", .serialized, .realTimeLong)
struct CreativeConditioningTests {
    /// The build products folder (the test runner's), where `swift build --build-tests` puts the
    /// `intermission` binary.
    static let productsDirectory: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url
    }()

    /// `ffmpeg` or `ffprobe` on `PATH`.
    static func tool(_ name: String) throws -> URL {
        URL(fileURLWithPath: try #require(ToolRunner.locate(name), "\(name) is not installed"))
    }

    /// Makes a 6 s 1920x1080 30 fps H.264 MP4 with 5.1 AAC at 48 kHz: nothing like the demo primary
    /// (160x90, 15 fps, mono 22.05 kHz).
    static func makeCreative(_ path: String) async throws {
        let result = try await runProcess(
            try Self.tool("ffmpeg"),
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30",
                "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000", "-t", "6", "-c:v", "libx264",
                "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "6", "-ar", "48000",
                "-movflags", "+faststart", path,
            ],
            timeout: .seconds(120)
        )
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
    }

    /// What ffprobe says about a file's first video and audio streams.
    struct Probe: Equatable, CustomStringConvertible {
        var video: String
        var audio: String
        var width: Int
        var height: Int
        var frameRate: String
        var profile: String
        var level: Int
        var channels: Int
        var sampleRate: Int

        var description: String {
            "\(self.video) \(self.profile) \(self.level) \(self.width)x\(self.height) \(self.frameRate) fps, \(self.audio) \(self.channels) ch \(self.sampleRate) Hz"
        }

        /// The format `TransitionRisk` compares (codec families as the receiver profiles name them).
        var format: MediaFormat {
            let parts = self.frameRate.split(separator: "/").compactMap { Double($0) }
            return MediaFormat(
                videoCodec: self.video == "h264" ? "avc" : self.video,
                width: self.width,
                height: self.height,
                frameRate: parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : nil,
                audioCodec: self.audio,
                audioChannels: String(self.channels),
                audioSampleRate: self.sampleRate
            )
        }
    }

    static func probe(_ path: String) async throws -> Probe {
        let result = try await runProcess(
            try Self.tool("ffprobe"),
            ["-v", "error", "-print_format", "json", "-show_streams", path],
            timeout: .seconds(60)
        )
        #expect(result.status == 0)
        let json = try #require(try? JSONValue.parse(result.stdout))
        let streams = try #require(json["streams"]?.arrayValue)
        let video = try #require(streams.first { $0["codec_type"]?.stringValue == "video" })
        let audio = try #require(streams.first { $0["codec_type"]?.stringValue == "audio" })
        return Probe(
            video: video["codec_name"]?.stringValue ?? "",
            audio: audio["codec_name"]?.stringValue ?? "",
            width: Int(video["width"]?.doubleValue ?? 0),
            height: Int(video["height"]?.doubleValue ?? 0),
            frameRate: video["avg_frame_rate"]?.stringValue ?? "",
            profile: video["profile"]?.stringValue ?? "",
            level: Int(video["level"]?.doubleValue ?? 0),
            channels: Int(audio["channels"]?.doubleValue ?? 0),
            sampleRate: Int(audio["sample_rate"]?.stringValue ?? "") ?? 0
        )
    }

    /// The demo configuration with a 60 s break `pod` asking the loopback ad server, an empty local
    /// inventory, conditioning into `folder`, SQLite in `database`.
    static func configuration(
        base: String,
        folder: String,
        database: String,
        clock: ManualWallClock,
        adjust: (inout ConditioningConfiguration) -> Void = { _ in }
    ) throws -> ServerConfiguration {
        var configuration = try demoConfiguration(clock: clock, database: database)
        configuration.adInsertion.inventory = []
        // The virtual clock stands still: let every break of a viewer have the creative.
        configuration.adInsertion.policy.repeatWindow = .zero
        configuration.adInsertion.assets[0].breaks.append(
            VODBreak(id: "pod", position: .midRoll(MediaTime(seconds: 30)), duration: MediaTime(seconds: 60))
        )
        configuration.adInsertion.assets[0].adServer = AdServerSettings(
            urlTemplate: base + "/vast.xml",
            timeout: MediaTime(seconds: 20)
        )
        var conditioning = ConditioningConfiguration(folder: folder)
        adjust(&conditioning)
        configuration.conditioning = conditioning
        return configuration
    }

    /// The URIs of the pod `viewer` gets for the break `pod`.
    static func pod(_ client: any TestClientProtocol, viewer: String) async throws -> [String] {
        let response = try await client.get(
            "/v1/asset-lists/vod-demo/pod.json?_HLS_interstitial_id=pod&_HLS_primary_id=\(viewer)"
        )
        #expect(response.status == .ok)
        return try AssetList.decode(response.bytes).assets.map(\.uri)
    }

    /// The admin API's conditioning status.
    static func status(_ client: any TestClientProtocol) async throws -> JSONValue {
        let response = try await client.admin(.get, "/v1/admin/conditioning")
        #expect(response.status == .ok)
        return try #require(response.json)
    }

    /// Asks until `done` holds, a new viewer each time (a viewer's decision is kept), for at most
    /// `seconds`: ffmpeg runs as a separate process, so this polls it with a deadline.
    static func poll<T: Sendable>(
        seconds: Int,
        _ step: @Sendable (Int) async throws -> T?
    ) async throws -> T? {
        var attempt = 0
        var value: T?
        try await waitUntil(within: .seconds(seconds), checkingEvery: .milliseconds(200)) {
            value = try await step(attempt)
            attempt += 1
            return value != nil
        }
        return value
    }

    /// The value of a metric line (`name{labels} value`) in the exposition text.
    static func metric(_ text: String, _ line: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aProgressiveCreativeIsLeftOutThenPlaysAsHLSThatMatchesThePrimary() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let mp4 = scratch + "/creative.mp4"
        try await Self.makeCreative(mp4)
        let source = try await Self.probe(mp4)
        #expect(source.width == 1920 && source.channels == 6 && source.sampleRate == 48_000, "\(source)")
        let folder = scratch + "/conditioned"
        try await ConditioningAdServer.with(media: "/creative.mp4", file: mp4) { base, adServer in
            let clock = ManualWallClock(t0 + 110)
            let configuration = try Self.configuration(
                base: base,
                folder: folder,
                database: scratch + "/store.sqlite",
                clock: clock
            )
            let demo = try #require(configuration.mounts["demo"])
            try await withServer(configuration) { client in
                // At first the creative is not ready: the pod is empty (the rest would play).
                #expect(try await Self.pod(client, viewer: "first").isEmpty)
                let uri = try #require(
                    try await Self.poll(seconds: 240) { attempt in
                        try await Self.pod(client, viewer: "poll-\(attempt)").first
                    },
                    "the creative never became ready"
                )
                #expect(uri.hasPrefix("/media/conditioned/") || uri.contains("/media/conditioned/"), "\(uri)")
                #expect(uri.hasSuffix("/master.m3u8"))
                let path = PlayerEndToEndTests.path(uri)
                // Fetched once, conditioned once, whatever the number of asset lists.
                #expect(await adServer.count("/creative.mp4") == 1)
                let metrics = try await client.get("/metrics").text
                #expect(Self.metric(metrics, "intermission_conditioning_ffmpeg_runs_total") == 1, "\(metrics)")
                #expect(Self.metric(metrics, "intermission_conditioning_jobs_total{result=\"ready\"}") == 1)
                #expect((Self.metric(metrics, "intermission_conditioning_omitted_total{scope=\"vod\"}") ?? 0) >= 1)
                #expect(Self.metric(metrics, "intermission_conditioning_creatives{state=\"ready\"}") == 1)
                let status = try await Self.status(client)
                #expect(status["enabled"]?.boolValue == true)
                let creatives = try #require(status["creatives"]?.arrayValue)
                #expect(creatives.count == 1)
                #expect(creatives.first?["state"]?.stringValue == "ready")
                #expect(creatives.first?["attempts"]?.doubleValue == 1)
                #expect(creatives.first?["source"]?.stringValue == base + "/creative.mp4")
                #expect(creatives.first?["uri"]?.stringValue == PlayerEndToEndTests.path(uri))
                let health = try await client.execute(
                    uri: "/health",
                    method: .get,
                    headers: [.authorization: "Bearer secret"],
                    body: nil
                ) { $0 }
                #expect(health.json?["conditioning"]?["problem"] == nil, "\(health.text)")
                #expect(health.json?["status"]?.stringValue == "ok", "\(health.text)")
                let dashboard = try await client.get("/").text
                #expect(dashboard.contains("<h2>Creative conditioning</h2>"))
                #expect(dashboard.contains("<span data-state=\"ready\">1 ready</span>"), "\(dashboard)")

                // The conditioned HLS: a multivariant playlist over one rendition of 2 s segments.
                let master = try await client.get(path)
                #expect(master.status == .ok)
                guard case .multivariant(let multivariant) = try Playlist(bytes: master.bytes) else {
                    Issue.record("not a multivariant playlist: \(master.text)")
                    return
                }
                #expect(multivariant.variants.count == 1)
                let variant = try #require(multivariant.variants.first)
                #expect(variant.codecs == ["avc1.4d400a", "mp4a.40.2"])
                #expect(variant.resolution == Resolution(width: 160, height: 90))
                let folderPath = String(path.dropLast("master.m3u8".count))
                let mediaResponse = try await client.get(folderPath + variant.uri)
                #expect(mediaResponse.status == .ok)
                guard case .media(let media) = try Playlist(bytes: mediaResponse.bytes) else {
                    Issue.record("not a media playlist")
                    return
                }
                #expect(media.targetDuration == 2)
                #expect(media.hasEndList)
                let durations = media.segments.map(\.duration.seconds)
                #expect(durations.allSatisfy { $0 <= 2.0005 }, "\(durations)")
                #expect(abs(durations.reduce(0, +) - 6) < 0.1, "\(durations)")
                #expect(durations.dropLast().allSatisfy { abs($0 - 2) < 0.001 }, "\(durations)")
                // What `intermission validate` checks (the same validator), and that an asset is VOD.
                let validator = InterstitialValidator()
                #expect(errors(master.bytes).isEmpty)
                #expect(errors(mediaResponse.bytes).isEmpty)
                #expect(validator.validate(interstitialAsset: media).isEmpty)
                // And the `intermission` binary itself, over HTTP, following the variant: no error,
                // no warning.
                let port = try #require(client.port)
                let cli = try await runProcess(
                    Self.productsDirectory.appendingPathComponent("intermission"),
                    ["validate", "--no-notes", "http://127.0.0.1:\(port)\(path)"],
                    timeout: .seconds(60)
                )
                let report = String(decoding: cli.stdout + cli.stderr, as: UTF8.self)
                #expect(cli.status == 0, "\(report)")
                #expect(report.contains("0 errors, 0 warnings"), "\(report)")

                // The segments match the primary, read by ffprobe from the files themselves.
                let segmentPath =
                    String(folderPath + variant.uri).replacingOccurrences(of: "prog.m3u8", with: "")
                    + (media.segments.first?.uri ?? "")
                let segment = try await client.get(segmentPath)
                #expect(segment.status == .ok)
                let primarySegment = try await client.get("/media/demo/primary/seg-000.ts")
                #expect(segment.headers[.cacheControl] != nil)
                #expect(segment.headers[.cacheControl] == primarySegment.headers[.cacheControl])
                let local = scratch + "/first.ts"
                #expect(FileManager.default.createFile(atPath: local, contents: Data(segment.bytes)))
                let conditioned = try await Self.probe(local)
                let primary = try await Self.probe(demo + "/primary/seg-000.ts")
                #expect(conditioned == primary, "conditioned \(conditioned), primary \(primary)")
                // The low-end receiver stalls on any change: nothing to report between the two.
                let profile = try ReceiverProfile.decode(
                    Array(
                        try Data(
                            contentsOf: Fixture.repository.appendingPathComponent("Examples/receiver-low-end.json")
                        )
                    )
                )
                #expect(
                    TransitionRisk.assess(primary: primary.format, interstitial: conditioned.format, on: profile)
                        .isEmpty
                )
                #expect(
                    !TransitionRisk.assess(primary: primary.format, interstitial: source.format, on: profile).isEmpty
                )
                guard
                    case .multivariant(let primaryPlaylist) = try Playlist(
                        bytes: Array(try Data(contentsOf: URL(fileURLWithPath: demo + "/primary/main.m3u8")))
                    )
                else {
                    Issue.record("the demo primary is not multivariant")
                    return
                }
                #expect(
                    TransitionRisk.assess(
                        primary: MediaFormat(variant: try #require(primaryPlaylist.variants.first)),
                        interstitial: MediaFormat(variant: variant),
                        on: profile
                    ).isEmpty
                )

                // The headless player plays the asset with the conditioned creative in its break.
                let player = PlayerEndToEndTests.player(
                    "http://127.0.0.1:\(port)/vod/demo/main.m3u8",
                    sessionID: "player-viewer"
                )
                await player.play()
                try await player.run(until: MediaTime(seconds: 400))
                let error = await player.error
                #expect(error == nil, "\(String(describing: error))")
                #expect(await player.hasEnded)
                let viewing = PlayerEndToEndTests.Viewing(sessionID: "player-viewer", log: await player.log)
                #expect(viewing.startedAssets("pod").map(PlayerEndToEndTests.path) == [path], "\(viewing.log)")
                #expect(viewing.requests("segment").contains { $0.contains("/media/conditioned/") })
                // hls.js in Chromium plays the break with the conditioned creative too.
                if HLSJSTests.available {
                    let log = try await HLSJSTests.probe(
                        "http://127.0.0.1:\(port)/vod/demo/main.m3u8",
                        query: "rate=4&until=45",
                        timeout: 100
                    )
                    #expect(HLSJSTests.saw("ASSET_LIST_LOADED", "pod", in: log), "\(log.suffix(3000))")
                    #expect(HLSJSTests.saw("INTERSTITIAL_ASSET_STARTED", "pod", in: log), "\(log.suffix(3000))")
                    #expect(HLSJSTests.saw("INTERSTITIAL_ENDED", "pod", in: log), "\(log.suffix(3000))")
                } else {
                    #expect(!HLSJSTests.required, "chromium and hls.js are required (see .ci/run)")
                }
                // Still one run: the player's asset lists found it ready.
                #expect(
                    Self.metric(try await client.get("/metrics").text, "intermission_conditioning_ffmpeg_runs_total")
                        == 1
                )
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aFailedCreativeIsRetriedAfterItsBackOffAndThenGivenUpNeverInALoop() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await ConditioningAdServer.with(media: "/missing.mp4", file: nil) { base, adServer in
            let clock = ManualWallClock(t0 + 110)
            let configuration = try Self.configuration(
                base: base,
                folder: scratch + "/conditioned",
                database: scratch + "/store.sqlite",
                clock: clock
            ) {
                $0.retryAfter = MediaTime(seconds: 60)
                $0.maximumAttempts = 2
            }
            try await withServer(configuration) { client in
                #expect(try await Self.pod(client, viewer: "a").isEmpty)
                func failed(attempts: Int) async throws -> JSONValue? {
                    try await Self.poll(seconds: 60) { _ in
                        let status = try await Self.status(client)
                        let creative = status["creatives"]?.arrayValue?.first
                        guard creative?["state"]?.stringValue == "failed",
                            creative?["attempts"]?.doubleValue == Double(attempts),
                            status["running"]?.doubleValue == 0
                        else { return nil }
                        return creative
                    }
                }
                let first = try #require(try await failed(attempts: 1), "the first attempt never failed")
                #expect(first["error"]?.stringValue?.contains("404") == true, "\(first)")
                // Next attempt: 60 s after the failure (the clock stood still at t0 + 110 s).
                #expect(first["nextAttempt"]?.stringValue == (t0 + MediaTime(seconds: 170)).iso8601)
                #expect(await adServer.count("/missing.mp4") == 1)
                // Asked again before then: not tried again.
                #expect(try await Self.pod(client, viewer: "b").isEmpty)
                #expect(try await Self.pod(client, viewer: "c").isEmpty)
                let waiting = try await Self.status(client)
                #expect(waiting["queued"]?.doubleValue == 0)
                #expect(waiting["running"]?.doubleValue == 0)
                #expect(await adServer.count("/missing.mp4") == 1)
                // Past the back-off: tried once more, and given up (two attempts at most).
                clock.advance(by: MediaTime(seconds: 61))
                #expect(try await Self.pod(client, viewer: "d").isEmpty)
                let second = try #require(try await failed(attempts: 2), "the second attempt never failed")
                #expect(second["nextAttempt"] == nil, "\(second)")
                #expect(await adServer.count("/missing.mp4") == 2)
                clock.advance(by: MediaTime(seconds: 86_400))
                #expect(try await Self.pod(client, viewer: "e").isEmpty)
                let after = try await Self.status(client)
                #expect(after["queued"]?.doubleValue == 0)
                #expect(after["running"]?.doubleValue == 0)
                #expect(await adServer.count("/missing.mp4") == 2)
                let dashboard = try await client.get("/").text
                #expect(dashboard.contains("<span data-state=\"failed\">1 failed</span>"), "\(dashboard)")
                #expect(dashboard.contains("404"))
                let metrics = try await client.get("/metrics").text
                #expect(Self.metric(metrics, "intermission_conditioning_jobs_total{result=\"failed\"}") == 2)
                #expect(Self.metric(metrics, "intermission_conditioning_ffmpeg_runs_total") == nil)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aMissingFFmpegIsReportedOnHealthAndTheCreativeIsLeftOut() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await ConditioningAdServer.with(media: "/creative.mp4", file: nil) { base, adServer in
            let configuration = try Self.configuration(
                base: base,
                folder: scratch + "/conditioned",
                database: "memory:",
                clock: ManualWallClock(t0 + 110)
            ) { $0.ffmpeg = scratch + "/no-such-ffmpeg" }
            try await withServer(configuration) { client in
                #expect(try await Self.pod(client, viewer: "a").isEmpty)
                let health = try await client.execute(
                    uri: "/health",
                    method: .get,
                    headers: [.authorization: "Bearer secret"],
                    body: nil
                ) { $0 }
                #expect(health.json?["status"]?.stringValue == "degraded", "\(health.text)")
                #expect(health.json?["conditioning"]?["problem"]?.stringValue?.contains("ffmpeg not found") == true)
                let status = try await Self.status(client)
                #expect(status["tools"]?["ffmpeg"] == JSONValue.null)
                #expect(try await client.get("/").text.contains("ffmpeg not found"))
                #expect(await adServer.count("/creative.mp4") == 0)
            }
        }
    }
}

/// The conditioning store's contract (state, lease, back-off), on SQLite and PostgreSQL alike.
@Suite(.runningStores, .realTime) struct ConditioningStoreContractTests {
    @Test(arguments: StoreKind.available)
    func onlyOneOwnerHoldsALeaseAndAFailureWaitsForItsNextAttempt(_ kind: StoreKind) async throws {
        let store = running(try await openStore(.url(try await kind.freshURL())))
        try await store.migrate()
        let conditioning = try #require(store as? any ConditioningStore)
        let now = t0
        let asked = CreativeConditioning(key: "k1", creativeID: "c1", sourceURL: "http://x/a.mp4", updatedAt: now)
        #expect(try await conditioning.requestConditioning(asked).state == .pending)
        // Asked again: the stored record, unchanged.
        var again = asked
        again.creativeID = "other"
        #expect(try await conditioning.requestConditioning(again).creativeID == "c1")
        // Two instances claim at once: exactly one gets it.
        let lease = now + MediaTime(seconds: 100)
        async let a = conditioning.claimConditioning("k1", owner: "A", now: now, leaseUntil: lease)
        async let b = conditioning.claimConditioning("k1", owner: "B", now: now, leaseUntil: lease)
        let claims = [try await a, try await b].compactMap { $0 }
        #expect(claims.count == 1)
        let owner = try #require(claims.first?.leaseOwner)
        let other = owner == "A" ? "B" : "A"
        #expect(claims.first?.attempts == 1)
        #expect(claims.first?.state == .conditioning)
        // The other cannot finish it, nor claim it while the lease runs.
        #expect(
            try await !conditioning.finishConditioning(
                "k1",
                owner: other,
                state: .ready,
                error: nil,
                nextAttempt: nil,
                now: now
            )
        )
        #expect(
            try await conditioning.claimConditioning(
                "k1",
                owner: other,
                now: now + MediaTime(seconds: 99),
                leaseUntil: lease
            ) == nil
        )
        // Past the lease (its holder stopped), the other takes it over; the first can no longer finish.
        let taken = try await conditioning.claimConditioning(
            "k1",
            owner: other,
            now: now + MediaTime(seconds: 100),
            leaseUntil: now + MediaTime(seconds: 300)
        )
        #expect(taken?.attempts == 2)
        #expect(
            try await !conditioning.finishConditioning(
                "k1",
                owner: owner,
                state: .ready,
                error: nil,
                nextAttempt: nil,
                now: now
            )
        )
        // A failure with a next attempt: not claimable before it, claimable at it.
        let retry = now + MediaTime(seconds: 500)
        #expect(
            try await conditioning.finishConditioning(
                "k1",
                owner: other,
                state: .failed,
                error: "boom",
                nextAttempt: retry,
                now: now + MediaTime(seconds: 200)
            )
        )
        let failed = try #require(try await conditioning.conditioning("k1"))
        #expect(
            failed.state == .failed && failed.error == "boom" && failed.nextAttempt == retry && failed.leaseOwner == nil
        )
        #expect(
            try await conditioning.claimConditioning(
                "k1",
                owner: "A",
                now: retry - MediaTime(seconds: 1),
                leaseUntil: retry
            ) == nil
        )
        let third = try await conditioning.claimConditioning(
            "k1",
            owner: "A",
            now: retry,
            leaseUntil: retry + MediaTime(seconds: 60)
        )
        #expect(third?.attempts == 3)
        // Ready: never claimed again.
        #expect(
            try await conditioning.finishConditioning(
                "k1",
                owner: "A",
                state: .ready,
                error: nil,
                nextAttempt: nil,
                now: retry
            )
        )
        #expect(
            try await conditioning.claimConditioning(
                "k1",
                owner: "B",
                now: retry + MediaTime(seconds: 86_400),
                leaseUntil: retry + MediaTime(seconds: 90_000)
            ) == nil
        )
        // Given up (no next attempt): never claimed again either.
        _ = try await conditioning.requestConditioning(
            CreativeConditioning(key: "k2", creativeID: "c2", sourceURL: "http://x/b.mp4", updatedAt: now)
        )
        _ = try await conditioning.claimConditioning("k2", owner: "A", now: now, leaseUntil: lease)
        #expect(
            try await conditioning.finishConditioning(
                "k2",
                owner: "A",
                state: .failed,
                error: "x",
                nextAttempt: nil,
                now: now
            )
        )
        #expect(
            try await conditioning.claimConditioning(
                "k2",
                owner: "B",
                now: now + MediaTime(seconds: 1_000_000),
                leaseUntil: lease
            ) == nil
        )
        let listed = try await conditioning.conditionings(limit: 10)
        #expect(Set(listed.map(\.key)) == ["k1", "k2"])
        #expect(try await conditioning.conditionings(limit: 1).count == 1)
        try await store.close()
    }
}

/// Two instances on one PostgreSQL, asked for the same creative at the same moment: one ffmpeg run
/// in all, and both hand the creative out once it is ready.
@Suite("Creative conditioning on several instances", .serialized, .realTime)
struct ConditioningSeveralInstancesTests {
    @Test(.enabled(if: TestPostgres.available || TestPostgres.required), .timeLimit(.minutes(5)))
    func exactlyOneInstanceConditionsACreative() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let mp4 = scratch + "/creative.mp4"
        try await CreativeConditioningTests.makeCreative(mp4)
        let database = try await TestPostgres.freshDatabase()
        try await ConditioningAdServer.with(media: "/creative.mp4", file: mp4) { base, adServer in
            let clock = ManualWallClock(t0 + 110)
            let configuration = try CreativeConditioningTests.configuration(
                base: base,
                folder: scratch + "/conditioned",
                database: database,
                clock: clock
            )
            try await withServer(configuration) { first in
                try await withServer(configuration) { second in
                    // Both asked at once: both leave the creative out and queue it.
                    async let a = CreativeConditioningTests.pod(first, viewer: "a")
                    async let b = CreativeConditioningTests.pod(second, viewer: "b")
                    #expect(try await a.isEmpty)
                    #expect(try await b.isEmpty)
                    for (name, client) in [("first", first), ("second", second)] {
                        let uri = try await CreativeConditioningTests.poll(seconds: 240) { attempt in
                            try await CreativeConditioningTests.pod(client, viewer: "\(name)-\(attempt)").first
                        }
                        #expect(uri?.contains("/media/conditioned/") == true, "\(name): \(String(describing: uri))")
                    }
                    var runs = 0.0
                    for client in [first, second] {
                        let text = try await client.get("/metrics").text
                        runs +=
                            CreativeConditioningTests.metric(text, "intermission_conditioning_ffmpeg_runs_total") ?? 0
                    }
                    #expect(runs == 1)
                    #expect(await adServer.count("/creative.mp4") == 1)
                    let status = try await CreativeConditioningTests.status(second)
                    #expect(status["creatives"]?[0]?["state"]?.stringValue == "ready")
                    #expect(status["creatives"]?[0]?["attempts"]?.doubleValue == 1)
                }
            }
        }
    }
}

/// The IAB's VAST samples (`Tests/Fixtures/vast-iab`) served by a loopback ad server, each
/// `MediaFile` pointed at an MP4 made by ffmpeg here: the linear progressive ones play once
/// conditioned; VPAID, non-linear and the (offline) wrapper never do.
@Suite("IAB VAST samples conditioned", .serialized, .realTime)
struct IABSamplesConditionedTests {
    /// `text` with the URL of every `MediaFile` made `url` (its first `CDATA` section).
    static func pointingMediaFiles(_ text: String, at url: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "<MediaFile"),
            let close = rest.range(of: "</MediaFile>", range: open.upperBound..<rest.endIndex)
        {
            out += rest[..<open.lowerBound]
            var element = String(rest[open.lowerBound..<close.upperBound])
            if let start = element.range(of: "<![CDATA["),
                let end = element.range(of: "]]>", range: start.upperBound..<element.endIndex)
            {
                element.replaceSubrange(start.upperBound..<end.lowerBound, with: url)
            }
            out += element
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    static let samples = [
        "vast4.2-Inline_Simple.xml", "vast4.1-SSAI_stitching_mezzanine_file_support-test.xml",
        "vast2.0-Inline_LinearRegular_VAST2.0.xml", "vast2.0-Inline_LinearVAST2vpaid.xml",
        "vast2.0-Tremor-vast2VPAIDLinear.xml", "vast4.2-Inline_Non-Linear_Tag-test.xml",
        "vast4.2-Wrapper_Tag-test.xml",
    ]

    @Test(.timeLimit(.minutes(5)))
    func theLinearProgressiveSamplesPlayOnceConditioned() async throws {
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let mp4 = scratch + "/creative.mp4"
        try await CreativeConditioningTests.makeCreative(mp4)
        let current = Mutex(0)
        let base = Mutex("")
        let router = Router()
        router.get("iab") { _, _ -> Response in
            let index = current.withLock { $0 }
            let text = Self.pointingMediaFiles(
                Fixture.text("vast-iab/" + Self.samples[index]),
                at: base.withLock { $0 } + "/media/\(index).mp4"
            )
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("media/{name}") { _, _ -> Response in
            guard let data = FileManager.default.contents(atPath: mp4) else { throw HTTPError(.notFound) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
        }
        let adServer = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let played = try await adServer.test(.live) { adClient -> [String] in
            let address = "http://127.0.0.1:\(adClient.port!)"
            base.withLock { $0 = address }
            var configuration = try CreativeConditioningTests.configuration(
                base: address,
                folder: scratch + "/conditioned",
                database: scratch + "/store.sqlite",
                clock: ManualWallClock(t0 + 110)
            )
            configuration.adInsertion.assets[0].adServer?.urlTemplate = address + "/iab?cb=[CACHEBUSTING]"
            // The wrapper's host does not resolve offline: its 301 comes within this budget.
            configuration.adInsertion.assets[0].adServer?.timeout = MediaTime(seconds: 3)
            return try await withServer(configuration) { client in
                var played: [String] = []
                for (index, name) in Self.samples.enumerated() {
                    current.withLock { $0 = index }
                    #expect(
                        try await CreativeConditioningTests.pod(client, viewer: "first-\(index)").isEmpty,
                        "\(name)"
                    )
                    // A sample whose ad resolved to a file to condition has a record now.
                    let status = try await CreativeConditioningTests.status(client)
                    let asked = status["creatives"]?.arrayValue?.contains {
                        $0["source"]?.stringValue == address + "/media/\(index).mp4"
                    }
                    guard asked == true else { continue }
                    let uri = try await CreativeConditioningTests.poll(seconds: 120) { attempt in
                        try await CreativeConditioningTests.pod(client, viewer: "s\(index)-\(attempt)").first
                    }
                    if let uri, uri.contains("/media/conditioned/") {
                        let master = try await client.get(PlayerEndToEndTests.path(uri))
                        #expect(master.status == .ok && errors(master.bytes).isEmpty, "\(name)")
                        played.append(name)
                    }
                }
                return played
            }
        }
        #expect(played == Array(Self.samples.prefix(3)))
    }
}

/// The back-off between attempts, worked out by hand: 60 s, then doubled, at most retryMax, and
/// none after maxAttempts.
@Suite(.realTime) struct ConditioningBackOffTests {
    @Test func theWaitDoublesUpToTheCapAndStopsAfterTheLastAttempt() {
        var configuration = ConditioningConfiguration(folder: "/tmp/x")
        configuration.retryAfter = MediaTime(seconds: 60)
        configuration.retryMax = MediaTime(seconds: 300)
        configuration.maximumAttempts = 6
        let waits = (1...6).map { configuration.retryDelay(afterAttempts: $0)?.seconds }
        #expect(waits == [60, 120, 240, 300, 300, nil])
    }
}
