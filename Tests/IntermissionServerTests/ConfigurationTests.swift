import AdInsertion
import HLSInterstitials
import HLSPlaylist
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import Testing

@Suite(.realTime) struct ConfigurationFileTests {
    @Test func readsEveryDocumentedSection() throws {
        let yaml = """
            server:
              port: 9000
              database: "memory:"
              publicBaseURL: https://ads.example.com
              adminToken: t
              logLevel: debug
            media:
              movies: ./media
            repeatWindow: 60
            inventory:
              - {id: red, uri: /media/movies/red/main.m3u8, duration: 10, value: 3}
            vod:
              - id: movie
                origin: /media/movies/movie/
                breaks:
                  - {id: preroll, cue: [PRE, ONCE], duration: 10}
                  - {id: mid1, at: 300, duration: 30}
                  - {id: postroll, cue: [POST], duration: 10}
            channels:
              - id: loop
                loop: /media/movies/movie/
                window: 6
                breaks: {every: 120, duration: 20, snap: [OUT, IN]}
              - id: news
                upstream: https://live.example.com/news/main.m3u8
                staleAfter: 20
            """
        let configuration = try ConfigurationFile.parse(yaml).apply(
            to: ServerConfiguration(),
            relativeTo: "/etc/intermission"
        )
        #expect(configuration.port == 9000 && configuration.database == "memory:" && configuration.adminToken == "t")
        #expect(configuration.mounts["movies"] == "/etc/intermission/./media")
        #expect(configuration.adInsertion.policy.repeatWindow == 60)
        let asset = try #require(configuration.adInsertion.asset("movie"))
        #expect(asset.breaks.map(\.id) == ["preroll", "mid1", "postroll"])
        #expect(asset.breaks[0].position == .preRoll && asset.breaks[0].once)
        #expect(asset.breaks[1].position == .midRoll(300) && asset.breaks[1].resumeOffset == .zero)
        #expect(configuration.adInsertion.channel("loop")?.breakPlan?.snap == ["OUT", "IN"])
        #expect(
            configuration.adInsertion.channel("news")?.source == .upstream("https://live.example.com/news/main.m3u8")
        )
    }

    @Test func saysWhatIsWrong() {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("vod:\n  - id: x\n").apply(to: ServerConfiguration(), relativeTo: "/")
        }
        do {
            _ = try ConfigurationFile.parse(
                "vod:\n  - id: x\n    origin: /media/a/\n    breaks:\n      - {id: b, duration: 5}\n"
            )
            .apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("a break without a place was accepted")
        } catch {
            #expect("\(error)".contains("vod[0].breaks[0] needs 'at'"))
        }
        do {
            _ = try ConfigurationFile.parse("channels:\n  - id: c\n").apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("a channel without a source was accepted")
        } catch {
            #expect("\(error)".contains("channels[0] needs exactly one of 'upstream'"))
        }
    }
}

/// Every number of the configuration is read into its documented range, and unknown keys are
/// refused: the error names the key.
@Suite(.realTime) struct ConditioningConfigurationTests {
    @Test func theConditioningSectionIsReadWithItsDefaultsAndBounds() throws {
        let yaml = """
            conditioning:
              folder: conditioned
              maxJobs: 2
              timeLimit: 120
              memoryLimit: 1073741824
              cdnBaseURL: https://cdn.example.com/ads/
              retryAfter: 30
              maxAttempts: 3
            """
        let configuration = try ConfigurationFile.parse(yaml).apply(
            to: ServerConfiguration(),
            relativeTo: "/etc/intermission"
        )
        let conditioning = try #require(configuration.conditioning)
        #expect(conditioning.folder == "/etc/intermission/conditioned")
        #expect(conditioning.maximumJobs == 2)
        #expect(conditioning.timeLimit == .seconds(120))
        #expect(conditioning.memoryLimit == 1 << 30)
        #expect(conditioning.cdnBaseURL == "https://cdn.example.com/ads/")
        #expect(conditioning.retryAfter == MediaTime(seconds: 30))
        #expect(conditioning.maximumAttempts == 3)
        // Defaults.
        #expect(conditioning.ffmpeg == "ffmpeg" && conditioning.ffprobe == "ffprobe")
        #expect(conditioning.queueLimit == 64)
        #expect(conditioning.niceness == 10)
        #expect(conditioning.maximumSourceBytes == 256 << 20)
        #expect(conditioning.retryMax == MediaTime(seconds: 3600))
        // Without the section: off.
        #expect(
            try ConfigurationFile.parse("repeatWindow: 30").apply(to: ServerConfiguration(), relativeTo: "/")
                .conditioning == nil
        )
    }
}

@Suite(.realTime) struct ConfigurationLimitTests {
    static let loop = "channels:\n  - id: c\n    loop: /media/a/\n"
    static let upstream = "channels:\n  - id: c\n    upstream: http://up.example/live.m3u8\n"
    static let vod = "vod:\n  - id: v\n    origin: /media/a/\n    breaks:\n"

    static let bad: [(yaml: String, key: String)] = [
        (Self.upstream + "    scte35BreakStarts: [256]\n", "channels[0].scte35BreakStarts"),
        (Self.upstream + "    scte35BreakStarts: [-1]\n", "channels[0].scte35BreakStarts"),
        (Self.upstream + "    scte35BreakStarts: []\n", "channels[0].scte35BreakStarts"),
        (Self.upstream + "    scte35BreakStarts: [9223372036854775807]\n", "channels[0].scte35BreakStarts"),
        (Self.upstream + "    scte35BreakEnds: [1e308]\n", "channels[0].scte35BreakEnds"),
        (Self.upstream + "    scte35BreakStarts: [0x22]\n    scte35BreakEnds: [0x22]\n", "channels[0].scte35BreakEnds"),
        ("server:\n  upstreamTimeout: 1e300\n", "server.upstreamTimeout"),
        ("server:\n  upstreamTimeout: -1\n", "server.upstreamTimeout"),
        ("server:\n  upstreamTimeout: 0\n", "server.upstreamTimeout"),
        ("server:\n  upstreamTimeout: .nan\n", "server.upstreamTimeout"),
        ("server:\n  upstreamTimeout: .inf\n", "server.upstreamTimeout"),
        ("server:\n  upstreamTimeout: 9223372037\n", "server.upstreamTimeout"),
        ("server:\n  idleTimeout: 0\n", "server.idleTimeout"),
        ("server:\n  idleTimeout: -9223372036854775808\n", "server.idleTimeout"),
        ("server:\n  idleTimeout: 86400.5\n", "server.idleTimeout"),
        ("server:\n  idleTimeout: 1e308\n", "server.idleTimeout"),
        ("server:\n  idleTimeout: .nan\n", "server.idleTimeout"),
        ("server:\n  idleTimeout: .inf\n", "server.idleTimeout"),
        ("server:\n  maxConnections: 0\n", "server.maxConnections"),
        ("server:\n  maxConnections: -1\n", "server.maxConnections"),
        ("server:\n  maxConnections: 1048577\n", "server.maxConnections"),
        ("server:\n  maxConnections: 9223372036854775807\n", "server.maxConnections"),
        ("server:\n  maxConnections: 1e308\n", "server.maxConnections"),
        ("server:\n  maxConnections: .nan\n", "server.maxConnections"),
        ("server:\n  requestHeadTimeout: 0\n", "server.requestHeadTimeout"),
        ("server:\n  requestHeadTimeout: 3600.5\n", "server.requestHeadTimeout"),
        ("server:\n  requestHeadTimeout: .nan\n", "server.requestHeadTimeout"),
        ("server:\n  requestHeadTimeout: -9223372036854775808\n", "server.requestHeadTimeout"),
        ("server:\n  upstreamTimout: 5\n", "server.upstreamTimout"),
        ("server:\n  groupHelloTimeout: 0\n", "server.groupHelloTimeout"),
        ("server:\n  groupHelloTimeout: 300.5\n", "server.groupHelloTimeout"),
        ("server:\n  groupHelloTimeout: .nan\n", "server.groupHelloTimeout"),
        ("server:\n  groupPingInterval: 0.05\n", "server.groupPingInterval"),
        ("server:\n  groupPingInterval: 1e308\n", "server.groupPingInterval"),
        ("server:\n  groupWriteTimeout: -1\n", "server.groupWriteTimeout"),
        ("server:\n  groupJoinsPerAddress: 0\n", "server.groupJoinsPerAddress"),
        ("server:\n  groupJoinsPerAddress: 65\n", "server.groupJoinsPerAddress"),
        ("server:\n  groupMessagesPerSecond: 0\n", "server.groupMessagesPerSecond"),
        ("server:\n  groupMessagesPerSecond: .inf\n", "server.groupMessagesPerSecond"),
        ("server:\n  groupMessageBurst: 0\n", "server.groupMessageBurst"),
        ("server:\n  groupMessageBurst: 10001\n", "server.groupMessageBurst"),
        ("server:\n  groupSendQueue: 0\n", "server.groupSendQueue"),
        ("server:\n  groupSendQueue: 9223372036854775807\n", "server.groupSendQueue"),
        ("server:\n  groupSendQeue: 5\n", "server.groupSendQeue"),
        ("server:\n  groupAddressHeader: \"X Real IP\"\n", "server.groupAddressHeader"),
        ("server:\n  groupAddressHeader: \"\"\n", "server.groupAddressHeader"),
        ("server:\n  groupAddressHeader: X-\(String(repeating: "a", count: 63))\n", "server.groupAddressHeader"),
        ("server:\n  groupAddressHeader: \"X-Real-IP:\"\n", "server.groupAddressHeader"),
        ("serverr:\n  port: 80\n", "serverr"),
        ("server:\n  port: 70000\n", "server.port"),
        ("server:\n  port: -1\n", "server.port"),
        ("server:\n  port: 1e300\n", "server.port"),
        ("server:\n  port: 99999999999999999999999999999999999999\n", "server.port"),
        ("server:\n  maxUpstreamBytes: 0\n", "server.maxUpstreamBytes"),
        ("server:\n  maxUpstreamBytes: 9223372036854775807\n", "server.maxUpstreamBytes"),
        ("server:\n  publicBaseURL: //evil.example\n", "server.publicBaseURL"),
        ("server:\n  publicBaseURL: /relative\n", "server.publicBaseURL"),
        ("repeatWindow: -1\n", "repeatWindow"),
        ("repeatWindow: 1e308\n", "repeatWindow"),
        ("inventory:\n  - {id: r, uri: /media/a/r.m3u8, duration: 1e-300}\n", "inventory[0].duration"),
        ("inventory:\n  - {id: r, uri: /media/a/r.m3u8, duration: 10, value: .inf}\n", "inventory[0].value"),
        ("inventory:\n  - {id: r, uri: //evil.example/a.m3u8, duration: 10}\n", "inventory[0].uri"),
        ("inventory:\n  - {id: r, uri: /media/a/r.m3u8, duration: 10, valeu: 3}\n", "inventory[0].valeu"),
        (
            "inventory:\n  - {id: \(String(repeating: "r", count: 5000)), uri: /a.m3u8, duration: 10}\n",
            "inventory[0].id"
        ),
        (vod + "      - {id: m, at: 1e300, duration: 10}\n", "vod[0].breaks[0].at"),
        (vod + "      - {id: m, at: -1, duration: 10}\n", "vod[0].breaks[0].at"),
        (vod + "      - {id: m, at: 10, duration: 1e-300}\n", "vod[0].breaks[0].duration"),
        (vod + "      - {id: m, at: 10, duration: 10, resumeOffset: -1e300}\n", "vod[0].breaks[0].resumeOffset"),
        (vod + "      - {id: m, at: 10, duration: 10, resumOffset: 1}\n", "vod[0].breaks[0].resumOffset"),
        ("vod:\n  - {id: v, origin: /media/a/, programDateTime: 1600-01-01T00:00:00Z}\n", "vod[0].programDateTime"),
        (loop + "    window: 2\n", "channels[0].window"),
        (loop + "    window: 100000\n", "channels[0].window"),
        (loop + "    lookahead: -5\n", "channels[0].lookahead"),
        (loop + "    staleAfter: 1e300\n", "channels[0].staleAfter"),
        (loop + "    scte35Duration: 0\n", "channels[0].scte35Duration"),
        (loop + "    breaks: {every: 1e300, duration: 20}\n", "channels[0].breaks.every"),
        (loop + "    breaks: {every: 120, duration: 1e-300}\n", "channels[0].breaks.duration"),
        (loop + "    breaks: {every: 120, duration: 20, offset: -1}\n", "channels[0].breaks.offset"),
        (loop + "    breaks: {every: 120, duration: 20, snap: [SIDEWAYS]}\n", "channels[0].breaks.snap"),
        (loop + "    breaks: {every: 120, duration: 20, evry: 5}\n", "channels[0].breaks.evry"),
        (loop + "    windw: 6\n", "channels[0].windw"),
        (loop + "    cueOnce: 1\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: \"true\"\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: maybe\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: 1e308\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: .nan\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: 0x1\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: [true]\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: \"\\0\"\n", "channels[0].cueOnce"),
        (loop + "    cueOnce: \(String(repeating: "t", count: 100_000))\n", "channels[0].cueOnce"),
        (loop + "    cueonce: true\n", "channels[0].cueonce"),
        (loop + "    preloadWindow: -1\n", "channels[0].preloadWindow"),
        (loop + "    preloadWindow: 1e308\n", "channels[0].preloadWindow"),
        (loop + "    preloadWindow: .nan\n", "channels[0].preloadWindow"),
        (loop + "    preloadWindow: 3601\n", "channels[0].preloadWindow"),
        (loop + "    preloadWindow: \"\\0\"\n", "channels[0].preloadWindow"),
        (loop + "    preloadWindow: \(String(repeating: "9", count: 100_000))\n", "channels[0].preloadWindow"),
        (loop + "    playlist: ../../etc/passwd\n", "channels[0].playlist"),
        ("vod:\n  - {id: v, origin: /media/a/, playlist: /etc/main.m3u8}\n", "vod[0].playlist"),
        ("vod:\n  - {id: v, origin: /media/a/, playlist: \"http://evil.example/x.m3u8\"}\n", "vod[0].playlist"),
        ("conditioning:\n  folder: c\n  maxJobs: 0\n", "conditioning.maxJobs"),
        ("conditioning:\n  folder: c\n  maxJobs: 17\n", "conditioning.maxJobs"),
        ("conditioning:\n  folder: c\n  queue: 10001\n", "conditioning.queue"),
        ("conditioning:\n  folder: c\n  timeLimit: 0\n", "conditioning.timeLimit"),
        ("conditioning:\n  folder: c\n  timeLimit: .nan\n", "conditioning.timeLimit"),
        ("conditioning:\n  folder: c\n  timeLimit: 1e308\n", "conditioning.timeLimit"),
        ("conditioning:\n  folder: c\n  cpuSeconds: 0\n", "conditioning.cpuSeconds"),
        ("conditioning:\n  folder: c\n  memoryLimit: 1024\n", "conditioning.memoryLimit"),
        ("conditioning:\n  folder: c\n  nice: 20\n", "conditioning.nice"),
        ("conditioning:\n  folder: c\n  maxSourceBytes: 1023\n", "conditioning.maxSourceBytes"),
        ("conditioning:\n  folder: c\n  maxSourceBytes: 9223372036854775807\n", "conditioning.maxSourceBytes"),
        ("conditioning:\n  folder: c\n  fetchTimeout: -1\n", "conditioning.fetchTimeout"),
        ("conditioning:\n  folder: c\n  cdnBaseURL: ftp://cdn.example/\n", "conditioning.cdnBaseURL"),
        ("conditioning:\n  folder: c\n  retryAfter: 0\n", "conditioning.retryAfter"),
        ("conditioning:\n  folder: c\n  retryMax: 604801\n", "conditioning.retryMax"),
        ("conditioning:\n  folder: c\n  maxAttempts: 0\n", "conditioning.maxAttempts"),
        ("conditioning:\n  folder: \"\"\n", "conditioning.folder"),
        ("conditioning:\n  folder: c\n  ffmpeg: \"a\\u0000b\"\n", "conditioning.ffmpeg"),
        ("conditioning:\n  folder: c\n  ffmpg: ffmpeg\n", "conditioning.ffmpg"),
        ("media:\n  conditioned: /srv/x\nconditioning:\n  folder: c\n", "media.conditioned"),
    ]

    @Test(arguments: Self.bad.indices) func outOfRangeOrUnknownKeysAreNamed(_ index: Int) {
        let (yaml, key) = Self.bad[index]
        do {
            _ = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("accepted: \(yaml.prefix(120))")
        } catch let error as ConfigurationError {
            #expect(error.message.hasPrefix(key), "\(error.message)")
            #expect(error.message.count < 600)
        } catch {
            Issue.record("not a ConfigurationError: \(error)")
        }
    }

    /// Which SCTE-35 segmentation types open and close an upstream channel's breaks.
    @Test func theSCTE35SegmentationTypesOfAChannel() throws {
        let yaml = Self.upstream + "    scte35BreakStarts: [0x22, 0, 255]\n    scte35BreakEnds: [0x23]\n"
        let configuration = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
        let signals = try #require(configuration.adInsertion.channel("c")?.scte35Signals)
        #expect(signals.breakStarts.map(\.rawValue).sorted() == [0, 0x22, 255])
        #expect(signals.breakEnds.map(\.rawValue) == [0x23])
        let defaults = try ConfigurationFile.parse(Self.upstream).apply(to: ServerConfiguration(), relativeTo: "/")
        #expect(
            defaults.adInsertion.channel("c")?.scte35Signals.breakStarts.map(\.rawValue).sorted() == [
                0x30, 0x32, 0x34, 0x36,
            ]
        )
    }

    @Test func theEdgesOfTheRangesAreAccepted() throws {
        let yaml = """
            server:
              port: 65535
              upstreamTimeout: 0.1
              idleTimeout: 86400
              maxUpstreamBytes: 1024
              maxConnections: 1048576
              requestHeadTimeout: 0.1
            repeatWindow: 0
            inventory:
              - {id: \(String(repeating: "r", count: 64)), uri: "HTTPS://cdn.example/r.m3u8", duration: 3600, value: 0}
            vod:
              - id: v
                origin: /media/a/
                breaks:
                  - {id: m, at: 604800, duration: 0.001, resumeOffset: -3600}
            channels:
              - id: c
                loop: /media/a/
                window: 3
                breaks: {every: 1, duration: 1, offset: 0}

            """
        let configuration = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
        #expect(configuration.port == 65535)
        #expect(configuration.upstreamTimeout == .milliseconds(100))
        #expect(configuration.idleTimeout == .seconds(86_400))
        #expect(configuration.maximumUpstreamBytes == 1024)
        #expect(configuration.maximumConnections == 1_048_576)
        #expect(configuration.requestHeadTimeout == .milliseconds(100))
        #expect(configuration.adInsertion.assets[0].breaks[0].position == .midRoll(MediaTime(seconds: 604_800)))
        #expect(configuration.adInsertion.assets[0].breaks[0].duration == MediaTime(milliseconds: 1))
        #expect(configuration.adInsertion.assets[0].breaks[0].resumeOffset == MediaTime(seconds: -3600))
        #expect(configuration.adInsertion.channel("c")?.windowSegments == 3)
    }

    @Test func theGroupSocketLimitsAreReadAtTheEdgesOfTheirRanges() throws {
        #expect(ServerConfiguration().groupLimits == GroupLimits())
        let low = try ConfigurationFile.parse(
            """
            server:
              groupHelloTimeout: 0.1
              groupPingInterval: 0.1
              groupWriteTimeout: 0.1
              groupJoinsPerAddress: 1
              groupMessagesPerSecond: 0.1
              groupMessageBurst: 1
              groupSendQueue: 1
              groupAddressHeader: X-Real-IP

            """
        ).apply(to: ServerConfiguration(), relativeTo: "/").groupLimits
        #expect(low.addressHeader == "X-Real-IP")
        #expect(low.helloTimeout == .milliseconds(100))
        #expect(low.pingInterval == .milliseconds(100))
        #expect(low.writeTimeout == .milliseconds(100))
        #expect(low.joinsPerAddress == 1)
        #expect(low.messagesPerSecond == 0.1)
        #expect(low.messageBurst == 1)
        #expect(low.sendQueue == 1)
        let high = try ConfigurationFile.parse(
            """
            server:
              groupHelloTimeout: 300
              groupPingInterval: 3600
              groupWriteTimeout: 300
              groupJoinsPerAddress: 64
              groupMessagesPerSecond: 10000
              groupMessageBurst: 10000
              groupSendQueue: 100000

            """
        ).apply(to: ServerConfiguration(), relativeTo: "/").groupLimits
        #expect(high.helloTimeout == .seconds(300))
        #expect(high.pingInterval == .seconds(3600))
        #expect(high.writeTimeout == .seconds(300))
        #expect(high.joinsPerAddress == 64)
        #expect(high.messagesPerSecond == 10_000)
        #expect(high.messageBurst == 10_000)
        #expect(high.sendQueue == 100_000)
    }

    @Test func cueOnceIsOffUnlessAChannelSetsIt() throws {
        let yaml =
            Self.loop + "    cueOnce: true\n  - id: d\n    loop: /media/a/\n    cueOnce: false\n"
            + "  - id: e\n    loop: /media/a/\n"
        let channels = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
            .adInsertion.channels
        #expect(channels.map(\.id) == ["c", "d", "e"])
        #expect(channels.map(\.marksMidRollsOnce) == [true, false, false])
    }

    @Test func preloadWindowDefaultsToEightTargetDurationsAndZeroTurnsItOff() throws {
        let yaml =
            Self.loop + "    preloadWindow: 0\n  - id: d\n    loop: /media/a/\n    preloadWindow: 12.5\n"
            + "  - id: e\n    loop: /media/a/\n"
        let channels = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
            .adInsertion.channels
        #expect(channels.map(\.preloadWindow) == [.zero, MediaTime(milliseconds: 12_500), nil])
        #expect(channels.map { $0.preloadWindow(targetDuration: 6) } == [.zero, MediaTime(milliseconds: 12_500), 48])
    }

    @Test func anUnknownKeySaysWhereAndWhatTheSectionTakes() {
        do {
            _ = try ConfigurationFile.parse("server:\n  port: 8080\n  upstreamTimout: 5\n")
            Issue.record("accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "server.upstreamTimout")
            #expect(error.message.contains("line 3"))
            #expect(error.message.contains("upstreamTimeout"))
        } catch {
            Issue.record("\(error)")
        }
        // `media:` names are the operator's: any name with the ID charset is accepted.
        #expect(throws: Never.self) { try ConfigurationFile.parse("media:\n  anything-goes: ./m\n") }
    }
}
