/// A media segment of a media playlist (§3), read from its lines.
public struct MediaSegment: Sendable, Hashable {
    /// The segment URI, as written (variables not substituted).
    public var uri: String
    /// The `EXTINF` duration.
    public var duration: MediaTime
    /// The `EXTINF` title (after the comma), often empty.
    public var title: String
    /// Where the segment starts, from the start of the playlist's first segment.
    public var startTime: MediaTime
    /// The sequence number (`EXT-X-MEDIA-SEQUENCE` plus the index, plus skipped segments).
    public var mediaSequenceNumber: Int
    /// The discontinuity sequence number.
    public var discontinuitySequenceNumber: Int
    /// Whether `EXT-X-DISCONTINUITY` precedes it.
    public var isDiscontinuity: Bool
    /// Whether `EXT-X-GAP` marks it as missing.
    public var isGap: Bool
    /// The segment's own `EXT-X-PROGRAM-DATE-TIME`, if it has one.
    public var programDateTime: DateTime?
    /// The date of its first sample: its own PROGRAM-DATE-TIME, or extrapolated from the nearest
    /// earlier one (or, before the first, backward from it); `nil` when the playlist has none.
    public var date: DateTime?
    /// The byte range (offset resolved), if the segment is a sub-range.
    public var byteRange: ByteRange?
    /// The `EXT-X-KEY` in force, if any.
    public var key: AttributeList?
    /// The `EXT-X-MAP` in force, if any.
    public var map: AttributeList?
    /// The `EXT-X-BITRATE` in force, in kbit/s.
    public var bitrate: Int?
    /// The segment's partial segments (`EXT-X-PART`), in order.
    public var parts: [PartialSegment]
    /// Every tag line of the segment, in order (including tags the parser does not know).
    public var tags: [Tag]
    /// The 0-based line of its URI.
    public var uriLineIndex: Int

    /// The end of the segment on the media timeline.
    public var endTime: MediaTime { self.startTime + self.duration }
}

/// Plain timing of one segment.
public struct SegmentTiming: Sendable, Hashable {
    /// Start from the playlist's first segment.
    public var start: MediaTime
    /// Duration.
    public var duration: MediaTime
    /// Effective date, when the playlist has PROGRAM-DATE-TIME.
    public var date: DateTime?
    /// Whether the segment has its own PROGRAM-DATE-TIME.
    public var hasProgramDateTime: Bool
    /// Whether `EXT-X-DISCONTINUITY` precedes it.
    public var isDiscontinuity: Bool
    /// Whether `EXT-X-GAP` marks it.
    public var isGap: Bool
    /// Its discontinuity sequence number.
    public var discontinuitySequenceNumber: Int

    /// The end on the media timeline.
    public var end: MediaTime { self.start + self.duration }
}

/// The timing of every segment, without building strings: the schedule's input.
public struct SegmentTimings: RandomAccessCollection, Sendable {
    let records: [SegmentRecord]
    let hasDates: Bool

    /// The first position.
    public var startIndex: Int { 0 }
    /// The position after the last.
    public var endIndex: Int { self.records.count }

    /// The element at a position.
    public subscript(position: Int) -> SegmentTiming {
        let r = self.records[position]
        return SegmentTiming(
            start: MediaTime(nanoseconds: r.start),
            duration: MediaTime(nanoseconds: r.duration),
            date: self.hasDates ? DateTime(nanosecondsSince1970: r.date) : nil,
            hasProgramDateTime: r.flags & SegmentRecord.explicitDateFlag != 0,
            isDiscontinuity: r.flags & SegmentRecord.discontinuityFlag != 0,
            isGap: r.flags & SegmentRecord.gapFlag != 0,
            discontinuitySequenceNumber: Int(r.discontinuitySequence)
        )
    }
}

/// The segments of a media playlist: a random-access view built on demand from the lines.
public struct MediaSegments: RandomAccessCollection, Sendable {
    let playlist: MediaPlaylist

    /// The first position.
    public var startIndex: Int { 0 }
    /// The position after the last.
    public var endIndex: Int { self.playlist.index.segments.count }

    /// The element at a position.
    public subscript(position: Int) -> MediaSegment {
        let record = self.playlist.index.segments[position]
        let store = self.playlist.store
        var title = ""
        if record.infLine >= 0, let value = store.tagValue(Int(record.infLine)),
            let comma = value.firstIndex(of: ",")
        {
            title = String(value[value.index(after: comma)...])
        }
        var tags: [Tag] = []
        var parts: [PartialSegment] = []
        var line = Int(record.firstLine)
        while line < Int(record.uriLine) {
            let r = store.records[line]
            if r.kind == .tag, let tag = Tag(line: store.text(line)) {
                if r.tag == .part, let list = store.attributes(line) {
                    parts.append(PartialSegment(attributes: list))
                }
                tags.append(tag)
            }
            line += 1
        }
        let explicit = record.flags & SegmentRecord.explicitDateFlag != 0
        let index = self.playlist.index
        return MediaSegment(
            uri: store.text(Int(record.uriLine)).trimmingSpaces(),
            duration: MediaTime(nanoseconds: record.duration),
            title: title,
            startTime: MediaTime(nanoseconds: record.start),
            mediaSequenceNumber: Int(index.mediaSequence + index.skippedSegments) + position,
            discontinuitySequenceNumber: Int(record.discontinuitySequence),
            isDiscontinuity: record.flags & SegmentRecord.discontinuityFlag != 0,
            isGap: record.flags & SegmentRecord.gapFlag != 0,
            programDateTime: explicit ? DateTime(nanosecondsSince1970: record.date) : nil,
            date: index.hasProgramDateTime ? DateTime(nanosecondsSince1970: record.date) : nil,
            byteRange: record.flags & SegmentRecord.byteRangeFlag != 0
                ? ByteRange(length: Int(record.byteLength), offset: Int(record.byteOffset)) : nil,
            key: record.keyLine >= 0 ? store.attributes(Int(record.keyLine)) : nil,
            map: record.mapLine >= 0 ? store.attributes(Int(record.mapLine)) : nil,
            bitrate: record.flags & SegmentRecord.bitrateFlag != 0 ? Int(record.bitrate) : nil,
            parts: parts,
            tags: tags,
            uriLineIndex: Int(record.uriLine)
        )
    }
}

/// The lines of a playlist.
public struct PlaylistLines: RandomAccessCollection, Sendable {
    let store: LineStore

    /// The first position.
    public var startIndex: Int { 0 }
    /// The position after the last.
    public var endIndex: Int { self.store.records.count }

    /// The element at a position.
    public subscript(position: Int) -> Line {
        self.store.line(position)
    }
}

extension String {
    func trimmingSpaces() -> String {
        // Most URI lines have nothing to trim: say so from the first and last bytes (a Character
        // equal to " " or "\t" starts and ends with that byte) without counting Characters.
        let bytes = self.utf8
        if let first = bytes.first, let last = bytes.last, first != 0x20, first != 0x09, last != 0x20, last != 0x09 {
            return self
        }
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s.count == self.count ? self : String(s)
    }
}
