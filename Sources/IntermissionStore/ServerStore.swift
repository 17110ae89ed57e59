import AdInsertion

/// A storage driver as the server sees it: the `AdStore` and what else the driver
/// keeps in the same database, offered as ``StoreCapabilities``, so that the server reaches every
/// part through this protocol and never asks which driver it has.
///
/// The server's drivers are `SQLiteAdStore` and `PostgresAdStore`; `InMemoryAdStore` offers
/// nothing more, and neither does a store a caller writes (the default ``capabilities``).
public protocol ServerStore: AdStore {
    /// What the driver offers beyond the ad store.
    var capabilities: StoreCapabilities { get }
}

extension ServerStore {
    /// How many decisions a driver remembers by default for questions asked again (about 400 bytes
    /// each).
    public static var defaultRememberedDecisions: Int { 65_536 }

    /// Nothing beyond the ad store: tracking and conditioning are kept in memory, and the store is
    /// not shared by several instances.
    public var capabilities: StoreCapabilities { StoreCapabilities() }
}

extension InMemoryAdStore: ServerStore {}

/// A driver whose `findOrCreateDecision(_:recentSince:make:)` is
/// atomic (one transaction, or one statement that keeps an earlier row): saving is finding or
/// creating the decision given, so the earlier one wins as the protocol asks.
package protocol TransactionalDecisionStore: DecisionStore {}

extension TransactionalDecisionStore {
    /// Stores a decision unless one exists for its key; returns the stored one.
    public func save(_ decision: AdDecision) async throws -> AdDecision {
        try await self.findOrCreateDecision(decision.key, recentSince: nil) { _ in decision }.decision
    }
}

/// What a storage driver offers the server beyond the `AdStore` protocol.
///
/// A part a driver does not offer is `nil`, and the server then keeps it in memory or goes without
/// it.
public struct StoreCapabilities: Sendable {
    /// Where tracking tokens and beacons are kept.
    package var tracking: (any TrackingStore)?
    /// Where the state of creative conditioning is kept (shared by instances on one database).
    package var conditioning: (any ConditioningStore)?
    /// Changes other instances make in a store they share: break revisions and inventory changes.
    package var shared: (any SharedStoreChanges)?
    /// The relay that carries group messages between instances.
    package var groupRelay: (any GroupRelayTransport)?
    /// The write-ahead journal of decisions, when the driver has one.
    package var journal: DecisionJournal?
    /// What the driver needs running while it is in use (PostgreSQL: its connection pool), or
    /// `nil`.
    ///
    /// The store's owner runs it once, in a task group or as a service, and ends it after
    /// closing the store; the server runs it as the first service of its group, so that it stops
    /// last.
    package var run: (@Sendable () async -> Void)?

    /// A driver that offers nothing beyond the ad store.
    public init() {}

    /// A driver's parts.
    package init(
        tracking: (any TrackingStore)?,
        conditioning: (any ConditioningStore)?,
        shared: (any SharedStoreChanges)? = nil,
        groupRelay: (any GroupRelayTransport)? = nil,
        journal: DecisionJournal? = nil,
        run: (@Sendable () async -> Void)? = nil
    ) {
        self.tracking = tracking
        self.conditioning = conditioning
        self.shared = shared
        self.groupRelay = groupRelay
        self.journal = journal
        self.run = run
    }
}

/// A store shared by several server instances: what the others change, as it is seen.
package protocol SharedStoreChanges: InventoryStore {
    /// The channels whose live breaks another instance changed, each as it is seen.
    func breakChanges() -> AsyncStream<String>
    /// A signal at each inventory change made anywhere.
    func inventoryUpdates() -> AsyncStream<Void>
    /// Reading the inventory's changes failed after an update: the next re-read signals again.
    func inventoryReadFailed()
}
