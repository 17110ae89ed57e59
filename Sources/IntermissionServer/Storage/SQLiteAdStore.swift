import AdInsertion
import Foundation
import GRDB
import HLSPlaylist

/// An ``AdStore`` in an SQLite file (GRDB, WAL mode), with migrations.
///
/// Decisions are written in one transaction that looks for an earlier decision, reads the viewer's
/// recent creatives and inserts the new one, so concurrent requests for the same viewer and break
/// get the same answer.
public final class SQLiteAdStore: AdStore {
    private let pool: DatabasePool

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Throws: GRDB's `DatabaseError` when the file cannot be opened.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // WAL is DatabasePool's default; NORMAL keeps commits durable across crashes of the
            // process (not of the machine) with one fsync per checkpoint.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        configuration.busyMode = .timeout(5)
        self.pool = try DatabasePool(path: path, configuration: configuration)
    }

    /// The journal mode in use (`wal`).
    public func journalMode() async throws -> String {
        try await self.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// Closes the database; later calls fail.
    public func close() throws {
        try self.pool.close()
    }

    /// The schema's migrations, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: decisions and live breaks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE decision (
                        viewer TEXT NOT NULL,
                        scope TEXT NOT NULL,
                        break_id TEXT NOT NULL,
                        decided_at_ms INTEGER NOT NULL,
                        start_offset_ns INTEGER,
                        pod_ns INTEGER NOT NULL,
                        assets TEXT NOT NULL,
                        PRIMARY KEY (viewer, scope, break_id)
                    );
                    CREATE TABLE decision_creative (
                        viewer TEXT NOT NULL,
                        creative_id TEXT NOT NULL,
                        decided_at_ms INTEGER NOT NULL
                    );
                    CREATE INDEX decision_creative_by_viewer ON decision_creative (viewer, decided_at_ms);
                    CREATE TABLE live_break (
                        channel TEXT NOT NULL,
                        id TEXT NOT NULL,
                        data TEXT NOT NULL,
                        PRIMARY KEY (channel, id)
                    );
                    """
            )
        }
        migrator.registerMigration("v2: inventory changes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE inventory_change (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        data TEXT NOT NULL
                    );
                    """
            )
        }
        return migrator
    }

    public func inventoryChanges() async throws -> [InventoryChange] {
        let rows = try await self.pool.read { db in
            try String.fetchAll(db, sql: "SELECT data FROM inventory_change ORDER BY seq")
        }
        let decoder = JSONDecoder()
        return try rows.map { try decoder.decode(InventoryChange.self, from: Data($0.utf8)) }
    }

    public func record(_ change: InventoryChange) async throws {
        let data = String(decoding: try JSONEncoder().encode(change), as: UTF8.self)
        try await self.pool.write { db in
            try db.execute(sql: "INSERT INTO inventory_change (data) VALUES (?)", arguments: [data])
        }
    }

    public func migrate() async throws {
        try await Self.migrator.migrate(self.pool)
    }

    public func decision(for key: DecisionKey) async throws -> AdDecision? {
        try await self.pool.read { db in try Self.fetchDecision(db, key) }
    }

    public func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String> {
        try await self.pool.read { db in try Self.fetchRecent(db, viewer: viewer, since: since) }
    }

    public func save(_ decision: AdDecision) async throws -> AdDecision {
        try await self.pool.write { db in
            if let existing = try Self.fetchDecision(db, decision.key) { return existing }
            try Self.insert(db, decision)
            return decision
        }
    }

    public func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        // A read first: repeated questions (the common case) do not queue behind writes.
        if let existing = try await self.decision(for: key) { return (existing, false) }
        return try await self.pool.write { db in
            if let existing = try Self.fetchDecision(db, key) { return (existing, false) }
            let recent = try recentSince.map { try Self.fetchRecent(db, viewer: key.viewer, since: $0) } ?? []
            let decision = make(recent)
            try Self.insert(db, decision)
            return (decision, true)
        }
    }

    public func decisionCount() async throws -> Int {
        try await self.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM decision") ?? 0 }
    }

    public func breaks(channel: String) async throws -> [LiveBreak] {
        let rows = try await self.pool.read { db in
            try String.fetchAll(db, sql: "SELECT data FROM live_break WHERE channel = ? ORDER BY id", arguments: [channel])
        }
        let decoder = JSONDecoder()
        return try rows.map { try decoder.decode(LiveBreak.self, from: Data($0.utf8)) }
    }

    public func save(_ liveBreak: LiveBreak) async throws {
        let data = String(decoding: try JSONEncoder().encode(liveBreak), as: UTF8.self)
        try await self.pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO live_break (channel, id, data) VALUES (?, ?, ?)",
                arguments: [liveBreak.channel, liveBreak.id, data]
            )
        }
    }

    // MARK: - Rows

    private static func fetchDecision(_ db: Database, _ key: DecisionKey) throws -> AdDecision? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT decided_at_ms, start_offset_ns, pod_ns, assets FROM decision WHERE viewer = ? AND scope = ? AND break_id = ?",
                arguments: [key.viewer, key.scope, key.breakID]
            )
        else { return nil }
        let assetsText: String = row["assets"]
        let assets = try JSONDecoder().decode([AdDecision.Asset].self, from: Data(assetsText.utf8))
        let offset: Int64? = row["start_offset_ns"]
        return AdDecision(
            viewer: key.viewer,
            scope: key.scope,
            breakID: key.breakID,
            decidedAt: DateTime(millisecondsSince1970: row["decided_at_ms"]),
            startOffset: offset.map { MediaTime(nanoseconds: $0) },
            podDuration: MediaTime(nanoseconds: row["pod_ns"]),
            assets: assets
        )
    }

    private static func fetchRecent(_ db: Database, viewer: String, since: DateTime) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql: "SELECT DISTINCT creative_id FROM decision_creative WHERE viewer = ? AND decided_at_ms >= ?",
                arguments: [viewer, since.millisecondsSince1970]
            )
        )
    }

    private static func insert(_ db: Database, _ decision: AdDecision) throws {
        let assets = String(decoding: try JSONEncoder().encode(decision.assets), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                decision.viewer, decision.scope, decision.breakID, decision.decidedAt.millisecondsSince1970,
                decision.startOffset?.nanoseconds, decision.podDuration.nanoseconds, assets,
            ]
        )
        for asset in decision.assets {
            try db.execute(
                sql: "INSERT INTO decision_creative (viewer, creative_id, decided_at_ms) VALUES (?, ?, ?)",
                arguments: [decision.viewer, asset.creativeID, decision.decidedAt.millisecondsSince1970]
            )
        }
    }
}
