import AdInsertion
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionSQLite
import IntermissionServer
import IntermissionTestSupport
import NIOCore
import Testing

@Suite(.realTime) struct VODServingTests {
    @Test(.timeLimit(.minutes(1))) func demoVODCarriesTheSameValidInterstitialsInEveryMediaPlaylist() async throws {
        let clock = ManualWallClock(t0)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let main = try await client.get("/vod/demo/main.m3u8")
            #expect(main.status == .ok)
            #expect(main.headers[.accessControlAllowOrigin] == "*")
            #expect(main.headers[.contentType] == "application/vnd.apple.mpegurl")
            let multivariant = try MultivariantPlaylist(parsing: main.text)
            #expect(multivariant.variants.map(\.uri) == ["prog.m3u8"])
            let media = try await client.get("/vod/demo/prog.m3u8")
            #expect(media.status == .ok)
            #expect(errors(media.bytes).isEmpty, "\(errors(media.bytes))")
            let lines = dateRangeLines(media.text)
            #expect(lines.count == 4)
            #expect(
                lines[0].contains("ID=\"preroll\"") && lines[0].contains("CUE=\"PRE,ONCE\"")
                    && lines[0].contains("X-RESUME-OFFSET=0")
            )
            #expect(lines[3].contains("ID=\"postroll\"") && lines[3].contains("CUE=\"POST\""))
            #expect(
                media.text.contains(
                    "X-ASSET-LIST=\"/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1\""
                )
            )
            #expect(media.text.contains("#EXT-X-PROGRAM-DATE-TIME:"))
            #expect(media.text.contains("\n/media/demo/primary/seg-000.ts\n"))
            // Media bytes of local origins come from the same server.
            let segment = try await client.get("/media/demo/primary/seg-000.ts")
            #expect(segment.status == .ok && segment.body.readableBytes > 1000)
            let preflight = try await client.execute(
                uri: "/vod/demo/prog.m3u8",
                method: .options,
                headers: [.origin: "http://example.com"],
                body: nil
            ) { $0 }
            #expect(preflight.status == .noContent && preflight.headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test(.timeLimit(.minutes(1))) func everyRenditionOfAPresentationGetsTheSameTags() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var video = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for k in 0..<10 { video += "#EXTINF:4.0,\nv\(k).ts\n" }
        var audio = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for k in 0..<20 { audio += "#EXTINF:2.0,\na\(k).aac\n" }
        try write(video + "#EXT-X-ENDLIST\n", to: folder + "/video/index.m3u8")
        try write(audio + "#EXT-X-ENDLIST\n", to: folder + "/audio/index.m3u8")
        try write(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",DEFAULT=YES,URI="audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud"
            video/index.m3u8

            """,
            to: folder + "/main.m3u8"
        )
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.mounts["movie"] = folder
        configuration.publicBaseURL = "https://ads.example.com"
        configuration.adInsertion.assets.append(
            VODAsset(
                id: "movie",
                origin: "/media/movie/",
                breaks: [
                    VODBreak(id: "pre", position: .preRoll, duration: 10),
                    VODBreak(id: "mid", position: .midRoll(15), duration: 15),
                    VODBreak(id: "post", position: .postRoll, duration: 5),
                ]
            )
        )
        try await withServer(configuration) { client in
            let main = try await client.get("/vod/movie/main.m3u8")
            #expect(main.text.contains("URI=\"audio/index.m3u8\""))
            let videoPlaylist = try await client.get("/vod/movie/video/index.m3u8")
            let audioPlaylist = try await client.get("/vod/movie/audio/index.m3u8")
            #expect(dateRangeLines(videoPlaylist.text) == dateRangeLines(audioPlaylist.text))
            #expect(dateRangeLines(videoPlaylist.text).count == 3)
            #expect(
                videoPlaylist.text.contains(
                    "X-ASSET-LIST=\"https://ads.example.com/v1/asset-lists/vod-movie/mid.json?_HLS_interstitial_id=mid\""
                )
            )
            #expect(audioPlaylist.text.contains("https://ads.example.com/media/movie/audio/a0.aac") == false)
            #expect(audioPlaylist.text.contains("\n/media/movie/audio/a0.aac\n"))
            let presentation = [
                (
                    uri: "https://ads.example.com/vod/movie/video/index.m3u8",
                    playlist: try MediaPlaylist(bytes: videoPlaylist.bytes)
                ),
                (
                    uri: "https://ads.example.com/vod/movie/audio/index.m3u8",
                    playlist: try MediaPlaylist(bytes: audioPlaylist.bytes)
                ),
            ]
            let problems = InterstitialValidator().validate(presentation: presentation).filter { $0.severity == .error }
            #expect(problems.isEmpty, "\(problems)")
            let unknown = try await client.get("/vod/nope/main.m3u8")
            #expect(unknown.status == .notFound)
            #expect(unknown.json?["error"]?["message"]?.stringValue == "no VOD asset 'nope'")
            let missing = try await client.get("/vod/movie/missing.m3u8")
            #expect(missing.status == .notFound)
        }
    }
}

@Suite(.realTime) struct LiveServingTests {
    /// `cueOnce` reaches the demo channel's playlists: its planned mid-roll `auto-0` (at 120 s,
    /// announced 30 s ahead) carries `CUE="ONCE"`; without it the tag has no `CUE`.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true]) func cueOnceMarksTheLiveMidRoll(_ once: Bool) async throws
    {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 100))
        configuration.adInsertion.channels[0].marksMidRollsOnce = once
        try await withServer(configuration) { client in
            let response = try await client.get("/live/demo/prog.m3u8")
            #expect(response.status == .ok)
            #expect(errors(response.bytes).isEmpty, "\(errors(response.bytes))")
            let lines = dateRangeLines(response.text)
            #expect(lines.count == 1 && lines[0].contains("ID=\"auto-0\""), "\(lines)")
            #expect(lines.first?.contains("CUE=\"ONCE\"") == once, "\(lines)")
            #expect(lines.first?.contains("CUE=") == once, "\(lines)")
        }
    }

    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func windowSlidesWithCorrectSequenceNumbers() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let main = try await client.get("/live/demo/main.m3u8")
            #expect(try MultivariantPlaylist(parsing: main.text).variants.map(\.uri) == ["prog.m3u8"])
            var previous: MediaPlaylist?
            // 100 s to 160 s: across the end of the first 60 s loop (twice over a 2 s step).
            for step in 0..<31 {
                let response = try await client.get("/live/demo/prog.m3u8")
                #expect(response.status == .ok)
                #expect(errors(response.bytes).isEmpty, "\(errors(response.bytes))")
                let playlist = try MediaPlaylist(bytes: response.bytes)
                let elapsed = 100 + 2 * step
                #expect(playlist.mediaSequence == elapsed / 2 - 6)
                #expect(playlist.timings.count == 6)
                for segment in playlist.segments {
                    #expect(segment.discontinuitySequenceNumber == segment.mediaSequenceNumber / 30)
                    #expect(segment.programDateTime == t0 + MediaTime(seconds: 2 * segment.mediaSequenceNumber))
                    #expect(
                        segment.uri
                            == "/media/demo/primary/seg-\(String(format: "%03d", segment.mediaSequenceNumber % 30)).ts"
                    )
                }
                if let previous {
                    #expect(playlist.mediaSequence == previous.mediaSequence + 1)
                }
                previous = playlist
                clock.advance(by: 2)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func plannedBreaksAreAnnouncedAheadOfTime() async throws {
        let clock = ManualWallClock(t0 + 80)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let early = try await client.get("/live/demo/prog.m3u8")
            #expect(dateRangeLines(early.text).isEmpty)
            clock.set(t0 + 100)
            let ahead = try await client.get("/live/demo/prog.m3u8")
            let lines = dateRangeLines(ahead.text)
            #expect(lines.count == 1)
            #expect(lines.first?.contains("ID=\"auto-0\"") == true)
            #expect(lines.first?.contains("START-DATE=\"2025-01-01T00:02:00.000Z\"") == true)
            #expect(lines.first?.contains("DURATION=20") == true)
            #expect(
                lines.first?.contains(
                    "X-ASSET-LIST=\"/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0\""
                ) == true
            )
            #expect(errors(ahead.bytes).isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1))) func adminBreakAppearsAndEarlyReturnAddsAPlayoutLimit() async throws {
        let clock = ManualWallClock(t0 + 30)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let unauthorized = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"duration\": 30}",
                token: "wrong"
            )
            #expect(unauthorized.status == .unauthorized)
            #expect(unauthorized.json?["error"]?["code"]?.stringValue == "unauthorized")
            let bad = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"start\": \"soon\", \"duration\": 30}"
            )
            #expect(bad.status == .badRequest)
            #expect(bad.json?["error"]?["message"]?.stringValue?.contains("start must be") == true)
            let missing = try await client.admin(.post, "/v1/admin/channels/demo/breaks", json: "{\"id\": \"x\"}")
            #expect(missing.status == .badRequest)
            #expect(missing.json?["error"]?["message"]?.stringValue?.contains("duration") == true)
            let badCue = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"duration\": 30, \"cue\": [\"LATER\"]}"
            )
            #expect(badCue.status == .badRequest)
            let nochannel = try await client.admin(.post, "/v1/admin/channels/none/breaks", json: "{\"duration\": 30}")
            #expect(nochannel.status == .notFound)

            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"id\": \"news\", \"startIn\": 4, \"duration\": 30, \"snap\": [\"OUT\", \"IN\"]}"
            )
            #expect(created.status == .created)
            #expect(created.json?["startDate"]?.stringValue == "2025-01-01T00:00:34.000Z")
            let reload = try await client.get("/live/demo/prog.m3u8")
            let line = try #require(dateRangeLines(reload.text).first { $0.contains("ID=\"news\"") })
            #expect(
                line.contains("X-SNAP=\"OUT,IN\"") && line.contains("DURATION=30") && !line.contains("X-PLAYOUT-LIMIT")
            )
            #expect(errors(reload.bytes).isEmpty)

            clock.advance(by: 14)  // 10 s into the break
            let early = try await client.admin(.post, "/v1/admin/channels/demo/breaks/news/early-return")
            #expect(early.status == .ok)
            #expect(early.json?["playoutLimit"]?.doubleValue == 10)
            let after = try await client.get("/live/demo/prog.m3u8")
            let updated = try #require(dateRangeLines(after.text).first { $0.contains("ID=\"news\"") })
            #expect(updated.contains("X-PLAYOUT-LIMIT=10") && updated.contains("DURATION=30"))
            #expect(updated.hasPrefix(line.components(separatedBy: ",X-").first!))
            #expect(errors(after.bytes).isEmpty)
            // A viewer joining now gets a pod for what is left of the shortened break.
            let list = try await client.get(
                "/v1/asset-lists/live-demo/news.json?_HLS_interstitial_id=news&_HLS_primary_id=late&_HLS_start_offset=0"
            )
            #expect(list.json?["ASSETS"]?.arrayValue?.count == 1)

            let started = try await client.admin(.delete, "/v1/admin/channels/demo/breaks/news")
            #expect(started.status == .conflict)
            _ = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"id\": \"later\", \"startIn\": 20, \"duration\": 10}"
            )
            #expect(try await client.get("/live/demo/prog.m3u8").text.contains("ID=\"later\""))
            let cancelled = try await client.admin(.delete, "/v1/admin/channels/demo/breaks/later")
            #expect(cancelled.status == .ok)
            #expect(try await client.get("/live/demo/prog.m3u8").text.contains("ID=\"later\"") == false)
            let again = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"id\": \"news\", \"duration\": 10}"
            )
            #expect(again.status == .conflict)
            let listBreaks = try await client.admin(.get, "/v1/admin/channels/demo/breaks")
            #expect(listBreaks.json?["breaks"]?.arrayValue?.contains { $0["id"]?.stringValue == "news" } == true)
        }
    }
}

@Suite(.realTime) struct AssetListTests {
    @Test(.timeLimit(.minutes(1))) func startOffsetRepeatWindowAndIdempotence() async throws {
        let clock = ManualWallClock(t0 + 110)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let base = "/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0"
            let full = try await client.get(base + "&_HLS_primary_id=viewer-b")
            #expect(full.status == .ok)
            #expect(full.headers[.accessControlAllowOrigin] == "*")
            let list = try AssetList.decode(full.bytes)
            #expect(list.assets.map(\.duration) == [10, 10])
            #expect(list.assets.first?.uri.hasSuffix("/media/demo/ad-red/main.m3u8") == true)
            #expect(list.assets.allSatisfy { URIReference.isAbsolute($0.uri) })
            // Joining 10 s into the 20 s break: still the whole break, the most valuable ad last,
            // where the viewer sees it.
            let late = try AssetList.decode(
                try await client.get(base + "&_HLS_primary_id=viewer-a&_HLS_start_offset=10").bytes
            )
            #expect(
                late.assets.count == 2 && late.assets[1].uri.hasSuffix("ad-red/main.m3u8") && late.totalDuration == 20
            )
            // Same question, same answer, whatever the offset now.
            let again = try AssetList.decode(
                try await client.get(base + "&_HLS_primary_id=viewer-a&_HLS_start_offset=2").bytes
            )
            #expect(again == late)
            // The next break within the repeat window (30 s in the demo) repeats neither red nor
            // green to viewer-a: only blue is left.
            let next = try AssetList.decode(
                try await client.get(
                    "/v1/asset-lists/live-demo/auto-1.json?_HLS_interstitial_id=auto-1&_HLS_primary_id=viewer-a"
                ).bytes
            )
            #expect(next.assets.map { $0.uri.hasSuffix("ad-blue/main.m3u8") } == [true])
            clock.advance(by: 60)
            let outside = try AssetList.decode(
                try await client.get(
                    "/v1/asset-lists/live-demo/auto-2.json?_HLS_interstitial_id=auto-2&_HLS_primary_id=viewer-a"
                ).bytes
            )
            #expect(outside.assets.first?.uri.contains("ad-red") == true)
            // VOD breaks too.
            let vod = try AssetList.decode(
                try await client.get("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=v").bytes
            )
            #expect(vod.totalDuration == 20)
        }
    }

    @Test(.timeLimit(.minutes(1))) func badQueriesAreRefusedWithJSON() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 110))) { client in
            let offset = try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_start_offset=abc")
            #expect(offset.status == .badRequest)
            #expect(offset.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(offset.json?["error"]?["message"]?.stringValue?.contains("_HLS_start_offset") == true)
            let negative = try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_start_offset=-3")
            #expect(negative.status == .badRequest)
            let mismatch = try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=other")
            #expect(mismatch.status == .badRequest)
            let scope = try await client.get("/v1/asset-lists/tv-demo/auto-0.json")
            #expect(scope.status == .notFound && scope.json?["error"] != nil)
            let channel = try await client.get("/v1/asset-lists/live-nope/auto-0.json")
            #expect(channel.status == .notFound)
            let breakID = try await client.get("/v1/asset-lists/vod-demo/nope.json")
            #expect(breakID.status == .notFound)
            #expect(breakID.json?["error"]?["message"]?.stringValue == "VOD asset 'demo' has no break 'nope'")
            let unknownChannel = try await client.get("/live/nope/main.m3u8")
            #expect(
                unknownChannel.status == .notFound && unknownChannel.json?["error"]?["code"]?.stringValue == "notFound"
            )
        }
    }
}

@Suite(.realTime) struct StorageTests {
    @Test(.timeLimit(.minutes(1))) func sqliteKeepsDecisionsAcrossARestart() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = "sqlite:" + folder + "/decisions.sqlite"
        let clock = ManualWallClock(t0 + 110)
        let url =
            "/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0&_HLS_primary_id=persisted&_HLS_start_offset=10"
        let first = try await withServer(try demoConfiguration(clock: clock, database: database)) { client in
            let news = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: "{\"id\": \"kept\", \"startIn\": 5, \"duration\": 10}"
            )
            #expect(news.status == .created)
            // Each server names its own address in the URIs: compare the paths.
            return try await client.get(url).text.replacingOccurrences(
                of: "127.0.0.1:\(client.port ?? 0)",
                with: "SERVER"
            )
        }
        // Another app on the same file: different inventory order would give another pod, so an
        // equal answer can only come from the database.
        clock.advance(by: 5)
        var configuration = try demoConfiguration(clock: clock, database: database)
        configuration.adInsertion.inventory.reverse()
        for k in configuration.adInsertion.inventory.indices {
            configuration.adInsertion.inventory[k].value = Double(20 - k)
        }
        try await withServer(configuration) { client in
            let second = try await client.get(url).text.replacingOccurrences(
                of: "127.0.0.1:\(client.port ?? 0)",
                with: "SERVER"
            )
            #expect(second == first)
            #expect(first.contains("http://SERVER/media/demo/"))
            let health = try await client.admin(.get, "/health")
            #expect(health.json?["decisions"]?.intValue == 1)
            let playlist = try await client.get("/live/demo/prog.m3u8")
            #expect(playlist.text.contains("ID=\"kept\""))
            let fresh = try AssetList.decode(
                try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_primary_id=new").bytes
            )
            #expect(fresh.assets.first?.uri.contains("ad-blue") == true)
        }
        let store = try SQLiteAdStore(path: folder + "/decisions.sqlite")
        #expect(try await store.journalMode() == "wal")
        #expect(try await store.decisionCount() == 2)
        try await store.close()
    }

    @Test(.timeLimit(.minutes(1))) func concurrentDecisionsAreGroupCommittedAndAllStored() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteAdStore(path: folder + "/decisions.sqlite")
        try await store.migrate()
        let creatives = ["a", "b", "c", "d"]
        let now = DateTime(millisecondsSince1970: 1_800_000_000_000)
        // Picks the first creative the viewer was not given recently.
        @Sendable func decide(_ key: DecisionKey, _ recent: Set<String>) -> AdDecision {
            let pick = creatives.first { !recent.contains($0) } ?? "none"
            return AdDecision(
                viewer: key.viewer,
                scope: key.scope,
                breakID: key.breakID,
                decidedAt: now,
                startOffset: nil,
                podDuration: MediaTime(seconds: 10),
                // Odd characters and a duration to the nanosecond: the stored JSON must keep both.
                assets: [
                    .init(
                        creativeID: pick,
                        uri: "https://ads.example/\(pick)/ä \"q\"\\.m3u8?x=1&y=/2",
                        duration: MediaTime(nanoseconds: 10_010_000_001)
                    )
                ]
            )
        }
        let stored = try await store.findOrCreateDecision(
            DecisionKey(viewer: "x", scope: "s", breakID: "taken"),
            recentSince: nil
        ) {
            decide(DecisionKey(viewer: "x", scope: "s", breakID: "taken"), $0)
        }
        #expect(stored.isNew)
        // 300 viewers ask twice each, one viewer asks for three breaks at once, and one request
        // makes a decision whose key is already stored (its insert fails), all concurrently.
        typealias Outcome = (key: DecisionKey, result: Result<(decision: AdDecision, isNew: Bool), any Error>)
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            var keys: [DecisionKey] = []
            for viewer in 0..<300 {
                keys.append(DecisionKey(viewer: "v\(viewer)", scope: "s", breakID: "b"))
                keys.append(DecisionKey(viewer: "v\(viewer)", scope: "s", breakID: "b"))
            }
            for breakID in ["b1", "b2", "b3"] { keys.append(DecisionKey(viewer: "same", scope: "s", breakID: breakID)) }
            for key in keys {
                group.addTask {
                    do {
                        let answer = try await store.findOrCreateDecision(
                            key,
                            recentSince: now - MediaTime(seconds: 3600)
                        ) { decide(key, $0) }
                        return (key, .success(answer))
                    } catch {
                        return (key, .failure(error))
                    }
                }
            }
            group.addTask {
                let key = DecisionKey(viewer: "y", scope: "s", breakID: "clash")
                do {
                    let answer = try await store.findOrCreateDecision(key, recentSince: nil) { _ in stored.decision }
                    return (key, .success(answer))
                } catch {
                    return (key, .failure(error))
                }
            }
            var outcomes: [Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == 604)
        var answers: [DecisionKey: [(decision: AdDecision, isNew: Bool)]] = [:]
        for outcome in outcomes {
            switch outcome.result {
            case .success(let answer): answers[outcome.key, default: []].append(answer)
            case .failure:
                #expect(outcome.key.breakID == "clash", "only the clashing insert may fail")
            }
        }
        #expect(answers[DecisionKey(viewer: "y", scope: "s", breakID: "clash")] == nil)
        // Every answer is what the database holds, and each key was decided exactly once.
        for (key, list) in answers {
            let held = try await store.decision(for: key)
            #expect(list.allSatisfy { $0.decision == held }, "answer for \(key) differs from the stored decision")
            #expect(list.filter(\.isNew).count == 1, "\(key) decided \(list.filter(\.isNew).count) times")
        }
        // The repeat window holds inside a batch: three breaks, three different creatives.
        let given = Set(
            ["b1", "b2", "b3"].compactMap {
                answers[DecisionKey(viewer: "same", scope: "s", breakID: $0)]?.first?.decision.assets.first?.creativeID
            }
        )
        #expect(given.count == 3)
        #expect(try await store.decisionCount() == 1 + 300 + 3)
        // Group commit: overlapping requests shared transactions.
        let statistics = store.groupCommitStatistics
        #expect(statistics.requests >= 304)
        #expect(statistics.transactions < statistics.requests)
        // Asked again: the same answer, from memory (the writer sees no new request).
        let again = try await store.findOrCreateDecision(
            DecisionKey(viewer: "v7", scope: "s", breakID: "b"),
            recentSince: nil
        ) { _ in
            Issue.record("a stored decision was made again")
            return stored.decision
        }
        #expect(!again.isNew)
        #expect(again.decision == answers[DecisionKey(viewer: "v7", scope: "s", breakID: "b")]?.first?.decision)
        #expect(store.groupCommitStatistics.requests == statistics.requests)
        try await store.close()
    }

    /// A database written by the first schema (decisions plus a creative table) is upgraded in
    /// place: every decision keeps its answer, and the repeat window still sees what was given.
    @Test(.timeLimit(.minutes(1))) func olderDatabasesAreMigratedWithTheirDecisions() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/old.sqlite"
        // The schema as migrations v1 and v2 left it, written by hand (as an older release would have).
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1: decisions and live breaks'), ('v2: inventory changes');
                    CREATE TABLE decision (viewer TEXT NOT NULL, scope TEXT NOT NULL, break_id TEXT NOT NULL,
                        decided_at_ms INTEGER NOT NULL, start_offset_ns INTEGER, pod_ns INTEGER NOT NULL, assets TEXT NOT NULL,
                        PRIMARY KEY (viewer, scope, break_id));
                    CREATE TABLE decision_creative (viewer TEXT NOT NULL, creative_id TEXT NOT NULL, decided_at_ms INTEGER NOT NULL);
                    CREATE INDEX decision_creative_by_viewer ON decision_creative (viewer, decided_at_ms);
                    CREATE TABLE live_break (channel TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (channel, id));
                    CREATE TABLE inventory_change (seq INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL);
                    """
            )
            // Two decisions as JSONEncoder wrote them then.
            let assets =
                #"[{"creativeID":"red","uri":"/ads/red.m3u8","duration":{"nanoseconds":10000000000}},{"creativeID":"green","uri":"/ads/g.m3u8","duration":{"nanoseconds":5005000000}}]"#
            try db.execute(
                sql:
                    "INSERT INTO decision VALUES ('ann', 'vod-demo', 'mid', 1800000000000, 2000000000, 15005000000, ?), ('bob', 'vod-demo', 'mid', 1800000001000, NULL, 10000000000, '[]')",
                arguments: [assets]
            )
            try db.execute(
                sql:
                    "INSERT INTO decision_creative VALUES ('ann', 'red', 1800000000000), ('ann', 'green', 1800000000000)"
            )
        }
        try old.close()

        let store = try SQLiteAdStore(path: path)
        try await store.migrate()
        let ann = try #require(
            try await store.decision(for: DecisionKey(viewer: "ann", scope: "vod-demo", breakID: "mid"))
        )
        #expect(ann.assets.map(\.creativeID) == ["red", "green"])
        #expect(ann.assets.map(\.duration) == [MediaTime(seconds: 10), MediaTime(milliseconds: 5005)])
        #expect(ann.startOffset == MediaTime(seconds: 2))
        #expect(ann.podDuration == MediaTime(milliseconds: 15005))
        #expect(ann.decidedAt == DateTime(millisecondsSince1970: 1_800_000_000_000))
        #expect(
            try await store.decision(for: DecisionKey(viewer: "bob", scope: "vod-demo", breakID: "mid"))?.assets == []
        )
        #expect(try await store.decisionCount() == 2)
        #expect(
            try await store.recentCreatives(viewer: "ann", since: DateTime(millisecondsSince1970: 1_799_999_000_000))
                == ["red", "green"]
        )
        #expect(
            try await store.recentCreatives(viewer: "ann", since: DateTime(millisecondsSince1970: 1_800_000_000_001))
                == []
        )
        // A new decision for ann leaves out what she was given.
        let next = try await store.findOrCreateDecision(
            DecisionKey(viewer: "ann", scope: "vod-demo", breakID: "post"),
            recentSince: DateTime(millisecondsSince1970: 1_799_999_000_000)
        ) { recent in
            #expect(recent == ["red", "green"])
            return AdDecision(
                viewer: "ann",
                scope: "vod-demo",
                breakID: "post",
                decidedAt: DateTime(millisecondsSince1970: 1_800_000_100_000),
                startOffset: nil,
                podDuration: MediaTime(seconds: 10),
                assets: []
            )
        }
        #expect(next.isNew)
        try await store.close()
    }

    @Test(.timeLimit(.minutes(1))) func inventoryChangesSurviveARestart() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = "sqlite:" + folder + "/inventory.sqlite"
        let clock = ManualWallClock(t0)
        try await withServer(try demoConfiguration(clock: clock, database: database)) { client in
            let added = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json: #"{"id": "gold", "uri": "/media/demo/ad-green/main.m3u8", "duration": 10, "value": 99}"#
            )
            #expect(added.status == .created)
            let removed = try await client.admin(.delete, "/v1/admin/inventory/blue")
            #expect(removed.status == .noContent)
        }
        try await withServer(try demoConfiguration(clock: clock, database: database)) { client in
            let inventory = try await client.admin(.get, "/v1/admin/inventory")
            let ids = inventory.json?["creatives"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(Set(ids) == ["red", "green", "gold", "audio-one", "audio-two"])
            // The most valuable creative (added through the admin API) leads a new pod.
            let list = try AssetList.decode(
                try await client.get("/v1/asset-lists/vod-demo/midroll-2.json?_HLS_primary_id=after-restart").bytes
            )
            #expect(list.assets.first?.uri.hasSuffix("/media/demo/ad-green/main.m3u8") == true)
        }
    }
}

@Suite(.realTime) struct UpstreamTests {
    /// An origin on HTTP: segment, KEY and MAP URIs become absolute to it (media bytes are not
    /// proxied), and an upstream over the size limit is a 502 that says so.
    @Test(.timeLimit(.minutes(1))) func httpOriginURIsAreAbsoluteAndOversizeIs502() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write(
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x00000000000000000000000000000001
            #EXTINF:6.0,
            seg1.m4s
            #EXTINF:6.0,
            sub/seg2.m4s
            #EXT-X-ENDLIST

            """,
            to: folder + "/movie/main.m3u8"
        )
        try write(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
                + String(repeating: "#EXTINF:2.0,\nsegment-with-a-long-name.ts\n", count: 200),
            to: folder + "/big/live.m3u8"
        )
        let origin = try #require(await PageServer(directory: URL(fileURLWithPath: folder)))
        defer { origin.stop() }
        let base = "http://127.0.0.1:\(origin.port)"
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.maximumUpstreamBytes = 4096
        configuration.adInsertion.assets.append(
            VODAsset(
                id: "remote",
                origin: base + "/movie/",
                playlist: "main.m3u8",
                breaks: [VODBreak(id: "mid", position: .midRoll(6), duration: 10)]
            )
        )
        configuration.adInsertion.channels.append(LiveChannel(id: "big", source: .upstream(base + "/big/live.m3u8")))
        try await withServer(configuration) { client in
            let vod = try await client.get("/vod/remote/main.m3u8")
            #expect(vod.status == .ok)
            #expect(errors(vod.bytes).isEmpty, "\(errors(vod.bytes))")
            #expect(vod.text.contains("#EXT-X-MAP:URI=\"\(base)/movie/init.mp4\""))
            #expect(vod.text.contains("URI=\"\(base)/keys/k1.bin\""))
            let uris = vod.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            #expect(uris == ["\(base)/movie/seg1.m4s", "\(base)/movie/sub/seg2.m4s"])
            #expect(dateRangeLines(vod.text).contains { $0.contains("ID=\"mid\"") })
            #expect(vod.text.contains("#EXT-X-PROGRAM-DATE-TIME:"))

            let big = try await client.get("/live/big/live.m3u8")
            #expect(big.status == .badGateway)
            #expect(big.json?["error"]?["message"]?.stringValue?.contains("is too large") == true)
        }
    }

    @Test(.timeLimit(.minutes(1))) func unreachableOrBadUpstreamIs502AndStaleIsReported() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write("<html>not a playlist</html>", to: folder + "/bad/main.m3u8")
        try write(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z
            #EXTINF:2.0,
            s100.ts
            #EXT-X-DATERANGE:ID="splice-7",START-DATE="2025-01-01T00:00:02.000Z",PLANNED-DURATION=20,SCTE35-OUT=0xFC302000
            #EXTINF:2.0,
            s101.ts
            #EXTINF:2.0,
            s102.ts

            """,
            to: folder + "/up/live.m3u8"
        )
        let clock = ManualWallClock(t0 + 6)
        var configuration = try demoConfiguration(clock: clock)
        configuration.mounts["scratch"] = folder
        configuration.upstreamTimeout = .seconds(2)
        configuration.adInsertion.channels += [
            LiveChannel(id: "down", source: .upstream("http://127.0.0.1:9/live/main.m3u8")),
            LiveChannel(id: "bad", source: .upstream("/media/scratch/bad/main.m3u8")),
            LiveChannel(id: "up", source: .upstream("/media/scratch/up/live.m3u8"), staleAfter: 10),
        ]
        try await withServer(configuration) { client in
            let down = try await client.get("/live/down/main.m3u8")
            #expect(down.status == .badGateway)
            #expect(
                down.json?["error"]?["message"]?.stringValue?.contains(
                    "http://127.0.0.1:9/live/main.m3u8 is unreachable"
                ) == true
            )
            let bad = try await client.get("/live/bad/main.m3u8")
            #expect(bad.status == .badGateway)
            #expect(bad.json?["error"]?["message"]?.stringValue?.contains("is not a playlist") == true)

            let up = try await client.get("/live/up/live.m3u8")
            #expect(up.status == .ok)
            #expect(errors(up.bytes).isEmpty, "\(errors(up.bytes))")
            let line = try #require(dateRangeLines(up.text).first { $0.contains("ID=\"scte-splice-7\"") })
            #expect(line.contains("CLASS=\"com.apple.hls.interstitial\"") && line.contains("DURATION=20"))
            #expect(up.text.contains("ID=\"splice-7\""))
            let list = try await client.get("/v1/asset-lists/live-up/scte-splice-7.json?_HLS_primary_id=a")
            #expect(try AssetList.decode(list.bytes).totalDuration == 20)

            var health = try await client.admin(.get, "/health")
            #expect(health.json?["status"]?.stringValue == "degraded")  // "down" and "bad" failed
            let states = health.json?["channels"]?.arrayValue ?? []
            #expect(states.first { $0["id"]?.stringValue == "up" }?["state"]?.stringValue == "ok")
            #expect(states.first { $0["id"]?.stringValue == "down" }?["state"]?.stringValue == "unreachable")
            clock.advance(by: 30)
            _ = try await client.get("/live/up/live.m3u8")
            health = try await client.admin(.get, "/health")
            let up2 = health.json?["channels"]?.arrayValue?.first { $0["id"]?.stringValue == "up" }
            #expect(up2?["state"]?.stringValue == "stale")

            let metrics = try await client.get("/metrics")
            #expect(metrics.text.contains("intermission_http_requests_total{route=\"/live/{channel}/**\""))
            #expect(metrics.text.contains("intermission_decisions_total"))
            #expect(metrics.text.contains("intermission_breaks_total{origin=\"scte35\"}"))
            #expect(metrics.text.contains("intermission_http_request_duration_seconds_bucket"))
            // Each metric says what it counts.
            #expect(metrics.text.contains("# HELP intermission_decisions_total Asset-list decisions"))
            #expect(metrics.text.contains("# HELP intermission_http_request_duration_seconds Time to answer"))
        }
    }
}

@Suite(.realTime) struct RefereeTests {
    @Test(.timeLimit(.minutes(1))) func ffprobeReadsTheDecoratedDemoVOD() async throws {
        let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let ffprobe else {
            #expect(
                ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] != "1",
                "ffprobe is required but missing"
            )
            return
        }
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            // Bounded wait: ffprobe gets 30 s, then it is stopped. Each read may wait 25 s: a server
            // starved of CPU beside other suites has taken more than 5 s to answer one.
            let result = try await runProcess(
                URL(fileURLWithPath: ffprobe),
                [
                    "-v", "error", "-rw_timeout", "25000000", "-show_entries",
                    "stream=codec_name:format=format_name,duration", "-of", "compact",
                    "http://127.0.0.1:\(port)/vod/demo/main.m3u8",
                ],
                timeout: .seconds(30)
            )
            let text = String(decoding: result.stdout + result.stderr, as: UTF8.self)
            #expect(result.status == 0 && !result.killed, "\(text)")
            #expect(text.contains("h264") && text.contains("aac") && text.contains("format_name=hls"), "\(text)")
            #expect(text.contains("duration=60"), "\(text)")
        }
    }
}

/// Live breaks of the demo channel announce their asset list with a preload range (Appendix F).
@Suite(.realTime) struct LivePreloadServingTests {
    /// At 100 s the demo's break `auto-0` (120 s) is announced with a preload range over the 16 s
    /// before it (8 target durations of 2 s); the playlist passes our validator with no
    /// diagnostic; the preload request and the request at the break get the same pod.
    @Test(.timeLimit(.minutes(1))) func theDemoBreakIsPreloadedAndDecidedOnce() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let response = try await client.get("/live/demo/prog.m3u8")
            let diagnostics = InterstitialValidator().validate(playlist: response.bytes)
            #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
            let lines = preloadLines(response.text)
            #expect(
                lines == [
                    "#EXT-X-DATERANGE:ID=\"preload-auto-0\",CLASS=\"com.apple.hls.preload\",START-DATE=\"2025-01-01T00:01:44.000Z\",DURATION=16,X-URI=\"/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0\",X-TARGET-ID=\"auto-0\",X-TARGET-CLASS=\"com.apple.hls.interstitial\""
                ]
            )
            let uri = "/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0"
            let preloaded = try await client.get(uri + "&_HLS_primary_id=viewer-1")
            #expect(preloaded.status == .ok)
            clock.advance(by: 20)
            let atBreak = try await client.get(uri + "&_HLS_primary_id=viewer-1")
            #expect(atBreak.status == .ok)
            #expect(atBreak.json?["ASSETS"] == preloaded.json?["ASSETS"])
            #expect((preloaded.json?["ASSETS"]?.arrayValue?.count ?? 0) > 0)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aZeroWindowTurnsPreloadRangesOff() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 100))
        configuration.adInsertion.channels[0].preloadWindow = .zero
        try await withServer(configuration) { client in
            let response = try await client.get("/live/demo/prog.m3u8")
            #expect(preloadLines(response.text).isEmpty)
            #expect(dateRangeLines(response.text).count == 1)
        }
    }
}
