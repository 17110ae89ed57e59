/// The SQL dialects of the storage drivers.
package enum SQLDialect: Sendable, Hashable, CaseIterable {
    /// SQLite (`IntermissionSQLite`).
    case sqlite
    /// PostgreSQL (`IntermissionPostgres`).
    case postgres
}

/// A column's type, as both dialects store it.
package enum ColumnType: Sendable, Hashable {
    /// Text (`TEXT`).
    case text
    /// A 64-bit integer (`INTEGER` in SQLite, `BIGINT` in PostgreSQL).
    case integer
    /// An instant of the database's clock (`TIMESTAMPTZ`; tables of PostgreSQL only).
    case timestamp
    /// The table's key, numbered by the database in insertion order (`INTEGER PRIMARY KEY
    /// AUTOINCREMENT` in SQLite, `BIGSERIAL PRIMARY KEY` in PostgreSQL).
    case counter

    /// The type's name in `dialect`.
    func name(in dialect: SQLDialect) -> String {
        switch (self, dialect) {
        case (.text, _): "TEXT"
        case (.integer, .sqlite): "INTEGER"
        case (.integer, .postgres): "BIGINT"
        case (.timestamp, _): "TIMESTAMPTZ"
        case (.counter, .sqlite): "INTEGER PRIMARY KEY AUTOINCREMENT"
        case (.counter, .postgres): "BIGSERIAL PRIMARY KEY"
        }
    }
}

/// One column of a table.
package struct ColumnDefinition: Sendable, Hashable {
    /// Its name.
    package var name: String
    /// Its type.
    package var type: ColumnType
    /// Whether it may hold `NULL` (a counter never does).
    package var nullable: Bool
    /// Its default, as an SQL literal both dialects read (`0`, `''`), or `nil`.
    package var defaultValue: String?

    /// A column; `NOT NULL` unless `nullable`.
    package init(_ name: String, _ type: ColumnType, nullable: Bool = false, default defaultValue: String? = nil) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
    }

    /// Its definition in `CREATE TABLE` or `ADD COLUMN`.
    func sql(in dialect: SQLDialect) -> String {
        var text = self.name + " " + self.type.name(in: dialect)
        if !self.nullable && self.type != .counter { text += " NOT NULL" }
        if let value = self.defaultValue { text += " DEFAULT " + value }
        return text
    }
}

/// A table: its columns in order and its key.
package struct TableDefinition: Sendable, Hashable {
    /// Its name.
    package var name: String
    /// Its columns, in order.
    package var columns: [ColumnDefinition]
    /// The columns of its primary key (empty when it has none, or when a counter is its key).
    package var primaryKey: [String]
    /// Whether SQLite keeps its rows in the key's B-tree alone (`WITHOUT ROWID`; PostgreSQL has no
    /// such choice).
    package var withoutRowID: Bool

    /// A table.
    package init(_ name: String, _ columns: [ColumnDefinition], primaryKey: [String] = [], withoutRowID: Bool = false) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.withoutRowID = withoutRowID
    }

    /// The same table under another name.
    package func named(_ name: String) -> TableDefinition {
        var table = self
        table.name = name
        return table
    }

    /// The same table with more columns after its own.
    package func adding(_ columns: [ColumnDefinition]) -> TableDefinition {
        var table = self
        table.columns += columns
        return table
    }

    /// Its `CREATE TABLE` statement in `dialect`.
    func sql(in dialect: SQLDialect) -> String {
        var parts = self.columns.map { $0.sql(in: dialect) }
        if !self.primaryKey.isEmpty { parts.append("PRIMARY KEY (" + self.primaryKey.joined(separator: ", ") + ")") }
        let rowID = dialect == .sqlite && self.withoutRowID ? " WITHOUT ROWID" : ""
        return "CREATE TABLE \(self.name) (" + parts.joined(separator: ", ") + ")" + rowID
    }
}

/// An index of a table.
package struct IndexDefinition: Sendable, Hashable {
    /// Its name.
    package var name: String
    /// The table it indexes.
    package var table: String
    /// The columns, in order.
    package var columns: [String]

    /// An index.
    package init(_ name: String, on table: String, _ columns: [String]) {
        self.name = name
        self.table = table
        self.columns = columns
    }
}

/// Rows a migration moves, which each driver copies its own way (SQLite in Swift, PostgreSQL in
/// SQL).
package enum DataCopy: Sendable, Hashable {
    /// Every row of `decision` into `decision_v3`, with the creatives of its assets' JSON, one per
    /// line, as `creatives` (`DecisionColumns.creativesText(_:)`).
    case decisionsWithCreatives
}

/// One change of a migration.
package indirect enum SchemaChange: Sendable, Hashable {
    /// Creates a table.
    case createTable(TableDefinition)
    /// Creates an index.
    case createIndex(IndexDefinition)
    /// Adds a column at the end of a table (existing rows take its default).
    case addColumn(table: String, ColumnDefinition)
    /// Drops a table.
    case dropTable(String)
    /// Renames a table.
    case renameTable(String, to: String)
    /// Copies rows, as each driver does it.
    case copy(DataCopy)
    /// A change made in one dialect only.
    case only(SQLDialect, SchemaChange)

    /// What a driver of `dialect` runs for this change: SQL, a copy, or nothing.
    func steps(in dialect: SQLDialect) -> [MigrationStep] {
        switch self {
        case .createTable(let table): [.sql(table.sql(in: dialect))]
        case .createIndex(let index):
            [.sql("CREATE INDEX \(index.name) ON \(index.table) (" + index.columns.joined(separator: ", ") + ")")]
        case .addColumn(let table, let column): [.sql("ALTER TABLE \(table) ADD COLUMN " + column.sql(in: dialect))]
        case .dropTable(let table): [.sql("DROP TABLE \(table)")]
        case .renameTable(let table, let name): [.sql("ALTER TABLE \(table) RENAME TO \(name)")]
        case .copy(let copy): [.copy(copy)]
        case .only(let only, let change): only == dialect ? change.steps(in: dialect) : []
        }
    }
}

/// What a driver runs for one change.
package enum MigrationStep: Sendable, Hashable {
    /// One SQL statement.
    case sql(String)
    /// Rows the driver copies its own way.
    case copy(DataCopy)
}

/// One migration: its name as each dialect records it (a dialect without a name skips it), and its
/// changes in order.
package struct SchemaMigration: Sendable, Hashable {
    /// The name each dialect records (`grdb_migrations` in SQLite, `intermission_migration` in
    /// PostgreSQL); they are the names the drivers recorded before this description existed, so a
    /// database made by an earlier version migrates on.
    package var names: [SQLDialect: String]
    /// The changes, in order.
    package var changes: [SchemaChange]

    /// A migration both dialects run under the same name.
    init(_ name: String, _ changes: [SchemaChange]) {
        self.names = [.sqlite: name, .postgres: name]
        self.changes = changes
    }

    /// A migration with a name for each dialect that runs it.
    init(sqlite: String?, postgres: String?, _ changes: [SchemaChange]) {
        self.names = [:]
        if let sqlite { self.names[.sqlite] = sqlite }
        if let postgres { self.names[.postgres] = postgres }
        self.changes = changes
    }
}

/// The storage schema, described once: the tables, their columns, keys and indexes, and the
/// migrations that make them, in order.
///
/// Both drivers derive their statements from it
/// (``migrations(in:)``), so they cannot drift apart.
package enum StoreSchema {
    /// A decision, as version 1 stored it (version 3 adds `creatives`).
    static let decisionV1 = TableDefinition(
        "decision",
        [
            ColumnDefinition("viewer", .text),
            ColumnDefinition("scope", .text),
            ColumnDefinition("break_id", .text),
            ColumnDefinition("decided_at_ms", .integer),
            ColumnDefinition("start_offset_ns", .integer, nullable: true),
            ColumnDefinition("pod_ns", .integer),
            ColumnDefinition("assets", .text),
        ],
        primaryKey: ["viewer", "scope", "break_id"]
    )

    /// Every migration, oldest first.
    package static let migrations: [SchemaMigration] = [
        SchemaMigration(
            "v1: decisions and live breaks",
            [
                .createTable(decisionV1),
                .createTable(
                    TableDefinition(
                        "decision_creative",
                        [
                            ColumnDefinition("viewer", .text),
                            ColumnDefinition("creative_id", .text),
                            ColumnDefinition("decided_at_ms", .integer),
                        ]
                    )
                ),
                .createIndex(
                    IndexDefinition(
                        "decision_creative_by_viewer",
                        on: "decision_creative",
                        ["viewer", "decided_at_ms"]
                    )
                ),
                .createTable(
                    TableDefinition(
                        "live_break",
                        [
                            ColumnDefinition("channel", .text), ColumnDefinition("id", .text),
                            ColumnDefinition("data", .text),
                        ],
                        primaryKey: ["channel", "id"]
                    )
                ),
            ]
        ),
        SchemaMigration(
            "v2: inventory changes",
            [
                .createTable(
                    TableDefinition(
                        "inventory_change",
                        [ColumnDefinition("seq", .counter), ColumnDefinition("data", .text)]
                    )
                )
            ]
        ),
        // Two B-trees instead of four (SQLite): rows are appended in decision order and the key
        // index finds them; the creatives a decision gave are a column, which the repeat window
        // reads through the key's viewer prefix.
        SchemaMigration(
            "v3: decisions carry their creatives",
            [
                .createTable(decisionV1.named("decision_v3").adding([ColumnDefinition("creatives", .text)])),
                .copy(.decisionsWithCreatives),
                .dropTable("decision"),
                .dropTable("decision_creative"),
                .renameTable("decision_v3", to: "decision"),
            ]
        ),
        SchemaMigration(
            sqlite: nil,
            postgres: "v4 (PostgreSQL): break revisions shared by instances",
            [
                .createTable(
                    TableDefinition(
                        "break_revision",
                        [ColumnDefinition("channel", .text), ColumnDefinition("revision", .integer)],
                        primaryKey: ["channel"]
                    )
                )
            ]
        ),
        SchemaMigration(
            sqlite: "v4: tracking beacons",
            postgres: "v5 (PostgreSQL): tracking beacons",
            [
                .createTable(
                    TableDefinition(
                        "tracking_beacon",
                        [
                            ColumnDefinition("viewer", .text),
                            ColumnDefinition("scope", .text),
                            ColumnDefinition("break_id", .text),
                            ColumnDefinition("slot", .integer),
                            ColumnDefinition("event", .text),
                            ColumnDefinition("creative_id", .text),
                            ColumnDefinition("plan", .text),
                            ColumnDefinition("received_at_ms", .integer),
                            ColumnDefinition("duplicates", .integer, default: "0"),
                        ],
                        primaryKey: ["viewer", "scope", "break_id", "slot", "event"],
                        withoutRowID: true
                    )
                ),
                .createIndex(
                    IndexDefinition("tracking_beacon_by_break", on: "tracking_beacon", ["scope", "break_id"])
                ),
                .createIndex(IndexDefinition("tracking_beacon_by_creative", on: "tracking_beacon", ["creative_id"])),
            ]
        ),
        // The group relay: each group's last input number (`group_head`, whose row lock orders a
        // group's inputs), its inputs, and the instances heard from.
        SchemaMigration(
            sqlite: nil,
            postgres: "v6 (PostgreSQL): group inputs relayed between instances",
            [
                .createTable(
                    TableDefinition(
                        "group_head",
                        [ColumnDefinition("group_id", .text), ColumnDefinition("n", .integer)],
                        primaryKey: ["group_id"]
                    )
                ),
                .createTable(
                    TableDefinition(
                        "group_input",
                        [
                            ColumnDefinition("group_id", .text), ColumnDefinition("n", .integer),
                            ColumnDefinition("data", .text),
                        ],
                        primaryKey: ["group_id", "n"]
                    )
                ),
                .createTable(
                    TableDefinition(
                        "group_instance",
                        [ColumnDefinition("instance", .text), ColumnDefinition("seen_at", .timestamp)],
                        primaryKey: ["instance"]
                    )
                ),
            ]
        ),
        // Rows stored before have no nonce (their beacon URLs carry an empty one). PostgreSQL's
        // pruner takes the oldest decisions first through an index of their age.
        SchemaMigration(
            sqlite: "v5: decision nonces",
            postgres: "v7: decision nonces, and decisions by age",
            [
                .addColumn(table: "decision", ColumnDefinition("nonce", .text, default: "''")),
                .only(.postgres, .createIndex(IndexDefinition("decision_by_age", on: "decision", ["decided_at_ms"]))),
            ]
        ),
        // One row per creative and target, with its state, attempts and lease.
        SchemaMigration(
            sqlite: "v6: creative conditioning",
            postgres: "v8: creative conditioning",
            [
                .createTable(
                    TableDefinition(
                        "creative_conditioning",
                        [
                            ColumnDefinition("key", .text),
                            ColumnDefinition("creative_id", .text),
                            ColumnDefinition("source_url", .text),
                            ColumnDefinition("state", .text),
                            ColumnDefinition("attempts", .integer, default: "0"),
                            ColumnDefinition("next_attempt_ms", .integer, nullable: true),
                            ColumnDefinition("lease_owner", .text, nullable: true),
                            ColumnDefinition("lease_expiry_ms", .integer, nullable: true),
                            ColumnDefinition("error", .text, nullable: true),
                            ColumnDefinition("updated_at_ms", .integer),
                        ],
                        primaryKey: ["key"]
                    )
                )
            ]
        ),
    ]

    /// The migrations a driver of `dialect` runs, in order: each one's recorded name and its steps.
    package static func migrations(in dialect: SQLDialect) -> [(name: String, steps: [MigrationStep])] {
        self.migrations.compactMap { migration in
            guard let name = migration.names[dialect] else { return nil }
            return (name, migration.changes.flatMap { $0.steps(in: dialect) })
        }
    }
}
