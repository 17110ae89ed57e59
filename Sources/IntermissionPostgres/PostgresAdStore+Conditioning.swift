import AdInsertion
import HLSPlaylist
import IntermissionStore
import PostgresNIO

extension PostgresAdStore: ConditioningStore {
    /// The columns every read selects, in the order `ConditioningRow` decodes.
    package static let conditioningColumns =
        "key, creative_id, source_url, state, attempts, next_attempt_ms, lease_owner, lease_expiry_ms, error, updated_at_ms"

    /// One decoded row.
    package typealias ConditioningRow = (String, String, String, String, Int64, Int64?, String?, Int64?, String?, Int64)

    /// A decoded row as a record.
    package static func conditioningRecord(_ row: ConditioningRow) -> CreativeConditioning {
        CreativeConditioning(
            key: row.0,
            creativeID: row.1,
            sourceURL: row.2,
            state: CreativeConditioning.State(rawValue: row.3),
            attempts: Int(row.4),
            nextAttempt: row.5.map { DateTime(millisecondsSince1970: $0) },
            leaseOwner: row.6,
            leaseExpiry: row.7.map { DateTime(millisecondsSince1970: $0) },
            error: row.8,
            updatedAt: DateTime(millisecondsSince1970: row.9)
        )
    }

    /// Runs `query` and reads its rows as records.
    private func conditioningRows(_ query: PostgresQuery) async throws -> [CreativeConditioning] {
        try await self.admitted {
            var records: [CreativeConditioning] = []
            for try await row in try await self.client.query(query, logger: self.logger).decode(ConditioningRow.self) {
                records.append(Self.conditioningRecord(row))
            }
            return records
        }
    }

    /// The record of `key`.
    public func conditioning(_ key: String) async throws -> CreativeConditioning? {
        var text = PostgresQuery.StringInterpolation(literalCapacity: 160, interpolationCount: 1)
        text.appendInterpolation(
            unescaped: "SELECT \(Self.conditioningColumns) FROM creative_conditioning WHERE key = "
        )
        text.appendInterpolation(key)
        return try await self.conditioningRows(PostgresQuery(stringInterpolation: text)).first
    }

    /// Inserts `record` unless its key exists; the stored row.
    public func requestConditioning(_ record: CreativeConditioning) async throws -> CreativeConditioning {
        _ = try await self.admitted {
            try await self.client.query(
                """
                INSERT INTO creative_conditioning
                    (key, creative_id, source_url, state, attempts, next_attempt_ms, error, updated_at_ms)
                VALUES (\(record.key), \(record.creativeID), \(record.sourceURL), \(record.state.rawValue),
                    \(Int64(record.attempts)), \(record.nextAttempt?.millisecondsSince1970), \(record.error),
                    \(record.updatedAt.millisecondsSince1970))
                ON CONFLICT (key) DO NOTHING
                """,
                logger: self.logger
            )
        }
        return try await self.conditioning(record.key) ?? record
    }

    /// Claims `key` with one `UPDATE … WHERE` claimable `… RETURNING`: PostgreSQL locks the row
    /// for the update, and a second instance's update re-checks the condition on the new row, so
    /// exactly one instance gets it.
    public func claimConditioning(
        _ key: String,
        owner: String,
        now: DateTime,
        leaseUntil: DateTime
    ) async throws -> CreativeConditioning? {
        let at = now.millisecondsSince1970
        let until = leaseUntil.millisecondsSince1970
        let query: PostgresQuery = """
            UPDATE creative_conditioning SET state = 'conditioning', attempts = attempts + 1,
                lease_owner = \(owner), lease_expiry_ms = \(until), updated_at_ms = \(at)
            WHERE key = \(key) AND \(unescaped: ConditioningRows.claimable(at: at))
            RETURNING key, creative_id, source_url, state, attempts, next_attempt_ms, lease_owner,
                lease_expiry_ms, error, updated_at_ms
            """
        return try await self.conditioningRows(query).first
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
        let query: PostgresQuery = """
            UPDATE creative_conditioning SET state = \(state.rawValue), error = \(error),
                next_attempt_ms = \(nextAttempt?.millisecondsSince1970), lease_owner = NULL,
                lease_expiry_ms = NULL, updated_at_ms = \(now.millisecondsSince1970)
            WHERE key = \(key) AND state = 'conditioning' AND lease_owner = \(owner)
            RETURNING key, creative_id, source_url, state, attempts, next_attempt_ms, lease_owner,
                lease_expiry_ms, error, updated_at_ms
            """
        return try await !self.conditioningRows(query).isEmpty
    }

    /// Every record, the most recently changed first.
    public func conditionings(limit: Int) async throws -> [CreativeConditioning] {
        let query: PostgresQuery = """
            SELECT key, creative_id, source_url, state, attempts, next_attempt_ms, lease_owner,
                lease_expiry_ms, error, updated_at_ms
            FROM creative_conditioning ORDER BY updated_at_ms DESC, key DESC LIMIT \(Int64(max(0, limit)))
            """
        return try await self.conditioningRows(query)
    }
}
