import AdInsertion
import Foundation
import HLSPlaylist
import IntermissionTestSupport
import Testing

@testable import IntermissionSQLite
@testable import IntermissionServer
@testable import IntermissionStore

@Suite("Ad-server tracking URLs in SQLite", .realTime)
struct AdServerStorageTests {
    /// A decision whose asset carries tracking URLs reads back whole after a restart (the `assets`
    /// column is written by hand, so it must hold the same JSON `JSONEncoder` would).
    @Test(.timeLimit(.minutes(1))) func trackingSurvivesARestart() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tracking.sqlite"
        let key = DecisionKey(viewer: "v", scope: "vod-demo", breakID: "pod")
        let tracking = AdTracking(
            impression: ["http://ads.test/i?a=1&b=\"2\""],
            error: ["http://ads.test/e?c=[ERRORCODE]"],
            events: ["start": ["http://ads.test/s1", "http://ads.test/s2"], "complete": ["http://ads.test/c"]],
            clickThrough: "https://advertiser.test/",
            clickTracking: ["http://ads.test/k"]
        )
        var made = decision(key, creative: "UAID-1")
        made.assets[0].tracking = tracking
        made.assets.append(
            AdDecision.Asset(creativeID: "local", uri: "/ads/local.m3u8", duration: MediaTime(seconds: 5))
        )
        let first = try SQLiteAdStore(path: path)
        try await first.migrate()
        let stored = made
        _ = try await first.findOrCreateDecision(key, recentSince: nil) { _ in stored }
        try await first.close()
        let second = try SQLiteAdStore(path: path)
        try await second.migrate()
        let read = try await second.decision(for: key)
        #expect(read?.assets.map(\.tracking) == [tracking, nil])
        try await second.close()
        let encoded = String(decoding: try JSONEncoder().encode(made.assets), as: UTF8.self)
        let reread = try JSONDecoder().decode(
            [AdDecision.Asset].self,
            from: Data(DecisionColumns.assetsText(made.assets).utf8)
        )
        #expect(reread == made.assets)
        #expect(encoded.contains("\"tracking\""))
    }
}
