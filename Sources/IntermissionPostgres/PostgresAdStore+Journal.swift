import AdInsertion
import HLSPlaylist
import IntermissionStore
import Logging
import Synchronization

/// The local journal (`journal=PATH`): where decisions and beacons go while PostgreSQL cannot be
/// reached, and the writer that puts them in the database when it answers again.
///
/// A request tries the database once, with the request deadline; when that fails, it and every
/// request of the next second are answered from the journal without waiting for the database,
/// and so is every request while the journal holds entries (the writer has not caught up). The
/// writer runs while the store is open: it retries with a growing pause (0.1 s doubling to 5 s)
/// and stops in ``close()``.
extension PostgresAdStore {
    /// The writer's first pause after a failed write, and its longest.
    package static let journalRetry = (first: Duration.milliseconds(100), last: Duration.seconds(5))
    /// How often the writer looks at an empty journal (no database call).
    package static let journalPoll = Duration.milliseconds(100)
    /// The most entries written in one request (one request deadline).
    package static let journalBatch = 200

    /// Whether requests go to the journal now: it holds entries not yet written to the database
    /// (the database was unreachable and its writer has not caught up), or a request failed within
    /// the last second (on the store's clock).
    package func journaling(_ journal: DecisionJournal) -> Bool {
        if !journal.isEmpty { return true }
        guard let until = self.downUntil.withLock({ $0 }) else { return false }
        return self.elapsed < until
    }

    /// A request failed: the next second's requests go to the journal; says so once per outage.
    package func failed(_ error: AdInsertionError, journal: DecisionJournal) {
        let first = self.downUntil.withLock { until -> Bool in
            defer { until = self.elapsed + .seconds(1) }
            return until == nil
        }
        if first {
            self.logger.warning(
                "PostgreSQL unreachable: decisions and beacons go to the journal until it answers",
                metadata: ["journal": "\(journal.path)", "error": "\(error.message)"]
            )
        }
    }

    /// A decision made without the database and journaled (or the one journaled first for its key).
    package func journaled(
        _ key: DecisionKey,
        recentSince: DateTime?,
        make: @Sendable (Set<String>) -> AdDecision,
        in journal: DecisionJournal
    ) throws -> (decision: AdDecision, isNew: Bool) {
        let recent = recentSince.map { journal.recentCreatives(viewer: key.viewer, since: $0) } ?? []
        let made = try journal.journal(make(recent))
        self.memory.withLock { $0.remember(made.decision, for: key) }
        return made
    }

    /// Writes the journal to the database until the store closes: whenever it holds entries,
    /// they are written in order; after a failure the writer waits, longer after each one.
    package func writeJournal(_ journal: DecisionJournal) async {
        var pause = Self.journalRetry.first
        while !Task.isCancelled {
            if journal.isEmpty {
                try? await self.clock.sleep(for: Self.journalPoll)
                continue
            }
            if await self.writeJournalOnce(journal) {
                pause = Self.journalRetry.first
            } else {
                try? await self.clock.sleep(for: pause)
                pause = min(pause * 2, Self.journalRetry.last)
            }
        }
    }

    /// Writes the entries the journal holds now; whether every one was written.
    ///
    /// They go in order, in batches of ``journalBatch`` (each one request with the request
    /// deadline); those written are then forgotten; the first failure stops it.
    ///
    /// An entry written twice (a batch given up at its deadline, one of its statements answered
    /// late) is harmless for a decision (its key is unique) and counts a beacon's duplicate once
    /// more; an entry lost would not be harmless, so entries leave the journal only once written.
    package func writeJournalOnce(_ journal: DecisionJournal) async -> Bool {
        let entries = journal.entries()
        guard !entries.isEmpty else { return true }
        let progress = Progress()
        var failure: (any Error)?
        for start in stride(from: 0, to: entries.count, by: Self.journalBatch) {
            let batch = entries[start..<min(start + Self.journalBatch, entries.count)]
            do {
                try await self.admitted {
                    for entry in batch {
                        // Given up at the deadline: write no more (the next attempt starts here).
                        try Task.checkCancellation()
                        switch entry {
                        case .decision(let decision):
                            let inserted = try await self.insert(decision)
                            if !inserted { try await self.decidedElsewhere(decision) }
                        case .beacon(let beacon):
                            _ = try await self.storeBeacon(beacon)
                        }
                        progress.advance()
                    }
                    return true
                }
            } catch {
                failure = error
                break
            }
        }
        let written = progress.count
        if written > 0 {
            do {
                try journal.drop(first: written)
            } catch {
                self.logger.error("the journal could not be emptied", metadata: ["error": "\(error)"])
                return false
            }
            self.logger.notice(
                "journal written to PostgreSQL",
                metadata: ["entries": "\(written)", "left": "\(journal.count)"]
            )
        }
        if let failure {
            self.logger.debug("writing the journal failed", metadata: ["error": "\(Self.describe(failure))"])
            return false
        }
        if journal.isEmpty { self.downUntil.withLock { $0 = nil } }
        return true
    }

    /// A journaled decision whose key has another one in the database (another instance, or a
    /// request given up at its deadline, stored it meanwhile): the stored one stays, and this
    /// instance answers it from now on, as the others do.
    private func decidedElsewhere(_ journaled: AdDecision) async throws {
        guard let stored = try await self.find(journaled.key, recentSince: nil).existing else { return }
        self.memory.withLock { $0.remember(stored, for: journaled.key) }
        if stored.assets != journaled.assets {
            self.logger.warning(
                "a decision journaled while PostgreSQL was unreachable was also made elsewhere; the stored one stays",
                metadata: ["scope": "\(journaled.scope)", "break": "\(journaled.breakID)"]
            )
        }
    }

    /// How many entries of a batch were written (read once the batch's request is over).
    private final class Progress: Sendable {
        private let written = Atomic<Int>(0)
        var count: Int { self.written.load(ordering: .acquiring) }
        func advance() { self.written.add(1, ordering: .releasing) }
    }
}
