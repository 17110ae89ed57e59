import AdInsertion
import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionPostgres

/// The store contracts (`StoreContract`) on PostgreSQL databases, each check on a fresh one.
@Suite(.enabled(if: TestPostgres.available), .runningStores, .realTime) struct PostgresStoreContractTests {
    private static let contract = StoreContract(
        name: "postgres",
        freshURL: { try await TestPostgres.freshDatabase() },
        connect: { try PostgresAdStore(url: $0) },
        migrated: { (store: any AdStore) async throws in
            if let postgres = store as? PostgresAdStore {
                #expect(
                    try await postgres.appliedMigrations().sorted() == PostgresAdStore.migrations.map(\.name).sorted()
                )
            }
        }
    )

    @Test(.timeLimit(.minutes(2)), arguments: StoreContract.Check.allCases)
    func theContractHolds(_ check: StoreContract.Check) async throws {
        try await Self.contract.run(check)
    }
}
