import HLSInterstitials
import HLSPlaylist

/// Where a channel or a VOD asset asks for its ads: a VAST ad server's URL template and the time
/// it is given.
///
/// The template's macros (filled at asset-list time, each value percent-encoded):
/// `[BREAKDURATION]` the break's duration in seconds; `[REMAININGDURATION]` what is left of it after
/// the request's `_HLS_start_offset`; `[PODSIZE]` the most ads wanted; `[VIEWERID]` the viewer
/// (`_HLS_primary_id`, empty when anonymous); `[BREAKID]` the break's ID; `[SCOPE]` the
/// presentation (`vod-{asset}`, `live-{channel}`); `[CACHEBUSTING]` a random 8-digit number.
public struct AdServerSettings: Sendable, Hashable {
    /// The URL template (`http(s)`).
    public var urlTemplate: String
    /// The time budget of one asset list: the ad server and every wrapper must have answered by
    /// then (1.5 s by default).
    public var timeout: MediaTime
    /// The bitrate (kbit/s) media files are chosen nearest to; `nil` picks the highest.
    public var targetBitrate: Int?
    /// `[PODSIZE]`; `nil` asks for one ad per started 15 s of the break.
    public var podSize: Int?

    /// Creates settings.
    public init(
        urlTemplate: String,
        timeout: MediaTime = MediaTime(milliseconds: 1500),
        targetBitrate: Int? = nil,
        podSize: Int? = nil
    ) {
        self.urlTemplate = urlTemplate
        self.timeout = timeout
        self.targetBitrate = targetBitrate
        self.podSize = podSize
    }

    /// The macro names the template may hold.
    public static let macros = [
        "BREAKDURATION", "REMAININGDURATION", "PODSIZE", "VIEWERID", "BREAKID", "SCOPE", "CACHEBUSTING",
    ]

    /// The request URL for one break.
    ///
    /// - Parameters:
    ///   - breakDuration: The break's duration.
    ///   - startOffset: `_HLS_start_offset`, if any.
    ///   - viewer: The viewer, empty when anonymous.
    ///   - breakID: The break's ID.
    ///   - scope: `vod-{asset}` or `live-{channel}`.
    ///   - cacheBuster: The `[CACHEBUSTING]` value.
    public func url(
        breakDuration: MediaTime,
        startOffset: MediaTime?,
        viewer: String,
        breakID: String,
        scope: String,
        cacheBuster: String
    ) -> String {
        let remaining = max(.zero, breakDuration - min(breakDuration, max(.zero, startOffset ?? .zero)))
        let pod = self.podSize ?? max(1, Int((breakDuration.nanoseconds + 14_999_999_999) / 15_000_000_000))
        let values: [String: String] = [
            "BREAKDURATION": Self.seconds(breakDuration),
            "REMAININGDURATION": Self.seconds(remaining),
            "PODSIZE": String(pod),
            "VIEWERID": viewer,
            "BREAKID": breakID,
            "SCOPE": scope,
            "CACHEBUSTING": cacheBuster,
        ]
        var text = self.urlTemplate
        for name in Self.macros {
            let value = URIReference.percentEncodedQueryValue(values[name] ?? "")
            text = text.replacing("[\(name)]", with: value).replacing("%5B\(name)%5D", with: value)
        }
        return text
    }

    /// Seconds with at most three decimals and no trailing zeros (`30`, `12.5`).
    static func seconds(_ time: MediaTime) -> String {
        let milliseconds = time.nanoseconds / 1_000_000
        let whole = milliseconds / 1000
        let fraction = milliseconds % 1000
        guard fraction != 0 else { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

}
