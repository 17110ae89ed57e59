import IntermissionStoreTestSupport
import IntermissionTestSupport
import Testing

@testable import IntermissionSQLite

/// The store contracts (`StoreContract`) on SQLite files.
@Suite(.runningStores, .realTime) struct SQLiteStoreContractTests {
    private static let contract = StoreContract(
        name: "sqlite",
        freshURL: { try makeScratchFolder() + "/store.sqlite" },
        connect: { try SQLiteAdStore(path: $0) }
    )

    @Test(.timeLimit(.minutes(2)), arguments: StoreContract.Check.allCases)
    func theContractHolds(_ check: StoreContract.Check) async throws {
        try await Self.contract.run(check)
    }
}
