import HLSInterstitials
import HLSPlaylist

/// Decorates playlists of an upstream live stream, and turns its SCTE-35 date ranges into breaks.
public enum LiveDecorator {
    /// The upstream media playlist with the channel's breaks as interstitial tags and its URIs made
    /// absolute to the upstream.
    ///
    /// Breaks are placed through `EXT-X-PROGRAM-DATE-TIME`; an upstream without it gets its URIs made
    /// absolute and no tags (there is no date to place them by).
    ///
    /// - Parameters:
    ///   - playlist: The upstream media playlist.
    ///   - playlistURL: Its URL.
    ///   - breaks: The channel's breaks.
    ///   - lookahead: How far past the last segment breaks are announced.
    ///   - locator: Builds the `X-ASSET-LIST` URLs.
    ///   - midRollsOnce: Whether mid-rolls get `CUE="ONCE"` (``LiveChannel/marksMidRollsOnce``).
    ///   - preloadWindow: The length of each break's preload range (Appendix F,
    ///     ``LiveBreak/preloadRange(locator:window:)``); zero writes none.
    public static func decorate(
        _ playlist: MediaPlaylist,
        playlistURL: String,
        breaks: [LiveBreak],
        lookahead: MediaTime,
        locator: AssetListLocator,
        midRollsOnce: Bool = false,
        preloadWindow: MediaTime = .zero
    ) -> MediaPlaylist {
        var uris = SegmentURIResolver(playlistURL: playlistURL)
        return Self.decorate(
            playlist,
            uris: &uris,
            breaks: breaks,
            lookahead: lookahead,
            locator: locator,
            midRollsOnce: midRollsOnce,
            preloadWindow: preloadWindow
        )
    }

    /// The same decoration with a resolver kept from one read of the upstream to the next, so that
    /// only new segments' URIs are resolved (the answer is the same as a fresh decoration's).
    ///
    /// - Parameters:
    ///   - playlist: The upstream media playlist.
    ///   - uris: The resolver of the upstream's URL (``SegmentURIResolver/playlistURL``).
    ///   - breaks: The channel's breaks.
    ///   - lookahead: How far past the last segment breaks are announced.
    ///   - locator: Builds the `X-ASSET-LIST` URLs.
    ///   - midRollsOnce: Whether mid-rolls get `CUE="ONCE"` (``LiveChannel/marksMidRollsOnce``).
    ///   - preloadWindow: The length of each break's preload range; zero writes none.
    public static func decorate(
        _ playlist: MediaPlaylist,
        uris: inout SegmentURIResolver,
        breaks: [LiveBreak],
        lookahead: MediaTime,
        locator: AssetListLocator,
        midRollsOnce: Bool = false,
        preloadWindow: MediaTime = .zero
    ) -> MediaPlaylist {
        var result = playlist
        uris.rewrite(&result)
        let timings = result.timings
        guard let firstDate = timings.first?.date, let last = timings.last, let lastDate = last.date else {
            return result
        }
        let selected = LiveBreakSelection.breaks(
            breaks,
            windowStart: firstDate,
            windowEnd: lastDate + last.duration,
            lookahead: lookahead
        )
        let existing = Set(result.dateRanges.map(\.dateRange.id))
        var insertions: [(dateRange: DateRange, position: Int)] = []
        for b in selected where !existing.contains(b.id) {
            guard let range = b.interstitialEvent(locator: locator, midRollsOnce: midRollsOnce).dateRange() else {
                continue
            }
            let position = result.timeMapping(at: b.startDate).map { min($0.segment, timings.count) } ?? timings.count
            insertions.append((range, b.startDate < firstDate ? 0 : position))
        }
        let preloaded = LiveBreakSelection.preloaded(
            breaks,
            windowStart: firstDate,
            windowEnd: lastDate + last.duration,
            lookahead: lookahead,
            window: preloadWindow
        )
        for b in preloaded {
            guard let preload = b.preloadRange(locator: locator, window: preloadWindow),
                !existing.contains(preload.identifier)
            else { continue }
            let position = result.timeMapping(at: preload.start).map { min($0.segment, timings.count) } ?? timings.count
            insertions.append((preload.dateRange(), preload.start < firstDate ? 0 : position))
        }
        result.insertDateRanges(insertions)
        return result
    }
}

/// Turns SCTE-35 out/in date ranges of an upstream playlist into live breaks.
public enum SCTE35Translator {
    /// The breaks to create or update for the SCTE-35 ranges of `playlist`.
    ///
    /// A range with `SCTE35-OUT` becomes a break `scte-{ID}` at its `START-DATE`, as long as its
    /// `DURATION`, else its `PLANNED-DURATION`, else `defaultDuration`. When a later reload gives the
    /// real `DURATION` (the `SCTE35-IN` tag) and it is shorter, the break gets an `X-PLAYOUT-LIMIT`
    /// (an early return: the same ID, an added attribute, nothing changed).
    ///
    /// - Parameters:
    ///   - playlist: The upstream media playlist.
    ///   - channel: The channel ID.
    ///   - known: The channel's breaks already stored, by ID.
    ///   - defaultDuration: The duration assumed when the out has none.
    ///   - restrictions: `X-RESTRICT` members for new breaks.
    ///   - now: The current date.
    /// - Returns: New and changed breaks, to store.
    public static func breaks(
        in playlist: MediaPlaylist,
        channel: String,
        known: [String: LiveBreak],
        defaultDuration: MediaTime,
        restrictions: [String] = AttributeName.restrict.allowedValues ?? [],
        now: DateTime
    ) -> [LiveBreak] {
        let tracker = DateRangeTracker(playlist: playlist)
        var result: [LiveBreak] = []
        for range in tracker.dateRanges where range.scte35Out != nil && !range.isInterstitial {
            guard let start = range.startDate else { continue }
            let id = "scte-" + sanitized(range.id)
            let actual = range.duration ?? range.endDate.map { $0 - start }
            if var existing = known[id] {
                if let actual, actual > .zero, actual < existing.duration, existing.playoutLimit == nil {
                    existing.playoutLimit = actual
                    existing.updatedAt = now
                    result.append(existing)
                }
                continue
            }
            let duration = actual ?? range.plannedDuration ?? defaultDuration
            result.append(
                LiveBreak(
                    id: id,
                    channel: channel,
                    startDate: start,
                    duration: duration,
                    restrictions: restrictions,
                    origin: .scte35,
                    updatedAt: now
                )
            )
        }
        return result
    }

    /// The ID with every character outside `[A-Za-z0-9._~-]` replaced by `_`.
    static func sanitized(_ id: String) -> String {
        String(
            id.map { c -> Character in
                OriginPath.isSafeName(String(c)) ? c : "_"
            }
        )
    }
}

/// The fast path for the common segment URI, a plain relative path (`1080p/seg-123.ts`) against an
/// `http(s)` playlist URL without dot segments: resolving it (RFC 3986 §5.2) is appending it to the
/// base's folder, with no parsing.
///
/// Anything else takes `URIReference.resolve(_:against:)`.
public enum PlainRelativeURI {
    /// The folder of `url` (up to and including its last `/`, without query or fragment) when it
    /// is an `http(s)` URL with a host and a path free of `.` and `..` segments; `nil` otherwise.
    public static func base(of url: String) -> String? {
        // On the UTF-8 bytes: the playlist URL is read once per decoration, and String indexing
        // cost more than the rest of a small live window's decoration.
        let bytes = Array(url.utf8)
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        let lower = bytes.prefix(min(8, end)).map {
            $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0
        }
        let schemeLength = lower.starts(with: "https://".utf8) ? 8 : lower.starts(with: "http://".utf8) ? 7 : 0
        guard schemeLength > 0, schemeLength <= end else { return nil }
        let rest = bytes[schemeLength..<end]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash != rest.startIndex,
            let last = rest.lastIndex(of: UInt8(ascii: "/"))
        else {
            return nil
        }
        // No `.` or `..` segment in the folder (`/a/./b/`, `/a/../`).
        var segmentStart = slash + 1
        // `last` may be the authority's slash itself (`http://host/x.m3u8`): then there is no folder to check.
        for k in stride(from: slash + 1, through: last, by: 1) where bytes[k] == UInt8(ascii: "/") {
            let length = k - segmentStart
            if length == 1 && bytes[segmentStart] == UInt8(ascii: ".")
                || length == 2 && bytes[segmentStart] == UInt8(ascii: ".")
                    && bytes[segmentStart + 1] == UInt8(ascii: ".")
            {
                return nil
            }
            segmentStart = k + 1
        }
        return String(decoding: bytes[...last], as: UTF8.self)
    }

    /// Whether `uri` is a relative path of letters, digits, `-`, `_`, `.`, `~` and single `/`
    /// between segments, none of them `.` or `..`, and not starting with `/` (so no scheme, no
    /// authority, no query, no fragment, no percent-encoding), at most 2 KiB.
    public static func isPlain(_ uri: String) -> Bool {
        let bytes = uri.utf8
        guard !bytes.isEmpty, bytes.count <= 2048 else { return false }
        var segmentLength = 0
        var dots = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                // Empty, `.` and `..` segments are not plain.
                if segmentLength == 0 || dots == segmentLength && dots <= 2 { return false }
                segmentLength = 0
                dots = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                segmentLength += 1
            case UInt8(ascii: "."):
                segmentLength += 1
                dots += 1
            default:
                return false
            }
        }
        return segmentLength > 0 && !(dots == segmentLength && dots <= 2)
    }
}
