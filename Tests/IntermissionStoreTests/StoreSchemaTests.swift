import Testing

@testable import IntermissionStore

/// The schema description (`StoreSchema`): the migrations' names and each dialect's statements.
///
/// The drivers' schemas against it are in IntermissionSQLiteTests and IntermissionPostgresTests.
@Suite struct StoreSchemaTests {
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
}
