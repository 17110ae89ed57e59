import HLSInterstitials

/// Builds the `X-ASSET-LIST` URLs that point back at the server:
/// `{base}/v1/asset-lists/{scope}/{break}.json?_HLS_interstitial_id={ID}`.
///
/// The URL is the same for every viewer, so playlists stay cacheable; the player adds
/// `_HLS_primary_id` (and `_HLS_start_offset` on live joins) when it asks.
public struct AssetListLocator: Sendable, Hashable {
    /// The public base URL (`https://ads.example.com`), or `nil` to write server-relative URLs
    /// (`/v1/asset-lists/...`), which resolve against every playlist the server serves.
    public var baseURL: String?
    /// How live breaks are written: as interstitials with an asset list (the default) or as
    /// scheduled date ranges (``LiveBreakFormat/schedule``).
    public var breakFormat: LiveBreakFormat = .assetList

    /// Creates a locator.
    public init(baseURL: String? = nil) {
        var base = baseURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.baseURL = base
    }

    /// The asset-list URL of a break.
    public func url(scope: AdScope, breakID: String) -> String {
        let path = "\(self.baseURL ?? "")/v1/asset-lists/\(scope.rawValue)/\(breakID).json"
        // The common case, without parsing the URL (the same bytes as `withInterstitialID`): a
        // server-relative or http(s) path with no query and no fragment gets the parameter appended.
        if self.hasPlainBase, !path.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            return path + "?" + InterstitialRequestURL.interstitialIDParameter + "="
                + URIReference.percentEncodedQueryValue(breakID)
        }
        return InterstitialRequestURL.withInterstitialID(breakID, in: path)
    }

    /// Whether the base is absent (server-relative URLs) or an `http(s)` URL: no `data:` URI.
    private var hasPlainBase: Bool {
        guard let base = self.baseURL else { return true }
        let scheme = base.utf8.prefix(8).map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        return scheme.starts(with: "http://".utf8) || scheme.starts(with: "https://".utf8)
    }
}
