import AdInsertion
import HLSPlaylist
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionPostgres
@testable import IntermissionStore

/// The store's background loops and its journal's window wait on the clock the store is given:
/// a manual clock, advanced by the test, against the real PostgreSQL.
@Suite(.enabled(if: TestPostgres.available), .runningStores, .realTime) struct PostgresClockTests {
    /// Waits until the only sleeps on `clock` are those ending at `instants` (a loop has gone back
    /// to sleep; a request's deadline comes and goes while a read runs).
    private static func sleeping(
        _ clock: ManualClock,
        until instants: [ManualClock.Instant]
    ) async -> Bool {
        await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(5)) { clock.deadlines == instants }
    }

    /// A store on a fresh database whose only loops are those the test drives, with `options`.
    private static func store(_ clock: ManualClock, options: String) async throws -> PostgresAdStore {
        let url = try await TestPostgres.freshDatabase(options: "listen=off&groups=local&" + options)
        let store = running(try PostgresAdStore(url: url, clock: clock))
        try await store.migrate()
        return store
    }

    /// The re-read runs once per period of the store's clock: a break another instance saves is
    /// seen when the clock passes the period, and not a nanosecond before.
    @Test(.timeLimit(.minutes(2))) func theReReadRunsWhenTheClockPassesItsPeriodAndNotBefore() async throws {
        let clock = ManualClock()
        let store = try await Self.store(clock, options: "reread=5")
        let writer = running(try PostgresAdStore(settings: store.settings, remembering: 16))
        var changes = store.breakChanges().makeAsyncIterator()
        // The first read has run (no channel had a revision): the loop sleeps until +5 s.
        #expect(await Self.sleeping(clock, until: [.init(offset: .seconds(5))]))
        for (round, channel) in ["news", "sport"].enumerated() {
            let period = ManualClock.Instant(offset: .seconds(5 * (round + 1)))
            try await writer.save(
                LiveBreak(id: "b", channel: channel, startDate: t0, duration: MediaTime(seconds: 30), updatedAt: t0)
            )
            let begun = clock.sleepsBegun
            clock.advance(to: ManualClock.Instant(offset: period.offset - .nanoseconds(1)))
            // Not yet: the loop still sleeps until the period's end and began no read.
            #expect(clock.deadlines == [period], "round \(round)")
            #expect(clock.sleepsBegun == begun, "round \(round)")
            clock.advance(to: period)
            let seen = await changes.next()
            #expect(seen == channel, "round \(round)")
            #expect(await Self.sleeping(clock, until: [period.advanced(by: .seconds(5))]), "round \(round)")
        }
        try await writer.close()
        try await store.close()
    }

    /// After a failed request, the next second of the store's clock goes to the journal.
    ///
    /// The database is not asked until the clock has passed that second. A decision journaled
    /// meanwhile is written by the journal's writer when its poll ends on the clock.
    @Test(.timeLimit(.minutes(2))) func theJournalsWindowOpensAndClosesOnTheClock() async throws {
        let folder = try makeScratchFolder()
        let clock = ManualClock()
        let store = try await Self.store(clock, options: "reread=3600&journal=\(folder)/journal")
        let journal = try #require(store.journal)
        // The loops have begun: the writer polls the empty journal, the re-read waits an hour.
        let hour = ManualClock.Instant(offset: .seconds(3600))
        #expect(await Self.sleeping(clock, until: [.init(offset: PostgresAdStore.journalPoll), hour]))
        let ann = DecisionKey(viewer: "ann", scope: "vod-movie", breakID: "b")
        _ = try await store.findOrCreateDecision(ann, recentSince: t0) { _ in decision(ann, creative: "red") }
        #expect(!store.journaling(journal))
        #expect(try await store.recentCreatives(viewer: "ann", since: t0) == ["red"])

        store.failed(AdInsertionError(code: .storage, message: "the test's failure"), journal: journal)
        // Open: the journal answers (it holds nothing of ann's), not the database.
        #expect(store.journaling(journal))
        #expect(try await store.recentCreatives(viewer: "ann", since: t0).isEmpty)
        clock.advance(by: .milliseconds(999))
        #expect(store.journaling(journal))
        #expect(try await store.recentCreatives(viewer: "ann", since: t0).isEmpty)
        clock.advance(by: .milliseconds(1))
        // Closed: the database answers again.
        #expect(!store.journaling(journal))
        #expect(try await store.recentCreatives(viewer: "ann", since: t0) == ["red"])

        // A decision made while the window is open goes to the journal; the writer, polling an
        // empty journal every 100 ms of the clock, writes it when its poll ends. (A poll's worth
        // of time first, so that the writer's next poll ends a poll after now.)
        clock.advance(by: PostgresAdStore.journalPoll)
        let poll = clock.now.advanced(by: PostgresAdStore.journalPoll)
        #expect(await Self.sleeping(clock, until: [poll, hour]))
        store.failed(AdInsertionError(code: .storage, message: "the test's failure"), journal: journal)
        let bob = DecisionKey(viewer: "bob", scope: "vod-movie", breakID: "b")
        let made = try await store.findOrCreateDecision(bob, recentSince: t0) { _ in decision(bob, creative: "blue") }
        #expect(made.isNew && journal.count == 1)
        clock.advance(to: ManualClock.Instant(offset: poll.offset - .nanoseconds(1)))
        #expect(journal.count == 1)
        clock.advance(to: poll)
        // Written: the window is closed (the writer caught up), and the database has it.
        #expect(await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(5)) { !store.journaling(journal) })
        #expect(journal.isEmpty)
        var settings = store.settings
        settings.journal = nil
        let reader = running(try PostgresAdStore(settings: settings, remembering: 16))
        #expect(try await reader.decision(for: bob)?.assets.map(\.creativeID) == ["blue"])
        try await reader.close()
        try await store.close()
    }
}
