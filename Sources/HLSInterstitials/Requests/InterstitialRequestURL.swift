import HLSPlaylist

/// The query parameters of interstitial requests (draft-pantos-hls-rfc8216bis Appendix D.4).
///
/// Clients add `_HLS_primary_id` to every interstitial request (the `X-ASSET-URI` request, the
/// `X-ASSET-LIST` request, and each asset URI from a list) and `_HLS_start_offset` to an
/// asset-list request when live playback starts inside the interstitial. Servers that build
/// `X-ASSET-LIST` or `X-ASSET-URI` URLs put the date range's ID in `_HLS_interstitial_id`.
///
/// Existing query items and the fragment are kept as written; an item of the same name is
/// replaced. `data:` URIs are returned unchanged (they are not requests).
///
/// ```swift
/// InterstitialRequestURL.assetList(
///     "https://ads.example.com/pod.json?_HLS_interstitial_id=ad1",
///     primaryID: "6F9619FF-8B86-D011-B42D-00C04FC964FF",
///     liveStartOffset: MediaTime("10.5")
/// )
/// // https://ads.example.com/pod.json?_HLS_interstitial_id=ad1&_HLS_primary_id=6F9619FF-8B86-D011-B42D-00C04FC964FF&_HLS_start_offset=10.5
/// ```
public enum InterstitialRequestURL {
    /// `_HLS_primary_id`: identifies the primary playback session.
    public static let primaryIDParameter = "_HLS_primary_id"
    /// `_HLS_start_offset`: seconds into the interstitial where live playback starts.
    public static let startOffsetParameter = "_HLS_start_offset"
    /// `_HLS_interstitial_id`: the date range's ID, written by servers.
    public static let interstitialIDParameter = "_HLS_interstitial_id"

    /// The URL to request an interstitial asset: an `X-ASSET-URI`, or one `URI` of an asset list.
    ///
    /// - Parameters:
    ///   - uri: The asset URI.
    ///   - primaryID: The primary playback session's ID (the `X-PLAYBACK-SESSION-ID` value when the
    ///     client sends that header).
    /// - Returns: The URI with `_HLS_primary_id`, or `uri` unchanged for a `data:` URI.
    public static func asset(_ uri: String, primaryID: String) -> String {
        guard !isData(uri) else { return uri }
        return URIReference.settingQueryItems([(primaryIDParameter, primaryID)], in: uri)
    }

    /// The URL to request an `X-ASSET-LIST`.
    ///
    /// - Parameters:
    ///   - uri: The asset-list URI, already resolved against the playlist URI.
    ///   - primaryID: The primary playback session's ID.
    ///   - liveStartOffset: Only when playback of a live primary starts inside this interstitial:
    ///     how far into it (seconds from its start). `nil` otherwise, and for VOD; negative values are
    ///     not sent.
    /// - Returns: The URI with `_HLS_primary_id` and, when given, `_HLS_start_offset`; a `data:` URI
    ///   unchanged.
    public static func assetList(_ uri: String, primaryID: String, liveStartOffset: MediaTime? = nil) -> String {
        guard !isData(uri) else { return uri }
        var items = [(name: primaryIDParameter, value: primaryID)]
        if let offset = liveStartOffset, offset >= .zero {
            items.append((startOffsetParameter, startOffsetText(offset)))
        }
        return URIReference.settingQueryItems(items, in: uri)
    }

    /// A server-side URL with `_HLS_interstitial_id` set to a date range's ID, for building the
    /// `X-ASSET-LIST` (or `X-ASSET-URI`) of an interstitial tag.
    ///
    /// - Parameters:
    ///   - id: The date range's `ID` (without quotes); it is percent-encoded.
    ///   - uri: The asset-list or asset URL.
    /// - Returns: The URL with the parameter; a `data:` URI unchanged.
    public static func withInterstitialID(_ id: String, in uri: String) -> String {
        guard !isData(uri) else { return uri }
        return URIReference.settingQueryItems([(interstitialIDParameter, id)], in: uri)
    }

    /// The `_HLS_start_offset` value: decimal seconds rounded to at most three places, without
    /// trailing zeros (`10.5`, `3`, `0.001`).
    public static func startOffsetText(_ offset: MediaTime) -> String {
        var text = offset.decimalString(places: 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func isData(_ uri: String) -> Bool {
        URIReference.scheme(of: uri) == "data"
    }
}
