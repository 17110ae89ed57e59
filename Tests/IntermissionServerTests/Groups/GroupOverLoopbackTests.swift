import AdInsertion
import Foundation
import GroupCoordination
import GroupPlayback
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import HummingbirdTesting
import HummingbirdWSClient
import IntermissionServer
import IntermissionTestSupport
import InterstitialPlayback
import Logging
import NIOWebSocket
import Testing

/// The hub inside `intermission serve` and headless participants, over real WebSockets and HTTP on
/// loopback, in real time.
@Suite(.serialized, .realTimeAlone) struct GroupOverLoopbackTests {
    /// A scratch media folder served by the server under `/media/group/`.
    struct Media {
        let folder: String

        init() throws {
            self.folder = NSTemporaryDirectory() + "intermission-group-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: self.folder, withIntermediateDirectories: true)
        }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: self.folder + "/" + name, atomically: true, encoding: .utf8)
        }

        /// `count` one-second segments of filler bytes (the player does not decode media).
        func segments(_ prefix: String, count: Int) throws {
            let bytes = Data(repeating: 0x47, count: 1_880)
            for index in 0..<count { try bytes.write(to: URL(fileURLWithPath: self.folder + "/\(prefix)\(index).ts")) }
        }

        /// A VOD media playlist of one-second segments, with an interstitial at `adAt` when given.
        func vod(
            _ name: String,
            seconds: Int,
            ad: (at: Int, uri: String, duration: Int)? = nil,
            restrict: String? = nil
        ) throws {
            var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
            if let ad {
                lines.append(
                    "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-01-01T00:00:0\(ad.at).000Z\","
                        + "DURATION=\(ad.duration).0,X-ASSET-URI=\"\(ad.uri)\",X-RESUME-OFFSET=0"
                        + (restrict.map { ",X-RESTRICT=\"\($0)\"" } ?? "")
                )
            }
            for index in 0..<seconds { lines += ["#EXTINF:1.000,", "p\(index).ts"] }
            lines.append("#EXT-X-ENDLIST")
            try self.write(name, lines.joined(separator: "\n") + "\n")
        }

        /// `name`: an asset's VOD media playlist (an ad, an ident), `seconds` one-second segments
        /// `p0.ts`, `p1.ts`… with no date.
        func asset(_ name: String, seconds: Int) throws {
            let lines =
                ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
                + (0..<seconds).flatMap { ["#EXTINF:1.000,", "p\($0).ts"] } + ["#EXT-X-ENDLIST"]
            try self.write(name, lines.joined(separator: "\n") + "\n")
        }

        /// `name`: 16 one-second segments with a shared interstitial (`X-CONTENT-MAY-VARY="NO"`,
        /// ID `ident`) of `identSeconds` at `at` seconds, whose asset is written beside it.
        func showWithSharedIdent(_ name: String, identSeconds: Int, at: Int) throws {
            try self.segments("p", count: 16)
            try self.asset("ident\(identSeconds).m3u8", seconds: identSeconds)
            var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
            lines.append(
                #"#EXT-X-DATERANGE:ID="ident",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:0\#(at).000Z","#
                    + #"DURATION=\#(identSeconds).0,X-ASSET-URI="ident\#(identSeconds).m3u8",X-RESUME-OFFSET=0,X-CONTENT-MAY-VARY="NO""#
            )
            for index in 0..<16 { lines += ["#EXTINF:1.000,", "p\(index).ts"] }
            lines.append("#EXT-X-ENDLIST")
            try self.write(name, lines.joined(separator: "\n") + "\n")
        }

        func remove() { try? FileManager.default.removeItem(atPath: self.folder) }
    }

    /// HummingbirdTesting's live client connects when the test starts and may send its first
    /// request much later on a loaded machine; the request-head deadline counts from the
    /// connection's start and closed it ("I/O on closed channel"), so it is raised to the idle
    /// timeout here.
    static func configuration(media: Media) -> ServerConfiguration {
        var configuration = ServerConfiguration(
            hostname: "127.0.0.1",
            port: 0,
            database: "memory:",
            mounts: ["group": media.folder],
            logLevel: .error
        )
        configuration.requestHeadTimeout = configuration.idleTimeout
        return configuration
    }

    /// Opens a raw socket to the hub, sends `messages` one by one and returns every message received
    /// until `count` have arrived (or the socket closed); after 20 s it records an issue and returns
    /// what arrived, leaving the socket behind, so a socket that never ends fails the test instead of
    /// holding the test run.
    static func exchange(_ url: String, send messages: [String], expecting count: Int) async throws -> [String] {
        let received = Received()
        let exchange = Task {
            _ = try await WebSocketClient.connect(url: url, logger: Logger(label: "test")) { inbound, outbound, _ in
                for message in messages { try await outbound.writeTextMessage(message) }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message, await received.add(text) >= count { break }
                }
                try? await outbound.close(.normalClosure, reason: nil)
            }
            await received.finish()
        }
        if await waitUntil(within: .seconds(20), { await received.finished }) {
            try await exchange.value
        } else {
            Issue.record("the exchange with \(url.prefix(80)) did not end within 20 s")
            exchange.cancel()
        }
        return await received.texts
    }

    /// Where `players` are at one moment: each reading is taken with the monotonic clock around it
    /// and brought back to the moment of the first (all play at rate 1), so the time it takes to
    /// ask three actors in turn on a busy machine does not count as a spread.
    ///
    /// A reading that took
    /// longer than 10 ms is taken again.
    static func positions(of players: [Player]) async throws -> [MediaTime] {
        let reference = ContinuousClock.now
        var positions: [MediaTime] = []
        for player in players {
            var attempts = 0
            while true {
                let before = ContinuousClock.now
                let position = await player.currentTime
                let after = ContinuousClock.now
                attempts += 1
                guard after - before > .milliseconds(10), attempts < 20 else {
                    let elapsed = before + (after - before) / 2 - reference
                    let moved = MediaTime(
                        nanoseconds: elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds
                            / 1_000_000_000
                    )
                    positions.append(await player.rate == 0 ? position : position - moved)
                    break
                }
                await Task.yield()
            }
        }
        return positions
    }

    /// Where `player` is, for a failure's message: its time, rate, interstitial and last log entries.
    static func describe(_ player: Player) async -> String {
        let tail = await player.log.suffix(6).map(\.description).joined(separator: "\n")
        return "at \(await player.currentTime) s, rate \(await player.rate), "
            + "in \(await player.currentInterstitialEventID ?? "no interstitial"); last log entries:\n\(tail)"
    }

    /// Waits (at most 30 s) until `coordinator` has the group's state; fails the test otherwise.
    static func joined(_ coordinator: PlaybackCoordinator) async throws {
        try #require(await waitUntil { await coordinator.groupTime != nil }, "a participant never joined its group")
    }

    /// Where `player` is in what it plays: its time in the interstitial it is in, else its primary
    /// time.
    static func progress(of player: Player) async -> MediaTime {
        if let offset = await player.currentInterstitialTime { return offset }
        return await player.currentTime
    }

    /// Lets the group run until `player` (playing) has played `amount` more of what it plays.
    ///
    /// The player's own progress measures the wait, not a fixed sleep. Fails the test after 30 s.
    static func letPlay(_ player: Player, _ amount: MediaTime) async throws {
        let start = await Self.progress(of: player)
        try #require(
            await waitUntil { await Self.progress(of: player) >= start + amount },
            "the player did not play \(amount) s from \(start)"
        )
    }

    /// Lets the group run until each of `coordinators` has exchanged `count` more clock probes with
    /// the hub (one every probe interval): the wait of a test in which nobody plays.
    static func letProbe(_ coordinators: [PlaybackCoordinator], _ count: Int) async throws {
        for coordinator in coordinators {
            for _ in 0..<count {
                let last = await coordinator.clock.samples.last
                try #require(
                    await waitUntil { await coordinator.clock.samples.last != last },
                    "a participant stopped probing the hub"
                )
            }
        }
    }

    /// A headless participant named `name` who plays `stream` and joins the hub's group `group`.
    static func participant(
        _ name: String,
        stream: String,
        group: String,
        policy: GroupPolicy = GroupPolicy(),
        probeInterval: Duration = .seconds(2)
    ) -> (Player, PlaybackCoordinator) {
        let player = Player(item: PlayerItem(url: stream))
        let coordinator = PlaybackCoordinator(
            player: player,
            groupURL: group,
            configuration: .init(participantID: name, policy: policy, probeInterval: probeInterval)
        )
        return (player, coordinator)
    }

    /// Each participant's position on the group's timeline now (zero before it has one).
    static func coordinatedTimes(_ coordinators: [PlaybackCoordinator]) async -> [MediaTime] {
        var result: [MediaTime] = []
        for coordinator in coordinators { result.append(await coordinator.coordinatedTime() ?? .zero) }
        return result
    }

    /// The coordinated times of `coordinators` once every one has reached `time`, or the last read
    /// when `limit` (real time) passes first.
    static func coordinatedTimes(
        _ coordinators: [PlaybackCoordinator],
        reaching time: MediaTime,
        within limit: Duration
    ) async -> [MediaTime] {
        var times = await Self.coordinatedTimes(coordinators)
        await waitUntil(within: limit) {
            times = await Self.coordinatedTimes(coordinators)
            return !times.contains(where: { $0 < time })
        }
        return times
    }

    actor Received {
        var texts: [String] = []
        var finished = false

        func finish() { self.finished = true }

        func add(_ text: String) -> Int {
            self.texts.append(text)
            return self.texts.count
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theHubAnswersProbesAndRefusesWhatItCannotTake() async throws {
        let media = try Media()
        defer { media.remove() }
        var configuration = Self.configuration(media: media)
        // The sockets here never join: a hello deadline long enough for a loaded machine to finish.
        configuration.groupLimits.helloTimeout = .seconds(60)
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let base = "ws://127.0.0.1:\(try #require(client.port))/v1/groups"
            // A probe before joining is answered.
            let pong = try await Self.exchange("\(base)/g1", send: [#"{"type":"ping","sent":123}"#], expecting: 1)
            let answer = try JSONDecoder().decode(GroupMessage.self, from: Data(try #require(pong.first).utf8))
            guard case .pong(let sent, let received, let answered) = answer else {
                Issue.record("not a pong: \(pong)")
                return
            }
            #expect(sent == ClockInstant(nanoseconds: 123))
            #expect(received <= answered)
            // Hostile messages get an error each and the socket stays open.
            let hostile = [
                "not json", #"{"type":"command","command":"play"}"#, #"{"type":"hello"}"#,
                #"{"type":"command","command":"seek","time":{"nanoseconds":1e308}}"#, "{\"type\":\"\u{0}\"}",
            ]
            let errors = try await Self.exchange("\(base)/g2", send: hostile, expecting: hostile.count)
            #expect(errors.count == hostile.count)
            #expect(errors.allSatisfy { $0.contains(#""type":"error""#) })
            #expect(errors[1].contains("not-joined"))
            // A bad group ID is told so.
            let bad = try await Self.exchange("\(base)/..", send: [], expecting: 1)
            #expect(bad.first?.contains("bad-group-id") == true)
            let long = try await Self.exchange("\(base)/" + String(repeating: "g", count: 65), send: [], expecting: 1)
            #expect(long.first?.contains("bad-group-id") == true)
            // A message over the limit closes the socket without an answer.
            let huge = try await Self.exchange(
                "\(base)/g3",
                send: [String(repeating: " ", count: 100_000)],
                expecting: 1
            )
            #expect(huge.isEmpty)
            // The server still answers HTTP.
            #expect(try await client.execute(uri: "/health", method: .get) { $0.status } == .ok)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anIncompatibleParticipantIsRefusedWithTheReason() async throws {
        let media = try Media()
        defer { media.remove() }
        try media.segments("p", count: 12)
        try media.vod("long.m3u8", seconds: 12)
        try media.vod("short.m3u8", seconds: 8)
        let app = try await buildApplication(configuration: Self.configuration(media: media))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let groupURL = "ws://127.0.0.1:\(port)/v1/groups/mismatch"
            let first = Player(item: PlayerItem(url: "http://127.0.0.1:\(port)/media/group/long.m3u8"))
            let second = Player(item: PlayerItem(url: "http://127.0.0.1:\(port)/media/group/short.m3u8"))
            let host = PlaybackCoordinator(
                player: first,
                groupURL: groupURL,
                configuration: .init(participantID: "host")
            )
            let guest = PlaybackCoordinator(
                player: second,
                groupURL: groupURL,
                configuration: .init(participantID: "guest")
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await first.run(until: MediaTime(seconds: 30)) }
                group.addTask { try await second.run(until: MediaTime(seconds: 30)) }
                group.addTask { try await host.run() }
                try await Self.joined(host)
                group.addTask { try await guest.run() }
                try #require(await waitUntil { await guest.refusal != nil }, "the guest was never refused")
                let reasons = try #require(await guest.refusal)
                #expect(
                    reasons == [
                        "content durations differ once stitched ads are left out: 8.000 s here, 12.000 s in the group"
                    ]
                )
                #expect(await guest.status == .refused(reasons))
                group.cancelAll()
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func threeParticipantsWaitForEachOthersAdsOnAVOD() async throws {
        let media = try Media()
        defer { media.remove() }
        try media.segments("p", count: 14)
        let app = try await buildApplication(configuration: Self.configuration(media: media))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)/media/group"
            // One primary content; Bob has a 2 s ad at 3 s, Carol a 4 s one, Alice none.
            for (name, seconds) in [("ad2", 2), ("ad4", 4)] { try media.asset("\(name).m3u8", seconds: seconds) }
            try media.vod("alice.m3u8", seconds: 12)
            try media.vod("bob.m3u8", seconds: 12, ad: (3, "\(base)/ad2.m3u8", 2))
            try media.vod("carol.m3u8", seconds: 12, ad: (3, "\(base)/ad4.m3u8", 4))

            let groupURL = "ws://127.0.0.1:\(port)/v1/groups/vod-night"
            let participants = ["alice", "bob", "carol"].map { name in
                let (player, coordinator) = Self.participant(
                    name,
                    stream: "\(base)/\(name).m3u8",
                    group: groupURL,
                    policy: .waitsForInterstitials
                )
                return (name, player, coordinator)
            }
            let aliceStatuses = await participants[0].2.statusUpdates()
            // Everyone joined (each has a state from the hub) before the body.
            try await Self.playTogether(participants.map { ($0.1, $0.2) }, until: MediaTime(seconds: 30)) {
                await participants[0].2.play()

                // Alice reaches 3 s and waits for both ads, told until when.
                var sawWaiting = false
                for await status in aliceStatuses {
                    if case .waitingForCoordinatedPlayback(let ids, let until) = status, ids.contains("carol") {
                        #expect(until != nil)
                        sawWaiting = true
                        break
                    }
                }
                #expect(sawWaiting)
                try await Self.letPlay(participants[2].1, MediaTime(seconds: 1))  // 1 s of Carol's ad
                #expect(await participants[0].1.rate == 0)  // Alice holds
                let held = await participants[0].1.currentTime
                #expect((held - MediaTime(seconds: 3)).magnitude <= MediaTime(milliseconds: 100), "\(held)")

                // After Carol's ad (4 s from 3 s of group time) everyone plays on from 3 s together.
                // How long that takes depends on the machine; where they are, once they all play, does not.
                let players = participants.map(\.1)
                var positions = try await Self.positions(of: players)
                try await waitUntil {
                    positions = try await Self.positions(of: players)
                    return !positions.contains(where: { $0 <= MediaTime(seconds: 3.5) })
                }
                let spread = positions.max()! - positions.min()!
                #expect(spread <= MediaTime(milliseconds: 50), "positions \(positions)")
                #expect(
                    positions.allSatisfy { $0 > MediaTime(seconds: 3.5) && $0 < MediaTime(seconds: 8) },
                    "positions \(positions)"
                )
                for player in players { #expect(await player.rate == 1) }
            }
        }
    }

    /// A participant inside its own `X-RESTRICT="SKIP"` ad cannot move the group forward out of it: the
    /// seek is refused with the restriction's reason and the group stays where it is (it used to
    /// seek everyone, with no answer); pausing is granted, and the other participant's commands too.
    @Test(.timeLimit(.minutes(2)))
    func aParticipantInItsOwnRestrictedAdCannotSeekTheGroup() async throws {
        let media = try Media()
        defer { media.remove() }
        try media.segments("p", count: 20)
        let app = try await buildApplication(configuration: Self.configuration(media: media))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)/media/group"
            try media.asset("ad6.m3u8", seconds: 6)
            try media.vod("alice.m3u8", seconds: 20)
            try media.vod("bob.m3u8", seconds: 20, ad: (1, "\(base)/ad6.m3u8", 6), restrict: "SKIP")
            let groupURL = "ws://127.0.0.1:\(port)/v1/groups/restricted"
            let (alicePlayer, alice) = Self.participant("alice", stream: "\(base)/alice.m3u8", group: groupURL)
            let (bobPlayer, bob) = Self.participant("bob", stream: "\(base)/bob.m3u8", group: groupURL)
            try await Self.playTogether([(alicePlayer, alice), (bobPlayer, bob)], until: MediaTime(seconds: 40)) {
                #expect(await alice.play().allowed)
                // Bob reaches his ad at 1 s.
                await waitUntil { await bobPlayer.currentInterstitialEventID == "ad" }
                let bobNow = await Self.describe(bobPlayer)
                #expect(await bobPlayer.currentInterstitialEventID == "ad", "Bob \(bobNow)")
                let before = await alice.groupTime ?? .zero
                let seek = await bob.seek(toItemTime: MediaTime(seconds: 15))
                #expect(!seek.allowed, "\(seek)")
                #expect(seek.reason.contains("SKIP"), "\(seek)")
                let faster = await bob.play(rate: 2)
                #expect(!faster.allowed && faster.command == "play", "\(faster)")
                // The group did not jump to 15 s: it keeps playing from where it was.
                try await Self.letPlay(bobPlayer, MediaTime(milliseconds: 300))
                let after = await alice.groupTime ?? .zero
                #expect(after < before + MediaTime(seconds: 2), "group \(before) -> \(after)")
                // Pausing is never restricted; Alice, not in an ad, may seek the group.
                #expect(await bob.pause().allowed)
                #expect(await alice.seek(toItemTime: MediaTime(seconds: 10)).allowed)
            }
        }
    }

    /// A seek by one participant into an ad stitched into her primary moves the whole group to the
    /// start of that ad: she plays her ad from its start, the other (no ad) the same content moment;
    /// leaving her ad, she catches up with the group (the default policy).
    @Test(.timeLimit(.minutes(2)))
    func aSeekIntoAStitchedAdMovesEveryoneToItsStart() async throws {
        let media = try Media()
        defer { media.remove() }
        try media.segments("p", count: 12)
        try media.segments("a", count: 2)
        // Alice: 4 s of content, a 2 s stitched ad (EXT-X-CUE-OUT between discontinuities), 8 s more.
        var alice: [String] = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for index in 0..<4 { alice.append(contentsOf: ["#EXTINF:1.000,", "p\(index).ts"]) }
        alice.append(contentsOf: ["#EXT-X-DISCONTINUITY", "#EXT-X-CUE-OUT:DURATION=2"])
        for index in 0..<2 { alice.append(contentsOf: ["#EXTINF:1.000,", "a\(index).ts"]) }
        alice.append(contentsOf: ["#EXT-X-CUE-IN", "#EXT-X-DISCONTINUITY"])
        for index in 4..<12 { alice.append(contentsOf: ["#EXTINF:1.000,", "p\(index).ts"]) }
        alice.append("#EXT-X-ENDLIST")
        try media.write("alice.m3u8", alice.joined(separator: "\n") + "\n")
        try media.vod("bob.m3u8", seconds: 12)
        let app = try await buildApplication(configuration: Self.configuration(media: media))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)/media/group"
            let groupURL = "ws://127.0.0.1:\(port)/v1/groups/stitched"
            let (alicePlayer, aliceCoordinator) = Self.participant(
                "alice",
                stream: "\(base)/alice.m3u8",
                group: groupURL
            )
            let (bobPlayer, bobCoordinator) = Self.participant("bob", stream: "\(base)/bob.m3u8", group: groupURL)
            let players: [Player] = [alicePlayer, bobPlayer]
            let participants = [(alicePlayer, aliceCoordinator), (bobPlayer, bobCoordinator)]
            try await Self.playTogether(participants, until: MediaTime(seconds: 40)) {
                // Alice asks for 5 s of her item: 1 s into her ad.
                await aliceCoordinator.seek(toItemTime: MediaTime(seconds: 5))
                await aliceCoordinator.play()
                // Both land on the ad's start (item 4 s for both: Alice's ad, Bob's content).
                var positions: [MediaTime] = try await Self.positions(of: players)
                try await waitUntil {
                    let aliceRate = await alicePlayer.rate
                    let bobRate = await bobPlayer.rate
                    let started = positions[0] >= MediaTime(seconds: 4) && positions[1] >= MediaTime(seconds: 4)
                    if aliceRate == 1, bobRate == 1, started { return true }
                    positions = try await Self.positions(of: players)
                    return false
                }
                let ceiling = MediaTime(seconds: 4.9)
                #expect(positions[0] < ceiling && positions[1] < ceiling, "\(positions): not the ad's start")
                // Alice is out of the group while in her ad; when it ends (item 6 s), the default
                // policy has her catch up with the group, skipping the content she missed: from then
                // on her item time is Bob's plus her 2 s ad.
                try await waitUntil {
                    positions = try await Self.positions(of: players)
                    return positions[0] > MediaTime(seconds: 7.5)
                }
                try await Self.letPlay(bobPlayer, MediaTime(seconds: 1))
                positions = try await Self.positions(of: players)
                let aliceContent: MediaTime = positions[0] - MediaTime(seconds: 2)
                let gap: MediaTime = (aliceContent - positions[1]).magnitude
                #expect(gap <= MediaTime(milliseconds: 100), "positions \(positions)")
            }
        }
    }

    /// Three participants of a live channel served by `intermission serve`, each with the server's
    /// own ads: Alice's channel has no breaks, Bob's a 2 s pod and Carol's a 4 s pod at the same
    /// moment (creatives scoped to each channel).
    ///
    /// With the default policy nobody waits: Alice plays
    /// through, Bob and Carol play their ads and come back to the group's program date.
    @Test(.timeLimit(.minutes(2)))
    func threeParticipantsOfALiveChannelPlayTheirOwnAdsAndStayTogether() async throws {
        let media = try Media()
        defer { media.remove() }
        try media.segments("p", count: 30)
        try media.vod("show.m3u8", seconds: 30)
        for (name, seconds) in [("ad2", 2), ("ad4", 4)] { try media.asset("\(name).m3u8", seconds: seconds) }
        var configuration = Self.configuration(media: media)
        // The channels began 20 s ago (whole seconds, the segment grid); the break is 14 s from now.
        let now = SystemWallClock().now().nanosecondsSince1970 / 1_000_000_000 * 1_000_000_000
        let start = DateTime(nanosecondsSince1970: now - 20_000_000_000)
        var ad = AdInsertionConfiguration()
        ad.policy.repeatWindow = .zero
        ad.inventory = [
            Creative(id: "two", uri: "/media/group/ad2.m3u8", duration: 2, value: 1, scopes: ["live-bob"]),
            Creative(id: "four", uri: "/media/group/ad4.m3u8", duration: 4, value: 1, scopes: ["live-carol"]),
        ]
        for (name, pod) in [("alice", nil), ("bob", 2), ("carol", 4)] as [(String, Int?)] {
            var channel = LiveChannel(
                id: name,
                source: .loop(origin: "/media/group/", playlist: "show.m3u8"),
                windowSegments: 12,
                startDate: start
            )
            channel.breakPlan = pod.map {
                LiveBreakPlan(interval: 3600, duration: MediaTime(seconds: $0), offset: 34, restrictions: [])
            }
            channel.preloadWindow = .zero
            ad.channels.append(channel)
        }
        configuration.adInsertion = ad
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let participants = ["alice", "bob", "carol"].map { name in
                Self.participant(
                    name,
                    stream: "http://127.0.0.1:\(port)/live/\(name)/show.m3u8",
                    group: "ws://127.0.0.1:\(port)/v1/groups/live-night"
                )
            }
            let coordinators = participants.map(\.1)
            /// Each participant's program date on the group's timeline now.
            func dates() async -> [MediaTime] { await Self.coordinatedTimes(coordinators) }
            let breakDate = MediaTime(nanoseconds: start.nanosecondsSince1970) + MediaTime(seconds: 34)
            let waited = Received()
            var streams: [AsyncStream<ParticipantStatus>] = []
            for coordinator in coordinators { streams.append(await coordinator.statusUpdates()) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for stream in streams {
                    group.addTask {
                        for await status in stream {
                            if case .waitingForCoordinatedPlayback = status { _ = await waited.add("\(status)") }
                        }
                    }
                }
                for (player, coordinator) in participants {
                    group.addTask { try await player.run(until: MediaTime(seconds: 120)) }
                    group.addTask { try await coordinator.run() }
                }
                for coordinator in coordinators {
                    try await Self.joined(coordinator)
                }
                await coordinators[0].play()
                // Before the break: together.
                var before = await dates()
                await waitUntil(within: .seconds(10), checkingEvery: .milliseconds(100)) {
                    before = await dates()
                    return before.max()! - before.min()! <= MediaTime(milliseconds: 50)
                }
                #expect(before.max()! - before.min()! <= MediaTime(milliseconds: 50), "\(before)")
                #expect(before.allSatisfy { $0 < breakDate }, "the test started too late: \(before)")
                // Past Carol's ad: Alice never stopped, and all three are together again.
                let after = breakDate + MediaTime(seconds: 6)
                await waitUntil(within: .seconds(40)) { await !dates().contains(where: { $0 < after }) }
                try await Self.letPlay(participants[0].0, MediaTime(milliseconds: 500))
                let positions = await dates()
                #expect(positions.allSatisfy { $0 >= after }, "\(positions) after \(after) break \(breakDate)")
                #expect(positions.max()! - positions.min()! <= MediaTime(milliseconds: 100), "\(positions)")
                // Who played what: Alice no ad, Bob the 2 s one, Carol the 4 s one; nobody waited.
                for (index, expected) in [[], ["ad2.m3u8"], ["ad4.m3u8"]].enumerated() {
                    let log = await participants[index].0.log
                    let assets = log.filter { $0.event == "interstitialAssetStarted" }.compactMap { entry in
                        entry.fields.first { $0.0 == "url" }?.1.stringValue?.split(separator: "?").first?
                            .split(separator: "/").last.map(String.init)
                    }
                    #expect(assets == expected, "participant \(index): \(assets)")
                }
                let waits = await waited.texts
                #expect(waits.isEmpty, "\(waits)")
                group.cancelAll()
            }
        }
    }

    /// A pause inside a shared interstitial holds it for everyone, and playing again continues it:
    /// each participant plays it once, to its end, and comes out in step (it used to restart every
    /// 50 ms for everyone, since a pause counted as progress and each correction went to its start).
    @Test(.timeLimit(.minutes(2)))
    func aPauseInsideASharedInterstitialHoldsItAndPlayContinuesIt() async throws {
        try await TwoViewers.servingSharedIdent("held.m3u8", identSeconds: 3, at: 1, group: "held") { stream, group in
            let viewers = TwoViewers(stream: stream, group: group, probeInterval: .milliseconds(500))
            let coordinators = viewers.coordinators
            let players = viewers.players
            try await viewers.playing(until: MediaTime(seconds: 60)) {
                await coordinators[0].play()
                // Both inside the ident, 1 s in; Alice pauses the group there.
                await waitUntil(within: .seconds(20)) {
                    let offsets = [await players[0].currentInterstitialTime, await players[1].currentInterstitialTime]
                    return offsets.allSatisfy({ ($0 ?? .zero) >= MediaTime(seconds: 1) })
                }
                #expect(await coordinators[0].pause().allowed)
                // About 1 s: two probes, 500 ms apart, of each participant.
                try await Self.letProbe(coordinators, 2)
                // Held: neither moved on in the ident, nor went back to its start, nor left it.
                var held: [MediaTime] = []
                for player in players {
                    #expect(await player.currentInterstitialEventID == "ident")
                    held.append(await player.currentInterstitialTime ?? .zero)
                }
                #expect(held.allSatisfy { $0 >= MediaTime(seconds: 0.9) && $0 < MediaTime(seconds: 2) }, "\(held)")
                try await Self.letProbe(coordinators, 1)  // about 500 ms more
                for (index, player) in players.enumerated() {
                    let now = await player.currentInterstitialTime ?? .zero
                    #expect((now - held[index]).magnitude <= MediaTime(milliseconds: 60), "\(held[index]) -> \(now)")
                }
                // Playing again continues it; both leave it once and play on together.
                #expect(await coordinators[1].play().allowed)
                let times = await Self.coordinatedTimes(
                    coordinators,
                    reaching: MediaTime(seconds: 5.5),
                    within: .seconds(20)
                )
                #expect(times.max()! - times.min()! <= MediaTime(milliseconds: 100), "\(times)")
                for player in players {
                    #expect(await player.currentInterstitialEventID == nil)
                    #expect(await player.rate == 1)
                    let finished = await player.log.filter { $0.event == "eventDidFinish" }
                    #expect(finished.count == 1, "\(finished.map(\.description))")
                }
            }
        }
    }

    /// A participant who joins while the group is inside a shared interstitial enters it where the
    /// group is, plays it once and stays in step with the group (it used to restart it about 20
    /// times a second).
    @Test(.timeLimit(.minutes(2)))
    func aParticipantJoiningDuringASharedInterstitialDoesNotLoop() async throws {
        try await TwoViewers.servingSharedIdent("joined.m3u8", identSeconds: 4, at: 1, group: "late") {
            stream,
            groupURL in
            let (alicePlayer, alice) = Self.participant("alice", stream: stream, group: groupURL)
            let (bobPlayer, bob) = Self.participant("bob", stream: stream, group: groupURL)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await alicePlayer.run(until: MediaTime(seconds: 60)) }
                group.addTask { try await alice.run() }
                try await Self.joined(alice)
                #expect(await alice.play().allowed)
                // Alice is 1 s into the 4 s ident when Bob joins.
                let deadline = ContinuousClock.now + .seconds(20)
                await waitUntil(within: deadline - ContinuousClock.now) {
                    (await alicePlayer.currentInterstitialTime ?? .zero) >= MediaTime(seconds: 1)
                }
                group.addTask { try await bobPlayer.run(until: MediaTime(seconds: 60)) }
                group.addTask { try await bob.run() }
                let coordinators = [alice, bob]
                // Bob enters the ident where Alice is in it, not at its start.
                await waitUntil(within: deadline - ContinuousClock.now) {
                    await bobPlayer.currentInterstitialEventID == "ident"
                }
                let bobIn = await bobPlayer.currentInterstitialTime ?? .zero
                let bobNow = await Self.describe(bobPlayer)
                #expect(bobIn >= MediaTime(seconds: 0.9), "Bob entered the ident at \(bobIn); Bob \(bobNow)")
                let inside = await Self.coordinatedTimes(
                    coordinators,
                    reaching: MediaTime(seconds: 3),
                    within: deadline - ContinuousClock.now
                )
                #expect(inside.max()! - inside.min()! <= MediaTime(milliseconds: 100), "in the ident: \(inside)")
                let times = await Self.coordinatedTimes(
                    coordinators,
                    reaching: MediaTime(seconds: 7),
                    within: deadline - ContinuousClock.now
                )
                #expect(times.max()! - times.min()! <= MediaTime(milliseconds: 100), "\(times)")
                let bobFinished = await bobPlayer.log.filter { $0.event == "eventDidFinish" }
                #expect(bobFinished.count <= 1, "\(bobFinished.map(\.description))")
                let aliceFinished = await alicePlayer.log.filter { $0.event == "eventDidFinish" }
                #expect(aliceFinished.count == 1, "\(aliceFinished.map(\.description))")
                group.cancelAll()
            }
        }
    }

    /// An interstitial with `X-CONTENT-MAY-VARY="NO"` (the same for everyone, a station ident) is
    /// part of the group's timeline: both participants play it at the same moment, in step, and a
    /// rate change by one reaches the other.
    @Test(.timeLimit(.minutes(2)))
    func aSharedInterstitialIsPlayedTogetherAndTheRateIsShared() async throws {
        try await TwoViewers.servingSharedIdent("show.m3u8", identSeconds: 2, at: 2, group: "ident") { stream, group in
            let viewers = TwoViewers(stream: stream, group: group)
            let coordinators = viewers.coordinators
            let participants = Array(zip(viewers.players, viewers.coordinators))
            func times() async -> [MediaTime] { await Self.coordinatedTimes(coordinators) }
            try await viewers.playing(until: MediaTime(seconds: 60)) {
                await coordinators[0].play()
                // Inside the ident (group time 2 s to 4 s): both in it, at the same time.
                let deadline = ContinuousClock.now + .seconds(20)
                var inside = await times()
                await waitUntil(within: deadline - ContinuousClock.now) {
                    inside = await times()
                    return !inside.contains(where: { $0 < MediaTime(seconds: 2.8) })
                }
                #expect(inside.allSatisfy { $0 < MediaTime(seconds: 3.8) }, "\(inside)")
                #expect(inside.max()! - inside.min()! <= MediaTime(milliseconds: 50), "\(inside)")
                for (player, _) in participants {
                    #expect(await player.currentInterstitialEventID == "ident")
                }
                // After it, Bob asks for rate 2: Alice follows, and they stay in step.
                await waitUntil(within: deadline - ContinuousClock.now) {
                    inside = await times()
                    return !inside.contains(where: { $0 < MediaTime(seconds: 5) })
                }
                // The ident is on the timeline: the primary resumed where it left (2 s), so the
                // group's time is the primary's plus the ident's 2 s (without the ident on the
                // timeline the two would be equal, the primary having caught up over it).
                let groupNow = await coordinators[0].coordinatedTime() ?? .zero
                let primaryNow = await participants[0].0.currentTime
                #expect(
                    (groupNow - primaryNow - MediaTime(seconds: 2)).magnitude <= MediaTime(milliseconds: 100),
                    "group \(groupNow), primary \(primaryNow)"
                )
                await coordinators[1].play(rate: 2)
                await waitUntil(within: .seconds(10)) { await participants[0].0.rate == 2 }
                #expect(await participants[0].0.rate == 2)
                // 700 ms at rate 2.
                try await Self.letPlay(participants[0].0, MediaTime(milliseconds: 1400))
                let after = await times()
                #expect(after.max()! - after.min()! <= MediaTime(milliseconds: 50), "\(after)")
                // Both played the ident whole (2 s of it): nobody skipped it or caught up over it.
                for (player, _) in participants {
                    let finished = await player.log.first { $0.event == "eventDidFinish" }
                    #expect(
                        finished?.description.contains("\"didPlayEntireEvent\":true") == true,
                        "\(finished?.description ?? "none")"
                    )
                }
            }
        }
    }

    /// `waitForGroupTime()`, which `intermission group` awaits instead of polling, returns once the
    /// participant has the group's time, and `nil` when its task is cancelled first.
    @Test(.timeLimit(.minutes(1)))
    func waitingForTheGroupTimeEndsOnceTheParticipantJoins() async throws {
        try await TwoViewers.servingSharedIdent("wait.m3u8", identSeconds: 2, at: 4, group: "wait") { stream, group in
            let (player, coordinator) = Self.participant("alice", stream: stream, group: group)
            let cancelled = Task { await coordinator.waitForGroupTime() }
            cancelled.cancel()
            #expect(await cancelled.value == nil)
            #expect(await coordinator.groupTime == nil)
            let waiting = Task { await coordinator.waitForGroupTime() }
            try await Self.playTogether([(player, coordinator)], until: MediaTime(seconds: 30)) {
                let time = await waiting.value
                #expect(time != nil)
                #expect(await coordinator.groupTime != nil)
            }
        }
    }
}
