import HLSInterstitials
import Testing

@Suite struct JSONTests {
    @Test func parsesAndWritesOrderedObject() throws {
        let value = try JSONValue.parse(#"{"b":1,"a":[true,null,"x"]}"#)
        #expect(value.text() == #"{"b":1,"a":[true,null,"x"]}"#)
    }
}
