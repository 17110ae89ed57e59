import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist

/// A decision as both storage drivers keep it in their `decision` table: one codec for its columns,
/// so that a row written by either driver (or by an older version of either) reads back alike.
package struct DecisionColumns: Sendable, Equatable {
    package var viewer: String
    package var scope: String
    package var breakID: String
    /// `decided_at_ms`.
    package var decidedAt: Int64
    /// `start_offset_ns`.
    package var startOffset: Int64?
    /// `pod_ns`.
    package var pod: Int64
    /// `assets`: the JSON that `JSONEncoder` makes of `[AdDecision.Asset]`.
    package var assets: String
    /// `nonce`.
    package var nonce: String

    /// The columns of `decision`.
    package init(_ decision: AdDecision) {
        self.viewer = decision.viewer
        self.scope = decision.scope
        self.breakID = decision.breakID
        self.decidedAt = decision.decidedAt.millisecondsSince1970
        self.startOffset = decision.startOffset?.nanoseconds
        self.pod = decision.podDuration.nanoseconds
        self.assets = Self.assetsText(decision.assets)
        self.nonce = decision.nonce
    }

    /// Columns read from a row.
    package init(
        viewer: String,
        scope: String,
        breakID: String,
        decidedAt: Int64,
        startOffset: Int64?,
        pod: Int64,
        assets: String,
        nonce: String
    ) {
        self.viewer = viewer
        self.scope = scope
        self.breakID = breakID
        self.decidedAt = decidedAt
        self.startOffset = startOffset
        self.pod = pod
        self.assets = assets
        self.nonce = nonce
    }

    /// The decision the columns hold.
    /// - Throws: `DecodingError` when the `assets` column is not the JSON of a list of assets.
    package func decision() throws -> AdDecision {
        AdDecision(
            viewer: self.viewer,
            scope: self.scope,
            breakID: self.breakID,
            decidedAt: DateTime(millisecondsSince1970: self.decidedAt),
            startOffset: self.startOffset.map { MediaTime(nanoseconds: $0) },
            podDuration: MediaTime(nanoseconds: self.pod),
            assets: try Self.assets(self.assets),
            nonce: self.nonce
        )
    }

    /// The `creatives` column for `assets`: their creative IDs, one per line (read by the rule that
    /// keeps a viewer from seeing a creative again).
    package static func creativesText(_ assets: [AdDecision.Asset]) -> String {
        assets.map(\.creativeID).joined(separator: "\n")
    }

    /// The creative IDs of a `creatives` column.
    package static func creatives(in list: String) -> [String] {
        list.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The assets of an `assets` column.
    package static func assets(_ text: String) throws -> [AdDecision.Asset] {
        try JSONDecoder().decode([AdDecision.Asset].self, from: Data(text.utf8))
    }

    /// The `assets` column: the JSON that `JSONEncoder` makes of `[AdDecision.Asset]` (so rows
    /// written by either decode alike), written directly because it is on every new decision's path.
    package static func assetsText(_ assets: [AdDecision.Asset]) -> String {
        JSONValue.array(assets.map(Self.assetJSON)).text()
    }

    /// One asset as `JSONEncoder` encodes it, its members in the same order.
    private static func assetJSON(_ asset: AdDecision.Asset) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("creativeID", .string(asset.creativeID)),
            ("uri", .string(asset.uri)),
            ("duration", Self.mediaTimeJSON(asset.duration)),
        ]
        if let tracking = asset.tracking { members.append(("tracking", tracking.jsonValue)) }
        if let skipOffset = asset.skipOffset { members.append(("skipOffset", Self.mediaTimeJSON(skipOffset))) }
        if let universalAdID = asset.universalAdID { members.append(("universalAdID", .string(universalAdID))) }
        return .object(members)
    }

    /// A `MediaTime` as `JSONEncoder` encodes it: `{"nanoseconds": N}`.
    private static func mediaTimeJSON(_ time: MediaTime) -> JSONValue {
        let nanoseconds: JSONValue = .number(Double(time.nanoseconds))
        return .object([("nanoseconds", nanoseconds)])
    }
}
