import HLSPlaylist
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// The one parse of an asset-list request's inputs that the route and the event loop share.
@Suite(.realTime) struct AssetListInputParsingTests {
    private func input(_ query: String?, scope: String = "vod-demo", sessions: [String] = []) throws -> AssetListInput {
        try AssetListInput(scope: scope, breakID: "midroll-1", query: query.map { $0[...] }, sessionIDs: sessions)
    }

    @Test func readsTheThreeParametersOnceAndDecodesTheirValues() throws {
        let plain = try self.input("_HLS_primary_id=v-1&_HLS_start_offset=2.5&_HLS_interstitial_id=midroll-1&x=%zz")
        #expect(plain.primaryID == "v-1" && plain.interstitialID == "midroll-1")
        #expect(plain.startOffset == MediaTime(milliseconds: 2500))
        // `x=%zz` is none of the three and fails nothing, but its `%` makes the query not plain.
        #expect(!plain.isPlain)
        let decoded = try self.input("_HLS_primary_id=a%20b")
        #expect(decoded.primaryID == "a b" && !decoded.isPlain)
        // The first of a repeated parameter wins (as the router reads a query); not plain.
        let twice = try self.input("_HLS_primary_id=a&_HLS_primary_id=b")
        #expect(twice.primaryID == "a" && !twice.isPlain)
        // A parameter with no `=` is present and empty: an anonymous request.
        let bare = try self.input("_HLS_primary_id")
        #expect(bare.primaryID == "" && !bare.isPlain)
        #expect(try self.input(nil).isPlain && self.input(nil).viewer == nil)
    }

    @Test func theViewerIsThePrimaryIDElseTheFirstSessionHeader() throws {
        #expect(try self.input("_HLS_primary_id=p", sessions: ["s1", "s2"]).viewer == "p")
        #expect(try self.input("x=1", sessions: ["s1", "s2"]).viewer == "s1")
    }

    /// Every input out of its range is refused by name, in a fixed order.
    @Test(arguments: [
        ("_HLS_start_offset=nan", "_HLS_start_offset"),
        ("_HLS_start_offset=1e308", "_HLS_start_offset"),
        ("_HLS_start_offset=9223372036854775807", "_HLS_start_offset"),
        ("_HLS_start_offset=-1", "_HLS_start_offset"),
        ("_HLS_start_offset=3600.000000001", "_HLS_start_offset"),
        ("_HLS_primary_id=a%00b", "_HLS_primary_id"),
        ("_HLS_primary_id=" + String(repeating: "v", count: 100_000), "_HLS_primary_id"),
        ("_HLS_interstitial_id=%2e%2e", "_HLS_interstitial_id"),
        ("_HLS_interstitial_id=" + String(repeating: "i", count: 201), "_HLS_interstitial_id"),
        // The interstitial ID is checked before the offset, the offset before the viewer.
        ("_HLS_primary_id=a%00&_HLS_start_offset=nan&_HLS_interstitial_id=..", "_HLS_interstitial_id"),
        ("_HLS_primary_id=a%00&_HLS_start_offset=nan", "_HLS_start_offset"),
    ])
    func hostileValuesAreRefusedByName(query: String, field: String) {
        #expect(throws: InputLimitError.self) { try self.input(query) }
        do {
            _ = try self.input(query)
        } catch let error as InputLimitError {
            #expect(error.field == field, "\(error)")
        } catch {
            Issue.record("not an input error: \(error)")
        }
    }

    @Test func hostilePathsAndHeadersAreRefused() {
        for scope in ["vod-..", "vod-", "live-" + String(repeating: "c", count: 201), "vod-a\u{0}"] {
            #expect(throws: InputLimitError.self, "\(scope)") { try self.input(nil, scope: scope) }
        }
        #expect(throws: InputLimitError.self) { try self.input(nil, sessions: ["ok", "bad\u{7F}"]) }
        #expect(throws: InputLimitError.self) { try self.input(nil, sessions: [String(repeating: "s", count: 201)]) }
    }
}
