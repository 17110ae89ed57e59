import AdInsertion
import HLSPlaylist
import IntermissionStore
import PostgresNIO

extension PostgresAdStore: TrackingStore {
    /// Records a beacon with one statement, committed before it returns: a first beacon is
    /// inserted, a duplicate adds one to its row's count (`INSERT … ON CONFLICT … RETURNING`), so
    /// that instances sharing the database store each beacon once and forward it once, whichever
    /// instance each copy reaches.
    public func record(_ beacon: Beacon) async throws -> BeaconRecording {
        guard let journal = self.journal else { return try await self.recordInDatabase(beacon) }
        if self.journaling(journal) { return try journal.journal(beacon) }
        do {
            return try await self.recordInDatabase(beacon)
        } catch let error as AdInsertionError where error.code == .storage {
            self.failed(error, journal: journal)
            return try journal.journal(beacon)
        }
    }

    /// `record(_:)` of a beacon, in the database alone.
    package func recordInDatabase(_ beacon: Beacon) async throws -> BeaconRecording {
        let duplicates = try await self.admitted { try await self.storeBeacon(beacon) }
        return BeaconRecording(isNew: duplicates == 0, duplicates: Int(duplicates))
    }

    /// Stores a beacon (its row, or one more duplicate on its row); its duplicates so far.
    package func storeBeacon(_ beacon: Beacon) async throws -> Int64 {
        let key = beacon.key
        var duplicates: Int64 = 0
        let rows = try await self.client.query(
            """
            INSERT INTO tracking_beacon (viewer, scope, break_id, slot, event, creative_id, plan, received_at_ms)
            VALUES (\(key.viewer), \(key.scope), \(key.breakID), \(Int64(key.slot)), \(key.storedEvent),
                \(beacon.creativeID), \(beacon.plan.rawValue), \(beacon.receivedAt.millisecondsSince1970))
            ON CONFLICT (viewer, scope, break_id, slot, event)
                DO UPDATE SET duplicates = tracking_beacon.duplicates + 1
            RETURNING duplicates
            """,
            logger: self.logger
        )
        for try await value in rows.decode(Int64.self) { duplicates = value }
        return duplicates
    }

    /// Counts beacons by creative, plan and event, across every instance's beacons.
    public func beaconCounts(_ filter: BeaconReportFilter) async throws -> [BeaconCount] {
        var scope = "*"
        var breakID = "*"
        let query: PostgresQuery
        let select = "SELECT creative_id, plan, event, COUNT(*), SUM(duplicates)::BIGINT FROM tracking_beacon"
        switch filter {
        case .breakOf(let s, let b):
            (scope, breakID) = (s, b)
            var text = PostgresQuery.StringInterpolation(literalCapacity: 160, interpolationCount: 2)
            text.appendInterpolation(unescaped: select + " WHERE scope = ")
            text.appendInterpolation(s)
            text.appendInterpolation(unescaped: " AND break_id = ")
            text.appendInterpolation(b)
            text.appendInterpolation(unescaped: " GROUP BY creative_id, plan, event")
            query = PostgresQuery(stringInterpolation: text)
        case .creative(let id):
            var text = PostgresQuery.StringInterpolation(literalCapacity: 160, interpolationCount: 1)
            text.appendInterpolation(unescaped: select + " WHERE creative_id = ")
            text.appendInterpolation(id)
            text.appendInterpolation(unescaped: " GROUP BY creative_id, plan, event")
            query = PostgresQuery(stringInterpolation: text)
        }
        let rows = try await self.admitted { () -> [(String, String, String, Int64, Int64)] in
            var rows: [(String, String, String, Int64, Int64)] = []
            for try await row in try await self.client.query(query, logger: self.logger).decode(
                (String, String, String, Int64, Int64).self
            ) {
                rows.append(row)
            }
            return rows
        }
        var lines: [BeaconCount] = []
        for (creative, planText, eventText, beacons, duplicates) in rows {
            guard let plan = ViewerPlan(rawValue: planText), let event = BeaconKey.event(stored: eventText) else {
                continue
            }
            lines.append(
                BeaconCount(
                    scope: scope,
                    breakID: breakID,
                    creativeID: creative,
                    plan: plan,
                    event: event,
                    beacons: Int(beacons),
                    duplicates: Int(duplicates)
                )
            )
        }
        return BeaconCount.sorted(lines)
    }
}
