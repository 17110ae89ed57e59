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

    /// Creates a locator.
    public init(baseURL: String? = nil) {
        var base = baseURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.baseURL = base
    }

    /// The asset-list URL of a break.
    public func url(scope: AdScope, breakID: String) -> String {
        let path = "\(self.baseURL ?? "")/v1/asset-lists/\(scope.rawValue)/\(breakID).json"
        return InterstitialRequestURL.withInterstitialID(breakID, in: path)
    }
}
