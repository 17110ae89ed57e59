import AdInsertion
import IntermissionStore
import Logging
import ServiceLifecycle

/// Brings the live breaks and the inventory that other server instances change in a shared store
/// into this instance: each channel the store reports (`SharedStoreChanges.breakChanges()`) has its
/// stored breaks and cached playlists forgotten, so the next playlist request reads them again; at
/// each inventory change (`SharedStoreChanges.inventoryUpdates()`) the inventory is made again from
/// the configured one and every stored change.
///
/// Only a shared store has one; with SQLite or memory the server runs without it, and nothing on
/// their paths changes.
struct BreakChangeService: Service {
    let store: any SharedStoreChanges
    let playlists: PlaylistService
    let inventory: InventoryRegistry
    let logger: Logger

    /// The service for `store` when it is shared by instances, else none.
    static func services(
        store: any ServerStore,
        playlists: PlaylistService,
        inventory: InventoryRegistry,
        logger: Logger
    ) -> [any Service] {
        guard let shared = store.capabilities.shared else { return [] }
        return [BreakChangeService(store: shared, playlists: playlists, inventory: inventory, logger: logger)]
    }

    func run() async throws {
        // Cancelling the loops ends the streams' iteration.
        let changes = self.store.breakChanges()
        let updates = self.store.inventoryUpdates()
        let (store, playlists, inventory, logger) = (self.store, self.playlists, self.inventory, self.logger)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await channel in changes { await playlists.breaksChangedElsewhere(channel: channel) }
                }
                group.addTask {
                    for await _ in updates {
                        do {
                            await inventory.replay(try await store.inventoryChanges())
                        } catch {
                            // The periodic re-read signals again once the store answers.
                            store.inventoryReadFailed()
                            logger.warning("reading inventory changes failed", metadata: ["error": "\(error)"])
                        }
                    }
                }
            }
        }
    }
}
