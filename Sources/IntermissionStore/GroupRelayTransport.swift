/// Where the inputs of relayed groups are numbered, kept and announced: the PostgreSQL store
/// (`PostgresAdStore`), shared by every instance on the database.
package protocol GroupRelayTransport: Sendable {
    /// Numbers and keeps an input of `group`; every instance is told at commit.
    func appendGroupInput(group: String, data: String) async throws -> Int64
    /// The inputs of `group` numbered above `after`, in order.
    func groupInputs(group: String, after: Int64) async throws -> [(n: Int64, data: String)]
    /// Drops the inputs of a group that emptied at input `n`.
    func forgetGroup(_ group: String, through n: Int64) async throws
    /// The inputs as announced (one consumer: the server's `GroupRelayService`).
    func groupNotices() -> AsyncStream<GroupRelayNotice>
    /// Says that `instance` is alive.
    func groupHeartbeat(instance: String) async throws
    /// The instances heard from within `seconds`.
    func liveGroupInstances(within seconds: Double) async throws -> Set<String>
}

/// One announced input: the group, its number and, when it was small enough, the input itself.
package struct GroupRelayNotice: Sendable, Equatable {
    package var group: String
    package var n: Int64
    package var data: String?

    /// Reads a `NOTIFY` payload `GROUP N[ DATA]` (group IDs have no spaces).
    package init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, Self.isValidGroupID(parts[0]), parts[1].utf8.count <= 19,
            let n = Int64(parts[1]), n > 0
        else { return nil }
        self.group = String(parts[0])
        self.n = n
        self.data = parts.count == 3 ? String(parts[2]) : nil
    }

    package init(group: String, n: Int64, data: String?) {
        self.group = group
        self.n = n
        self.data = data
    }
}

extension GroupRelayNotice {
    /// Whether a group ID is acceptable: 1 to 64 of `A-Z a-z 0-9 . _ -`, not `.` or `..`.
    package static func isValidGroupID(_ id: Substring) -> Bool {
        guard (1...64).contains(id.utf8.count), id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
