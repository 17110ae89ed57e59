import HLSPlaylist

/// Merging a Playlist Delta Update into the previous version of the playlist (§6.2.5.1, §6.3.7).
///
/// A delta update replaces the oldest segments, with every Media Segment tag applied to them,
/// by one `EXT-X-SKIP:SKIPPED-SEGMENTS=N` tag. With `_HLS_skip=v2` it also leaves out the date
/// ranges added more than `CAN-SKIP-UNTIL` seconds ago and lists recent removals in
/// `RECENTLY-REMOVED-DATERANGES`. The client must rebuild the full playlist from its copy.
enum DeltaUpdate {
    /// Media Segment tags (§4.4.4): what a skipped segment carries over.
    private static let segmentTags: Set<TagName> = [
        .segmentInformation, .byteRange, .discontinuity, .key, .map, .programDateTime, .gap, .bitrate, .part,
    ]

    /// The full playlist that `delta` stands for, given the previous full version.
    ///
    /// The delta's lines are kept in order; its `EXT-X-SKIP` tag is replaced by the skipped
    /// segments taken from `previous` (the first one restated with the `EXT-X-MAP`, `EXT-X-KEY` and
    /// `EXT-X-PROGRAM-DATE-TIME` in effect for it, byte ranges made explicit), preceded by the date
    /// ranges a `v2` delta skipped: those of `previous` that the delta neither repeats nor lists as
    /// recently removed. A `YES` delta (no `RECENTLY-REMOVED-DATERANGES`) carries every date range
    /// itself, so none is taken from `previous`.
    ///
    /// - Returns: The merged playlist, or `nil` when `previous` lacks some skipped segment (the
    ///   client must then reload without `_HLS_skip`), or when `delta` has no `EXT-X-SKIP`.
    static func merge(_ delta: MediaPlaylist, into previous: MediaPlaylist) -> MediaPlaylist? {
        guard delta.skip != nil else { return nil }
        let skipped = delta.skippedSegmentCount
        let first = delta.mediaSequence
        let previousFirst = previous.mediaSequence + previous.skippedSegmentCount
        let previousSegments = previous.segments
        guard previous.skip == nil, first >= previousFirst, first + skipped <= previousFirst + previousSegments.count
        else {
            return nil
        }
        var keptRanges: [String] = []
        if let skip = delta.skip, skip["RECENTLY-REMOVED-DATERANGES"] != nil {
            var present: Set<String> = []
            for placed in delta.dateRanges { present.insert(placed.dateRange.id) }
            let removed = Set(delta.recentlyRemovedDateRangeIDs)
            let lines = previous.lines
            for placed in previous.dateRanges
            where !present.contains(placed.dateRange.id) && !removed.contains(placed.dateRange.id) {
                keptRanges.append(lines[placed.lineIndex].text)
            }
        }
        var text: [String] = []
        text.reserveCapacity(delta.lines.count + 3 * skipped + keptRanges.count)
        for line in delta.lines {
            guard line.kind == .tag, let tag = line.tag, tag.name == .skip else {
                text.append(line.text)
                continue
            }
            text += keptRanges
            for k in 0..<skipped {
                let segment = previousSegments[first - previousFirst + k]
                let tags = segment.tags.filter { Self.segmentTags.contains($0.name) }
                if k == 0 {
                    // Restate what applies to the first segment from tags before the skip boundary.
                    if let key = segment.key, !tags.contains(where: { $0.name == .key }) {
                        text.append(Tag(name: .key, attributes: key).rendered)
                    }
                    if let map = segment.map, !tags.contains(where: { $0.name == .map }) {
                        text.append(Tag(name: .map, attributes: map).rendered)
                    }
                    if let date = segment.date, !tags.contains(where: { $0.name == .programDateTime }) {
                        text.append(Tag.programDateTime(date).rendered)
                    }
                }
                for tag in tags {
                    if tag.name == .byteRange, let range = segment.byteRange {
                        text.append(Tag.byteRange(range).rendered)
                    } else {
                        text.append(tag.rendered)
                    }
                }
                text.append(segment.uri)
            }
        }
        let bytes = Array((text.joined(separator: "\n") + "\n").utf8)
        guard case .media(let merged) = PlaylistParser.parse(bytes, options: .init(mode: .lenient)).playlist else {
            return nil
        }
        return merged
    }
}
