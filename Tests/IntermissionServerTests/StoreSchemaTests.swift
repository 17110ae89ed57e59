import AdInsertion
import Foundation
import GRDB
import HLSPlaylist
import IntermissionTestSupport
import Logging
import PostgresNIO
import Testing

@testable import IntermissionPostgres
@testable import IntermissionSQLite
@testable import IntermissionStore

/// The schema description (`StoreSchema`) against the schemas the drivers made before it
/// (Tests/Fixtures/storage): a database an earlier version made opens without change, and a fresh
/// one has the same tables, columns and indexes.
@Suite(.realTime) struct StoreSchemaTests {
    private static let key = DecisionKey(viewer: "ann", scope: "vod-movie", breakID: "b")

    /// The decision the old database holds, written by hand in its columns.
    private static let stored = AdDecision(
        viewer: "ann",
        scope: "vod-movie",
        breakID: "b",
        decidedAt: DateTime(millisecondsSince1970: 1_767_225_600_000),
        startOffset: nil,
        podDuration: MediaTime(seconds: 30),
        assets: [AdDecision.Asset(creativeID: "red", uri: "/ads/red.m3u8", duration: MediaTime(seconds: 30))],
        nonce: "n0"
    )

    /// Each migration's name, in order, as the drivers recorded them before the description: it
    /// must give the same (a database records these).
    @Test func theMigrationsKeepTheNamesBothDriversRecorded() {
        #expect(
            StoreSchema.migrations(in: .sqlite).map(\.name) == [
                "v1: decisions and live breaks", "v2: inventory changes", "v3: decisions carry their creatives",
                "v4: tracking beacons", "v5: decision nonces", "v6: creative conditioning",
            ]
        )
        #expect(
            StoreSchema.migrations(in: .postgres).map(\.name) == [
                "v1: decisions and live breaks", "v2: inventory changes", "v3: decisions carry their creatives",
                "v4 (PostgreSQL): break revisions shared by instances", "v5 (PostgreSQL): tracking beacons",
                "v6 (PostgreSQL): group inputs relayed between instances", "v7: decision nonces, and decisions by age",
                "v8: creative conditioning",
            ]
        )
    }

    /// The statements of one change in each dialect.
    @Test func aTableIsWrittenInEachDialect() {
        let table = TableDefinition(
            "t",
            [
                ColumnDefinition("id", .text), ColumnDefinition("n", .integer, default: "0"),
                ColumnDefinition("at", .integer, nullable: true),
            ],
            primaryKey: ["id"],
            withoutRowID: true
        )
        #expect(
            SchemaChange.createTable(table).steps(in: .sqlite) == [
                .sql(
                    "CREATE TABLE t (id TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, at INTEGER, PRIMARY KEY (id)) WITHOUT ROWID"
                )
            ]
        )
        #expect(
            SchemaChange.createTable(table).steps(in: .postgres) == [
                .sql("CREATE TABLE t (id TEXT NOT NULL, n BIGINT NOT NULL DEFAULT 0, at BIGINT, PRIMARY KEY (id))")
            ]
        )
        let counter = TableDefinition("c", [ColumnDefinition("seq", .counter), ColumnDefinition("data", .text)])
        #expect(
            SchemaChange.createTable(counter).steps(in: .sqlite) == [
                .sql("CREATE TABLE c (seq INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL)")
            ]
        )
        #expect(
            SchemaChange.createTable(counter).steps(in: .postgres) == [
                .sql("CREATE TABLE c (seq BIGSERIAL PRIMARY KEY, data TEXT NOT NULL)")
            ]
        )
        let index = SchemaChange.only(.postgres, .createIndex(IndexDefinition("i", on: "t", ["n", "at"])))
        #expect(index.steps(in: .sqlite).isEmpty)
        #expect(index.steps(in: .postgres) == [.sql("CREATE INDEX i ON t (n, at)")])
    }

    // MARK: - SQLite

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

    // MARK: - PostgreSQL

    /// Runs `body` on a connection to the database `url` names.
    private static func withConnection<T: Sendable>(
        _ url: String,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let settings = try PostgresURL(parsing: url)
        let connection = try await PostgresConnection.connect(
            configuration: settings.connectionConfiguration,
            id: 1,
            logger: Logger(label: "test.schema")
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A database's tables, columns and indexes, one line each (the migrations' record left out).
    private static func postgresSchema(_ url: String) async throws -> [String] {
        try await Self.withConnection(url) { connection in
            let logger = Logger(label: "test.schema")
            var lines: [String] = []
            for try await (table, column, type, nullable, value) in try await connection.query(
                """
                SELECT table_name::text, column_name::text, data_type::text, is_nullable::text, column_default::text
                FROM information_schema.columns WHERE table_schema = 'public'
                ORDER BY table_name, ordinal_position
                """,
                logger: logger
            ).decode((String, String, String, String, String?).self) {
                lines.append("\(table).\(column) \(type) nullable=\(nullable) default=\(value ?? "-")")
            }
            for try await (table, definition) in try await connection.query(
                "SELECT tablename::text, indexdef::text FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname",
                logger: logger
            ).decode((String, String).self) {
                lines.append("\(table) \(definition)")
            }
            return lines.filter { !$0.hasPrefix("intermission_migration") }
        }
    }

    @Test(.enabled(if: TestPostgres.available), .timeLimit(.minutes(2)), .runningStores)
    func aPostgresDatabaseAnEarlierVersionMadeOpensAsItIsAndAFreshOneHasItsSchema() async throws {
        let old = try await TestPostgres.freshDatabase()
        let fixture = Fixture(name: "storage/postgres-v8.sql").text
        let statements = fixture.components(separatedBy: ";\n").map {
            $0.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
        }.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        let columns = DecisionColumns(Self.stored)
        try await Self.withConnection(old) { connection in
            let logger = Logger(label: "test.schema")
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(
                """
                INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce)
                VALUES (\(columns.viewer), \(columns.scope), \(columns.breakID), \(columns.decidedAt),
                    \(columns.startOffset), \(columns.pod), \(columns.assets), 'red', \(columns.nonce))
                """,
                logger: logger
            )
        }
        let before = try await Self.postgresSchema(old)
        #expect(before.contains { $0.hasPrefix("decision.nonce text nullable=NO") })

        let store = running(try PostgresAdStore(url: old))
        try await store.migrate()
        #expect(try await store.decision(for: Self.key) == Self.stored)
        #expect(try await store.appliedMigrations().count == 8)
        try await store.close()
        #expect(try await Self.postgresSchema(old) == before)

        let fresh = try await TestPostgres.freshDatabase()
        let made = running(try PostgresAdStore(url: fresh))
        try await made.migrate()
        try await made.close()
        let now = try await Self.postgresSchema(fresh)
        #expect(
            now == before,
            "only before: \(before.filter { !now.contains($0) }), only now: \(now.filter { !before.contains($0) })"
        )
    }
}
