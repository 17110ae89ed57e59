import AdInsertion
import HLSPlaylist
import IntermissionHTTP
import Logging
import ServiceLifecycle

/// How long stored decisions are kept, and how many at most (the configuration's `storage:`
/// section): every viewer that names itself stores a decision per break, so without a bound the
/// database grows with every new viewer.
///
/// A decision is needed while its viewer may come back to the same break (the same answer) and
/// while it counts for frequency capping (the repeat window); past both it is only weight.
public struct DecisionRetention: Sendable, Hashable {
    /// How long a decision is kept after it was made (`storage.retention`, seconds, 60 s to
    /// 400 days); `nil` (the default): the repeat window (`repeatWindow`) plus ``defaultMargin``.
    ///
    /// Never shorter than the repeat window (the configuration file refuses one that is), or
    /// frequency capping would forget what a viewer saw.
    public var maximumAge: MediaTime?
    /// The most decisions kept (`storage.maxDecisions`, 1 to 100,000,000; default 500,000, about
    /// 170 MB of SQLite at some 340 bytes a decision).
    ///
    /// Past it the oldest are deleted first, even
    /// inside the retention: the cap bounds the disk whatever the traffic.
    public var maximumDecisions: Int = 500_000
    /// How often the pruner runs (`storage.pruneInterval`, seconds, 0.01 to 86,400; default 60).
    public var interval: Duration = .seconds(60)
    /// The most decisions one batch deletes, in one short transaction (`storage.pruneBatch`, 1 to
    /// 100,000; default 500), so new decisions never wait long for the pruner: a batch of 1,000
    /// random viewer IDs held SQLite's writer 66 to 120 ms in a debug build, among 170,000 rows.
    public var batchSize: Int = 500

    /// What is added to the repeat window when no retention is configured: one hour, so a viewer
    /// who pauses past the window still finds the same answer for a while.
    public static let defaultMargin = MediaTime(seconds: 3600)

    /// The defaults.
    public init() {}

    /// The age past which a decision is deleted, given the repeat window.
    public func age(repeatWindow: MediaTime) -> MediaTime {
        self.maximumAge ?? (repeatWindow + Self.defaultMargin)
    }
}

/// Deletes the decisions past their retention, and the oldest past the cap, in bounded batches
/// (see ``DecisionRetention``), and reports what it did in `/metrics`.
struct DecisionPruner: Sendable {
    let store: any AdStore
    let retention: DecisionRetention
    /// The frequency-capping window the default retention is made from.
    let repeatWindow: MediaTime
    let metrics: ServerMetrics

    /// Prunes as of `now`: batch after batch until one deletes less than a full batch; then
    /// records the decisions stored.
    ///
    /// - Returns: How many decisions it deleted.
    @discardableResult
    func prune(now: DateTime) async throws -> Int {
        let cutoff = now - self.retention.age(repeatWindow: self.repeatWindow)
        let batch = max(1, self.retention.batchSize)
        var total = 0
        while true {
            let deleted = try await self.store.pruneDecisions(
                decidedBefore: cutoff,
                keeping: self.retention.maximumDecisions,
                limit: batch
            )
            total += deleted
            self.metrics.decisionsPruned(deleted)
            guard deleted == batch else { break }
            // Between batches the writer takes the decisions that waited.
            try Task.checkCancellation()
            await Task.yield()
        }
        self.metrics.decisionsStored(try await self.store.decisionCount())
        return total
    }
}

/// Runs the ``DecisionPruner`` at start and then every ``DecisionRetention/interval``, until the
/// service group shuts down: a batch in progress finishes, no other starts.
///
/// The decisions' ages are dated by the server's wall clock (`clock`); the pause between two runs
/// is measured on its timer clock (`timer`, ``ServerConfiguration/timerClock``), which a test
/// advances. A failed run is logged and tried again at the next interval.
struct DecisionPruningService: Service {
    let pruner: DecisionPruner
    let clock: any WallClock
    let timer: any Clock<Duration>
    let logger: Logger

    func run() async throws {
        let (pruner, clock, timer, logger) = (self.pruner, self.clock, self.timer, self.logger)
        let interval = max(self.pruner.retention.interval, .milliseconds(10))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await pruner.prune(now: clock.now())
                } catch  where !Task.isCancelled {
                    logger.warning("pruning stored decisions failed", metadata: ["error": "\(error)"])
                } catch {
                    return
                }
                try? await timer.sleep(for: interval)
            }
        }
    }
}
