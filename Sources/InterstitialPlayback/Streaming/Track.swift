import HLSInterstitials
import HLSPlaylist

/// A segment as the player keeps it: its place on the presentation's stable timeline and what to
/// request.
struct SegmentReference: Sendable, Hashable {
    var mediaSequenceNumber: Int
    var url: String
    var start: MediaTime
    var duration: MediaTime
    var byteRange: ByteRange?
    var mapURL: String?
    var mapRange: ByteRange?
    var date: DateTime?
    var end: MediaTime { self.start + self.duration }
    /// The media initialization section this segment needs (its URI and byte range), if any.
    var mapKey: String? { self.mapURL.map { url in self.mapRange.map { url + "|" + $0.description } ?? url } }
}

/// Time ranges downloaded into the forward buffer, merged, in order.
struct BufferedRanges: Sendable, Hashable {
    /// Gaps up to this size still count as contiguous (rounding in `EXTINF`).
    static let tolerance = MediaTime(milliseconds: 5)
    private(set) var ranges: [(start: MediaTime, end: MediaTime)] = []

    static func == (lhs: BufferedRanges, rhs: BufferedRanges) -> Bool {
        lhs.ranges.count == rhs.ranges.count && zip(lhs.ranges, rhs.ranges).allSatisfy { $0 == $1 }
    }
    func hash(into hasher: inout Hasher) { hasher.combine(self.ranges.count) }

    mutating func insert(_ start: MediaTime, _ end: MediaTime) {
        self.ranges.append((start, end))
        self.ranges.sort { $0.start < $1.start }
        var merged: [(start: MediaTime, end: MediaTime)] = []
        for range in self.ranges {
            if let last = merged.last, range.start <= last.end + Self.tolerance {
                merged[merged.count - 1].end = MediaTime.max(last.end, range.end)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    /// The end of the buffered stretch that contains `time` (or starts right at it); `time` when
    /// nothing is buffered there.
    func contiguousEnd(from time: MediaTime) -> MediaTime {
        for range in self.ranges where range.start <= time + Self.tolerance && time < range.end {
            return range.end
        }
        return time
    }

    /// Forgets what lies before `time` (played) or everything (a seek elsewhere).
    mutating func removeAll(before time: MediaTime) {
        self.ranges.removeAll { $0.end < time }
    }

    mutating func removeAll() { self.ranges.removeAll() }

    var totalDuration: MediaTime { self.ranges.reduce(.zero) { $0 + ($1.end - $1.start) } }
}

/// One media playlist of a presentation (the variant, an audio or a subtitles rendition) and the
/// segments downloaded from it.
struct Track: Sendable {
    /// What the track carries.
    enum Kind: String, Sendable {
        case main, audio, subtitles
    }

    var kind: Kind
    var playlistURL: String
    var language: String?
    /// The latest version of the playlist: the last full load, or the last delta update merged
    /// into the version before it (never a bare delta).
    var playlist: MediaPlaylist?
    /// The segments known, by media sequence number, on the stable timeline.
    var segments: [SegmentReference] = []
    var hasEndList = false
    var isLive = false
    var targetDuration = MediaTime(seconds: 6)
    var partTarget: MediaTime?
    var serverControl: ServerControl?
    /// The next segment to download.
    var nextSequenceNumber: Int?
    /// Where downloading begins once the playlist is known.
    var startTime: MediaTime = .zero
    var isLoadingSegment = false
    var isLoadingPlaylist = false
    var lastReloadStart: MediaTime?
    /// When the version in ``playlist`` arrived (a delta update is only asked for while it is
    /// younger than half the skip boundary, §6.3.7).
    var receivedAt: MediaTime?
    var lastChange: MediaTime?
    var nextReload: MediaTime?
    /// A delta update could not be merged: the next reload asks for the full playlist.
    var needsFullReload = false
    var buffered = BufferedRanges()
    /// The media initialization section (`EXT-X-MAP` URI and byte range) loaded last: it is
    /// requested again only when a segment needs a different one.
    var currentMap: String?
    var failures = 0
    var retryAt: MediaTime?
    var bytesLoaded = 0

    init(kind: Kind, playlistURL: String, language: String? = nil) {
        self.kind = kind
        self.playlistURL = playlistURL
        self.language = language
    }

    var lastSequenceNumber: Int? { self.segments.last?.mediaSequenceNumber }

    func segment(_ sequenceNumber: Int) -> SegmentReference? {
        guard let first = self.segments.first?.mediaSequenceNumber else { return nil }
        let k = sequenceNumber - first
        return self.segments.indices.contains(k) ? self.segments[k] : nil
    }

    /// The segment containing `time`, or the first one after it.
    func sequenceNumber(at time: MediaTime) -> Int? {
        if let segment = self.segments.first(where: {
            $0.start <= time + BufferedRanges.tolerance && time < $0.end - BufferedRanges.tolerance
        }) {
            return segment.mediaSequenceNumber
        }
        return self.segments.first { $0.start >= time }?.mediaSequenceNumber
    }

    /// Whether every segment has been downloaded and the playlist has ended.
    var isComplete: Bool {
        guard self.hasEndList, let next = self.nextSequenceNumber, let last = self.lastSequenceNumber else {
            return false
        }
        return next > last
    }

    /// The end of the known segments on the stable timeline.
    var end: MediaTime { self.segments.last?.end ?? .zero }

    /// Merges a (full or delta) playlist into the known segments, placing new segments on the
    /// stable timeline by media sequence number (or by date when the window moved past them).
    ///
    /// - Returns: Whether the playlist brought new segments or ended.
    mutating func merge(_ playlist: MediaPlaylist, baseURL: String, anchor: (Track) -> MediaTime?) -> Bool {
        let timings = playlist.timings
        let segments = playlist.segments
        let first = playlist.mediaSequence + playlist.skippedSegmentCount
        let wasEnded = self.hasEndList
        let oldLast = self.lastSequenceNumber
        self.playlist = playlist
        self.hasEndList = playlist.hasEndList
        self.isLive = playlist.isLive
        self.targetDuration = MediaTime(seconds: playlist.targetDuration ?? 6)
        self.partTarget = playlist.partTarget
        self.serverControl = playlist.serverControl
        guard !timings.isEmpty else { return self.hasEndList != wasEnded }
        // Where the playlist's first segment sits on the stable timeline.
        var offset: MediaTime
        var anchorSegment: (index: Int, start: MediaTime)?
        for k in timings.indices {
            if let segment = self.segment(first + k) {
                anchorSegment = (k, segment.start)
                break
            }
        }
        if let (known, start) = anchorSegment {
            offset = start - timings[known].start
        } else if let last = self.segments.last, let lastDate = last.date, let date = timings[0].date {
            offset = last.start + (date - lastDate) - timings[0].start
        } else if let last = self.segments.last {
            offset = last.end - timings[0].start
        } else {
            offset = (anchor(self) ?? .zero) - timings[0].start
        }
        if self.segments.isEmpty == false, let firstKnown = self.segments.first?.mediaSequenceNumber,
            first > (oldLast ?? first) + 1 || first < firstKnown
        {
            // The window moved past what we knew, or restarted: keep only what follows.
            self.segments.removeAll()
        }
        var changed = false
        for k in 0..<timings.count {
            let number = first + k
            if let last = self.lastSequenceNumber, number <= last { continue }
            let segment = segments[k]
            var reference = SegmentReference(
                mediaSequenceNumber: number,
                url: URIReference.resolve(segment.uri, against: baseURL),
                start: timings[k].start + offset,
                duration: timings[k].duration,
                byteRange: segment.byteRange,
                date: timings[k].date
            )
            if let map = segment.map, let uri = map["URI"]?.quotedString {
                reference.mapURL = URIReference.resolve(uri, against: baseURL)
                reference.mapRange = map["BYTERANGE"]?.quotedString.flatMap { ByteRange($0) }
            }
            if reference.byteRange?.offset == nil, let range = reference.byteRange,
                let previous = self.segments.last, previous.url == reference.url, let previousRange = previous.byteRange
            {
                reference.byteRange = ByteRange(
                    length: range.length,
                    offset: (previousRange.offset ?? 0) + previousRange.length
                )
            }
            self.segments.append(reference)
            changed = true
        }
        // Keep a bounded history behind the window.
        if self.segments.count > 4 * timings.count + 64 {
            self.segments.removeFirst(self.segments.count - (4 * timings.count + 64))
        }
        return changed || self.hasEndList != wasEnded
    }

    /// The offset that maps times of `playlist` (0 = its first segment) to the stable timeline.
    func stableOffset(of playlist: MediaPlaylist) -> MediaTime? {
        let timings = playlist.timings
        guard !timings.isEmpty else { return nil }
        let first = playlist.mediaSequence + playlist.skippedSegmentCount
        guard let segment = self.segment(first) else { return nil }
        return segment.start - timings[0].start
    }
}
