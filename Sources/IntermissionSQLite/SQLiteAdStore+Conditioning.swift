import AdInsertion
import GRDB
import HLSPlaylist
import IntermissionStore

extension SQLiteAdStore: ConditioningStore {
    /// Reads a row.
    package static func conditioningRecord(_ row: Row) -> CreativeConditioning {
        let next: Int64? = row["next_attempt_ms"]
        let expiry: Int64? = row["lease_expiry_ms"]
        let updated: Int64 = row["updated_at_ms"]
        let state: String = row["state"]
        return CreativeConditioning(
            key: row["key"],
            creativeID: row["creative_id"],
            sourceURL: row["source_url"],
            state: CreativeConditioning.State(rawValue: state),
            attempts: row["attempts"],
            nextAttempt: next.map { DateTime(millisecondsSince1970: $0) },
            leaseOwner: row["lease_owner"],
            leaseExpiry: expiry.map { DateTime(millisecondsSince1970: $0) },
            error: row["error"],
            updatedAt: DateTime(millisecondsSince1970: updated)
        )
    }

    /// The record of `key`.
    public func conditioning(_ key: String) async throws -> CreativeConditioning? {
        try await self.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM creative_conditioning WHERE key = ?", arguments: [key])
                .map(Self.conditioningRecord)
        }
    }

    /// Inserts `record` unless its key exists (`INSERT … ON CONFLICT DO NOTHING`); the stored row.
    public func requestConditioning(_ record: CreativeConditioning) async throws -> CreativeConditioning {
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
        return try await self.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO creative_conditioning
                        (key, creative_id, source_url, state, attempts, next_attempt_ms, error, updated_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING
                    """,
                arguments: [
                    record.key, record.creativeID, record.sourceURL, record.state.rawValue, record.attempts,
                    record.nextAttempt?.millisecondsSince1970, record.error, record.updatedAt.millisecondsSince1970,
                ]
            )
            return try Row.fetchOne(
                db,
                sql: "SELECT * FROM creative_conditioning WHERE key = ?",
                arguments: [record.key]
            ).map(Self.conditioningRecord) ?? record
        }
    }

    /// Claims `key` with one `UPDATE … WHERE` claimable: SQLite runs one writer at a time across
    /// every connection and process, so two instances never both see the row claimable.
    public func claimConditioning(
        _ key: String,
        owner: String,
        now: DateTime,
        leaseUntil: DateTime
    ) async throws -> CreativeConditioning? {
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
        let at = now.millisecondsSince1970
        return try await self.pool.write { db -> CreativeConditioning? in
            try db.execute(
                sql: """
                    UPDATE creative_conditioning SET state = 'conditioning', attempts = attempts + 1,
                        lease_owner = ?, lease_expiry_ms = ?, updated_at_ms = ?
                    WHERE key = ? AND \(ConditioningRows.claimable(at: at))
                    """,
                arguments: [owner, leaseUntil.millisecondsSince1970, at, key]
            )
            guard db.changesCount == 1 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT * FROM creative_conditioning WHERE key = ?", arguments: [key])
                .map(Self.conditioningRecord)
        }
    }

    /// Ends `owner`'s lease of `key`.
    public func finishConditioning(
        _ key: String,
        owner: String,
        state: CreativeConditioning.State,
        error: String?,
        nextAttempt: DateTime?,
        now: DateTime
    ) async throws -> Bool {
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
        return try await self.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE creative_conditioning SET state = ?, error = ?, next_attempt_ms = ?,
                        lease_owner = NULL, lease_expiry_ms = NULL, updated_at_ms = ?
                    WHERE key = ? AND state = 'conditioning' AND lease_owner = ?
                    """,
                arguments: [
                    state.rawValue, error, nextAttempt?.millisecondsSince1970, now.millisecondsSince1970, key, owner,
                ]
            )
            return db.changesCount == 1
        }
    }

    /// Every record, the most recently changed first.
    public func conditionings(limit: Int) async throws -> [CreativeConditioning] {
        try await self.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM creative_conditioning ORDER BY updated_at_ms DESC, key DESC LIMIT ?",
                arguments: [max(0, limit)]
            ).map(Self.conditioningRecord)
        }
    }
}
