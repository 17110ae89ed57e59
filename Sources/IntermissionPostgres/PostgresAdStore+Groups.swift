import Foundation
import IntermissionStore
import Logging
import PostgresNIO
import Synchronization

/// The group relay's storage: every input of a relayed group is a row numbered per group, and a
/// `NOTIFY` tells the other instances (see `GroupRelay`).
extension PostgresAdStore: GroupRelayTransport {
    /// The `NOTIFY` channel of group inputs.
    package static let groupChannel = "intermission_groups"

    /// The largest input sent inside its notification; larger ones are read from the table
    /// (PostgreSQL refuses payloads of 8,000 bytes and more).
    package static let inlineGroupInputBytes = 7_000

    /// Says that `instance` is alive (the database's clock), and forgets instances silent for an
    /// hour.
    package func groupHeartbeat(instance: String) async throws {
        try await self.admitted {
            try await self.client.query(
                """
                INSERT INTO group_instance (instance, seen_at) VALUES (\(instance), now())
                ON CONFLICT (instance) DO UPDATE SET seen_at = now()
                """,
                logger: self.logger
            )
            try await self.client.query(
                "DELETE FROM group_instance WHERE seen_at < now() - interval '1 hour'",
                logger: self.logger
            )
        }
    }

    /// The instances heard from within `seconds` (the database's clock).
    package func liveGroupInstances(within seconds: Double) async throws -> Set<String> {
        try await self.admitted {
            var live: Set<String> = []
            for try await instance in try await self.client.query(
                "SELECT instance FROM group_instance WHERE seen_at > now() - make_interval(secs => \(seconds))"
            ).decode(String.self) {
                live.insert(instance)
            }
            return live
        }
    }

    /// Numbers and stores an input of `group`, and notifies every instance at commit.
    ///
    /// The update of the group's head row takes its lock, so the inputs of one group are numbered
    /// in the order they commit, on every instance.
    package func appendGroupInput(group: String, data: String) async throws -> Int64 {
        try await self.admitted {
            try await self.client.withTransaction(logger: self.logger) { connection -> Int64 in
                var n: Int64 = 0
                for try await value in try await connection.query(
                    """
                    INSERT INTO group_head (group_id, n) VALUES (\(group), 1)
                    ON CONFLICT (group_id) DO UPDATE SET n = group_head.n + 1 RETURNING n
                    """,
                    logger: self.logger
                ).decode(Int64.self) {
                    n = value
                }
                try await connection.query(
                    "INSERT INTO group_input (group_id, n, data) VALUES (\(group), \(n), \(data))",
                    logger: self.logger
                )
                let inline = data.utf8.count <= Self.inlineGroupInputBytes ? " " + data : ""
                try await connection.query(
                    "SELECT pg_notify(\(Self.groupChannel), \(group + " " + String(n) + inline))",
                    logger: self.logger
                )
                return n
            }
        }
    }

    /// The inputs of `group` numbered above `after`, in order.
    package func groupInputs(group: String, after: Int64) async throws -> [(n: Int64, data: String)] {
        try await self.admitted {
            var inputs: [(n: Int64, data: String)] = []
            for try await (n, data) in try await self.client.query(
                "SELECT n, data FROM group_input WHERE group_id = \(group) AND n > \(after) ORDER BY n"
            ).decode((Int64, String).self) {
                inputs.append((n, data))
            }
            return inputs
        }
    }

    /// Deletes the inputs of a group that emptied at input `n` (its head stays, so numbers are never
    /// reused: an instance that reads the group later starts after the gap).
    package func forgetGroup(_ group: String, through n: Int64) async throws {
        try await self.admitted {
            try await self.client.query(
                "DELETE FROM group_input WHERE group_id = \(group) AND n <= \(n)",
                logger: self.logger
            )
        }
    }

    /// The inputs other instances (and this one) append, as they are notified.
    package func groupNotices() -> AsyncStream<GroupRelayNotice> {
        self.groupNoticeStream.stream
    }

    /// Listens for group inputs on a pooled connection of its own, listening again a second after
    /// it fails; each notification becomes a `GroupRelayNotice`.
    package func listenForGroups() async {
        while !Task.isCancelled {
            do {
                try await self.client.withConnection { connection in
                    try await connection.listen(on: Self.groupChannel) { notifications in
                        for try await notification in notifications {
                            if let notice = GroupRelayNotice(payload: notification.payload) {
                                self.groupNoticeStream.continuation.yield(notice)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                self.logger.debug("LISTEN for groups failed", metadata: ["error": "\(Self.describe(error))"])
            }
            try? await self.clock.sleep(for: .seconds(1))
        }
    }
}
