import AdInsertion
import IntermissionStoreTestSupport
import Testing

@testable import IntermissionStore

private func key(_ viewer: String, _ breakID: String = "b") -> DecisionKey {
    DecisionKey(viewer: viewer, scope: "vod-demo", breakID: breakID)
}

@Suite struct RememberedDecisionsTests {
    /// Full, the index gives up the entries nobody asked for since the hand last passed, keeps the
    /// ones asked for, and never holds more than its capacity.
    @Test func theIndexIsBoundedAndKeepsWhatWasAskedFor() {
        var index = RememberedDecisions(capacity: 4)
        for name in ["a", "b", "c", "d"] { index.remember(decision(key(name), creative: name), for: key(name)) }
        #expect(index.count == 4)
        #expect(index.decision(for: key("a"))?.assets.first?.creativeID == "a")
        #expect(index.decision(for: key("c"))?.assets.first?.creativeID == "c")
        index.remember(decision(key("e"), creative: "e"), for: key("e"))
        index.remember(decision(key("f"), creative: "f"), for: key("f"))
        #expect(index.count == 4)
        // b and d were never asked for: they went first.
        #expect(index.decision(for: key("b")) == nil)
        #expect(index.decision(for: key("d")) == nil)
        for name in ["a", "c", "e", "f"] {
            #expect(index.decision(for: key(name))?.assets.first?.creativeID == name, "\(name)")
        }
        // A thousand more: still four, and the last one is there.
        for k in 0..<1000 { index.remember(decision(key("n\(k)"), creative: "x"), for: key("n\(k)")) }
        #expect(index.count == 4)
        #expect(index.decision(for: key("n999")) != nil)
        // Remembering a key again replaces its entry rather than adding one.
        index.remember(decision(key("n999"), creative: "y"), for: key("n999"))
        #expect(index.count == 4)
        #expect(index.decision(for: key("n999"))?.assets.first?.creativeID == "y")
        #expect(RememberedDecisions(capacity: 0).capacity == 1)
    }
}
