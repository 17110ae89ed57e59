import GroupPlayback
import HLSPlaylist
import HummingbirdTesting
import IntermissionServer
import InterstitialPlayback
import Testing

extension GroupOverLoopbackTests {
    /// Runs each participant's player (until `limit`) and coordinator, waits until every one has
    /// the group's state, in order, then runs `body`; the players and coordinators stop when it
    /// returns or throws.
    static func playTogether(
        _ participants: [(Player, PlaybackCoordinator)],
        until limit: MediaTime,
        _ body: () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            for (player, coordinator) in participants {
                group.addTask { try await player.run(until: limit) }
                group.addTask { try await coordinator.run() }
            }
            for (_, coordinator) in participants {
                try await Self.joined(coordinator)
            }
            try await body()
        }
    }

    /// Alice and Bob, each a player and its coordinator, playing one stream in one group of the
    /// hub: the setup of the shared-interstitial tests.
    struct TwoViewers: Sendable {
        let players: [Player]
        let coordinators: [PlaybackCoordinator]

        /// Alice and Bob playing `stream` in the group at `group` (a `ws://` URL).
        init(stream: String, group: String, probeInterval: Duration = .seconds(2)) {
            let participants = ["alice", "bob"].map { name in
                GroupOverLoopbackTests.participant(name, stream: stream, group: group, probeInterval: probeInterval)
            }
            self.players = participants.map(\.0)
            self.coordinators = participants.map(\.1)
        }

        /// Both play (until `limit`) and join; `body` runs once both have the group's state.
        func playing(until limit: MediaTime, _ body: () async throws -> Void) async throws {
            try await GroupOverLoopbackTests.playTogether(
                Array(zip(self.players, self.coordinators)),
                until: limit,
                body
            )
        }

        /// Serves `show`, 16 one-second segments with a shared interstitial `ident` of
        /// `identSeconds` at `at` seconds, from a scratch folder removed afterwards, and runs `body`
        /// with the show's URL and the URL of the hub's group `group`.
        static func servingSharedIdent(
            _ show: String,
            identSeconds: Int,
            at: Int,
            group: String,
            _ body: @escaping @Sendable (_ stream: String, _ group: String) async throws -> Void
        ) async throws {
            let media = try Media()
            defer { media.remove() }
            try media.showWithSharedIdent(show, identSeconds: identSeconds, at: at)
            let app = try await buildApplication(configuration: GroupOverLoopbackTests.configuration(media: media))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                try await body(
                    "http://127.0.0.1:\(port)/media/group/\(show)",
                    "ws://127.0.0.1:\(port)/v1/groups/\(group)"
                )
            }
        }
    }
}
