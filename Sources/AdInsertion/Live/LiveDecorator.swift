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
        _ playlist: consuming MediaPlaylist,
        playlistURL: String,
        breaks: [LiveBreak],
        lookahead: MediaTime,
        locator: AssetListLocator,
        midRollsOnce: Bool = false,
        preloadWindow: MediaTime = .zero
    ) -> MediaPlaylist {
        // Used once: nothing to remember from one read to the next.
        var uris = SegmentURIResolver(playlistURL: playlistURL, remembering: false)
        return Self.decorate(
            consume playlist,
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
        _ playlist: consuming MediaPlaylist,
        uris: inout SegmentURIResolver,
        breaks: [LiveBreak],
        lookahead: MediaTime,
        locator: AssetListLocator,
        midRollsOnce: Bool = false,
        preloadWindow: MediaTime = .zero
    ) -> MediaPlaylist {
        // Taken, not copied: when the caller gives up the playlist, it is edited in place.
        var result = consume playlist
        uris.rewrite(&result)
        guard let (segmentCount, firstDate, windowEnd) = Self.window(of: result) else { return result }
        let selected = LiveBreakSelection.breaks(
            breaks,
            windowStart: firstDate,
            windowEnd: windowEnd,
            lookahead: lookahead
        )
        let existing = Set(result.dateRanges.map(\.dateRange.id))
        var insertions: [(dateRange: RenderedDateRange, position: Int)] = []
        func insert(_ line: LiveBreakLines.Line) {
            let position = result.timeMapping(at: line.start).map { min($0.segment, segmentCount) } ?? segmentCount
            insertions.append((line.rendered, line.start < firstDate ? 0 : position))
        }
        for b in selected where !existing.contains(b.id) {
            guard let line = LiveBreakLines.interstitial(b, locator: locator, midRollsOnce: midRollsOnce) else {
                continue
            }
            insert(line)
        }
        let preloaded = LiveBreakSelection.preloaded(
            breaks,
            windowStart: firstDate,
            windowEnd: windowEnd,
            lookahead: lookahead,
            window: preloadWindow
        )
        for b in preloaded {
            guard let line = LiveBreakLines.preload(b, locator: locator, window: preloadWindow),
                !existing.contains(line.identifier)
            else { continue }
            insert(line)
        }
        result.insertDateRanges(rendered: insertions)
        return result
    }
}

extension LiveDecorator {
    /// The segment count, the first segment's date and the last one's end, or `nil` without dates.
    ///
    /// Read here and let go: timings kept while tags are inserted would share the index's segment
    /// array, which the insertion would then copy.
    fileprivate static func window(of playlist: MediaPlaylist) -> (count: Int, start: DateTime, end: DateTime)? {
        let timings = playlist.timings
        guard let first = timings.first?.date, let last = timings.last, let lastDate = last.date else { return nil }
        return (timings.count, first, lastDate + last.duration)
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
    ///   - reader: Reads the other marker styles (`EXT-X-CUE-OUT`/`-CONT`/`-IN`,
    ///     `EXT-OATCLS-SCTE35`, `EXT-X-SCTE35`, `EXT-X-SPLICEPOINT-SCTE35`, `SCTE35-CMD`) and says which
    ///     segmentation types open and close a break.
    /// - Returns: New and changed breaks, to store.
    public static func breaks(
        in playlist: MediaPlaylist,
        channel: String,
        known: [String: LiveBreak],
        defaultDuration: MediaTime,
        restrictions: [String] = AttributeName.restrict.allowedValues ?? [],
        reader: SCTE35CueReader = SCTE35CueReader(),
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
        let named = known.merging(result.map { ($0.id, $0) }) { _, new in new }
        return result
            + Self.cueBreaks(
                in: playlist,
                channel: channel,
                known: named,
                defaultDuration: defaultDuration,
                restrictions: restrictions,
                reader: reader,
                now: now
            )
    }

    /// The breaks the segment-tag marker styles and `SCTE35-CMD` signal (`SCTE35CueReader`): a
    /// start becomes a break `scte-{cue ID}` (a continuation names the break its start named, so a
    /// playlist whose window begins inside a break still finds it); an end shorter than the break
    /// gives it an `X-PLAYOUT-LIMIT` (an early return).
    ///
    /// An end names its break by the cue's ID when
    /// the cue carries one (`splice-…`, `segmentation-…`), else it ends the latest break that
    /// started before it and is still running.
    static func cueBreaks(
        in playlist: MediaPlaylist,
        channel: String,
        known: [String: LiveBreak],
        defaultDuration: MediaTime,
        restrictions: [String],
        reader: SCTE35CueReader,
        now: DateTime
    ) -> [LiveBreak] {
        var breaks = known
        var changed: [String: LiveBreak] = [:]
        var order: [String] = []
        for cue in reader.cues(in: playlist).cues {
            // `SCTE35-OUT`/`-IN` date ranges are read by ``breaks(in:channel:known:defaultDuration:restrictions:reader:now:)``;
            // of the date ranges, only those with `SCTE35-CMD` alone come here.
            if cue.marker == .dateRange, !Self.isCommandOnly(cue, in: playlist) { continue }
            guard let date = cue.date else { continue }
            switch cue.kind {
            case .breakStart:
                let id = "scte-" + sanitized(cue.id)
                guard breaks[id] == nil else { continue }
                let made = LiveBreak(
                    id: id,
                    channel: channel,
                    startDate: date,
                    duration: cue.duration ?? defaultDuration,
                    restrictions: restrictions,
                    origin: .scte35,
                    updatedAt: now
                )
                breaks[id] = made
                changed[id] = made
                order.append(id)
            case .breakEnd:
                let named = breaks["scte-" + sanitized(cue.id)]
                let running = breaks.values.filter {
                    $0.origin == .scte35 && $0.startDate < date && date < $0.startDate + $0.duration
                }.max { $0.startDate < $1.startDate }
                guard var ended = named ?? running, ended.playoutLimit == nil else { continue }
                let played = date - ended.startDate
                guard played > .zero, played < ended.duration else { continue }
                ended.playoutLimit = played
                ended.updatedAt = now
                breaks[ended.id] = ended
                if changed[ended.id] == nil { order.append(ended.id) }
                changed[ended.id] = ended
            }
        }
        return order.compactMap { changed[$0] }
    }

    /// Whether a date-range cue came from `SCTE35-CMD` alone (no `SCTE35-OUT` or `SCTE35-IN` on
    /// its range, which the date-range reading handles).
    private static func isCommandOnly(_ cue: SCTE35Cue, in playlist: MediaPlaylist) -> Bool {
        guard let placed = playlist.dateRanges.first(where: { $0.lineIndex == cue.lineIndex }) else { return false }
        let range = placed.dateRange
        return range.scte35Out == nil && range.scte35In == nil && range.scte35Command != nil
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
        var url = url
        return url.withUTF8 { Self.base(ofBytes: $0) }
    }

    /// ``base(of:)`` on the URL's UTF-8 bytes: the playlist URL is read once per decoration, and
    /// `String` indexing cost more than the rest of a small live window's decoration.
    private static func base(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var end = 0
        while end < bytes.count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
        /// Whether the URL starts with `scheme` (lower case), ignoring case.
        func starts(with scheme: StaticString) -> Bool {
            let count = scheme.utf8CodeUnitCount
            guard end >= count else { return false }
            for k in 0..<count {
                let byte = bytes[k]
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if lower != scheme.utf8Start[k] { return false }
            }
            return true
        }
        let schemeLength = starts(with: "https://") ? 8 : starts(with: "http://") ? 7 : 0
        guard schemeLength > 0 else { return nil }
        // The authority ends at the first `/` after the scheme; the folder at the last `/`.
        var slash = schemeLength
        while slash < end, bytes[slash] != UInt8(ascii: "/") { slash += 1 }
        guard slash < end, slash != schemeLength else { return nil }
        var last = end - 1
        while bytes[last] != UInt8(ascii: "/") { last -= 1 }
        // No `.` or `..` segment in the folder (`/a/./b/`, `/a/../`).
        var segmentStart = slash + 1
        // `last` may be the authority's slash itself (`http://host/x.m3u8`): then there is no folder to check.
        var k = slash + 1
        while k <= last {
            if bytes[k] == UInt8(ascii: "/") {
                let length = k - segmentStart
                if length == 1 && bytes[segmentStart] == UInt8(ascii: ".")
                    || length == 2 && bytes[segmentStart] == UInt8(ascii: ".")
                        && bytes[segmentStart + 1] == UInt8(ascii: ".")
                {
                    return nil
                }
                segmentStart = k + 1
            }
            k += 1
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[...last]), as: UTF8.self)
    }

    /// Whether `uri` is a relative path of letters, digits, `-`, `_`, `.`, `~` and single `/`
    /// between segments, none of them `.` or `..`, and not starting with `/` (so no scheme, no
    /// authority, no query, no fragment, no percent-encoding), at most 2 KiB.
    public static func isPlain(_ uri: String) -> Bool {
        var uri = uri
        return uri.withUTF8 { Self.isPlain($0) }
    }

    /// ``isPlain(_:)`` on the URI's UTF-8 bytes.
    public static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > 0, count <= 2048 else { return false }
        /// Whether the segment from `start` to `end` (a `/` or the end) is empty, `.` or `..`.
        func isDotOrEmpty(_ start: Int, _ end: Int) -> Bool {
            switch end - start {
            case 0: true
            case 1: bytes[start] == UInt8(ascii: ".")
            case 2: bytes[start] == UInt8(ascii: ".") && bytes[start + 1] == UInt8(ascii: ".")
            default: false
            }
        }
        var segmentStart = 0
        for k in 0..<count {
            let byte = bytes[k]
            if byte == UInt8(ascii: "/") {
                if isDotOrEmpty(segmentStart, k) { return false }
                segmentStart = k + 1
            } else if !Self.isSegmentByte(byte) {
                return false
            }
        }
        return !isDotOrEmpty(segmentStart, count)
    }

    /// Whether `byte` is a letter, a digit, `-`, `.`, `_` or `~`: one bit a byte, in two words
    /// (the bytes below 128; none above is plain).
    @inline(__always)
    static func isSegmentByte(_ byte: UInt8) -> Bool {
        // Bytes 0–63: `-` (45), `.` (46), `0`–`9` (48–57).
        let low: UInt64 = 0x03FF_6000_0000_0000
        // Bytes 64–127: `A`–`Z` (65–90), `_` (95), `a`–`z` (97–122), `~` (126).
        let high: UInt64 = 0x47FF_FFFE_87FF_FFFE
        return byte < 128 && ((byte < 64 ? low : high) >> UInt64(byte & 63)) & 1 != 0
    }
}
