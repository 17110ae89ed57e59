import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionStore
import Logging
import PostgresNIO
import Synchronization

/// An `AdStore` in a PostgreSQL database (postgres-nio), shared by any number of server instances.
///
/// Decisions take no lock, in this process or in the database: the decision table's key is
/// (viewer, scope, break), and a new decision is `INSERT … ON CONFLICT DO NOTHING`; when the insert
/// finds a row (another request, here or on another instance, stored one first) the stored row is
/// read back and answered instead. So every instance gives a viewer the same pod for a break, and
/// a decision is answered only after its row is committed. Each question costs two prepared
/// statements on pooled connections (one read that finds an earlier decision and the viewer's
/// recent creatives together, one insert); a question asked again is answered from the remembered
/// decisions, as in `SQLiteAdStore`.
///
/// Live breaks are shared too: saving one bumps the channel's revision in `break_revision` and
/// sends `NOTIFY intermission_breaks, 'CHANNEL REVISION'` in the same transaction (delivered at
/// commit; PostgreSQL's channels are per database, so instances on other databases never hear it).
/// Every instance `LISTEN`s on a connection of its own and, as the fallback for a notification
/// missed (a dropped connection, a restart of the database), re-reads every revision each
/// ``PostgresURL/reread`` period (1 s unless configured). A revision newer than the one it knows
/// comes out of ``breakChanges()``, and the server forgets that channel's breaks and cached
/// playlists, so a break made on one instance is in the others' playlists within one target
/// duration. Inventory changes travel the same way (``inventoryUpdates()``): a creative added or
/// removed through one instance's admin API is in every instance's decisions within a re-read
/// period, without a restart.
///
/// The connection pool runs in the task group or the service group that owns the store
/// (``run()``; the server runs it as the first service of its group, so it stops after the store
/// has closed); the store starts no task of its own for it.
///
/// The schema is migrated with the same steps as SQLite's (recorded by name in
/// `intermission_migration`), in one transaction under an advisory lock, so instances that start
/// together migrate once.
public final class PostgresAdStore: ServerStore, SharedStoreChanges, TransactionalDecisionStore {
    /// The `NOTIFY` channel of break changes.
    package static let notifyChannel = "intermission_breaks"

    package let client: PostgresClient
    /// Where a connection of its own goes (``withOwnConnection(_:)``).
    let connection: PostgresConnection.Configuration
    package let settings: PostgresURL
    package let logger: Logger
    package let memory: Mutex<RememberedDecisions>
    private let gate = Mutex(Gate())
    private let known = Mutex([String: Int64]())
    private let changes: (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation)
    private let watcher = Mutex<Task<Void, Never>?>(nil)
    private let inventoryKnown = Mutex<Int64>(0)
    /// Where decisions and beacons go while the database cannot be reached (`journal=PATH`).
    package let journal: DecisionJournal?
    /// Until when requests go to the journal without trying the database (a second after a
    /// failure; the journal's writer probes it meanwhile), as time on ``clock`` since the store
    /// was made (``elapsed``).
    package let downUntil = Mutex<Duration?>(nil)
    /// What the store's background loops wait on (the re-read, listening again, the journal's
    /// writer), what its requests' deadline is measured on, and what the journal's window after a
    /// failure is measured on: `ContinuousClock` unless a test passes its own.
    package let clock: any Clock<Duration>
    /// The time on ``clock`` since the store was made.
    private let reading: @Sendable () -> Duration
    private let inventorySignals = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    /// Group inputs as notified (`listenForGroups()`); a notice dropped from a full buffer is
    /// found again from the table when the next one shows the gap.
    package let groupNoticeStream = AsyncStream.makeStream(
        of: GroupRelayNotice.self,
        bufferingPolicy: .bufferingNewest(65_536)
    )
    /// Whether this store relays the groups of the instances on its database (`groups=relay`).
    package var relaysGroups: Bool { self.settings.relaysGroups }

    /// Requests in flight, so that ``close()`` lets them finish.
    private struct Gate {
        var closed = false
        var inFlight = 0
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    /// Opens a pool of connections to the database `url` names (connections are made when needed).
    ///
    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?OPTIONS]` (see the IntermissionServer article "Behind a CDN, and several instances").
    ///   - remembering: How many decisions to remember for questions asked again (at least 1).
    ///   - clock: What the store's background work waits on and measures its deadlines with.
    /// - Throws: `ConfigurationError` when the URL is not usable.
    public convenience init(
        url: String,
        remembering: Int = PostgresAdStore.defaultRememberedDecisions,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        try self.init(settings: PostgresURL(parsing: url), remembering: remembering, clock: clock)
    }

    package init(
        settings: PostgresURL,
        remembering: Int,
        clock: some Clock<Duration> = ContinuousClock()
    ) throws {
        let origin = clock.now
        self.clock = clock
        self.reading = { origin.duration(to: clock.now) }
        self.journal = try settings.journal.map { try DecisionJournal(path: $0) }
        var configuration = PostgresClient.Configuration(
            host: settings.host,
            port: settings.port,
            username: settings.user,
            password: settings.password,
            database: settings.database,
            tls: .disable
        )
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.connectTimeout = .seconds(5)
        var logger = Logger(label: "intermission.postgres")
        logger.logLevel = .warning
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.connection = settings.connectionConfiguration
        self.settings = settings
        self.logger = logger
        self.memory = Mutex(RememberedDecisions(capacity: max(1, remembering)))
        self.changes = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// The time on ``clock`` since the store was made.
    package var elapsed: Duration { self.reading() }

    /// Runs the connection pool until the calling task is cancelled (or, in a service group, shuts
    /// down gracefully): the store's requests wait for it.
    ///
    /// Call it once, from the task group or the
    /// service group that owns the store, and end it after ``close()``; the server runs it as the
    /// first service of its group, so that it stops after the store has closed. The schema's
    /// migration and the inventory's reads do not need it (each opens a connection of its own).
    public func run() async {
        await self.client.run()
    }

    /// Tracking, conditioning, group relay (unless the URL says `groups=local`) and the decision
    /// journal (when configured) in the same database, shared by every instance.
    public var capabilities: StoreCapabilities {
        StoreCapabilities(
            tracking: self,
            conditioning: self,
            shared: self,
            groupRelay: self.relaysGroups ? self : nil,
            journal: self.journal,
            run: { await self.run() }
        )
    }

    // MARK: - Lifecycle

    /// How long one request may take (waiting for a connection included) before it fails with a
    /// storage error, so that an unreachable database never holds a viewer's request
    /// (``PostgresURL/timeout``, 5 s unless configured).
    package var requestDeadline: Duration { self.settings.timeout }

    /// Runs `body` unless the store is closed, counting it as in flight, and fails it after
    /// ``requestDeadline`` even when the body is still waiting for the database (it is cancelled
    /// and left to end by itself: see `Deadline`).
    @discardableResult
    package func admitted<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let open = self.gate.withLock { gate -> Bool in
            guard !gate.closed else { return false }
            gate.inFlight += 1
            return true
        }
        guard open else {
            throw AdInsertionError(code: .storage, message: "the store is shutting down; nothing was stored")
        }
        defer {
            let idle = self.gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
                gate.inFlight -= 1
                guard gate.inFlight == 0 else { return [] }
                defer { gate.idle = [] }
                return gate.idle
            }
            for waiting in idle { waiting.resume() }
        }
        do {
            return try await Deadline.run(self.requestDeadline, clock: self.clock, body)
        } catch is Deadline.Expired {
            throw AdInsertionError(
                code: .storage,
                message: "PostgreSQL did not answer within \(self.requestDeadline); the request was given up"
            )
        } catch let error as AdInsertionError {
            throw error
        } catch {
            throw AdInsertionError(code: .storage, message: "PostgreSQL: \(Self.describe(error))")
        }
    }

    /// What a database error says, without the query's bound values.
    package static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
            }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Refuses new requests, lets those in flight finish, then closes every connection.
    public func close() async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = self.gate.withLock { gate -> Bool in
                gate.closed = true
                guard gate.inFlight > 0 else { return true }
                gate.idle.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        // The listener gives its connection back before the pool stops.
        let watcher = self.watcher.withLock { $0 }
        watcher?.cancel()
        await watcher?.value
        self.changes.continuation.finish()
        self.journal?.release()
    }

    /// Runs `body` on a connection of its own, opened for it and closed after: what must work
    /// before the pool runs (the server migrates and reads the inventory while it builds, before
    /// its services start).
    func withOwnConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: self.connection,
            id: 0,
            logger: self.logger
        )
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Why nothing can be stored now: the store is closed; `nil` otherwise (an unreachable database
    /// shows in the first request that fails).
    public func unavailability() async -> String? {
        self.gate.withLock { $0.closed } ? "the PostgreSQL store is closed" : nil
    }

    // MARK: - Schema

    /// The schema's migrations, in order, as `StoreSchema` describes them (recorded in
    /// `intermission_migration` under the names earlier versions recorded).
    package static let migrations = StoreSchema.migrations(in: .postgres)

    /// Copies every decision of version 1 into `decision_v3`, with the creatives of each, in
    /// order, from its assets' JSON (`creativeID`), one per line as the decision codec writes them.
    static let copyDecisionsWithCreatives = """
        INSERT INTO decision_v3 (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives)
        SELECT viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets,
            COALESCE((SELECT string_agg(a.value->>'creativeID', E'\\n' ORDER BY a.ordinality)
                FROM jsonb_array_elements(assets::jsonb) WITH ORDINALITY AS a), '')
        FROM decision
        """

    /// Brings the schema up to date: the steps not yet recorded run in one transaction, under an
    /// advisory lock so instances starting together wait for each other (idempotent).
    public func migrate() async throws {
        try await self.admitted {
            try await self.withOwnConnection { own in
                try await own.withTransaction(logger: self.logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(7369746552)", logger: self.logger)
                    try await connection.query(
                        "CREATE TABLE IF NOT EXISTS intermission_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                        logger: self.logger
                    )
                    var applied = Set<String>()
                    for try await name in try await connection.query(
                        "SELECT name FROM intermission_migration",
                        logger: self.logger
                    ).decode(String.self) {
                        applied.insert(name)
                    }
                    for migration in Self.migrations where !applied.contains(migration.name) {
                        for step in migration.steps {
                            let statement =
                                switch step {
                                case .sql(let statement): statement
                                case .copy(.decisionsWithCreatives): Self.copyDecisionsWithCreatives
                                }
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                        }
                        try await connection.query(
                            "INSERT INTO intermission_migration (name) VALUES (\(migration.name))",
                            logger: self.logger
                        )
                    }
                }
            }
        }
        self.startWatching()
    }

    /// The names of the steps recorded as done, in the order they ran.
    package func appliedMigrations() async throws -> [String] {
        try await self.admitted {
            var names: [String] = []
            for try await name in try await self.client.query(
                "SELECT name FROM intermission_migration ORDER BY applied_at, name"
            ).decode(String.self) {
                names.append(name)
            }
            return names
        }
    }

    // MARK: - Decisions

    /// The decision for `key` when the store remembers it (stored or found by this store).
    public func rememberedDecision(for key: DecisionKey) -> AdDecision? {
        self.memory.withLock { $0.decision(for: key) }
    }

    /// The decision stored for a key.
    ///
    /// While decisions go to the journal (``journaling(_:)``), the database is not asked: the
    /// decision journaled or remembered, or none.
    public func decision(for key: DecisionKey) async throws -> AdDecision? {
        if let journal = self.journal {
            if let journaled = journal.decision(for: key) { return journaled }
            if self.journaling(journal) { return self.rememberedDecision(for: key) }
        }
        return try await self.admitted { try await self.find(key, recentSince: nil).existing }
    }

    /// The creatives a viewer was given in decisions made at or after `since`.
    ///
    /// While decisions go to the journal, the journaled ones only.
    public func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String> {
        if let journal = self.journal, self.journaling(journal) {
            return journal.recentCreatives(viewer: viewer, since: since)
        }
        return try await self.admitted {
            var creatives = Set<String>()
            let rows = try await self.client.query(
                "SELECT creatives FROM decision WHERE viewer = \(viewer) AND decided_at_ms >= \(since.millisecondsSince1970)"
            )
            for try await list in rows.decode(String.self) { creatives.formUnion(DecisionColumns.creatives(in: list)) }
            return creatives
        }
    }

    /// Returns the stored decision for `key`, or makes one with `make` and stores it; when another
    /// request (of any instance) stores one first, that one is answered.
    public func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        if let known = self.rememberedDecision(for: key) { return (known, false) }
        if let journal = self.journal {
            if let journaled = journal.decision(for: key) { return (journaled, false) }
            if self.journaling(journal) {
                return try self.journaled(key, recentSince: recentSince, make: make, in: journal)
            }
            do {
                return try await self.findOrCreateInDatabase(key, recentSince: recentSince, make: make)
            } catch let error as AdInsertionError where error.code == .storage {
                self.failed(error, journal: journal)
                return try self.journaled(key, recentSince: recentSince, make: make, in: journal)
            }
        }
        return try await self.findOrCreateInDatabase(key, recentSince: recentSince, make: make)
    }

    /// ``findOrCreateDecision(_:recentSince:make:)`` in the database alone.
    private func findOrCreateInDatabase(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        try await self.admitted {
            let found = try await self.find(key, recentSince: recentSince)
            if let existing = found.existing {
                self.memory.withLock { $0.remember(existing, for: key) }
                return (existing, false)
            }
            let made = make(found.recent)
            if try await self.insert(made) {
                self.memory.withLock { $0.remember(made, for: key) }
                return (made, true)
            }
            // Another request stored one between the read and the insert: it is the answer.
            guard let winner = try await self.find(key, recentSince: nil).existing else {
                throw AdInsertionError(
                    code: .storage,
                    message: "PostgreSQL: the decision's row was neither inserted nor found"
                )
            }
            self.memory.withLock { $0.remember(winner, for: key) }
            return (winner, false)
        }
    }

    /// Inserts a decision unless its key has one; whether it inserted it.
    package func insert(_ decision: AdDecision) async throws -> Bool {
        var inserted = 0
        for try await _ in try await self.client.execute(InsertDecision(decision: decision)) { inserted += 1 }
        return inserted == 1
    }

    /// The decision stored for `key` and the viewer's creatives since `recentSince`, in one query.
    package func find(
        _ key: DecisionKey,
        recentSince: DateTime?
    ) async throws -> (
        existing: AdDecision?, recent: Set<String>
    ) {
        var existing: AdDecision?
        var recent = Set<String>()
        let statement = FindDecision(key: key, since: recentSince?.millisecondsSince1970 ?? .max)
        for try await row in try await self.client.execute(statement) {
            recent.formUnion(DecisionColumns.creatives(in: row.creatives))
            guard row.isKey else { continue }
            existing = try DecisionColumns(
                viewer: key.viewer,
                scope: key.scope,
                breakID: key.breakID,
                decidedAt: row.decidedAt,
                startOffset: row.startOffset,
                pod: row.pod,
                assets: row.assets,
                nonce: row.nonce
            ).decision()
        }
        return (existing, recentSince == nil ? [] : recent)
    }

    /// How many decisions are stored.
    public func decisionCount() async throws -> Int {
        try await self.admitted {
            var count: Int64 = 0
            for try await value in try await self.client.query("SELECT COUNT(*) FROM decision").decode(Int64.self) {
                count = value
            }
            return Int(count)
        }
    }

    /// Deletes up to `limit` decisions (see `DecisionStore.pruneDecisions(decidedBefore:keeping:limit:)`):
    /// those decided before `decidedBefore`, oldest first (through the `decided_at_ms` index), then
    /// the oldest of the rest while more than `keeping` are stored.
    ///
    /// Each delete is one statement;
    /// PostgreSQL's `VACUUM` (autovacuum) makes the space of deleted rows reusable.
    public func pruneDecisions(decidedBefore: DateTime, keeping: Int, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        var keys = try await self.deleteOldest(limit: limit, decidedBefore: decidedBefore.millisecondsSince1970)
        if keys.count < limit {
            let excess = min(limit - keys.count, try await self.decisionCount() - max(0, keeping))
            if excess > 0 { keys += try await self.deleteOldest(limit: excess, decidedBefore: .max) }
        }
        self.memory.withLock { memory in
            for key in keys { memory.forget(key) }
        }
        return keys.count
    }

    /// Deletes the `limit` oldest decisions decided before `decidedBefore` (Unix milliseconds) and
    /// returns their keys.
    private func deleteOldest(limit: Int, decidedBefore: Int64) async throws -> [DecisionKey] {
        try await self.admitted {
            var keys: [DecisionKey] = []
            let rows = try await self.client.query(
                """
                DELETE FROM decision WHERE (viewer, scope, break_id) IN (
                    SELECT viewer, scope, break_id FROM decision WHERE decided_at_ms < \(decidedBefore)
                    ORDER BY decided_at_ms LIMIT \(Int64(limit))
                ) RETURNING viewer, scope, break_id
                """,
                logger: self.logger
            )
            for try await (viewer, scope, breakID) in rows.decode((String, String, String).self) {
                keys.append(DecisionKey(viewer: viewer, scope: scope, breakID: breakID))
            }
            return keys
        }
    }

    // MARK: - Breaks

    /// The stored breaks of a channel.
    public func breaks(channel: String) async throws -> [LiveBreak] {
        try await self.admitted {
            let decoder = JSONDecoder()
            var breaks: [LiveBreak] = []
            let rows = try await self.client.query(
                "SELECT data FROM live_break WHERE channel = \(channel) ORDER BY id"
            )
            for try await data in rows.decode(String.self) {
                breaks.append(try decoder.decode(LiveBreak.self, from: Data(data.utf8)))
            }
            return breaks
        }
    }

    /// Creates or replaces a break, bumps its channel's revision and tells the other instances
    /// (`NOTIFY`, sent when the transaction commits).
    public func save(_ liveBreak: LiveBreak) async throws {
        let data = String(decoding: try JSONEncoder().encode(liveBreak), as: UTF8.self)
        let channel = liveBreak.channel
        let revision = try await self.admitted {
            try await self.client.withTransaction(logger: self.logger) { connection -> Int64 in
                try await connection.query(
                    """
                    INSERT INTO live_break (channel, id, data) VALUES (\(channel), \(liveBreak.id), \(data))
                    ON CONFLICT (channel, id) DO UPDATE SET data = EXCLUDED.data
                    """,
                    logger: self.logger
                )
                var revision: Int64 = 0
                for try await value in try await connection.query(
                    """
                    INSERT INTO break_revision (channel, revision) VALUES (\(channel), 1)
                    ON CONFLICT (channel) DO UPDATE SET revision = break_revision.revision + 1
                    RETURNING revision
                    """,
                    logger: self.logger
                ).decode(Int64.self) {
                    revision = value
                }
                try await connection.query(
                    "SELECT pg_notify(\(Self.notifyChannel), \(channel + " " + String(revision)))",
                    logger: self.logger
                )
                return revision
            }
        }
        // This instance knows its own change already.
        self.known.withLock { $0[channel] = max($0[channel] ?? 0, revision) }
    }

    // MARK: - Inventory

    /// Every change recorded, oldest first.
    ///
    /// The newest one read becomes the one this instance
    /// knows, so that only later changes come out of ``inventoryUpdates()``.
    public func inventoryChanges() async throws -> [InventoryChange] {
        let (changes, last) = try await self.admitted { () -> ([InventoryChange], Int64) in
            let decoder = JSONDecoder()
            var changes: [InventoryChange] = []
            var last: Int64 = 0
            // On a connection of its own: the server reads them while it builds, before the pool runs.
            try await self.withOwnConnection { connection in
                for try await (seq, data) in try await connection.query(
                    "SELECT seq, data FROM inventory_change ORDER BY seq",
                    logger: self.logger
                ).decode((Int64, String).self) {
                    changes.append(try decoder.decode(InventoryChange.self, from: Data(data.utf8)))
                    last = seq
                }
            }
            return (changes, last)
        }
        self.inventoryKnown.withLock { $0 = max($0, last) }
        return changes
    }

    /// Records an inventory change and tells the other instances (`NOTIFY` with the payload
    /// `* SEQ`, sent at commit; `*` is never a channel ID).
    public func record(_ change: InventoryChange) async throws {
        let data = String(decoding: try JSONEncoder().encode(change), as: UTF8.self)
        try await self.admitted {
            try await self.client.withTransaction(logger: self.logger) { connection -> Bool in
                var seq: Int64 = 0
                for try await value in try await connection.query(
                    "INSERT INTO inventory_change (data) VALUES (\(data)) RETURNING seq",
                    logger: self.logger
                ).decode(Int64.self) {
                    seq = value
                }
                try await connection.query(
                    "SELECT pg_notify(\(Self.notifyChannel), \(Self.inventoryPayload + " " + String(seq)))",
                    logger: self.logger
                )
                return true
            }
        }
    }

    /// The `NOTIFY` payload's first word for inventory changes.
    package static let inventoryPayload = "*"

    /// One element each time a change newer than this instance knows is seen (notified or found by
    /// the periodic re-read), its own changes included: the consumer reads ``inventoryChanges()``
    /// again and applies them all to the configured inventory.
    ///
    /// One consumer: the server's break-change service.
    public func inventoryUpdates() -> AsyncStream<Void> {
        self.inventorySignals.stream
    }

    /// Forgets which inventory change this instance knows, so that the next re-read signals again
    /// (reading the changes after a signal failed).
    package func inventoryReadFailed() {
        self.inventoryKnown.withLock { $0 = 0 }
    }

    /// An inventory change seen: signals it when it is newer than known.
    private func seenInventory(_ seq: Int64) {
        let newer = self.inventoryKnown.withLock { known -> Bool in
            guard seq > known else { return false }
            known = seq
            return true
        }
        if newer { self.inventorySignals.continuation.yield() }
    }

    // MARK: - Break changes of other instances

    /// The channels whose breaks another instance changed (one element per change seen; several
    /// changes may come as one).
    ///
    /// One consumer: the server's break-change service.
    public func breakChanges() -> AsyncStream<String> {
        self.changes.stream
    }

    /// A revision seen (notified or re-read): passes the channel on when it is newer than known.
    private func seen(channel: String, revision: Int64) {
        let newer = self.known.withLock { known -> Bool in
            guard revision > known[channel] ?? 0 else { return false }
            known[channel] = revision
            return true
        }
        if newer { self.changes.continuation.yield(channel) }
    }

    /// Starts listening, the periodic re-read and the journal's writer (once; after the schema
    /// exists).
    private func startWatching() {
        self.watcher.withLock { watcher in
            guard watcher == nil else { return }
            // Owned by the store: `close()` cancels it and waits for it.
            watcher = Task.detached { [weak self] in
                guard let self else { return }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.reread() }
                    if self.settings.listen { group.addTask { await self.listen() } }
                    if self.settings.relaysGroups { group.addTask { await self.listenForGroups() } }
                    if let journal = self.journal { group.addTask { await self.writeJournal(journal) } }
                }
            }
        }
    }

    /// Reads every channel's revision each period (the first read reports every channel that has
    /// one: forgetting breaks not yet read costs nothing).
    ///
    /// Each read has the requests' deadline, so that a database that does not answer never holds
    /// the loop (nor ``close()``, which waits for it).
    private func reread() async {
        while !Task.isCancelled {
            do {
                let (revisions, inventory) = try await Deadline.run(self.requestDeadline, clock: self.clock) {
                    var revisions: [(String, Int64)] = []
                    let rows = try await self.client.query("SELECT channel, revision FROM break_revision")
                    for try await row in rows.decode((String, Int64).self) { revisions.append(row) }
                    var inventory: Int64 = 0
                    let last = try await self.client.query(
                        "SELECT COALESCE(MAX(seq), 0)::BIGINT FROM inventory_change"
                    )
                    for try await seq in last.decode(Int64.self) { inventory = seq }
                    return (revisions, inventory)
                }
                for (channel, revision) in revisions { self.seen(channel: channel, revision: revision) }
                self.seenInventory(inventory)
            } catch {
                if Task.isCancelled { return }
                self.logger.debug("re-reading break revisions failed", metadata: ["error": "\(Self.describe(error))"])
            }
            try? await self.clock.sleep(for: self.settings.reread)
        }
    }

    /// Listens for `NOTIFY` on a pooled connection, listening again a second after it fails.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await self.client.withConnection { connection in
                    try await connection.listen(on: Self.notifyChannel) { notifications in
                        for try await notification in notifications {
                            let parts = notification.payload.split(separator: " ")
                            guard parts.count >= 2, let revision = Int64(parts[parts.count - 1]) else { continue }
                            let channel = notification.payload.dropLast(parts[parts.count - 1].count + 1)
                            if channel == Self.inventoryPayload {
                                self.seenInventory(revision)
                            } else {
                                self.seen(channel: String(channel), revision: revision)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                self.logger.debug("LISTEN failed", metadata: ["error": "\(Self.describe(error))"])
            }
            try? await self.clock.sleep(for: .seconds(1))
        }
    }
}

/// Finds a decision by key and the viewer's decisions since a date, in one prepared statement.
private struct FindDecision: PostgresPreparedStatement {
    static let name = "intermission_find_decision"
    static let sql = """
        SELECT scope = $2 AND break_id = $3, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce
        FROM decision WHERE viewer = $1 AND ((scope = $2 AND break_id = $3) OR decided_at_ms >= $4)
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .int8]

    struct Row {
        var isKey: Bool
        var decidedAt: Int64
        var startOffset: Int64?
        var pod: Int64
        var assets: String
        var creatives: String
        var nonce: String
    }

    var key: DecisionKey
    var since: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(self.key.viewer)
        bindings.append(self.key.scope)
        bindings.append(self.key.breakID)
        bindings.append(self.since)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (isKey, decidedAt, startOffset, pod, assets, creatives, nonce) = try row.decode(
            (Bool, Int64, Int64?, Int64, String, String, String).self
        )
        return Row(
            isKey: isKey,
            decidedAt: decidedAt,
            startOffset: startOffset,
            pod: pod,
            assets: assets,
            creatives: creatives,
            nonce: nonce
        )
    }
}

/// Inserts a decision unless its key has one; answers a row only when it inserted.
private struct InsertDecision: PostgresPreparedStatement {
    static let name = "intermission_insert_decision"
    static let sql = """
        INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (viewer, scope, break_id) DO NOTHING RETURNING 1
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .int8, .int8, .int8, .text, .text, .text]

    typealias Row = Int32

    var decision: AdDecision

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        let columns = DecisionColumns(self.decision)
        bindings.append(columns.viewer)
        bindings.append(columns.scope)
        bindings.append(columns.breakID)
        bindings.append(columns.decidedAt)
        bindings.append(columns.startOffset)
        bindings.append(columns.pod)
        bindings.append(columns.assets)
        bindings.append(DecisionColumns.creativesText(self.decision.assets))
        bindings.append(columns.nonce)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int32 {
        try row.decode(Int32.self)
    }
}
