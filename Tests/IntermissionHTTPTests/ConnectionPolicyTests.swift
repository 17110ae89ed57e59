import Testing

@testable import IntermissionHTTP

/// The connection cap's arithmetic and the descriptor table's limit (issue 27), without a server;
/// the cap at work is tested with the server (ConnectionLimitTests in IntermissionServerTests).
@Suite struct ConnectionPolicyTests {
    /// The automatic cap keeps a quarter of the descriptor limit, and at least 256, for everything
    /// else; a configured cap never goes above it.
    @Test func theAutomaticCapLeavesAReserve() {
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 1200) == 900)
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 1024) == 768)
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 20_000) == 15_000)
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 300) == 44)
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 100) == 16)
        #expect(ConnectionPolicy.automaticMaximum(descriptorLimit: 1 << 20) == 786_432)
        #expect(ConnectionPolicy.maximum(configured: nil, descriptorLimit: 1200) == (900, false))
        #expect(ConnectionPolicy.maximum(configured: 100, descriptorLimit: 1200) == (100, false))
        #expect(ConnectionPolicy.maximum(configured: 5000, descriptorLimit: 1200) == (900, true))
        #expect(ConnectionPolicy.maximum(configured: Int.max, descriptorLimit: 1200) == (900, true))
        #expect(ConnectionPolicy.maximum(configured: 0, descriptorLimit: 1200) == (1, false))
    }

    /// The start raises the soft descriptor limit to the hard one.
    @Test func theSoftDescriptorLimitIsRaisedToTheHardOne() throws {
        let raised = try #require(DescriptorTable.raiseSoftLimit())
        #expect(raised.after.soft == min(raised.before.hard, DescriptorTable.unlimitedCeiling))
        #expect(raised.after.soft >= raised.before.soft)
    }
}
