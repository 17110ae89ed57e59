import AsyncHTTPClient
import Foundation
import GroupPlayback
import HTTPTypes
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Logging
import NIOCore
import NIOHTTP1
import ReceiverServer
import Testing

/// A sender hands sessions to a headless receiver over HTTP on loopback; the media comes from
/// `intermission serve`'s app with a scratch folder mounted, and both play in real time.
@Suite(.serialized, .realTimeAlone) struct ReceiverHandoffTests {
    /// A scratch folder served under `/media/cast/`.
    struct Scratch {
        let folder = NSTemporaryDirectory() + "intermission-cast-\(UUID().uuidString)"

        init() throws {
            try FileManager.default.createDirectory(atPath: self.folder + "/hevc", withIntermediateDirectories: true)
            let filler = Data(repeating: 0x47, count: 1_880)
            for index in 0..<16 { try filler.write(to: URL(fileURLWithPath: self.folder + "/s\(index).ts")) }
        }

        func write(_ name: String, _ lines: [String]) throws {
            let path = self.folder + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }

        /// A VOD media playlist of `seconds` one-second segments starting at 2026-01-01T00:00:00Z,
        /// with the given interstitial date ranges (`ID`, start second, asset, duration).
        func media(
            _ name: String,
            seconds: Int,
            pod: [(id: String, at: Int, asset: String, duration: Int)] = []
        )
            throws
        {
            var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
            for ad in pod {
                let start = String(format: "2026-01-01T00:00:%02d.000Z", ad.at)
                lines.append(
                    "#EXT-X-DATERANGE:ID=\"\(ad.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(start)\","
                        + "DURATION=\(ad.duration).0,X-ASSET-URI=\"\(ad.asset)\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\""
                )
            }
            let prefix = String(repeating: "../", count: name.split(separator: "/").count - 1)
            for index in 0..<seconds { lines += ["#EXTINF:1.000,", "\(prefix)s\(index % 16).ts"] }
            lines.append("#EXT-X-ENDLIST")
            try self.write(name, lines)
        }

        func remove() { try? FileManager.default.removeItem(atPath: self.folder) }
    }

    /// The token the test receivers pair with.
    static let token = "test-receiver-token-0123456789"

    /// The headers of a paired sender's request (`Authorization: Bearer`, and JSON).
    static let pairedHeaders: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]

    /// Runs `body` with the media server's base URL and a sender talking to a fresh receiver.
    static func withReceiver(
        profile: ReceiverProfile? = nil,
        scratch: Scratch,
        _ body:
            @escaping @Sendable (_ media: String, _ sender: ReceiverClient, _ client: any TestClientProtocol)
            async throws ->
            Void
    ) async throws {
        let media = try await buildApplication(
            configuration: ServerConfiguration(
                hostname: "127.0.0.1",
                port: 0,
                database: "memory:",
                mounts: ["cast": scratch.folder],
                logLevel: .error
            )
        )
        try await media.test(.live) { mediaClient in
            let base = "http://127.0.0.1:\(try #require(mediaClient.port))/media/cast/"
            let receiver = Receiver(profile: profile)
            let app = buildReceiverApplication(receiver: receiver, access: try ReceiverAccess(token: Self.token))
            try await app.test(.live) { client in
                let sender = try ReceiverClient(
                    receiverURL: "http://127.0.0.1:\(try #require(client.port))",
                    token: Self.token
                )
                do {
                    try await body(base, sender, client)
                } catch {
                    await receiver.stop()
                    throw error
                }
                // The session's player stops before the servers do.
                await receiver.stop()
            }
        }
    }

    /// The receiver's events as a sender reads them, in order.
    struct EventLog {
        let sender: ReceiverClient
        var all: [ReceiverEvent] = []
        /// Events before this index have been looked at by `next`; those after it arrived in the
        /// same answer as an earlier match and are looked at first.
        var cursor = 0

        /// The first event after the last one returned that satisfies `match`, reading on for at
        /// most 30 s.
        mutating func next(where match: (ReceiverEvent) -> Bool) async throws -> ReceiverEvent? {
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                if let index = self.all[self.cursor...].firstIndex(where: match) {
                    self.cursor = index + 1
                    return self.all[index]
                }
                self.cursor = self.all.count
                guard ContinuousClock.now < deadline else { break }
                self.all += try await self.sender.events(after: self.all.last?.sequence ?? 0, wait: .seconds(2))
            }
            Issue.record("no matching event in 30 s: \(self.all.map { "\($0.kind) \($0.eventID ?? "")" })")
            return nil
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func planCRefusesLeavingTheFirstAdAndSkipsTheSecond() async throws {
        try await Self.withAdPod(seconds: 12, pod: [("ad1", 1), ("ad2", 1)]) { media, sender, _ in
            let state = try await sender.handOver(ReceiverSession(url: media + "primary.m3u8", plan: .c))
            #expect(state.plan == .c)
            var log = EventLog(sender: sender)
            let first = try await log.next { $0.kind == "interstitialStarted" }
            #expect(first?.eventID == "ad1")
            // While the first ad plays, paused so the ad outlasts the commands however busy the machine.
            #expect(try await sender.send(ReceiverCommand(.pause)).allowed)
            let seek = try await sender.send(ReceiverCommand(.seek, time: 10))
            #expect(!seek.allowed)
            #expect(seek.reason == "ad1 has X-RESTRICT=SKIP: no seeking forward out of it until it ends", "\(seek)")
            let skip = try await sender.send(ReceiverCommand(.skip))
            #expect(!skip.allowed)
            #expect(skip.reason == "ad1: X-RESTRICT=SKIP and no skip control", "\(skip)")
            let rate = try await sender.send(ReceiverCommand(.rate, rate: 2))
            #expect(!rate.allowed)
            #expect(rate.reason.contains("X-RESTRICT=SKIP"))
            #expect(try await sender.send(ReceiverCommand(.play)).allowed)
            // The second ad of the pod lost its restrictions under plan C: it can be skipped.
            let second = try await log.next { $0.kind == "interstitialStarted" }
            #expect(second?.eventID == "ad2")
            #expect(log.all.contains { $0.kind == "eventFinished" && $0.eventID == "ad1" })
            let secondSkip = try await sender.send(ReceiverCommand(.skip))
            #expect(secondSkip.allowed, "\(secondSkip)")
            _ = try await log.next { $0.kind == "primaryResumed" }
            #expect(log.all.contains { $0.kind == "skipped" && $0.eventID == "ad2" })
            // Every answer was also posted to the sender as an event, refusals with their reasons.
            let answers = log.all.compactMap(\.reply)
            #expect(answers.map(\.command) == [.pause, .seek, .skip, .rate, .play, .skip])
            #expect(answers.map(\.allowed) == [true, false, false, false, true, true])
        }
    }

    /// Plan C on a pod given as one asset list (the shape the server writes): the first ad is
    /// restricted, the second may be skipped (it was refused, the plan applying to events only).
    @Test(.timeLimit(.minutes(2)))
    func planCAppliesInsideAPodGivenAsOneAssetList() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.media("ad.m3u8", seconds: 6)
        try scratch.write("pod.json", [#"{"ASSETS":[{"URI":"ad.m3u8","DURATION":6},{"URI":"ad.m3u8","DURATION":6}]}"#])
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
        lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
        lines.append(
            #"#EXT-X-DATERANGE:ID="pod",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:01.000Z","#
                + #"DURATION=12.0,X-ASSET-LIST="pod.json",X-RESUME-OFFSET=0,X-RESTRICT="SKIP,JUMP""#
        )
        for index in 0..<10 { lines += ["#EXTINF:1.000,", "s\(index).ts"] }
        lines.append("#EXT-X-ENDLIST")
        try scratch.write("listed.m3u8", lines)
        try await Self.withReceiver(scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "listed.m3u8", plan: .c))
            var log = EventLog(sender: sender)
            let started = try await log.next { $0.kind == "interstitialStarted" }
            #expect(started?.eventID == "pod")
            // The first ad: restricted.
            let first = try await sender.send(ReceiverCommand(.skip))
            #expect(!first.allowed && first.reason.contains("X-RESTRICT=SKIP"), "\(first)")
            // The second ad (once the first has played): skippable under plan C.
            var second = first
            try await waitUntil(checkingEvery: .milliseconds(200)) {
                second = try await sender.send(ReceiverCommand(.skip))
                return second.allowed
            }
            #expect(second.allowed && second.reason.contains("ad 2 of 2 of pod"), "\(second)")
            let resumed = try await log.next { $0.kind == "primaryResumed" }
            #expect(resumed != nil)
            // Under plan A the same skip is refused: the pod's restriction applies to every ad.
        }
        try await Self.withReceiver(scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "listed.m3u8", plan: .a))
            var log = EventLog(sender: sender)
            _ = try await log.next { $0.kind == "interstitialStarted" }
            // Asked every 500 ms for 9 s, or until the pod is over.
            try await waitUntil(within: .seconds(9), checkingEvery: .milliseconds(500)) {
                let skip = try await sender.send(ReceiverCommand(.skip))
                #expect(!skip.allowed, "\(skip)")
                return try await sender.state().currentEvent == nil
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aSeekAcrossThePodPlaysWhatThePlanLeavesJumpRestricted() async throws {
        try await Self.withAdPod(seconds: 12, pod: [("ad1", 4), ("ad2", 4)]) { media, sender, _ in
            var log = EventLog(sender: sender)
            var answers: [ServicePlan: ReceiverReply] = [:]
            // Each handoff replaces the session before; once the pod is scheduled the receiver is
            // paused (well before the pod at 4 s) and asked to seek past it.
            for plan in [ServicePlan.a, .c] {
                _ = try await sender.handOver(ReceiverSession(url: media + "primary.m3u8", plan: plan))
                let scheduled = try await log.next { $0.kind == "scheduled" && $0.events?.isEmpty == false }
                #expect(scheduled?.events == ["ad1", "ad2"])
                #expect(try await sender.send(ReceiverCommand(.pause)).allowed)
                answers[plan] = try await sender.send(ReceiverCommand(.seek, time: 10))
            }
            // Plan A: both ads of the pod keep JUMP and the seek plays the pod. Plan C: only the
            // first keeps it, so the seek plays the first ad alone.
            #expect(answers[.a]?.interstitials == ["ad1", "ad2"], "\(String(describing: answers[.a]))")
            #expect(answers[.c]?.interstitials == ["ad1"], "\(String(describing: answers[.c]))")
            #expect(
                answers[.c]?.reason
                    == "the seek crosses X-RESTRICT=JUMP ad1: play it first (the one nearest the target)"
            )
            #expect(answers.values.allSatisfy { $0.allowed && $0.grantedTime == 10 })
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func planBPlaysNoAdsAndHasNothingToSkip() async throws {
        try await Self.withAdPod("short.m3u8", seconds: 4, pod: [("ad1", 1)]) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "short.m3u8", plan: .b))
            // Read as a stream this time (long polls one after another), to the end of the session.
            var all: [ReceiverEvent] = []
            for try await event in sender.eventStream() {
                all.append(event)
                if event.kind == "status", event.message == "playing", !all.contains(where: { $0.reply != nil }) {
                    let skip = try await sender.send(ReceiverCommand(.skip))
                    #expect(!skip.allowed)
                    #expect(skip.reason == "no interstitial event is playing")
                }
                if event.kind == "ended" { break }
            }
            #expect(all.map(\.sequence) == Array(1...all.count))
            #expect(all.contains { $0.reply?.command == .skip })
            #expect(!all.contains { $0.kind == "interstitialStarted" })
            #expect(all.first?.message == "plan B; playlist interstitials off")
            #expect((all.last?.primaryTime ?? 0) >= 3.9)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func clientSideEventsPlayWithTheirRestrictionsWhenThePlaylistsAreOff() async throws {
        try await Self.withAdPod(seconds: 8, pod: [("server-ad", 1)]) { media, sender, _ in
            // The playlist's own event is off; the sender's two events (one as a date range, one
            // structured, with a relative URI) are the schedule.
            let session = ReceiverSession(
                url: media + "primary.m3u8",
                plan: .a,
                automaticallyHandlesInterstitialEvents: false,
                dateRanges: [
                    #"#EXT-X-DATERANGE:ID="client-1",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:02.000Z",DURATION=6.0,X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP""#
                ],
                events: [ClientInterstitial(id: "client-2", time: 4, assetURI: "ad.m3u8", resumeOffset: 0)]
            )
            _ = try await sender.handOver(session)
            var log = EventLog(sender: sender)
            let first = try await log.next { $0.kind == "interstitialStarted" }
            #expect(first?.eventID == "client-1")
            #expect(try await sender.send(ReceiverCommand(.pause)).allowed)
            let skip = try await sender.send(ReceiverCommand(.skip))
            #expect(!skip.allowed && skip.reason == "client-1: X-RESTRICT=SKIP and no skip control", "\(skip)")
            #expect(try await sender.send(ReceiverCommand(.play)).allowed)
            let second = try await log.next { $0.kind == "interstitialStarted" }
            #expect(second?.eventID == "client-2")
            #expect(try await sender.send(ReceiverCommand(.skip)).allowed)
            _ = try await log.next { $0.kind == "ended" }
            #expect(!log.all.contains { $0.eventID == "server-ad" })
        }
    }

    /// A primary with no interstitials of its own, playlist events on: the sender's event is the
    /// schedule, plays, keeps its restriction, and a seek across it is refused or made to play it
    /// (it was never scheduled, and seek and rate 2 passed through it).
    @Test(.timeLimit(.minutes(2)))
    func clientSideEventsPlayOnAPrimaryWithoutInterstitialsOfItsOwn() async throws {
        try await Self.withAdPod("plain.m3u8", seconds: 10, pod: []) { media, sender, _ in
            let session = ReceiverSession(
                url: media + "plain.m3u8",
                plan: .a,
                dateRanges: [
                    #"#EXT-X-DATERANGE:ID="app1",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:03.000Z",DURATION=6.0,X-ASSET-URI="ad.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP,JUMP""#
                ]
            )
            _ = try await sender.handOver(session)
            var log = EventLog(sender: sender)
            let scheduled = try await log.next { $0.kind == "scheduled" }
            #expect(scheduled?.events == ["app1"], "\(log.all.map(\.kind))")
            // JUMP: a seek past the event plays it first (or is refused); it never lands beyond it
            // without the event.
            let seek = try await sender.send(ReceiverCommand(.seek, time: 8))
            #expect(!seek.allowed || seek.interstitials == ["app1"], "\(seek)")
            let started = try await log.next { $0.kind == "interstitialStarted" }
            #expect(started?.eventID == "app1")
            let skip = try await sender.send(ReceiverCommand(.skip))
            #expect(!skip.allowed && skip.reason.hasPrefix("app1: X-RESTRICT=SKIP"), "\(skip)")
        }
    }

    /// A handoff in the middle of an ad: the receiver continues the ad where the sender left it (4 s
    /// into the 6 s ad, so 2 s are left), keeps its restriction, and resumes the primary after it.
    ///
    /// It
    /// used to play the whole ad again from its start.
    @Test(.timeLimit(.minutes(2)))
    func anAdInProgressIsContinuedWhereTheSenderLeftIt() async throws {
        try await Self.withAdPod(seconds: 8, pod: [("server-ad", 2)]) { media, sender, _ in
            let session = ReceiverSession(
                url: media + "primary.m3u8",
                position: 2,
                interstitial: InterstitialInProgress(eventID: "server-ad", offset: 4, restrictions: ["SKIP", "JUMP"])
            )
            #expect(session.problems().isEmpty)
            _ = try await sender.handOver(session)
            var log = EventLog(sender: sender)
            let started = try await log.next { $0.kind == "session" }
            #expect(
                started?.message?.contains("continuing server-ad at 4.000 s (X-RESTRICT=SKIP,JUMP)") == true,
                "\(started?.message ?? "")"
            )
            let ad = try await log.next { $0.kind == "interstitialStarted" }
            #expect(ad?.eventID == "server-ad")
            let skip = try await sender.send(ReceiverCommand(.skip))
            #expect(!skip.allowed, "\(skip)")
            let finished = try await log.next { $0.kind == "eventFinished" }
            // 2 s played here: the 4 s the sender showed are not shown again.
            #expect(finished?.message?.hasPrefix("played 2.000 s") == true, "\(finished?.message ?? "")")
            let resumed = try await log.next { $0.kind == "primaryResumed" }
            #expect(abs((resumed?.primaryTime ?? -1) - 2) < 0.1, "\(resumed.map { "\($0)" } ?? "")")
            // Hostile values are refused by name.
            for bad in [
                InterstitialInProgress(eventID: "", offset: 1), InterstitialInProgress(eventID: "a", offset: -1),
                InterstitialInProgress(eventID: "a", offset: .nan), InterstitialInProgress(eventID: "a", offset: 1e308),
                InterstitialInProgress(eventID: "a\u{0}", offset: 1),
                InterstitialInProgress(eventID: String(repeating: "a", count: 100_000), offset: 1),
                InterstitialInProgress(eventID: "a", offset: Double(Int64.max)),
                InterstitialInProgress(eventID: "a", offset: 1, restrictions: ["SEEK"]),
            ] {
                let problems = ReceiverSession(url: media + "primary.m3u8", interstitial: bad).problems()
                #expect(problems.contains { $0.field?.hasPrefix("interstitial.") == true }, "\(bad)")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aLowEndReceiverFlagsAnHEVCAdInsideAnAVCPrimaryBeforeItPlays() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // The primary: the AVC ladder of one fixture; the ad: the HEVC + E-AC-3 ladder of another,
        // every variant and rendition served by a short media playlist.
        let avc = Fixture(name: "playlists/multivariant-interstitial-ad-asset.m3u8").text
        let hevc = Fixture(name: "playlists/multivariant-interstitial-ad-hevc.m3u8").text
        try scratch.write("avc/main.m3u8", avc.split(separator: "\n").map(String.init))
        try scratch.write("hevc/main.m3u8", hevc.split(separator: "\n").map(String.init))
        for rung in ["360p", "720p", "1080p"] {
            try scratch.media(
                "avc/\(rung)/prog.m3u8",
                seconds: 8,
                pod: [("hevc-ad", 3, "/media/cast/hevc/main.m3u8", 3)]
            )
        }
        for rung in ["720p", "1080p", "audio"] { try scratch.media("hevc/\(rung)/prog.m3u8", seconds: 3) }
        let profile = try ReceiverProfile.decode(
            Array(try Data(contentsOf: Fixture.repository.appendingPathComponent("Examples/receiver-low-end.json")))
        )
        try await Self.withReceiver(profile: profile, scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "avc/main.m3u8"))
            var log = EventLog(sender: sender)
            let started = try #require(try await log.next { $0.kind == "interstitialStarted" })
            let seen = log.all
            let risk = try #require(seen.first { $0.kind == "transitionRisk" }, "\(seen.map(\.kind))")
            #expect(risk.eventID == "hevc-ad")
            let risks = risk.risks ?? []
            #expect(risks.compactMap(\.change) == [.videoCodec, .frameRate, .aspectRatio, .audioCodec])
            #expect(risks.first { $0.change == .videoCodec }.map { [$0.primary, $0.interstitial] } == ["avc", "hevc"])
            // It cannot decode the ad's 5.1 E-AC-3 at all, and says so.
            let unplayable = risks.filter { $0.change == nil }.map(\.message)
            #expect(
                unplayable == [
                    "Low-end receiver (HD SDR, stereo AAC) cannot play the interstitial: no ec-3 audio decoder",
                    "Low-end receiver (HD SDR, stereo AAC) cannot play the interstitial: 6 audio channels, more than 2",
                ]
            )
            // Reported before the ad began.
            #expect(started.eventID == "hevc-ad" && risk.sequence < started.sequence)
        }
    }

    /// Writes the AVC ladder (`avc/`, the primary's, with `pod` in each rung), a copy of it as an ad
    /// (`avcad/`) and the HEVC + E-AC-3 ladder (`hevc/`); returns the low-end receiver's profile.
    static func ladders(
        _ scratch: Scratch,
        pod: [(id: String, at: Int, asset: String, duration: Int)] = []
    ) throws -> ReceiverProfile {
        let avc = Fixture(name: "playlists/multivariant-interstitial-ad-asset.m3u8").text
        let hevc = Fixture(name: "playlists/multivariant-interstitial-ad-hevc.m3u8").text
        try scratch.write("avc/main.m3u8", avc.split(separator: "\n").map(String.init))
        try scratch.write("avcad/main.m3u8", avc.split(separator: "\n").map(String.init))
        try scratch.write("hevc/main.m3u8", hevc.split(separator: "\n").map(String.init))
        for rung in ["360p", "720p", "1080p"] {
            try scratch.media("avc/\(rung)/prog.m3u8", seconds: 8, pod: pod)
            try scratch.media("avcad/\(rung)/prog.m3u8", seconds: 3)
        }
        for rung in ["720p", "1080p", "audio"] { try scratch.media("hevc/\(rung)/prog.m3u8", seconds: 3) }
        return try ReceiverProfile.decode(
            Array(try Data(contentsOf: Fixture.repository.appendingPathComponent("Examples/receiver-low-end.json")))
        )
    }

    /// An `X-ASSET-LIST` pod is checked when its list arrives, asset by asset, before it plays: the
    /// AVC ad matches the primary and says nothing, the HEVC one is flagged as the second asset.
    @Test(.timeLimit(.minutes(2)))
    func anAssetListsAssetsAreCheckedWhenTheListArrives() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let profile = try Self.ladders(scratch)
        try scratch.write(
            "pod.json",
            [
                #"{"ASSETS": [{"URI": "/media/cast/avcad/main.m3u8", "DURATION": 3}, {"URI": "/media/cast/hevc/main.m3u8", "DURATION": 3}]}"#
            ]
        )
        // The primary's rungs: an X-ASSET-LIST interstitial at 3 s.
        for rung in ["360p", "720p", "1080p"] {
            var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
            lines.append(
                #"#EXT-X-DATERANGE:ID="listed",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:03.000Z","#
                    + #"DURATION=6.0,X-ASSET-LIST="/media/cast/pod.json",X-RESUME-OFFSET=0"#
            )
            for index in 0..<8 { lines += ["#EXTINF:1.000,", "../../s\(index).ts"] }
            lines.append("#EXT-X-ENDLIST")
            try scratch.write("avc/\(rung)/prog.m3u8", lines)
        }
        try await Self.withReceiver(profile: profile, scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "avc/main.m3u8"))
            var log = EventLog(sender: sender)
            let found = try await log.next { $0.kind == "interstitialStarted" }
            let seen = log.all.map { [$0.kind, $0.eventID ?? "", $0.message ?? ""].joined(separator: " ") }
            let started = try #require(found, "\(seen)")
            let risks = log.all.filter { $0.kind == "transitionRisk" }
            #expect(risks.count == 1, "\(risks.map(\.message))")
            let risk = try #require(risks.first)
            #expect(risk.eventID == "listed")
            #expect(risk.message?.hasPrefix("asset 2 of 2: ") == true, "\(risk.message ?? "")")
            #expect(risk.risks?.compactMap(\.change).first == .videoCodec)
            // After the list arrived, before the break began.
            let listed = try #require(log.all.first { $0.kind == "assetList" && $0.eventID == "listed" })
            #expect(listed.sequence < risk.sequence && risk.sequence < started.sequence)
        }
    }

    /// A primary given as a media playlist has no `CODECS` to compare with: only what the receiver
    /// cannot play at all is told.
    @Test(.timeLimit(.minutes(2)))
    func aMediaPlaylistPrimaryIsCheckedForWhatTheReceiverCannotPlay() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let profile = try Self.ladders(scratch, pod: [("hevc-ad", 3, "/media/cast/hevc/main.m3u8", 3)])
        try await Self.withReceiver(profile: profile, scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(ReceiverSession(url: media + "avc/720p/prog.m3u8"))
            var log = EventLog(sender: sender)
            let started = try #require(try await log.next { $0.kind == "interstitialStarted" })
            let risk = try #require(log.all.first { $0.kind == "transitionRisk" }, "\(log.all.map(\.kind))")
            #expect(risk.eventID == "hevc-ad")
            #expect((risk.risks ?? []).allSatisfy { $0.change == nil }, "\(risk.risks ?? [])")
            #expect(
                (risk.risks ?? []).map(\.message) == [
                    "Low-end receiver (HD SDR, stereo AAC) cannot play the interstitial: no ec-3 audio decoder",
                    "Low-end receiver (HD SDR, stereo AAC) cannot play the interstitial: 6 audio channels, more than 2",
                ]
            )
            #expect(risk.sequence < started.sequence)
        }
    }

    /// The position and the languages handed over are the receiver's: it starts 3 s in, and takes
    /// the French audio (the English one, the default, is missing: a receiver that ignored the
    /// language would fail on it, as the same session without a language shows).
    @Test(.timeLimit(.minutes(2)))
    func theReceiverStartsAtThePositionWithTheLanguagesHandedOver() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write(
            "lang/main.m3u8",
            [
                "#EXTM3U",
                #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="en/prog.m3u8""#,
                #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="fr/prog.m3u8""#,
                #"#EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="aud""#,
                "video/prog.m3u8",
            ]
        )
        try scratch.media("lang/video/prog.m3u8", seconds: 8)
        try scratch.media("lang/fr/prog.m3u8", seconds: 8)
        try await Self.withReceiver(scratch: scratch) { media, sender, _ in
            _ = try await sender.handOver(
                ReceiverSession(url: media + "lang/main.m3u8", position: 3, audioLanguage: "fr")
            )
            var log = EventLog(sender: sender)
            let ended = try #require(try await log.next { $0.kind == "ended" || $0.kind == "error" })
            #expect(ended.kind == "ended", "\(log.all.map { "\($0.kind) \($0.message ?? "")" })")
            let session = try #require(log.all.first { $0.kind == "session" })
            #expect(session.primaryTime == 3)
            // It started at 3 s: from there to the end is 5 s of its clock, not 8.
            let played = ended.t - session.t
            #expect(played >= 4 && played < 7.5, "\(played) s")

            // The same session without a language takes the default English audio, which is missing.
            _ = try await sender.handOver(ReceiverSession(url: media + "lang/main.m3u8", position: 3))
            let failed = try #require(try await log.next { $0.kind == "ended" || $0.kind == "error" })
            #expect(failed.kind == "error" && failed.message?.contains("en/prog.m3u8") == true, "\(failed)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func hostileRequestsGetJSONErrorsAndTheReceiverKeepsAnswering() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.media("short.m3u8", seconds: 4)
        try await Self.withReceiver(scratch: scratch) { media, sender, client in
            func post(_ path: String, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(
                    uri: path,
                    method: .post,
                    headers: Self.pairedHeaders,
                    body: .init(string: body)
                ) {
                    response in
                    let json =
                        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                    return (response.status, (json?["error"] as? [String: Any]) ?? [:])
                }
            }
            // A command before any session.
            let early = try await post("/v1/receiver/commands", #"{"command":"play"}"#)
            #expect(early.0 == .conflict && early.1["code"] as? String == "noSession")
            let url = media + "short.m3u8"
            let badSessions: [(String, String, String?)] = [
                ("not json", "notJSON", nil),
                (#"{"url":"\#(url)","position":NaN}"#, "notJSON", nil),
                (#"{"url":"\#(url)","position":1e308}"#, "invalidInput", "position"),
                (#"{"url":"\#(url)","position":9223372036854775807}"#, "invalidInput", "position"),
                (#"{"url":"\#(url)","position":-1}"#, "invalidInput", "position"),
                (#"{"url":"ftp://example.com/x.m3u8"}"#, "invalidInput", "url"),
                (#"{"url":"http://exa\u0000mple.com/x.m3u8"}"#, "invalidInput", "url"),
                (#"{"url":"\#(url)","plan":"D"}"#, "notJSON", nil),
                (##"{"url":"\##(url)","dateRanges":["#EXT-X-DATERANGE:ID=\"x\""]}"##, "invalidInput", "dateRanges[0]"),
                (#"{"url":"\#(url)","audioLanguage":"en\u0000"}"#, "invalidInput", "audioLanguage"),
                (#"{"url":"\#(String(repeating: "a", count: 100_000))"}"#, "tooLarge", nil),
            ]
            for (body, code, field) in badSessions {
                let (status, error) = try await post("/v1/receiver/session", body)
                #expect(status.code >= 400 && status.code < 500, "\(body.prefix(60))")
                #expect(error["code"] as? String == code, "\(body.prefix(60)): \(error)")
                #expect(error["field"] as? String == field, "\(body.prefix(60)): \(error)")
            }
            _ = try await sender.handOver(ReceiverSession(url: url, plan: .a))
            let badCommands: [(String, String)] = [
                (#"{"command":"dance"}"#, "unknownCommand"),
                (#"{"command":"seek"}"#, "invalidInput"),
                (#"{"command":"seek","time":1e308}"#, "invalidInput"),
                (#"{"command":"seek","time":-9223372036854775808}"#, "invalidInput"),
                (#"{"command":"rate","rate":NaN}"#, "notJSON"),
                (#"{"command":"rate","rate":65}"#, "invalidInput"),
                (#"{"command":"pl\u0000ay"}"#, "unknownCommand"),
                (#"{"command":"play","pad":"\#(String(repeating: "x", count: 100_000))"}"#, "tooLarge"),
                ("[]", "notJSON"),
            ]
            for (body, code) in badCommands {
                let (status, error) = try await post("/v1/receiver/commands", body)
                #expect(status.code >= 400 && status.code < 500, "\(body.prefix(60))")
                #expect(error["code"] as? String == code, "\(body.prefix(60)): \(error)")
            }
            for query in ["after=abc", "after=1e308", "after=-1", "wait=nan", "wait=31", "after=%00"] {
                let status = try await client.execute(
                    uri: "/v1/receiver/events?" + query,
                    method: .get,
                    headers: Self.pairedHeaders
                ) { $0.status }
                #expect(status == .badRequest, "\(query)")
            }
            // A 9 KB request line (414) and a 9 KB header (431) are refused by the HTTP decoder, in
            // JSON (the main server's tests send 100 KB ones over raw sockets to the same decoder).
            let huge = String(repeating: "9", count: 9_000)
            let base = "http://127.0.0.1:\(try #require(client.port))"
            for (path, header) in [("/v1/receiver/events?after=" + huge, ""), ("/v1/receiver/state", huge)] {
                var request = HTTPClientRequest(url: base + path)
                if !header.isEmpty { request.headers.add(name: "X-Pad", value: header) }
                let response = try await ReceiverClient.sharedHTTPClient.execute(request, timeout: .seconds(20))
                let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
                #expect([414, 431].contains(response.status.code), "\(response.status)")
                #expect(body.contains(#""error""#), "\(body.prefix(200))")
            }
            let missing = try await client.execute(
                uri: "/v1/receiver/%2e%2e/state",
                method: .get,
                headers: Self.pairedHeaders
            ) { $0.status }
            #expect(missing == .notFound)
            // The sender sees the same errors as values, and the receiver still plays and answers.
            await #expect(
                throws: ReceiverError(
                    code: "invalidInput",
                    message: "a rate command needs a rate from 0 to 64",
                    field: "rate"
                )
            ) {
                _ = try await sender.send(ReceiverCommand(.rate, rate: 1e308))
            }
            #expect(try await sender.send(ReceiverCommand(.seek, time: 1)).allowed)
            #expect(try await sender.state().url == url)
        }
    }
}
