import HLSPlaylist

/// Where ad decisions are kept.
///
/// Implementations: ``InMemoryAdStore`` here, SQLite in the server.
public protocol DecisionStore: Sendable {
    /// The decision stored for a key.
    func decision(for key: DecisionKey) async throws -> AdDecision?
    /// The creatives a viewer was given in decisions made at or after `since`.
    func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String>
    /// Stores a decision unless one exists for its key; returns the stored one (the earlier wins).
    func save(_ decision: AdDecision) async throws -> AdDecision
    /// Returns the stored decision for `key`, or makes one with `make` (given the viewer's creatives
    /// since `recentSince`, or none when it is `nil`) and stores it, atomically. `make` must have no
    /// side effects: a store may call it more than once (a transaction done again) and keep one.
    func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool)
    /// How many decisions are stored.
    func decisionCount() async throws -> Int
    /// The stored decision for `key` when the store holds a copy in memory, answered without
    /// waiting (for callers that must not suspend, such as an event loop); `nil` when it does not,
    /// or when it cannot vouch for the copy now. A non-`nil` answer is always a stored decision.
    func rememberedDecision(for key: DecisionKey) -> AdDecision?
    /// The decisions stored last, newest first, at most `limit` of them (for the server's web page);
    /// a store that cannot tell which are newest answers none.
    func latestDecisions(limit: Int) async throws -> [AdDecision]
    /// Deletes one bounded batch of decisions, oldest first: those decided before `decidedBefore`,
    /// then, while more than `keeping` are stored, the oldest of the rest; at most `limit` in all,
    /// in one short transaction, so decisions made meanwhile wait for one batch at most.
    ///
    /// A decision decided at or after `decidedBefore` is deleted only while more than `keeping`
    /// are stored. Deleted decisions are forgotten by the store's memory too (a returning viewer
    /// gets a new decision).
    ///
    /// - Returns: How many it deleted (fewer than `limit`: nothing more to delete now).
    func pruneDecisions(decidedBefore: DateTime, keeping: Int, limit: Int) async throws -> Int
}

extension DecisionStore {
    /// A store that keeps no copies in memory answers every question through its other requirements.
    public func rememberedDecision(for key: DecisionKey) -> AdDecision? { nil }

    /// A store that cannot list its decisions by age answers none.
    public func latestDecisions(limit: Int) async throws -> [AdDecision] { [] }

    /// A store that cannot tell its decisions' ages deletes none.
    public func pruneDecisions(decidedBefore: DateTime, keeping: Int, limit: Int) async throws -> Int { 0 }

    /// A non-atomic composition of the other requirements; stores with transactions do better.
    public func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        if let existing = try await self.decision(for: key) { return (existing, false) }
        var recent: Set<String> = []
        if let recentSince { recent = try await self.recentCreatives(viewer: key.viewer, since: recentSince) }
        let made = make(recent)
        let stored = try await self.save(made)
        return (stored, stored == made)
    }
}

/// Where live breaks (admin, SCTE-35, and overrides of planned breaks) are kept.
public protocol BreakStore: Sendable {
    /// The stored breaks of a channel.
    func breaks(channel: String) async throws -> [LiveBreak]
    /// Creates or replaces a break (by channel and ID).
    func save(_ liveBreak: LiveBreak) async throws
}

/// A change to the inventory made through the admin API, kept so it survives a restart.
public enum InventoryChange: Sendable, Hashable, Codable {
    /// A creative added or replaced.
    case upsert(Creative)
    /// A creative removed (by identifier).
    case remove(String)
}

/// Stores the inventory changes the admin API acknowledged, in order.
public protocol InventoryStore: Sendable {
    /// Every change recorded, oldest first (only the last change per creative matters).
    func inventoryChanges() async throws -> [InventoryChange]
    /// Records a change before it is acknowledged.
    func record(_ change: InventoryChange) async throws
}

extension InventoryChange {
    /// The inventory after applying `changes` to `base` in order.
    public static func apply(_ changes: [InventoryChange], to base: [Creative]) -> [Creative] {
        var creatives = base
        for change in changes {
            switch change {
            case .upsert(let creative):
                creatives.removeAll { $0.id == creative.id }
                creatives.append(creative)
            case .remove(let id):
                creatives.removeAll { $0.id == id }
            }
        }
        return creatives
    }
}

/// A store of all three, with a schema to migrate.
public protocol AdStore: DecisionStore, BreakStore, InventoryStore {
    /// Brings the schema up to date (idempotent).
    func migrate() async throws
    /// Why the store cannot keep what it is given right now (for example, its file was unlinked or
    /// replaced since it was opened), or `nil` when it can. Checked without writing.
    func unavailability() async -> String?
    /// Shuts the store when the program stops: writes already queued are finished (each answered or
    /// failed, none left waiting), later ones are refused, and what the store holds open is released.
    func close() async throws
}

extension AdStore {
    /// A store that has no file to lose is always available.
    public func unavailability() async -> String? { nil }

    /// A store that holds nothing open has nothing to close.
    public func close() async throws {}
}

/// An in-memory ``AdStore`` for tests and for runs that need no persistence.
public actor InMemoryAdStore: AdStore {
    private var decisions: [DecisionKey: AdDecision] = [:]
    private var breaksByChannel: [String: [String: LiveBreak]] = [:]
    private var changes: [InventoryChange] = []

    /// Creates an empty store.
    public init() {}

    /// Nothing to migrate.
    public func migrate() async throws {}

    /// Every change recorded, oldest first.
    public func inventoryChanges() async throws -> [InventoryChange] {
        self.changes
    }

    /// Records an inventory change.
    public func record(_ change: InventoryChange) async throws {
        self.changes.append(change)
    }

    /// The decision stored for a key.
    public func decision(for key: DecisionKey) async throws -> AdDecision? {
        self.decisions[key]
    }

    /// The creatives a viewer was given in decisions made at or after `since`.
    public func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String> {
        self.recent(viewer: viewer, since: since)
    }

    private func recent(viewer: String, since: DateTime) -> Set<String> {
        var result: Set<String> = []
        for decision in self.decisions.values where decision.viewer == viewer && decision.decidedAt >= since {
            result.formUnion(decision.assets.map(\.creativeID))
        }
        return result
    }

    /// Stores a decision unless one exists for its key; returns the stored one.
    public func save(_ decision: AdDecision) async throws -> AdDecision {
        if let existing = self.decisions[decision.key] { return existing }
        self.decisions[decision.key] = decision
        return decision
    }

    /// Returns the stored decision for `key`, or makes one with `make` and stores it.
    public func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        if let existing = self.decisions[key] { return (existing, false) }
        let made = make(recentSince.map { self.recent(viewer: key.viewer, since: $0) } ?? [])
        self.decisions[key] = made
        return (made, true)
    }

    /// How many decisions are stored.
    public func decisionCount() async throws -> Int {
        self.decisions.count
    }

    /// The decisions made last, newest first (ties in the order of viewer, scope and break).
    public func latestDecisions(limit: Int) async throws -> [AdDecision] {
        let sorted = self.decisions.values.sorted {
            if $0.decidedAt != $1.decidedAt { return $0.decidedAt > $1.decidedAt }
            return ($0.viewer, $0.scope, $0.breakID) < ($1.viewer, $1.scope, $1.breakID)
        }
        return Array(sorted.prefix(max(0, limit)))
    }

    /// Deletes up to `limit` decisions: those decided before `decidedBefore`, oldest first, then
    /// the oldest of the rest while more than `keeping` are stored.
    public func pruneDecisions(decidedBefore: DateTime, keeping: Int, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let oldest = self.decisions.values.sorted { $0.decidedAt < $1.decidedAt }
        let expired = oldest.prefix { $0.decidedAt < decidedBefore }.count
        let excess = max(0, oldest.count - max(0, keeping))
        let victims = oldest.prefix(min(limit, max(expired, excess)))
        for decision in victims { self.decisions[decision.key] = nil }
        return victims.count
    }

    /// The stored breaks of a channel.
    public func breaks(channel: String) async throws -> [LiveBreak] {
        Array((self.breaksByChannel[channel] ?? [:]).values)
    }

    /// Creates or replaces a break (by channel and ID).
    public func save(_ liveBreak: LiveBreak) async throws {
        self.breaksByChannel[liveBreak.channel, default: [:]][liveBreak.id] = liveBreak
    }
}
