import HLSInterstitials
import HLSPlaylist

/// A simulated live channel: a VOD media playlist looped forever behind a sliding window.
///
/// Segment `k` (its media sequence number) is segment `k % n` of the source in loop `k / n`; it is
/// dated `startDate + loop × loopDuration + start(k % n)`, and available once it has ended. Each loop
/// after the first begins with `EXT-X-DISCONTINUITY`, and `EXT-X-DISCONTINUITY-SEQUENCE` counts the
/// discontinuities that have slid out of the window, so sequence numbers stay right across loops.
///
/// Pure: the date is an argument.
public struct LiveLoop: Sendable {
    /// One source segment.
    public struct Segment: Sendable, Hashable {
        /// Absolute URI (or server path) of the media.
        public var uri: String
        /// Duration.
        public var duration: MediaTime
        /// Start within the loop.
        public var start: MediaTime
    }

    /// The source segments, in order.
    public let segments: [Segment]
    /// One loop's length.
    public let loopDuration: MediaTime
    /// `EXT-X-TARGETDURATION`.
    public let targetDuration: Int
    /// `EXT-X-VERSION`.
    public let version: Int
    /// The source's `EXT-X-MAP` line, URI made absolute, if any.
    public let mapLine: String?
    /// The date of segment 0.
    public let startDate: DateTime
    /// How many segments a playlist shows.
    public let windowSize: Int

    /// A window of the channel at some date.
    public struct Window: Sendable, Hashable {
        /// Media sequence number of the first segment.
        public var first: Int
        /// How many segments (0 before the first segment is complete).
        public var count: Int
        /// Date of the first segment's start.
        public var startDate: DateTime
        /// Date of the last segment's end.
        public var endDate: DateTime
    }

    /// Prepares a loop.
    ///
    /// - Parameters:
    ///   - source: A VOD media playlist.
    ///   - sourceURL: Its URL, to make segment URIs absolute.
    ///   - startDate: The date of segment 0.
    ///   - windowSize: Segments per playlist (at least 3 are kept).
    /// - Throws: ``AdInsertionError`` (``AdInsertionError/Code/invalidInput``) when the source has no
    ///   segment or a zero-length loop.
    public init(source: MediaPlaylist, sourceURL: String, startDate: DateTime, windowSize: Int) throws {
        var segments: [Segment] = []
        var mapLine: String?
        for segment in source.segments {
            if mapLine == nil, let map = segment.map, let uri = map[.uri]?.quotedString {
                var attributes = map
                attributes[.uri] = .quoted(URIReference.resolve(uri, against: sourceURL))
                mapLine = Tag(name: .map, attributes: attributes).rendered
            }
            segments.append(
                Segment(
                    uri: URIReference.resolve(segment.uri, against: sourceURL),
                    duration: segment.duration,
                    start: segment.startTime
                )
            )
        }
        let total = segments.reduce(MediaTime.zero) { $0 + $1.duration }
        guard !segments.isEmpty, total > .zero else {
            throw AdInsertionError(code: .invalidInput, message: "the loop source \(sourceURL) has no segments")
        }
        self.segments = segments
        self.loopDuration = total
        let longest = segments.map(\.duration).max() ?? .zero
        let rounded = Int((longest.nanoseconds + 500_000_000) / 1_000_000_000)
        self.targetDuration = max(source.targetDuration ?? 1, rounded, 1)
        self.version = max(source.version ?? 3, mapLine == nil ? 3 : 6)
        self.mapLine = mapLine
        self.startDate = startDate
        self.windowSize = max(3, windowSize)
    }

    /// How many segments are complete at `date`.
    public func completedSegments(at date: DateTime) -> Int {
        let elapsed = (date - self.startDate).nanoseconds
        guard elapsed > 0 else { return 0 }
        let loops = elapsed / self.loopDuration.nanoseconds
        let rest = elapsed - loops * self.loopDuration.nanoseconds
        // Segments of the current loop whose end is at or before `rest`.
        var low = 0
        var high = self.segments.count
        while low < high {
            let mid = (low + high) / 2
            if (self.segments[mid].start + self.segments[mid].duration).nanoseconds <= rest {
                low = mid + 1
            } else {
                high = mid
            }
        }
        return Int(loops) * self.segments.count + low
    }

    /// The start date of segment `k`.
    public func date(ofSegment k: Int) -> DateTime {
        let n = self.segments.count
        return self.startDate + self.loopDuration * (k / n) + self.segments[k % n].start
    }

    /// The window shown at `date`.
    public func window(at date: DateTime) -> Window {
        let total = self.completedSegments(at: date)
        let first = max(0, total - self.windowSize)
        let count = total - first
        let start = self.date(ofSegment: first)
        let end =
            count == 0
            ? start : self.date(ofSegment: total - 1) + self.segments[(total - 1) % self.segments.count].duration
        return Window(first: first, count: count, startDate: start, endDate: end)
    }

    /// `EXT-X-DISCONTINUITY-SEQUENCE` for a window starting at segment `first`: the discontinuities
    /// (one at the start of every loop after the first) on segments before it.
    public func discontinuitySequence(first: Int) -> Int {
        first <= 0 ? 0 : (first - 1) / self.segments.count
    }

    /// The playlist at `date`, with the breaks that overlap the window (see ``LiveBreakSelection``).
    ///
    /// - Parameters:
    ///   - date: The current date.
    ///   - breaks: The channel's breaks.
    ///   - lookahead: How far past the last segment breaks are announced.
    ///   - locator: Builds the `X-ASSET-LIST` URLs.
    ///   - midRollsOnce: Whether mid-rolls get `CUE="ONCE"` (``LiveChannel/marksMidRollsOnce``).
    ///   - preloadWindow: The length of each break's preload range (Appendix F,
    ///     ``LiveBreak/preloadRange(locator:window:)``); zero writes none.
    /// - Returns: The playlist's bytes.
    public func render(
        at date: DateTime,
        breaks: [LiveBreak],
        lookahead: MediaTime,
        locator: AssetListLocator,
        midRollsOnce: Bool = false,
        preloadWindow: MediaTime = .zero
    ) -> [UInt8] {
        let window = self.window(at: date)
        let selected = LiveBreakSelection.breaks(
            breaks,
            windowStart: window.startDate,
            windowEnd: window.endDate,
            lookahead: lookahead
        )
        let n = self.segments.count
        var text = "#EXTM3U\n#EXT-X-VERSION:\(self.version)\n#EXT-X-TARGETDURATION:\(self.targetDuration)\n"
        text += "#EXT-X-MEDIA-SEQUENCE:\(window.first)\n"
        text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(self.discontinuitySequence(first: window.first))\n"
        if let mapLine { text += mapLine + "\n" }
        // Date ranges in start order (breaks, then their preload ranges, in selection order on a tie).
        var ranges = selected.map {
            (date: $0.startDate, line: $0.tagLine(locator: locator, midRollsOnce: midRollsOnce))
        }
        for b in LiveBreakSelection.preloaded(
            breaks,
            windowStart: window.startDate,
            windowEnd: window.endDate,
            lookahead: lookahead,
            window: preloadWindow
        ) {
            if let preload = b.preloadRange(locator: locator, window: preloadWindow) {
                ranges.append((preload.start, preload.dateRange().tag.rendered))
            }
        }
        let order = ranges.indices.sorted {
            ranges[$0].date == ranges[$1].date ? $0 < $1 : ranges[$0].date < ranges[$1].date
        }
        var pending = order.map { ranges[$0] }[...]
        for k in window.first..<(window.first + window.count) {
            let segment = self.segments[k % n]
            let start = self.date(ofSegment: k)
            let end = start + segment.duration
            // A date range goes before the segment its start date falls in.
            while let next = pending.first, next.date < end {
                text += next.line + "\n"
                pending = pending.dropFirst()
            }
            if k % n == 0 && k > 0 { text += "#EXT-X-DISCONTINUITY\n" }
            text += "#EXT-X-PROGRAM-DATE-TIME:\(start.iso8601)\n"
            text += "#EXTINF:\(segment.duration.decimalString(places: 3)),\n"
            text += segment.uri + "\n"
        }
        for next in pending {
            text += next.line + "\n"
        }
        return Array(text.utf8)
    }
}
