import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// The headless player plays through the real server on loopback: the demo VOD for two viewers
/// with different ad histories, and the demo live channel through two breaks.
///
/// The server's wall clock (`ManualWallClock`) and each player's `VirtualPlaybackClock` move in
/// lockstep: the test advances the server clock one second, then runs every player to the same
/// second with `run(until:)`. Player time `t` is server time `start + t`.
@Suite(.realTime) struct PlayerEndToEndTests {
    /// What one player did, read from its event log.
    struct Viewing {
        let sessionID: String
        let log: [PlayerLogEntry]

        func entries(_ event: String) -> [PlayerLogEntry] { self.log.filter { $0.event == event } }

        /// The URLs of successful requests of a kind (`assetList`, `multivariantPlaylist`, …).
        func requests(_ kind: String) -> [String] {
            self.entries("request").filter { $0["kind"]?.stringValue == kind && $0["status"]?.doubleValue == 200 }
                .compactMap { $0["url"]?.stringValue }
        }

        /// The asset-list request of a break.
        func assetListRequest(_ breakID: String) -> String? {
            self.requests("assetList").first { $0.contains("/\(breakID).json") }
        }

        /// The interstitial assets the player started for an event, in order.
        func startedAssets(_ eventID: String) -> [String] {
            self.entries("interstitialAssetStarted").filter { $0["eventID"]?.stringValue == eventID }.compactMap {
                $0["url"]?.stringValue
            }
        }

        /// The events that became current, in order.
        var playedEvents: [String] {
            self.entries("currentEventDidChange").compactMap { $0["eventID"]?.stringValue }
        }
    }

    /// Advances the server clock and runs the players one second at a time until they have all
    /// ended or `limit` seconds have passed.
    static func playInLockstep(
        _ players: [Player],
        serverClock: ManualWallClock,
        start: DateTime,
        limit: Int
    ) async throws {
        for second in 1...limit {
            serverClock.set(start + MediaTime(seconds: Double(second)))
            var running = false
            for player in players where await player.isPlaying {
                try await player.run(until: MediaTime(seconds: Double(second)))
                if await player.isPlaying { running = true }
            }
            if !running { return }
        }
    }

    static func player(_ url: String, sessionID: String) -> Player {
        Player(item: PlayerItem(url: url), clock: VirtualPlaybackClock(), sessionID: sessionID)
    }

    /// The asset URIs the server decided for a break, asked again (decisions are stored, so the
    /// same viewer and break get the same answer).
    static func decidedURIs(_ client: any TestClientProtocol, assetListURL: String) async throws -> [String] {
        let path = String(assetListURL[try #require(assetListURL.range(of: "/v1/")).lowerBound...])
        let response = try await client.get(path)
        #expect(response.status == .ok)
        let assets = try #require(response.json?["ASSETS"]?.arrayValue)
        return assets.compactMap { $0["URI"]?.stringValue }
    }

    /// The path of a URL, without scheme, authority and query: the player asks for the assets on
    /// 127.0.0.1:port, while the test client's re-request resolves them against `localhost`.
    static func path(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...].drop { $0 != "/" } }
        return String(rest.prefix { $0 != "?" })
    }

    @Test(.timeLimit(.minutes(2)))
    func twoViewersPlayTheDemoVODWithTheirOwnPods() async throws {
        let serverClock = ManualWallClock(t0)
        let configuration = try demoConfiguration(clock: serverClock)
        let (first, second) = try await withServer(configuration) { client in
            let port = try #require(client.port)
            // Viewer 2 comes from the live channel: it watched the channel's first break (auto-0,
            // 2:00 to 2:20 after the channel started), saw red and green there, and opened the VOD
            // at 2:25, together with viewer 1. The repeat window is 30 s, so viewer 2's pre-roll
            // cannot be red or green; by its first mid-roll the live break is out of the window.
            serverClock.set(t0 + MediaTime(seconds: 120))
            let history = try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_primary_id=viewer-2")
            #expect(history.status == .ok)
            #expect(history.text.contains("ad-red") && history.text.contains("ad-green"), "\(history.text)")
            let start = t0 + MediaTime(seconds: 145)
            serverClock.set(start)

            let url = "http://127.0.0.1:\(port)/vod/demo/main.m3u8"
            let players = [Self.player(url, sessionID: "viewer-1"), Self.player(url, sessionID: "viewer-2")]
            for player in players { await player.play() }
            try await Self.playInLockstep(players, serverClock: serverClock, start: start, limit: 300)
            var viewings: [Viewing] = []
            for player in players {
                let error = await player.error
                #expect(error == nil, "\(player.sessionID): \(String(describing: error))")
                #expect(await player.hasEnded, "\(player.sessionID) did not play to the end")
                viewings.append(Viewing(sessionID: player.sessionID, log: await player.log))
            }
            // What the server decided, per viewer and break.
            var pods: [[String: [String]]] = []
            for viewing in viewings {
                var pod: [String: [String]] = [:]
                for breakID in ["preroll", "midroll-1", "midroll-2", "postroll"] {
                    let request = try #require(
                        viewing.assetListRequest(breakID),
                        "\(viewing.sessionID) asked for no \(breakID) list"
                    )
                    #expect(request.contains("_HLS_primary_id=\(viewing.sessionID)"), "\(request)")
                    pod[breakID] = try await Self.decidedURIs(client, assetListURL: request)
                }
                pods.append(pod)
            }
            return ((viewings[0], pods[0]), (viewings[1], pods[1]))
        }

        for (viewing, pod) in [first, second] {
            let log = viewing.log.map(\.description).joined(separator: "\n")
            // Every asset-list request carried this player's session ID, and nobody else's.
            let lists = viewing.requests("assetList")
            #expect(lists.count == 4, "\(lists)")
            for list in lists {
                #expect(list.contains("_HLS_primary_id=\(viewing.sessionID)"), "\(list)")
            }
            // Each break played, the pod the server decided for this viewer, in order.
            #expect(viewing.playedEvents == ["preroll", "midroll-1", "midroll-2", "postroll"], "\(log)")
            for breakID in ["preroll", "midroll-1", "midroll-2", "postroll"] {
                let decided = pod[breakID] ?? []
                #expect(!decided.isEmpty, "\(viewing.sessionID): empty \(breakID) pod")
                #expect(
                    viewing.startedAssets(breakID).map(Self.path) == decided.map(Self.path),
                    "\(viewing.sessionID) \(breakID)"
                )
                for asset in viewing.startedAssets(breakID) {
                    #expect(asset.contains("_HLS_primary_id=\(viewing.sessionID)"), "\(asset)")
                }
            }
            // The asset playlists requested are exactly the decided ones.
            let requestedAds = Set(
                viewing.requests("multivariantPlaylist").filter { $0.contains("/ad-") }.map(Self.path)
            )
            #expect(requestedAds == Set(pod.values.flatMap { $0 }.map(Self.path)), "\(viewing.sessionID)")
            #expect(viewing.entries("primaryResumed").count >= 3, "\(log)")
            #expect(viewing.entries("ended").count == 1)
        }
        // Viewer 1 has no history: red (most valuable) for the pre-roll, then green and blue for
        // the 20 s mid-roll 10 s later (red is within the repeat window). Viewer 2 saw red and
        // green 25 s before: blue for the pre-roll, then red and green for the mid-roll.
        func ads(_ uris: [String]?) -> [String] {
            (uris ?? []).map {
                Self.path($0).replacingOccurrences(of: "/media/demo/ad-", with: "").replacingOccurrences(
                    of: "/main.m3u8",
                    with: ""
                )
            }
        }
        #expect(ads(first.1["preroll"]) == ["red"], "\(first.1)")
        #expect(ads(first.1["midroll-1"]) == ["green", "blue"], "\(first.1)")
        #expect(ads(second.1["preroll"]) == ["blue"], "\(second.1)")
        #expect(ads(second.1["midroll-1"]) == ["red", "green"], "\(second.1)")
        #expect(first.1 != second.1)
        #expect(first.0.requests("multivariantPlaylist") != second.0.requests("multivariantPlaylist"))
    }

    @Test(.timeLimit(.minutes(2)))
    func thePlayerPlaysTheDemoLiveChannelThroughTwoBreaks() async throws {
        let serverClock = ManualWallClock(t0)
        let configuration = try demoConfiguration(clock: serverClock)
        let (viewing, pods) = try await withServer(configuration) { client in
            let port = try #require(client.port)
            // Join a minute after the channel started; breaks at 2:00 (auto-0) and 4:00 (auto-1),
            // 20 s each. Play until 4:40.
            let start = t0 + MediaTime(seconds: 60)
            serverClock.set(start)
            let player = Self.player("http://127.0.0.1:\(port)/live/demo/main.m3u8", sessionID: "live-viewer")
            await player.play()
            try await Self.playInLockstep([player], serverClock: serverClock, start: start, limit: 220)
            let error = await player.error
            #expect(error == nil, "\(String(describing: error))")
            let viewing = Viewing(sessionID: player.sessionID, log: await player.log)
            var pods: [String: [String]] = [:]
            for breakID in ["auto-0", "auto-1"] {
                guard let request = viewing.assetListRequest(breakID) else { continue }
                pods[breakID] = try await Self.decidedURIs(client, assetListURL: request)
            }
            return (viewing, pods)
        }
        let log = viewing.log.map(\.description).joined(separator: "\n")
        for breakID in ["auto-0", "auto-1"] {
            let request = try #require(viewing.assetListRequest(breakID), "no \(breakID) asset list\n\(log)")
            #expect(request.contains("_HLS_primary_id=live-viewer"), "\(request)")
            #expect(!viewing.startedAssets(breakID).isEmpty, "\(breakID) played nothing\n\(log)")
            // The pod the server decided for this viewer and break, in order.
            #expect(viewing.startedAssets(breakID).map(Self.path) == (pods[breakID] ?? []).map(Self.path), "\(breakID)")
        }
        #expect(viewing.playedEvents == ["auto-0", "auto-1"], "\(log)")
        // The primary resumed after each break: after auto-0's last asset and before auto-1
        // started, and again after auto-1's.
        var from = viewing.log.startIndex
        for (index, breakID) in ["auto-0", "auto-1"].enumerated() {
            let ended = try #require(
                viewing.log.lastIndex {
                    $0.event == "interstitialAssetEnded" && $0["eventID"]?.stringValue == breakID
                },
                "\(breakID) did not end\n\(log)"
            )
            #expect(ended >= from)
            let next =
                index == 0
                ? viewing.log.firstIndex {
                    $0.event == "currentEventDidChange" && $0["eventID"]?.stringValue == "auto-1"
                } ?? viewing.log.endIndex
                : viewing.log.endIndex
            #expect(
                viewing.log[ended..<max(ended, next)].contains { $0.event == "primaryResumed" },
                "no resume after \(breakID)\n\(log)"
            )
            from = next
        }
        #expect(viewing.entries("primaryResumed").count == 2, "\(log)")
    }
}

fileprivate extension Player {
    /// Neither ended nor failed.
    var isPlaying: Bool { !self.hasEnded && self.error == nil }
}
