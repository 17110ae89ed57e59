import AdInsertion
import Foundation
import HLSPlaylist
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Logging
import PostgresNIO
import Testing

@testable import IntermissionPostgres
@testable import IntermissionStore

/// The schema description (`StoreSchema`) against the schema PostgresAdStore made before it
/// (Tests/Fixtures/storage), and the data copy of version 3.
@Suite(.realTime) struct PostgresSchemaTests {
    private static let key = StoredDecision.key
    private static let stored = StoredDecision.decision

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

    /// One row of `decision` after version 3, every column as text or number.
    private struct DecisionRow: Equatable, CustomStringConvertible {
        var viewer, scope, breakID: String
        var decidedAt: Int64
        var startOffset: Int64?
        var pod: Int64
        var assets, creatives, nonce: String

        /// The row of the columns `decision` has, in its order.
        init(_ columns: (String, String, String, Int64, Int64?, Int64, String, String, String)) {
            (self.viewer, self.scope, self.breakID, self.decidedAt, self.startOffset, self.pod) =
                (columns.0, columns.1, columns.2, columns.3, columns.4, columns.5)
            (self.assets, self.creatives, self.nonce) = (columns.6, columns.7, columns.8)
        }

        var description: String {
            "\(self.viewer.prefix(20)) \(self.scope.prefix(20)) \(self.breakID.prefix(20)) \(self.decidedAt) "
                + "\(self.startOffset.map(String.init) ?? "null") \(self.pod) assets=\(self.assets.utf8.count)B "
                + "creatives=\(self.creatives.prefix(40).debugDescription) nonce=\(self.nonce.debugDescription)"
        }
    }

    /// Every row of every table the copy touches or must leave alone, in order of their keys.
    private static func rows(
        _ connection: PostgresConnection
    ) async throws -> (decisions: [DecisionRow], breaks: [String], inventory: [String]) {
        let logger = Logger(label: "test.schema")
        var decisions: [DecisionRow] = []
        for try await columns in try await connection.query(
            "SELECT viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce FROM decision",
            logger: logger
        ).decode((String, String, String, Int64, Int64?, Int64, String, String, String).self) {
            decisions.append(DecisionRow(columns))
        }
        var breaks: [String] = []
        for try await (channel, id, data) in try await connection.query(
            "SELECT channel, id, data FROM live_break",
            logger: logger
        ).decode((String, String, String).self) {
            breaks.append("\(channel)|\(id)|\(data)")
        }
        var inventory: [String] = []
        for try await (seq, data) in try await connection.query(
            "SELECT seq, data FROM inventory_change ORDER BY seq",
            logger: logger
        ).decode((Int64, String).self) {
            inventory.append("\(seq)|\(data)")
        }
        // In Swift's order of the keys (the database's collation may order them otherwise).
        decisions.sort { ($0.viewer, $0.scope, $0.breakID) < ($1.viewer, $1.scope, $1.breakID) }
        return (decisions, breaks.sorted(), inventory)
    }

    /// A database at version 2 (made by the first two migrations, recorded as done) with rows at
    /// the edges of what its columns hold: version 3's copy brings every decision over unchanged,
    /// with its creatives in order as the decision codec writes them, leaves the other tables
    /// alone, and a second migration changes nothing.
    @Test(.enabled(if: TestPostgres.available), .timeLimit(.minutes(2)), .runningStores)
    func theCopyOfVersionThreeKeepsEveryRowAndRunsOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let big = String(repeating: "ünï-😀-漢字-", count: 100_000 / 16)
        #expect(big.utf8.count >= 100_000)
        func assets(_ creatives: [String], uri: String = "/ads/x.m3u8") -> [AdDecision.Asset] {
            creatives.map { AdDecision.Asset(creativeID: $0, uri: uri, duration: MediaTime(seconds: 10)) }
        }
        // viewer, scope, break, decided at (ms), start offset (ns), pod (ns), assets.
        var seeded: [(String, String, String, Int64, Int64?, Int64, [AdDecision.Asset])] = [
            ("ann", "vod-movie", "b", 1_767_225_600_000, nil, 30_000_000_000, assets(["red"])),
            ("zoë-😀-漢字", "vod-ü", "b→1", .max, .min, .max, assets(["крас", "😀", #"q"u\o/te"#, "red"])),
            ("big", "live-\u{7F}", "b", .min, 0, .min, assets(["a", String(repeating: "c", count: 2_000)], uri: big)),
            ("none", "vod-movie", "b", 0, .max, 0, []),
        ]
        for index in 0..<60 {
            seeded.append(
                ("v\(index)", "vod-movie", "b\(index % 3)", Int64(index), Int64(index) * -7, 1, assets(["c\(index)"]))
            )
        }
        let expected = seeded.map { viewer, scope, breakID, decidedAt, startOffset, pod, assets in
            let decision = AdDecision(
                viewer: viewer,
                scope: scope,
                breakID: breakID,
                decidedAt: t0,
                startOffset: nil,
                podDuration: MediaTime(seconds: 10),
                assets: assets
            )
            return DecisionRow(
                (
                    viewer, scope, breakID, decidedAt, startOffset, pod, DecisionColumns(decision).assets,
                    DecisionColumns.creativesText(assets), ""
                )
            )
        }.sorted { ($0.viewer, $0.scope, $0.breakID) < ($1.viewer, $1.scope, $1.breakID) }
        let breaks = ["ch|b|" + big, "ch-😀|ü|{}"].sorted()
        let inventory = ["1|" + big, "2|{\"remove\":\"漢字\"}"]
        try await Self.withConnection(url) { connection in
            let logger = Logger(label: "test.schema")
            try await connection.query(
                "CREATE TABLE intermission_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger
            )
            for migration in PostgresAdStore.migrations.prefix(2) {
                for case .sql(let statement) in migration.steps {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO intermission_migration (name) VALUES (\(migration.name))",
                    logger: logger
                )
            }
            for row in expected {
                try await connection.query(
                    """
                    INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets)
                    VALUES (\(row.viewer), \(row.scope), \(row.breakID), \(row.decidedAt), \(row.startOffset),
                        \(row.pod), \(row.assets))
                    """,
                    logger: logger
                )
                try await connection.query(
                    "INSERT INTO decision_creative (viewer, creative_id, decided_at_ms) VALUES (\(row.viewer), 'x', 0)",
                    logger: logger
                )
            }
            for line in breaks {
                let parts = line.split(separator: "|", maxSplits: 2).map(String.init)
                try await connection.query(
                    "INSERT INTO live_break (channel, id, data) VALUES (\(parts[0]), \(parts[1]), \(parts[2]))",
                    logger: logger
                )
            }
            for line in inventory {
                let data = String(line.drop { $0 != "|" }.dropFirst())
                try await connection.query("INSERT INTO inventory_change (data) VALUES (\(data))", logger: logger)
            }
        }

        let store = running(try PostgresAdStore(url: url))
        try await store.migrate()
        #expect(try await store.appliedMigrations().sorted() == PostgresAdStore.migrations.map(\.name).sorted())
        let after = try await Self.withConnection(url) { try await Self.rows($0) }
        #expect(after.decisions.count == expected.count)
        for (row, wanted) in zip(after.decisions, expected) { #expect(row == wanted) }
        #expect(after.breaks == breaks)
        #expect(after.inventory == inventory)
        // The codec reads the copied rows back as the decisions they were.
        let zoe = try #require(expected.first { $0.viewer.hasPrefix("zoë") })
        let read = try await store.decision(
            for: DecisionKey(viewer: zoe.viewer, scope: zoe.scope, breakID: zoe.breakID)
        )
        #expect(read?.assets.map(\.creativeID) == ["крас", "😀", #"q"u\o/te"#, "red"])
        let large = try await store.decision(for: DecisionKey(viewer: "big", scope: "live-\u{7F}", breakID: "b"))
        #expect(large?.assets.map(\.creativeID) == ["a", String(repeating: "c", count: 2_000)])
        #expect(large?.assets.allSatisfy { $0.uri == big } == true)

        // Again, on this store and on another: nothing runs, nothing changes.
        try await store.migrate()
        let again = running(try PostgresAdStore(url: url))
        try await again.migrate()
        #expect(try await again.appliedMigrations().sorted() == PostgresAdStore.migrations.map(\.name).sorted())
        let twice = try await Self.withConnection(url) { try await Self.rows($0) }
        #expect(twice.decisions == after.decisions)
        #expect(twice.breaks == breaks && twice.inventory == inventory)
        try await again.close()
        try await store.close()
    }
}
