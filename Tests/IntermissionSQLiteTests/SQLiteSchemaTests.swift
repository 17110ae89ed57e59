import AdInsertion
import Foundation
import GRDB
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionSQLite
@testable import IntermissionStore

/// The schema description (`StoreSchema`) against the schemas SQLiteAdStore made before it
/// (Tests/Fixtures/storage): a file an earlier version made opens without change, and a fresh one
/// has the same tables, columns and indexes.
@Suite(.realTime) struct SQLiteSchemaTests {
    private static let key = StoredDecision.key
    private static let stored = StoredDecision.decision

    /// A SQLite file's tables, columns, keys and indexes, one line each.
    private static func sqliteSchema(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            let tables = try Row.fetchAll(
                db,
                sql:
                    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            for table in tables {
                let name: String = table["name"]
                let sql: String = table["sql"]
                lines.append("\(name) without-rowid=\(sql.uppercased().contains("WITHOUT ROWID"))")
                for column in try Row.fetchAll(
                    db,
                    sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid",
                    arguments: [name]
                ) {
                    let columnName: String = column[0]
                    let type: String = column[1]
                    let notNull: Int = column[2]
                    let value: String? = column[3]
                    let key: Int = column[4]
                    lines.append("\(name).\(columnName) \(type) notnull=\(notNull) default=\(value ?? "-") pk=\(key)")
                }
                for index in try Row.fetchAll(
                    db,
                    sql: "SELECT name, \"unique\", origin FROM pragma_index_list(?) ORDER BY name",
                    arguments: [name]
                ) {
                    let indexName: String = index[0]
                    let unique: Int = index[1]
                    let origin: String = index[2]
                    let columns = try String.fetchAll(
                        db,
                        sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                        arguments: [indexName]
                    )
                    lines.append(
                        "\(name) index \(indexName) unique=\(unique) \(origin) (\(columns.joined(separator: ", ")))"
                    )
                }
            }
            return lines
        }
    }

    @Test func aSQLiteFileAnEarlierVersionMadeOpensAsItIsAndAFreshOneHasItsSchema() async throws {
        let folder = try makeScratchFolder()
        let old = folder + "/old.sqlite"
        let queue = try DatabaseQueue(path: old)
        try await queue.write { db in
            try db.execute(sql: Fixture(name: "storage/sqlite-v6.sql").text)
            let columns = DecisionColumns(Self.stored)
            try db.execute(
                sql: """
                    INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    columns.viewer, columns.scope, columns.breakID, columns.decidedAt, columns.startOffset,
                    columns.pod, columns.assets, "red", columns.nonce,
                ]
            )
        }
        try queue.close()
        let before = try Self.sqliteSchema(old)
        #expect(before.contains("decision.nonce TEXT notnull=1 default='' pk=0"))

        let store = try SQLiteAdStore(path: old)
        try await store.migrate()
        #expect(try await store.decision(for: Self.key) == Self.stored)
        #expect(try await store.recentCreatives(viewer: "ann", since: Self.stored.decidedAt) == ["red"])
        try await store.close()
        // Nothing ran: the file's schema is as the earlier version left it.
        #expect(try Self.sqliteSchema(old) == before)

        let fresh = folder + "/fresh.sqlite"
        let made = try SQLiteAdStore(path: fresh)
        try await made.migrate()
        try await made.close()
        let now = try Self.sqliteSchema(fresh)
        #expect(
            now == before,
            "only before: \(before.filter { !now.contains($0) }), only now: \(now.filter { !before.contains($0) })"
        )
    }

    @Test func theSQLiteCopyOfVersionThreeFillsTheCreatives() async throws {
        let path = try makeScratchFolder() + "/v2.sqlite"
        // A database at version 2 with one decision, migrated by the current driver.
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        for migration in StoreSchema.migrations(in: .sqlite).prefix(2) {
            migrator.registerMigration(migration.name) { db in
                for case .sql(let statement) in migration.steps { try db.execute(sql: statement) }
            }
        }
        try migrator.migrate(queue)
        let columns = DecisionColumns(Self.stored)
        try await queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    columns.viewer, columns.scope, columns.breakID, columns.decidedAt, columns.startOffset,
                    columns.pod, columns.assets,
                ]
            )
        }
        try queue.close()
        let store = try SQLiteAdStore(path: path)
        try await store.migrate()
        var expected = Self.stored
        expected.nonce = ""
        #expect(try await store.decision(for: Self.key) == expected)
        #expect(try await store.recentCreatives(viewer: "ann", since: Self.stored.decidedAt) == ["red"])
        try await store.close()
    }
}
