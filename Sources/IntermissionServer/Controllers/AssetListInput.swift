import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist

/// The inputs of an asset-list (or schedule) request, parsed and checked against their ranges
/// (``InputLimits``) once: the scope and break of the path, `_HLS_interstitial_id`,
/// `_HLS_start_offset`, `_HLS_primary_id` and `X-Playback-Session-Id`.
///
/// The route (``AssetListController``, ``ScheduleController``) and the event-loop answers
/// (``AssetListAnswers``) read this one value; the event loop takes only the requests whose
/// value ``isPlain`` says it can answer as the route would.
struct AssetListInput: Sendable, Equatable {
    /// The scope as the path spells it (`vod-{asset}` or `live-{channel}`; an unknown kind is the
    /// route's 404, not an input error).
    var scope: String
    /// The break's ID, from the path.
    var breakID: String
    /// `_HLS_interstitial_id`, when given.
    var interstitialID: String?
    /// `_HLS_start_offset`, when given.
    var startOffset: MediaTime?
    /// `_HLS_primary_id`, when given (possibly empty: an anonymous request).
    var primaryID: String?
    /// The first `X-Playback-Session-Id`, when given.
    var sessionID: String?
    /// Whether every byte of the query is a letter, a digit or one of `-._~/?=&` (nothing to
    /// percent-decode) and each of the three `_HLS_` parameters appears at most once, with a value.
    var isPlain: Bool

    /// The viewer the decision is kept for: `_HLS_primary_id`, else `X-Playback-Session-Id`.
    var viewer: String? { self.primaryID ?? self.sessionID }

    /// Parses and checks the inputs, in the order the errors are reported: the scope's name, the
    /// break, `_HLS_interstitial_id`, `_HLS_start_offset`, `_HLS_primary_id`, then every
    /// `X-Playback-Session-Id`.
    ///
    /// - Parameters:
    ///   - scope: The path's scope (its `vod-` or `live-` prefix is not part of the name checked).
    ///   - breakID: The path's break ID.
    ///   - query: The request target's query, as sent (without the `?`).
    ///   - sessionIDs: The values of every `X-Playback-Session-Id` field.
    /// - Throws: ``InputLimitError`` naming the first input out of its range.
    init(scope: String, breakID: String, query: Substring?, sessionIDs: [String]) throws(InputLimitError) {
        let name =
            scope.hasPrefix("vod-") ? scope.dropFirst(4) : scope.hasPrefix("live-") ? scope.dropFirst(5) : scope[...]
        _ = try InputLimits.id(String(name), field: "scope")
        _ = try InputLimits.id(breakID, field: "break")
        self.scope = scope
        self.breakID = breakID
        let parameters = Self.parameters(query)
        self.isPlain = parameters.isPlain
        self.interstitialID = parameters.values[InterstitialRequestURL.interstitialIDParameter]
        if let id = self.interstitialID { _ = try InputLimits.id(id, field: "_HLS_interstitial_id") }
        self.startOffset = try parameters.values[InterstitialRequestURL.startOffsetParameter].map {
            (text) throws(InputLimitError) in try AssetListController.startOffset(text)
        }
        self.primaryID = parameters.values[InterstitialRequestURL.primaryIDParameter]
        if let viewer = self.primaryID { try AssetListController.checkViewer(viewer, field: "_HLS_primary_id") }
        for id in sessionIDs { try AssetListController.checkViewer(id, field: "X-Playback-Session-Id") }
        self.sessionID = sessionIDs.first
    }

    /// The three `_HLS_` parameters of `query`, each the first of its name, its value
    /// percent-decoded (kept as sent when it does not decode; empty when the item has no `=`), as
    /// Hummingbird reads a query; and whether the query is plain (see ``isPlain``).
    private static func parameters(_ query: Substring?) -> (values: [String: String], isPlain: Bool) {
        guard let query else { return ([:], true) }
        var values: [String: String] = [:]
        var isPlain = query.utf8.allSatisfy { Self.plain[Int($0)] }
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            guard Self.names.contains(name) else { continue }
            guard values[name] == nil else {
                isPlain = false
                continue
            }
            if pair.count < 2 { isPlain = false }
            let raw = pair.count == 2 ? String(pair[1]) : ""
            values[name] = raw.removingPercentEncoding ?? raw
        }
        return (values, isPlain)
    }

    /// The parameters read.
    private static let names: Set<String> = [
        InterstitialRequestURL.interstitialIDParameter, InterstitialRequestURL.startOffsetParameter,
        InterstitialRequestURL.primaryIDParameter,
    ]

    /// The bytes of a plain query: letters, digits and `-._~/?=&`.
    static let plain: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
            UInt8(ascii: "?"), UInt8(ascii: "="), UInt8(ascii: "&"):
            return true
        default:
            return false
        }
    }
}
