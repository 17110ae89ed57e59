import AdInsertion
import GRDB
import HLSPlaylist
import IntermissionStore

extension SQLiteAdStore: TrackingStore {
    /// Records a beacon in one transaction, committed before it returns: a first beacon is
    /// inserted, a duplicate adds one to the row's count (`INSERT … ON CONFLICT`, so concurrent
    /// duplicates never make two rows, whichever connection or process writes them).
    public func record(_ beacon: Beacon) async throws -> BeaconRecording {
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
        let duplicates = try await self.pool.write { db -> Int in
            try db.execute(
                sql: """
                    INSERT INTO tracking_beacon
                        (viewer, scope, break_id, slot, event, creative_id, plan, received_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (viewer, scope, break_id, slot, event) DO UPDATE SET duplicates = duplicates + 1
                    """,
                arguments: [
                    beacon.key.viewer, beacon.key.scope, beacon.key.breakID, beacon.key.slot,
                    beacon.key.storedEvent, beacon.creativeID, beacon.plan.rawValue,
                    beacon.receivedAt.millisecondsSince1970,
                ]
            )
            return try Int.fetchOne(
                db,
                sql:
                    "SELECT duplicates FROM tracking_beacon WHERE viewer = ? AND scope = ? AND break_id = ? AND slot = ? AND event = ?",
                arguments: [
                    beacon.key.viewer, beacon.key.scope, beacon.key.breakID, beacon.key.slot,
                    beacon.key.storedEvent,
                ]
            ) ?? 0
        }
        if let problem = self.file.problem() { throw AdInsertionError(code: .storage, message: problem) }
        return BeaconRecording(isNew: duplicates == 0, duplicates: duplicates)
    }

    /// Counts beacons by creative, plan and event.
    public func beaconCounts(_ filter: BeaconReportFilter) async throws -> [BeaconCount] {
        // Plain strings outside the closure: the pool's asynchronous read takes a `Sendable` one,
        // so the reading waits off this task's thread instead of blocking it.
        let (condition, values): (String, [String])
        switch filter {
        case .breakOf(let scope, let breakID):
            (condition, values) = ("scope = ? AND break_id = ?", [scope, breakID])
        case .creative(let id): (condition, values) = ("creative_id = ?", [id])
        }
        var scope = "*"
        var breakID = "*"
        if case .breakOf(let s, let b) = filter { (scope, breakID) = (s, b) }
        let lines = try await self.pool.read { [scope, breakID] db -> [BeaconCount] in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT creative_id, plan, event, COUNT(*) AS beacons, SUM(duplicates) AS duplicates
                    FROM tracking_beacon WHERE \(condition) GROUP BY creative_id, plan, event
                    """,
                arguments: StatementArguments(values)
            )
            var lines: [BeaconCount] = []
            for row in rows {
                let plan: String = row["plan"]
                let event: String = row["event"]
                guard let plan = ViewerPlan(rawValue: plan), let event = BeaconKey.event(stored: event) else {
                    continue
                }
                lines.append(
                    BeaconCount(
                        scope: scope,
                        breakID: breakID,
                        creativeID: row["creative_id"],
                        plan: plan,
                        event: event,
                        beacons: row["beacons"],
                        duplicates: row["duplicates"]
                    )
                )
            }
            return lines
        }
        return BeaconCount.sorted(lines)
    }
}
