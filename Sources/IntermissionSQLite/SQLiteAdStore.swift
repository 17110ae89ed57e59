import AdInsertion
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import IntermissionStore
import Synchronization
import SystemPackage

/// An `AdStore` in an SQLite file (GRDB, WAL mode), with migrations.
///
/// New decisions are group-committed: requests that arrive while a write transaction is running
/// queue up, and the next transaction handles all of them in arrival
/// order. Inside that transaction every request looks for an earlier decision, reads the viewer's
/// recent creatives (including those given earlier in the same batch) and inserts its decision,
/// so concurrent requests for the same viewer and break get the same answer. A request is
/// answered only after the transaction holding its decision has committed: nothing answered is
/// lost, and a burst of new viewers costs one commit per batch instead of one per viewer.
///
/// A question asked again is answered from memory: the store remembers the decisions it committed
/// or found in the database (a bounded index, least recently used first out, see
/// ``rememberedDecision(for:)``), so a returning viewer costs no database read. The database stays
/// the truth: the index only holds copies of committed rows, and a question it cannot answer goes
/// to the writer, which finds the stored answer if there is one (made before a restart, or by
/// another process on the same file) and remembers it.
///
/// Commits are as durable as ``Durability`` says (``Durability/normal`` unless configured).
/// Checkpoints (copying the log into the database) run from a connection of their own, off the
/// writer's path, so a batch never waits for one.
///
/// ``close()`` ends it cleanly (the server calls it when its service group shuts down, after the
/// HTTP server has stopped): new decisions are refused, every one already queued is written and
/// answered (or failed), and only then is the database closed, so no request is left waiting.
///
/// The store notices when its file is no longer the one it opened (unlinked, or replaced by
/// another file under the same path): it compares the path's device and inode with those it
/// opened before each decision and after each commit, and until they match again it acknowledges
/// nothing (decisions, breaks and inventory changes throw `AdInsertionError.Code.storage`), since
/// what it writes would be lost at the next start.
public final class SQLiteAdStore: ServerStore, TransactionalDecisionStore {
    /// How a commit reaches the disk before a decision is answered.
    ///
    /// Both keep every answered decision through a crash or `SIGKILL` of the server process (what
    /// issue 11 asks). In WAL mode a commit writes the transaction's pages and its commit record to
    /// the `-wal` file (`write(2)`) before SQLite reports it committed, whatever the setting; those
    /// bytes then belong to the kernel's page cache of the file, not to the process, so a process
    /// that dies a moment later loses none of them, and the next open replays every transaction
    /// whose commit record is in the log. The settings differ only in what a crash of the machine
    /// itself (kernel panic, power loss) can take (SQLite's documentation of `PRAGMA synchronous`:
    /// "A transaction committed in WAL mode with synchronous=NORMAL might roll back following a
    /// power loss or system crash"; the database is never corrupted by it).
    public enum Durability: String, Sendable, CaseIterable {
        /// `PRAGMA synchronous = NORMAL`: no `fsync` at a commit; the log is synced before each
        /// checkpoint copies it. Survives a crash of the process (`SIGKILL` included); the last
        /// commits before a power loss or kernel crash may roll back. The default: a commit costs a
        /// `write(2)`, not a disk flush (6 to 9 ms on the machines measured), which with 64
        /// connections alone would cap new decisions near 64 per flush.
        case normal
        /// `PRAGMA synchronous = FULL`: the log is flushed (`fsync`) at every commit, so an
        /// answered decision survives a power loss too; one flush per group-committed batch.
        case full
    }

    package let pool: DatabasePool
    private let writer: DecisionWriter
    package let file: FileIdentity
    private let checkpointer: Checkpointer?

    /// Tracking and conditioning in the same database file.
    public var capabilities: StoreCapabilities { StoreCapabilities(tracking: self, conditioning: self) }

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - durability: How a commit reaches the disk (see ``Durability``).
    ///   - remembering: How many decisions to remember for questions asked again (at least 1).
    /// - Throws: GRDB's `DatabaseError` when the file cannot be opened.
    public init(
        path: String,
        durability: Durability = .normal,
        remembering: Int = SQLiteAdStore.defaultRememberedDecisions
    ) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Checkpoints run from the checkpointer's connection (below), after commits; the
            // committing connection copies the log itself only when it has grown past 64 MiB
            // (the checkpointer cannot keep up, or a reader keeps it from finishing).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
        }
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // Set on the writer after the pool is open: DatabasePool turns WAL on after
        // `prepareDatabase` and sets `synchronous = NORMAL` with it, so a level set there is lost.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        let file = FileIdentity(path: path)
        // A connection that only checkpoints (it never writes rows): a passive checkpoint takes no
        // writer lock, so batches commit while it copies. An in-memory or unusual file has none.
        var checkpointConfiguration = Configuration()
        checkpointConfiguration.busyMode = .immediateError
        let checkpointer = (try? DatabaseQueue(path: path, configuration: checkpointConfiguration)).map {
            Checkpointer(queue: $0)
        }
        self.pool = pool
        self.file = file
        self.checkpointer = checkpointer
        self.writer = DecisionWriter(
            pool: pool,
            remembering: max(1, remembering),
            check: { file.problem() },
            committed: { checkpointer?.request() }
        )
    }

    /// Why writes cannot be acknowledged now (the file was unlinked or replaced), or `nil`.
    ///
    /// A file
    /// that cannot be written (read-only, disk full) shows in the first write that fails.
    public func unavailability() async -> String? {
        self.file.problem()
    }

    /// Throws when the file is no longer the one opened.
    private func requireFile() throws {
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
    }

    /// Caps the database at `pages` pages (`PRAGMA max_page_count`, for this connection's life):
    /// writes that need more fail with `SQLITE_FULL`, as on a full disk.
    ///
    /// A quota for operators, and
    /// the way tests fill the disk.
    ///
    /// - Returns: The cap in force (SQLite never sets it below the current page count).
    @discardableResult
    public func limitSize(pages: Int) async throws -> Int {
        try await self.pool.write { db in
            try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, pages))") ?? 0
        }
    }

    /// The number of pages the database has now.
    public func pageCount() async throws -> Int {
        try await self.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    }

    /// How many write transactions the decision writer has committed, and how many new-decision
    /// requests they handled (batches ≤ requests; equal when requests never overlap).
    public var groupCommitStatistics: (transactions: Int, requests: Int) {
        self.writer.statistics
    }

    /// The journal mode in use (`wal`).
    public func journalMode() async throws -> String {
        try await self.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// `PRAGMA synchronous` as in force: `1` (`NORMAL`) or `2` (`FULL`), see ``Durability``.
    public func synchronousLevel() async throws -> Int {
        try await self.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// How many new-decision requests wait for the writer or are in the transaction it is writing.
    public var pendingDecisions: Int {
        self.writer.pending
    }

    /// Whether ``close()`` has begun: new decisions are refused from then on.
    public var isClosing: Bool {
        self.writer.isFinishing
    }

    /// Shuts the store: new decisions are refused at once (`AdInsertionError.Code.storage`), every
    /// decision already queued is written and answered (or failed, when its write fails), and then
    /// the database is closed; later calls fail.
    public func close() async throws {
        await self.writer.finish()
        await self.checkpointer?.close()
        try self.pool.close()
    }

    /// How many checkpoints the checkpointer's connection has run (each copies what the log holds
    /// into the database, without stopping the writer).
    public var checkpointCount: Int {
        self.checkpointer?.count ?? 0
    }

    /// How many decisions the store remembers now (never more than it was opened with).
    public var rememberedCount: Int {
        self.writer.rememberedCount
    }

    /// The decision for `key` when the store remembers it (committed by this store, or found in
    /// the database by its writer), without waiting; `nil` otherwise, and whenever the file is no
    /// longer the one opened (nothing is acknowledged then).
    public func rememberedDecision(for key: DecisionKey) -> AdDecision? {
        // The file is checked only on a hit (a miss answers nothing either way).
        guard let known = self.writer.remembered(key), self.file.problem() == nil else { return nil }
        return known
    }

    /// The SQLite result code of an error from this driver (`13` disk full, `8` read-only, …) and
    /// its message; `nil` when `error` is not SQLite's.
    public static func failure(_ error: any Error) -> (code: String, message: String)? {
        guard let error = error as? DatabaseError else { return nil }
        return (
            String(error.extendedResultCode.rawValue),
            "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
        )
    }

    /// The schema's migrations, in order, as `StoreSchema` describes them (recorded by GRDB under
    /// the names earlier versions recorded).
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in StoreSchema.migrations(in: .sqlite) {
            migrator.registerMigration(migration.name) { db in
                for step in migration.steps {
                    switch step {
                    case .sql(let statement): try db.execute(sql: statement)
                    case .copy(.decisionsWithCreatives): try Self.copyDecisionsWithCreatives(db)
                    }
                }
            }
        }
        return migrator
    }

    /// Copies every decision of version 1 into `decision_v3`, with its creatives (read from its
    /// assets' JSON by the decision codec, so the column is what new rows get).
    private static func copyDecisionsWithCreatives(_ db: Database) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets FROM decision"
        )
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO decision_v3 (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        while let row = try rows.next() {
            let assetsText: String = row["assets"]
            let assets = try DecisionColumns.assets(assetsText)
            let viewer: String = row["viewer"]
            let scope: String = row["scope"]
            let breakID: String = row["break_id"]
            let decidedAt: Int64 = row["decided_at_ms"]
            let offset: Int64? = row["start_offset_ns"]
            let pod: Int64 = row["pod_ns"]
            try insert.execute(arguments: [
                viewer, scope, breakID, decidedAt, offset, pod, assetsText, DecisionColumns.creativesText(assets),
            ])
        }
    }

    /// Every change recorded, oldest first.
    public func inventoryChanges() async throws -> [InventoryChange] {
        let rows = try await self.pool.read { db in
            try String.fetchAll(db, sql: "SELECT data FROM inventory_change ORDER BY seq")
        }
        let decoder = JSONDecoder()
        return try rows.map { try decoder.decode(InventoryChange.self, from: Data($0.utf8)) }
    }

    /// Records an inventory change.
    public func record(_ change: InventoryChange) async throws {
        let data = String(decoding: try JSONEncoder().encode(change), as: UTF8.self)
        try self.requireFile()
        try await self.pool.write { db in
            try db.execute(sql: "INSERT INTO inventory_change (data) VALUES (?)", arguments: [data])
        }
        try self.requireFile()
    }

    /// Brings the schema up to date (nothing is written when it is current).
    public func migrate() async throws {
        // Nothing to write when the schema is current (so a read-only file can still be served).
        if try await self.pool.read({ try Self.migrator.hasCompletedMigrations($0) }) { return }
        try Self.migrator.migrate(self.pool)
    }

    /// The decision stored for a key.
    public func decision(for key: DecisionKey) async throws -> AdDecision? {
        try await self.pool.read { db in try Self.fetchDecision(db, key) }
    }

    /// The creatives a viewer was given in decisions made at or after `since`.
    public func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String> {
        try await self.pool.read { db in try Self.fetchRecent(db, viewer: viewer, since: since) }
    }

    /// Returns the stored decision for `key`, or makes one with `make` and stores it.
    public func findOrCreateDecision(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @escaping @Sendable (Set<String>) -> AdDecision
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        // A player asks once per break, so most questions are new: they go straight to the writer,
        // which looks for an earlier answer inside its transaction. Questions asked again (a retry,
        // a second rendition, a returning viewer) are answered from the remembered decisions.
        try self.requireFile()
        if let known = self.writer.remembered(key) { return (known, false) }
        return try await self.writer.submit(DecisionWriter.Request(key: key, recentSince: recentSince, make: make))
    }

    /// Finds or makes one decision inside the writer's transaction.
    fileprivate static func findOrCreate(_ db: Database, _ request: DecisionWriter.Request) throws -> (AdDecision, Bool)
    {
        if let existing = try Self.fetchDecision(db, request.key) { return (existing, false) }
        let recent =
            try request.recentSince.map { try Self.fetchRecent(db, viewer: request.key.viewer, since: $0) } ?? []
        let decision = request.make(recent)
        try Self.insert(db, decision)
        return (decision, true)
    }

    /// How many decisions are stored.
    public func decisionCount() async throws -> Int {
        try await self.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM decision") ?? 0 }
    }

    /// The stored breaks of a channel.
    public func breaks(channel: String) async throws -> [LiveBreak] {
        let rows = try await self.pool.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT data FROM live_break WHERE channel = ? ORDER BY id",
                arguments: [channel]
            )
        }
        let decoder = JSONDecoder()
        return try rows.map { try decoder.decode(LiveBreak.self, from: Data($0.utf8)) }
    }

    /// Creates or replaces a break (by channel and ID).
    public func save(_ liveBreak: LiveBreak) async throws {
        let data = String(decoding: try JSONEncoder().encode(liveBreak), as: UTF8.self)
        try self.requireFile()
        try await self.pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO live_break (channel, id, data) VALUES (?, ?, ?)",
                arguments: [liveBreak.channel, liveBreak.id, data]
            )
        }
        try self.requireFile()
    }

    /// The decisions stored last, newest first: rows are appended in decision order, so the last
    /// rows by `rowid` are the newest (read without a scan of the table).
    public func latestDecisions(limit: Int) async throws -> [AdDecision] {
        let count = min(max(0, limit), 10_000)
        return try await self.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, nonce FROM decision ORDER BY rowid DESC LIMIT ?",
                arguments: [count]
            )
            return try rows.map { try Self.columns($0).decision() }
        }
    }

    /// Deletes up to `limit` decisions (see `DecisionStore.pruneDecisions(decidedBefore:keeping:limit:)`).
    ///
    /// Rows are appended in decision order, so the oldest are the first by `rowid`, found without a
    /// scan or an index of their own: first, of the `limit` oldest rows, those decided before
    /// `decidedBefore`; then, while more than `keeping` are stored, the oldest of the rest. The
    /// count is read off the writer (and only when the span of rowids, a bound on it, exceeds
    /// `keeping`); the deletes are one write transaction. Deleted pages go to SQLite's free list
    /// and new decisions reuse them, so a bounded table keeps its file from growing.
    public func pruneDecisions(decidedBefore: DateTime, keeping: Int, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        try self.requireFile()
        let keep = max(0, keeping)
        let stored = try await self.pool.read { db -> Int in
            guard let span = try Row.fetchOne(db, sql: "SELECT MIN(rowid), MAX(rowid) FROM decision"),
                let low = span[0] as Int64?, let high = span[1] as Int64?, high - low >= Int64(keep)
            else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM decision") ?? 0
        }
        let keys = try await self.pool.write { db -> [DecisionKey] in
            var keys = try Self.deleteOldest(db, limit: limit, decidedBefore: decidedBefore)
            let excess = min(limit - keys.count, stored - keep - keys.count)
            if excess > 0 { keys += try Self.deleteOldest(db, limit: excess, decidedBefore: nil) }
            return keys
        }
        self.writer.forget(keys)
        return keys.count
    }

    /// Deletes, of the `limit` oldest decisions, those decided before `decidedBefore` (all of them
    /// when `nil`), and returns their keys.
    private static func deleteOldest(_ db: Database, limit: Int, decidedBefore: DateTime?) throws -> [DecisionKey] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    DELETE FROM decision WHERE rowid IN (SELECT rowid FROM decision ORDER BY rowid LIMIT ?)
                    AND decided_at_ms < ? RETURNING viewer, scope, break_id
                    """
            ),
            arguments: [limit, decidedBefore?.millisecondsSince1970 ?? Int64.max]
        )
        return rows.map { DecisionKey(viewer: $0[0], scope: $0[1], breakID: $0[2]) }
    }

    // MARK: - Rows

    private static func fetchDecision(_ db: Database, _ key: DecisionKey) throws -> AdDecision? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, nonce FROM decision WHERE viewer = ? AND scope = ? AND break_id = ?"
                ),
                arguments: [key.viewer, key.scope, key.breakID]
            )
        else { return nil }
        return try Self.columns(row).decision()
    }

    /// The columns of a row that selects `viewer, scope, break_id, decided_at_ms, start_offset_ns,
    /// pod_ns, assets, nonce`.
    private static func columns(_ row: Row) -> DecisionColumns {
        DecisionColumns(
            viewer: row["viewer"],
            scope: row["scope"],
            breakID: row["break_id"],
            decidedAt: row["decided_at_ms"],
            startOffset: row["start_offset_ns"],
            pod: row["pod_ns"],
            assets: row["assets"],
            nonce: row["nonce"]
        )
    }

    private static func fetchRecent(_ db: Database, viewer: String, since: DateTime) throws -> Set<String> {
        var creatives = Set<String>()
        let lists = try String.fetchCursor(
            db.cachedStatement(sql: "SELECT creatives FROM decision WHERE viewer = ? AND decided_at_ms >= ?"),
            arguments: [viewer, since.millisecondsSince1970]
        )
        while let list = try lists.next() { creatives.formUnion(DecisionColumns.creatives(in: list)) }
        return creatives
    }

    private static func insert(_ db: Database, _ decision: AdDecision) throws {
        let columns = DecisionColumns(decision)
        // Cached statements: preparing (and authorizing) SQL costs more than running it.
        try db.cachedStatement(
            sql:
                "INSERT INTO decision (viewer, scope, break_id, decided_at_ms, start_offset_ns, pod_ns, assets, creatives, nonce) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: [
                columns.viewer, columns.scope, columns.breakID, columns.decidedAt, columns.startOffset, columns.pod,
                columns.assets, DecisionColumns.creativesText(decision.assets), columns.nonce,
            ]
        )
    }
}

/// Group commit for new decisions: one writer task drains the queue, one transaction per batch.
private final class DecisionWriter: Sendable {
    struct Request: Sendable {
        var key: DecisionKey
        var recentSince: DateTime?
        var make: @Sendable (Set<String>) -> AdDecision
    }

    private struct Waiting: Sendable {
        var request: Request
        var continuation: CheckedContinuation<(decision: AdDecision, isNew: Bool), any Error>
    }

    private struct State: Sendable {
        var queue: [Waiting] = []
        var draining = false
        /// Requests taken off the queue whose transaction is being written.
        var writing = 0
        /// Set by ``finish()``: new requests are refused.
        var closed = false
        /// Who waits in ``finish()`` for the last drain to end.
        var finished: [CheckedContinuation<Void, Never>] = []
        var transactions = 0
        var requests = 0
    }

    /// The largest batch one transaction takes; the rest waits for the next one.
    private static let batchLimit = 256

    private let pool: DatabasePool
    private let state = Mutex(State())
    /// Decisions committed or found by this writer, for questions asked again (its own lock: a
    /// lookup never waits for the queue's).
    private let memory: Mutex<RememberedDecisions>
    /// Why a commit cannot be acknowledged (the file is not the one opened), or `nil`.
    private let check: @Sendable () -> String?
    /// Called after each committed batch (the checkpointer's cue).
    private let committed: @Sendable () -> Void

    init(
        pool: DatabasePool,
        remembering: Int,
        check: @escaping @Sendable () -> String?,
        committed: @escaping @Sendable () -> Void
    ) {
        self.pool = pool
        self.memory = Mutex(RememberedDecisions(capacity: remembering))
        self.check = check
        self.committed = committed
    }

    var statistics: (transactions: Int, requests: Int) {
        self.state.withLock { ($0.transactions, $0.requests) }
    }

    /// A decision this writer committed or found for `key`, if it still remembers it.
    func remembered(_ key: DecisionKey) -> AdDecision? {
        self.memory.withLock { $0.decision(for: key) }
    }

    /// Forgets the decisions of `keys` (deleted from the database).
    func forget(_ keys: [DecisionKey]) {
        guard !keys.isEmpty else { return }
        self.memory.withLock { memory in
            for key in keys { memory.forget(key) }
        }
    }

    /// How many decisions it remembers.
    var rememberedCount: Int {
        self.memory.withLock { $0.count }
    }

    /// Requests queued or being written.
    var pending: Int {
        self.state.withLock { $0.queue.count + $0.writing }
    }

    /// Whether ``finish()`` was called (new requests are refused).
    var isFinishing: Bool {
        self.state.withLock { $0.closed }
    }

    func submit(_ request: Request) async throws -> (decision: AdDecision, isNew: Bool) {
        try await withCheckedThrowingContinuation { continuation in
            enum Next { case refuse, wait, drain }
            let next = self.state.withLock { state -> Next in
                if state.closed { return .refuse }
                state.queue.append(Waiting(request: request, continuation: continuation))
                if state.draining { return .wait }
                state.draining = true
                return .drain
            }
            switch next {
            case .refuse:
                continuation.resume(
                    throwing: AdInsertionError(
                        code: .storage,
                        message: "the store is shutting down; the decision was not stored"
                    )
                )
            case .wait:
                break
            case .drain:
                // Owned by the writer: one drain at a time (`draining`), and `close()` waits for it.
                Task { await self.drain() }
            }
        }
    }

    /// Refuses new requests and returns once every queued one is answered or failed (at once when
    /// nothing is queued).
    ///
    /// Safe to call more than once.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = self.state.withLock { state -> Bool in
                state.closed = true
                guard state.draining else { return true }
                state.finished.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Writes batches until the queue is empty; exactly one drain runs at a time.
    private func drain() async {
        while true {
            let (batch, finished) = self.state.withLock { state -> ([Waiting], [CheckedContinuation<Void, Never>]) in
                state.writing = 0
                if state.queue.isEmpty {
                    state.draining = false
                    defer { state.finished = [] }
                    return ([], state.finished)
                }
                let count = min(state.queue.count, Self.batchLimit)
                let batch = Array(state.queue.prefix(count))
                state.queue.removeFirst(count)
                state.writing = count
                return (batch, [])
            }
            if batch.isEmpty {
                for waiting in finished { waiting.resume() }
                return
            }
            await self.write(batch)
        }
    }

    private func write(_ batch: [Waiting]) async {
        let requests = batch.map(\.request)
        var cause: (any Error)?
        do {
            let results: [Result<(AdDecision, Bool), any Error>]
            do {
                // The common case: every request succeeds, and one transaction holds them all.
                results = try await self.pool.write { db in
                    try requests.map { .success(try SQLiteAdStore.findOrCreate(db, $0)) }
                }
            } catch {
                // Kept to report: when the disk is full SQLite rolls the whole transaction back,
                // and the retry below then fails with a less telling "aborted".
                cause = error
                // Some request failed and the transaction rolled back: do the batch again with one
                // savepoint per request, so the failing ones leave the others intact.
                results = try await self.pool.write { db in
                    requests.map { request in
                        var outcome: Result<(AdDecision, Bool), any Error> = .failure(CancellationError())
                        do {
                            try db.inSavepoint {
                                outcome = .success(try SQLiteAdStore.findOrCreate(db, request))
                                return .commit
                            }
                        } catch {
                            outcome = .failure(error)
                        }
                        return outcome
                    }
                }
            }
            // Committed to a file that is no longer the database's: it would be lost at the next
            // start, so none of it is acknowledged (nor remembered).
            if let problem = self.check() { throw AdInsertionError(code: .storage, message: problem) }
            self.state.withLock { state in
                state.transactions += 1
                state.requests += batch.count
            }
            self.memory.withLock { memory in
                for (request, result) in zip(requests, results) {
                    guard case .success(let (decision, _)) = result else { continue }
                    memory.remember(decision, for: request.key)
                }
            }
            self.committed()
            // Answers go out only now, after the commit.
            for (waiting, result) in zip(batch, results) {
                switch result {
                case .success(let (decision, isNew)): waiting.continuation.resume(returning: (decision, isNew))
                case .failure(let error): waiting.continuation.resume(throwing: error)
                }
            }
        } catch {
            // The transaction did not commit: nothing of this batch was stored, and every request
            // in it gets the error (the first attempt's, when there was one: it says why).
            let reported = Self.telling(cause, over: error)
            for waiting in batch { waiting.continuation.resume(throwing: reported) }
        }
    }

    /// The error that says more: a first attempt's error over an "aborted" or "file" error that
    /// followed it.
    private static func telling(_ cause: (any Error)?, over error: any Error) -> any Error {
        guard let cause else { return error }
        if let later = error as? DatabaseError, later.resultCode == .SQLITE_ABORT || later.resultCode == .SQLITE_ERROR {
            return cause
        }
        return error is AdInsertionError ? error : cause
    }
}

/// Copies the write-ahead log into the database from a connection of its own, after commits.
///
/// Passive checkpoints take no writer lock, so the decision writer keeps committing while one
/// runs, and under ``SQLiteAdStore/Durability/normal`` the log's `fsync` happens here rather than
/// in a request's path. Cues that come while one runs are folded into one more run.
private final class Checkpointer: Sendable {
    private struct State {
        var running = false
        var again = false
        var closed = false
        var count = 0
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    private let queue: DatabaseQueue
    private let state = Mutex(State())

    init(queue: DatabaseQueue) {
        self.queue = queue
    }

    /// Checkpoints run so far.
    var count: Int { self.state.withLock { $0.count } }

    /// Asks for a checkpoint (after a commit); returns at once.
    func request() {
        let start = self.state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        // Owned by the checkpointer: one run at a time (`running`), and `close()` waits for it.
        if start { Task { await self.run() } }
    }

    private func run() async {
        while true {
            // A checkpoint that cannot run now (a busy lock, a closed file) is left to the next cue
            // or to the writer's own automatic checkpoint.
            _ = try? await self.queue.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            let idle = self.state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                state.count += 1
                if state.again && !state.closed {
                    state.again = false
                    return nil
                }
                state.running = false
                defer { state.idle = [] }
                return state.idle
            }
            guard let idle else { continue }
            for waiting in idle { waiting.resume() }
            return
        }
    }

    /// Stops taking cues, waits for a running checkpoint, and closes the connection.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = self.state.withLock { state -> Bool in
                state.closed = true
                guard state.running else { return true }
                state.idle.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        try? self.queue.close()
    }
}

/// The device and inode of the database file when it was opened, to notice when the path no
/// longer names that file.
package struct FileIdentity: Sendable {
    package let path: String
    package let device: UInt64?
    package let inode: UInt64?

    package init(path: String) {
        self.path = path
        let now = Self.identity(path)
        self.device = now?.device
        self.inode = now?.inode
    }

    /// What is wrong with the file now, or `nil` when the path still names the file opened.
    package func problem() -> String? {
        guard let device = self.device, let inode = self.inode else { return nil }
        guard let now = Self.identity(self.path) else {
            return
                "the database file \(self.path) was removed (unlinked or moved) after it was opened; decisions are not stored until it is back"
        }
        if now.device != device || now.inode != inode {
            return
                "the database file \(self.path) was replaced by another file after it was opened; decisions are not stored until it is back"
        }
        return nil
    }

    /// The device and inode `path` names now (`stat`, following symbolic links), or `nil`.
    private static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        guard let info = try? FilePath(path).stat() else { return nil }
        return (UInt64(truncatingIfNeeded: info.deviceID.rawValue), UInt64(truncatingIfNeeded: info.inode.rawValue))
    }
}
