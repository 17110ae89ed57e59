import AdInsertion
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionPostgres
@testable import IntermissionStore

@Suite(.realTime) struct PostgresRefereeTests {
    @Test(.enabled(if: TestPostgres.required)) func thePostgresServerIsThereWhenRequired() {
        #expect(
            TestPostgres.url != nil,
            "INTERMISSION_REQUIRE_REFEREES=1 but INTERMISSION_TEST_POSTGRES_URL is not set (.ci/run starts PostgreSQL)"
        )
    }
}

/// PostgreSQL-only behaviour: the migrations run concurrently, and a closed store refuses work.
@Suite(.enabled(if: TestPostgres.available), .runningStores, .realTime) struct PostgresAdStoreTests {
    @Test(.timeLimit(.minutes(2))) func instancesStartingTogetherMigrateOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let stores = try (0..<4).map { _ in running(try PostgresAdStore(url: url)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { try await store.migrate() } }
            try await group.waitForAll()
        }
        let applied = try await stores[0].appliedMigrations()
        #expect(applied.sorted() == PostgresAdStore.migrations.map(\.name).sorted())
        for store in stores { try await store.close() }
    }

    @Test(.timeLimit(.minutes(2))) func aClosedStoreRefusesWithAStorageError() async throws {
        let store = running(try PostgresAdStore(url: try await TestPostgres.freshDatabase()))
        try await store.migrate()
        try await store.close()
        #expect(await store.unavailability() != nil)
        do {
            _ = try await store.decisionCount()
            Issue.record("a closed store answered")
        } catch let error as AdInsertionError {
            #expect(error.code == .storage)
        }
    }
}
