import AdInsertion
import HLSPlaylist

extension ConfigurationFile {
    /// `storage:`: how long stored decisions are kept and how many (see ``DecisionRetention``).
    public struct StorageEntry: Sendable, Codable {
        /// `retention`: seconds a decision is kept, 60 to 34,560,000 (400 days), never less than
        /// `repeatWindow` (default: `repeatWindow` plus one hour).
        public var retention: Double?
        /// `maxDecisions`: the most decisions kept, 1 to 100,000,000 (default 500,000).
        public var maxDecisions: Int?
        /// `pruneInterval`: seconds between pruning runs, 0.01 to 86,400 (default 60).
        public var pruneInterval: Double?
        /// `pruneBatch`: the most decisions one pruning transaction deletes, 1 to 100,000 (default 500).
        public var pruneBatch: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case retention, maxDecisions, pruneInterval, pruneBatch
        }

        /// The allowed `retention`, seconds.
        static let retentionRange: ClosedRange<Double> = 60...34_560_000
        /// The allowed `maxDecisions`.
        static let maxDecisionsRange: ClosedRange<Int> = 1...100_000_000
        /// The allowed `pruneInterval`, seconds.
        static let pruneIntervalRange: ClosedRange<Double> = 0.01...86_400
        /// The allowed `pruneBatch`.
        static let pruneBatchRange: ClosedRange<Int> = 1...100_000

        /// Checks every value and sets it on `retention`; a retention shorter than `repeatWindow`
        /// (the frequency-capping window, applied before) is refused.
        func apply(to retention: inout DecisionRetention, repeatWindow: MediaTime) throws(InputLimitError) {
            typealias L = InputLimits
            if let seconds = self.retention {
                let age = try L.seconds(seconds, in: Self.retentionRange, field: "storage.retention")
                guard age >= repeatWindow else {
                    throw InputLimitError(
                        field: "storage.retention",
                        message:
                            "must be at least repeatWindow (\(repeatWindow.seconds) s), or frequency capping forgets what viewers saw"
                    )
                }
                retention.maximumAge = age
            }
            // Each value given replaces the default, once checked.
            let cap = try self.maxDecisions.map { (count) throws(InputLimitError) in
                try L.integer(count, in: Self.maxDecisionsRange, field: "storage.maxDecisions")
            }
            let interval = try self.pruneInterval.map { (seconds) throws(InputLimitError) in
                try L.duration(seconds, in: Self.pruneIntervalRange, field: "storage.pruneInterval")
            }
            let batch = try self.pruneBatch.map { (count) throws(InputLimitError) in
                try L.integer(count, in: Self.pruneBatchRange, field: "storage.pruneBatch")
            }
            retention.maximumDecisions = cap ?? retention.maximumDecisions
            retention.interval = interval ?? retention.interval
            retention.batchSize = batch ?? retention.batchSize
        }
    }
}
