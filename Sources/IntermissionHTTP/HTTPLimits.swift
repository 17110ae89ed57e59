import HummingbirdCore

/// The limits of every HTTP server of the package (the ad-insertion server, the receiver): what a
/// request head may weigh before the decoder refuses it, and what a decoded body may weigh.
///
/// The ad-insertion server publishes the same numbers in its `InputLimits`.
package enum HTTPLimits {
    /// The request target (path and query), bytes; longer gets `414`.
    package static let requestTargetBytes = 8192
    /// One header field (name and value), bytes; longer gets `431`.
    package static let headerFieldBytes = 8192
    /// All header fields together, bytes; more gets `431`.
    package static let headerBlockBytes = 32_768
    /// Header fields per request; more gets `431`.
    package static let headerFieldCount = 100
    /// A decoded request body (the admin API's), bytes; larger gets `413`.
    package static let bodyBytes = 65_536

    /// The HTTP decoder's limits for every server channel, from the limits above.
    package static let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
        maxHeaderFieldSize: Self.headerFieldBytes,
        maxHeaderListSize: Self.headerBlockBytes,
        maxHeaderFieldCount: Self.headerFieldCount
    )
}
