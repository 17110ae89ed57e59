import HLSInterstitials
import HLSPlaylist

/// Finds the ads stitched into a media playlist, so that a participant can leave them out of the
/// group's timeline without the app supplying the ranges.
///
/// As the SharePlay talk shows, a stitched ad is a run of segments between two
/// `EXT-X-DISCONTINUITY` tags with a marker among them; its range is the sum of their `EXTINF`
/// durations (which assumes those durations are accurate). A marker is:
/// - an `EXT-X-DATERANGE` with `SCTE35-OUT` (the splice out), or whose `CLASS` is one of
///   ``Options/dateRangeClasses``, or whose `ID` is one of ``Options/dateRangeIDs``;
/// - an `EXT-X-CUE-OUT` tag (the common SCTE-35 cue spelling), whose `EXT-X-CUE-IN` ends the range
///   when it comes before the next discontinuity.
///
/// The range starts at the nearest discontinuity at or before the marker. When the marker states a
/// duration (the date range's `DURATION` or `END-DATE`, `EXT-X-CUE-OUT:DURATION=`), the range ends at
/// the first discontinuity (or `EXT-X-CUE-IN`) at which that much has played, so a break of several
/// ads, each between discontinuities, is one range; otherwise it ends at the next discontinuity or
/// `EXT-X-CUE-IN`. A range that reaches the end of a playlist without `EXT-X-ENDLIST` is open
/// (``Finding/isOpen``): a live break still being written. Interstitial and preload date ranges are
/// never markers.
public struct StitchedRanges: Sendable {
    /// What counts as a marker.
    public struct Options: Sendable, Hashable {
        /// Date-range classes that mark a stitched ad besides `SCTE35-OUT`.
        public var dateRangeClasses: Set<String>
        /// Date-range IDs that mark a stitched ad (the app knows them).
        public var dateRangeIDs: Set<String>
        /// Whether `EXT-X-CUE-OUT` marks a stitched ad.
        public var usesCueOutTags: Bool

        /// Creates options; by default `SCTE35-OUT` and `EXT-X-CUE-OUT` mark ads.
        public init(dateRangeClasses: Set<String> = [], dateRangeIDs: Set<String> = [], usesCueOutTags: Bool = true) {
            self.dateRangeClasses = dateRangeClasses
            self.dateRangeIDs = dateRangeIDs
            self.usesCueOutTags = usesCueOutTags
        }
    }

    /// One stitched ad found in a playlist.
    public struct Finding: Sendable, Hashable {
        /// The range on the playlist's timeline.
        public var range: NonPrimaryTimeRange
        /// The index of its first segment.
        public var firstSegment: Int
        /// The index after its last segment.
        public var endSegment: Int
        /// Whether the range runs to the end of the playlist without a closing discontinuity or
        /// `EXT-X-CUE-IN` (in a live playlist, the break is still being written).
        public var isOpen: Bool
    }

    static let cueOut = TagName("EXT-X-CUE-OUT")
    static let cueIn = TagName("EXT-X-CUE-IN")

    /// Finds the stitched ads of a playlist, in playlist order.
    public static func find(in playlist: MediaPlaylist, options: Options = Options()) -> [Finding] {
        let segments = playlist.segments
        guard !segments.isEmpty else { return [] }
        // Marker positions (segment indices) with the marker's name.
        var markers: [(segment: Int, identifier: String, duration: MediaTime?)] = []
        for placed in playlist.dateRanges {
            let range = placed.dateRange
            guard !range.isInterstitial, range.class != DateRange.preloadClass else { continue }
            let marks =
                range.attributes[.scte35Out] != nil || range.class.map(options.dateRangeClasses.contains) == true
                || options.dateRangeIDs.contains(range.id)
            if marks, placed.position < segments.count {
                markers.append((placed.position, range.id, range.resolvedDuration))
            }
        }
        var cueIns: Set<Int> = []
        if options.usesCueOutTags {
            for index in segments.indices {
                let tags = segments[index].tags
                if let cue = tags.first(where: { $0.name == Self.cueOut }) {
                    markers.append(
                        (index, "cue-\(segments[index].mediaSequenceNumber)", SCTE35CueReader.cueOutDuration(cue.value))
                    )
                }
                if tags.contains(where: { $0.name == Self.cueIn }) { cueIns.insert(index) }
            }
        }
        markers.sort { $0.segment < $1.segment }

        var findings: [Finding] = []
        for marker in markers {
            if let last = findings.last, marker.segment < last.endSegment { continue }  // same ad, two markers
            let floor = findings.last?.endSegment ?? 0
            var first = marker.segment
            while first > floor, !segments[first].isDiscontinuity { first -= 1 }
            // No opening discontinuity: the range starts at the marker.
            if !segments[first].isDiscontinuity { first = marker.segment }
            // The stated duration, less a little for EXTINF rounding, must have played before a
            // discontinuity can end the range.
            let due = marker.duration.map { segments[first].startTime + $0 - Self.roundingAllowance }
            var end = marker.segment + 1
            while end < segments.count {
                let boundary = segments[end].isDiscontinuity || cueIns.contains(end)
                if boundary, due.map({ segments[end].startTime >= $0 }) ?? true { break }
                end += 1
            }
            let isOpen = end == segments.count && !playlist.hasEndList
            let start = segments[first].startTime
            let duration = segments[end - 1].endTime - start
            findings.append(
                Finding(
                    range: NonPrimaryTimeRange(identifier: marker.identifier, start: start, duration: duration),
                    firstSegment: first,
                    endSegment: end,
                    isOpen: isOpen
                )
            )
        }
        return findings
    }

    /// How much shorter than its marker's stated duration a range may be: `EXTINF` values are often
    /// rounded to milliseconds.
    static let roundingAllowance = MediaTime(milliseconds: 100)

    /// The ranges alone, for a ``CoordinatedTimeline``.
    public static func ranges(in playlist: MediaPlaylist, options: Options = Options()) -> [NonPrimaryTimeRange] {
        self.find(in: playlist, options: options).map(\.range)
    }
}
