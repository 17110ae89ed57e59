import AdInsertion
import ServiceLifecycle

/// Brings the live breaks that other server instances change in a shared store into this
/// instance's playlists: each channel the store reports (`PostgresAdStore.breakChanges()`) has its
/// stored breaks and cached playlists forgotten, so the next playlist request reads them again.
///
/// Only a shared store has one; with SQLite or memory the server runs without it, and nothing on
/// their paths changes.
struct BreakChangeService: Service {
    let changes: AsyncStream<String>
    let playlists: PlaylistService

    /// The service for `store` when it is shared by instances, else none.
    static func services(store: any AdStore, playlists: PlaylistService) -> [any Service] {
        guard let shared = store as? PostgresAdStore else { return [] }
        return [BreakChangeService(changes: shared.breakChanges(), playlists: playlists)]
    }

    func run() async throws {
        // Cancelling the loop ends the stream's iteration.
        let changes = self.changes
        let playlists = self.playlists
        await cancelWhenGracefulShutdown {
            for await channel in changes { await playlists.breaksChangedElsewhere(channel: channel) }
        }
    }
}
