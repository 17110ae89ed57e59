import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist

/// A decision as both storage drivers keep it in their `decision` table: one codec for its columns,
/// so that a row written by either driver (or by an older version of either) reads back alike.
struct DecisionColumns: Sendable, Equatable {
    var viewer: String
    var scope: String
    var breakID: String
    /// `decided_at_ms`.
    var decidedAt: Int64
    /// `start_offset_ns`.
    var startOffset: Int64?
    /// `pod_ns`.
    var pod: Int64
    /// `assets`: the JSON that `JSONEncoder` makes of `[AdDecision.Asset]`.
    var assets: String
    /// `nonce`.
    var nonce: String

    /// The columns of `decision`.
    init(_ decision: AdDecision) {
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
    init(
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
    func decision() throws -> AdDecision {
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
    static func creativesText(_ assets: [AdDecision.Asset]) -> String {
        assets.map(\.creativeID).joined(separator: "\n")
    }

    /// The creative IDs of a `creatives` column.
    static func creatives(in list: String) -> [String] {
        list.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The assets of an `assets` column.
    static func assets(_ text: String) throws -> [AdDecision.Asset] {
        try JSONDecoder().decode([AdDecision.Asset].self, from: Data(text.utf8))
    }

    /// The `assets` column: the JSON that `JSONEncoder` makes of `[AdDecision.Asset]` (so rows
    /// written by either decode alike), written directly because it is on every new decision's path.
    static func assetsText(_ assets: [AdDecision.Asset]) -> String {
        JSONValue.array(
            assets.map { asset in
                .object(
                    [
                        ("creativeID", .string(asset.creativeID)),
                        ("uri", .string(asset.uri)),
                        ("duration", .object([("nanoseconds", .number(Double(asset.duration.nanoseconds)))])),
                    ] + (asset.tracking.map { [("tracking", $0.jsonValue)] } ?? [])
                        + (asset.skipOffset.map {
                            [("skipOffset", .object([("nanoseconds", .number(Double($0.nanoseconds)))]))]
                        } ?? []) + (asset.universalAdID.map { [("universalAdID", .string($0))] } ?? [])
                )
            }
        ).text()
    }
}
