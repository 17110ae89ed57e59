import HLSPlaylist

/// Where one creative's conditioning stands (a progressive media file made into HLS that matches a
/// presentation, see ``ConditioningPlan``): kept in the store so that every instance on it sees the
/// same state and only one conditions the creative at a time (the lease).
public struct CreativeConditioning: Sendable, Hashable {
    /// A state of conditioning (an open vocabulary: the store keeps the raw value).
    public struct State: Sendable, Hashable, CustomStringConvertible {
        /// The stored spelling.
        public var rawValue: String

        /// Creates a state from its stored spelling.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Asked for, not started (or its lease ran out).
        public static let pending = State(rawValue: "pending")
        /// An instance holds the lease and is conditioning it.
        public static let conditioning = State(rawValue: "conditioning")
        /// The renditions are stored and may be served.
        public static let ready = State(rawValue: "ready")
        /// The last attempt failed; tried again at ``CreativeConditioning/nextAttempt`` if set.
        public static let failed = State(rawValue: "failed")

        /// The stored spelling.
        public var description: String { self.rawValue }
    }

    /// The creative's key: the source URL and the target's signature, hashed.
    public var key: String
    /// The creative's ID (as the decision names it).
    public var creativeID: String
    /// The progressive media file conditioned.
    public var sourceURL: String
    /// Where it stands.
    public var state: State
    /// How many attempts were started.
    public var attempts: Int
    /// When a failed creative may be tried again; `nil` when it is never tried again.
    public var nextAttempt: DateTime?
    /// The instance holding the lease, while ``State/conditioning``.
    public var leaseOwner: String?
    /// When the lease ends: past it, another instance may take the creative over.
    public var leaseExpiry: DateTime?
    /// What went wrong in the last attempt.
    public var error: String?
    /// When the record last changed.
    public var updatedAt: DateTime

    /// Creates a record.
    public init(
        key: String,
        creativeID: String,
        sourceURL: String,
        state: State = .pending,
        attempts: Int = 0,
        nextAttempt: DateTime? = nil,
        leaseOwner: String? = nil,
        leaseExpiry: DateTime? = nil,
        error: String? = nil,
        updatedAt: DateTime
    ) {
        self.key = key
        self.creativeID = creativeID
        self.sourceURL = sourceURL
        self.state = state
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.leaseOwner = leaseOwner
        self.leaseExpiry = leaseExpiry
        self.error = error
        self.updatedAt = updatedAt
    }

    /// Whether an instance may claim the record at `now`: pending, failed with its next attempt
    /// due, or conditioning under a lease that ran out (its holder stopped).
    public func isClaimable(at now: DateTime) -> Bool {
        switch self.state {
        case .pending: true
        case .failed: self.nextAttempt.map { $0 <= now } ?? false
        case .conditioning: self.leaseExpiry.map { $0 <= now } ?? true
        default: false
        }
    }

    /// The record claimed by `owner` until `leaseUntil`: conditioning, one more attempt.
    public func claimed(by owner: String, now: DateTime, leaseUntil: DateTime) -> CreativeConditioning {
        var record = self
        record.state = .conditioning
        record.attempts += 1
        record.leaseOwner = owner
        record.leaseExpiry = leaseUntil
        record.updatedAt = now
        return record
    }
}

/// Where conditioning states are kept (see ``CreativeConditioning``).
///
/// Implementations: ``InMemoryConditioningStore`` here; SQLite and PostgreSQL (shared by instances)
/// in the server.
public protocol ConditioningStore: Sendable {
    /// The record of `key`, if any.
    func conditioning(_ key: String) async throws -> CreativeConditioning?
    /// Stores `record` unless a record of its key exists; returns the stored record either way.
    func requestConditioning(_ record: CreativeConditioning) async throws -> CreativeConditioning
    /// Claims `key` for `owner` in one atomic step when ``CreativeConditioning/isClaimable(at:)``:
    /// the claimed record, or `nil` when it is not claimable (another instance holds it, it is
    /// ready, or it failed for good or not yet due).
    func claimConditioning(
        _ key: String,
        owner: String,
        now: DateTime,
        leaseUntil: DateTime
    ) async throws -> CreativeConditioning?
    /// Ends `owner`'s lease of `key` with `state` (ready or failed), `error` and `nextAttempt`;
    /// `false` when `owner` no longer holds the lease (it ran out and another took over).
    func finishConditioning(
        _ key: String,
        owner: String,
        state: CreativeConditioning.State,
        error: String?,
        nextAttempt: DateTime?,
        now: DateTime
    ) async throws -> Bool
    /// Every record, the most recently changed first, at most `limit`.
    func conditionings(limit: Int) async throws -> [CreativeConditioning]
}

/// A ``ConditioningStore`` in memory (one process).
public actor InMemoryConditioningStore: ConditioningStore {
    private var records: [String: CreativeConditioning] = [:]

    /// Creates an empty store.
    public init() {}

    /// The record of `key`.
    public func conditioning(_ key: String) -> CreativeConditioning? { self.records[key] }

    /// Stores `record` unless its key exists.
    public func requestConditioning(_ record: CreativeConditioning) -> CreativeConditioning {
        if let stored = self.records[record.key] { return stored }
        self.records[record.key] = record
        return record
    }

    /// Claims `key` when claimable.
    public func claimConditioning(
        _ key: String,
        owner: String,
        now: DateTime,
        leaseUntil: DateTime
    ) -> CreativeConditioning? {
        guard let record = self.records[key], record.isClaimable(at: now) else { return nil }
        let claimed = record.claimed(by: owner, now: now, leaseUntil: leaseUntil)
        self.records[key] = claimed
        return claimed
    }

    /// Ends `owner`'s lease.
    public func finishConditioning(
        _ key: String,
        owner: String,
        state: CreativeConditioning.State,
        error: String?,
        nextAttempt: DateTime?,
        now: DateTime
    ) -> Bool {
        guard var record = self.records[key], record.state == .conditioning, record.leaseOwner == owner else {
            return false
        }
        record.state = state
        record.error = error
        record.nextAttempt = nextAttempt
        record.leaseOwner = nil
        record.leaseExpiry = nil
        record.updatedAt = now
        self.records[key] = record
        return true
    }

    /// Every record, the most recently changed first.
    public func conditionings(limit: Int) -> [CreativeConditioning] {
        Array(self.records.values.sorted { ($0.updatedAt, $0.key) > ($1.updatedAt, $1.key) }.prefix(max(0, limit)))
    }
}
