import AdInsertion
import Foundation
import HLSPlaylist

/// The instant the storage and server tests decide at: 2025-01-01T00:00:00Z.
public let t0 = DateTime(iso8601: "2025-01-01T00:00:00.000Z")!

/// A scratch folder, removed by the caller.
public func makeScratchFolder() throws -> String {
    let path = NSTemporaryDirectory() + "intermission-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A stored decision of one creative for `key`, named by `creative`.
public func decision(_ key: DecisionKey, creative: String) -> AdDecision {
    AdDecision(
        viewer: key.viewer,
        scope: key.scope,
        breakID: key.breakID,
        decidedAt: t0,
        startOffset: nil,
        podDuration: MediaTime(seconds: 10),
        assets: [.init(creativeID: creative, uri: "/ads/\(creative).m3u8", duration: MediaTime(seconds: 10))]
    )
}

/// The decision the schema tests write by hand in an earlier version's columns, and its key.
public enum StoredDecision {
    /// The decision's key.
    public static let key = DecisionKey(viewer: "ann", scope: "vod-movie", breakID: "b")

    /// The decision.
    public static let decision = AdDecision(
        viewer: "ann",
        scope: "vod-movie",
        breakID: "b",
        decidedAt: DateTime(millisecondsSince1970: 1_767_225_600_000),
        startOffset: nil,
        podDuration: MediaTime(seconds: 30),
        assets: [AdDecision.Asset(creativeID: "red", uri: "/ads/red.m3u8", duration: MediaTime(seconds: 30))],
        nonce: "n0"
    )
}
