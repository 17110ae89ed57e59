/// One media segment as indexed: where its lines are and its timing, all plain values.
struct SegmentRecord: Sendable, Hashable {
    var firstLine: Int32
    var uriLine: Int32
    var infLine: Int32
    var keyLine: Int32
    var mapLine: Int32
    var flags: UInt8
    /// Duration in ns.
    var duration: Int64
    /// Start in ns from the start of the playlist's first segment.
    var start: Int64
    /// Effective date in ns since 1970 (valid when the playlist has a PROGRAM-DATE-TIME).
    var date: Int64
    var discontinuitySequence: Int64
    var byteLength: Int64
    var byteOffset: Int64
    var bitrate: Int64

    static let discontinuityFlag: UInt8 = 1
    static let gapFlag: UInt8 = 2
    static let explicitDateFlag: UInt8 = 4
    static let byteRangeFlag: UInt8 = 8
    static let bitrateFlag: UInt8 = 16
}

/// What the second pass learns about a media playlist.
struct MediaIndex: Sendable, Hashable {
    var segments: [SegmentRecord] = []
    var dateRanges: [PlacedDateRange] = []
    /// Lines of tags that appear once, or -1.
    var versionLine = -1
    var targetDurationLine = -1
    var mediaSequenceLine = -1
    var discontinuitySequenceLine = -1
    var playlistTypeLine = -1
    var endListLine = -1
    var iFramesOnlyLine = -1
    var independentSegmentsLine = -1
    var startLine = -1
    var partInformationLine = -1
    var serverControlLine = -1
    var skipLine = -1
    var defineLines: [Int] = []
    var preloadHintLines: [Int] = []
    var renditionReportLines: [Int] = []
    /// PART lines after the last segment URI: the parts of the segment being produced.
    var trailingPartLines: [Int] = []
    /// First line of segment tags after the last URI (where a new segment would start), or the end.
    var trailingFirstLine = 0
    var hasProgramDateTime = false
    /// Whether any segment has a byte range (then segment URIs matter to offsets).
    var hasByteRanges = false
    var mediaSequence: Int64 = 0
    var discontinuitySequence: Int64 = 0
    var skippedSegments: Int64 = 0
    /// The line after the last header tag (where segment 0 begins when there are no segments).
    var headerEnd = 0
}

extension MediaIndex {
    /// Builds the index from the lines and reports structural problems.
    static func build(_ store: LineStore, sink: inout DiagnosticSink) -> MediaIndex {
        var index = MediaIndex()
        let records = store.records
        let count = records.count
        // At most one segment per two lines (EXTINF + URI); a large array in huge pages.
        index.segments = LargeBuffer.emptyArray(reservingCapacity: count / 2 + 1)

        // Header values first (their tags may come in any order before the segments).
        // One bit a tag (there are fewer than 64): no array to allocate.
        var seenUnique: UInt64 = 0
        var firstSegmentLine = -1
        for (i, record) in records.enumerated() where record.kind == .tag {
            let tag = record.tag
            if tag == .unknown { continue }
            if tag.isUnique {
                let bit: UInt64 = 1 << tag.rawValue
                if seenUnique & bit != 0 {
                    sink.reportDuplicateTag(tag, line: i)
                }
                seenUnique |= bit
            }
            if tag.isMultivariantPlaylistTag {
                sink.report(
                    .error,
                    .mixedPlaylist,
                    line: i,
                    column: 0,
                    "#\(tag.name.rawValue) belongs in a multivariant playlist, not a media playlist",
                    hint: "move the tag to the multivariant playlist or remove it"
                )
            }
            if firstSegmentLine < 0, tag.isSegmentTag || tag == .dateRange {
                firstSegmentLine = i
            }
            switch tag {
            case .version: if index.versionLine < 0 { index.versionLine = i }
            case .targetDuration: if index.targetDurationLine < 0 { index.targetDurationLine = i }
            case .mediaSequence:
                if index.mediaSequenceLine < 0 {
                    index.mediaSequenceLine = i
                    index.mediaSequence = record.valid ? record.value : 0
                }
            case .discontinuitySequence:
                if index.discontinuitySequenceLine < 0 {
                    index.discontinuitySequenceLine = i
                    index.discontinuitySequence = record.valid ? record.value : 0
                }
            case .playlistType: if index.playlistTypeLine < 0 { index.playlistTypeLine = i }
            case .endList: if index.endListLine < 0 { index.endListLine = i }
            case .iFramesOnly: if index.iFramesOnlyLine < 0 { index.iFramesOnlyLine = i }
            case .independentSegments: if index.independentSegmentsLine < 0 { index.independentSegmentsLine = i }
            case .start: if index.startLine < 0 { index.startLine = i }
            case .partInformation: if index.partInformationLine < 0 { index.partInformationLine = i }
            case .serverControl: if index.serverControlLine < 0 { index.serverControlLine = i }
            case .skip:
                if index.skipLine < 0 {
                    index.skipLine = i
                    if let value = store.attributes(i)?[.skippedSegments]?.integer {
                        index.skippedSegments = Int64(value)
                    }
                }
            case .define: index.defineLines.append(i)
            case .preloadHint: index.preloadHintLines.append(i)
            case .renditionReport: index.renditionReportLines.append(i)
            case .programDateTime: index.hasProgramDateTime = true
            default: break
            }
        }
        index.headerEnd = firstSegmentLine >= 0 ? firstSegmentLine : count

        // Playlist tags that should precede the segments (the array only when one does not).
        // Pairs, not the variadic `max` (which makes an array too).
        let lastHeaderLine = max(
            max(max(index.targetDurationLine, index.mediaSequenceLine), index.discontinuitySequenceLine),
            max(max(index.playlistTypeLine, index.versionLine), max(index.partInformationLine, index.serverControlLine))
        )
        if firstSegmentLine >= 0, lastHeaderLine > firstSegmentLine {
            for line in [
                index.targetDurationLine, index.mediaSequenceLine, index.discontinuitySequenceLine,
                index.playlistTypeLine, index.versionLine, index.partInformationLine, index.serverControlLine,
            ]
            where line > firstSegmentLine {
                sink.report(
                    .warning,
                    .tagPlacement,
                    line: line,
                    column: 0,
                    "#\(records[line].tag.name.rawValue) appears after the first media segment",
                    hint: "move playlist tags above the first segment"
                )
            }
        }

        if count == 0 || records[0].kind != .tag || records[0].tag != .m3u {
            sink.reportMissingHeader()
        }

        let targetDuration: Int64? =
            index.targetDurationLine >= 0 && records[index.targetDurationLine].valid
            ? records[index.targetDurationLine].value : nil

        // Segments.
        var segmentFirst = -1
        var infLine: Int32 = -1
        var duration: Int64 = 0
        var flags: UInt8 = 0
        var explicitDate: Int64 = 0
        var byteLength: Int64 = 0
        var byteOffset: Int64 = -1
        var keyLine: Int32 = -1
        var mapLine: Int32 = -1
        var bitrate: Int64 = -1
        var discontinuitySequence = index.discontinuitySequence
        var start: Int64 = 0
        var previousRangeEnd: Int64 = -1
        var previousRangeURILine = -1
        var pendingParts: [Int] = []
        for i in 0..<count {
            let record = records[i]
            switch record.kind {
            case .blank, .comment:
                continue
            case .tag:
                let tag = record.tag
                if tag.isSegmentTag, segmentFirst < 0 { segmentFirst = i }
                switch tag {
                case .segmentInformation:
                    if infLine >= 0 {
                        sink.reportDanglingSegmentInformation(line: Int(infLine), atEnd: false)
                    }
                    infLine = Int32(i)
                    duration = record.valid ? record.value : 0
                    if let targetDuration, record.valid {
                        let rounded = record.value.saturatingPlus(500_000_000) / 1_000_000_000
                        if rounded > targetDuration {
                            sink.report(
                                .error,
                                .segmentExceedsTarget,
                                line: i,
                                column: 0,
                                "the segment lasts \(MediaTime(nanoseconds: record.value)) s, longer than the target duration of \(targetDuration) s",
                                hint: "raise #EXT-X-TARGETDURATION to \(rounded) or shorten the segment"
                            )
                        }
                    }
                case .discontinuity:
                    flags |= SegmentRecord.discontinuityFlag
                case .gap:
                    flags |= SegmentRecord.gapFlag
                case .programDateTime:
                    if record.valid {
                        flags |= SegmentRecord.explicitDateFlag
                        explicitDate = record.value
                    }
                case .byteRange:
                    if record.valid {
                        flags |= SegmentRecord.byteRangeFlag
                        byteLength = record.value
                        byteOffset = store.withContent(i) { LineParser.byteRangeOffset($0) }
                    }
                case .key:
                    keyLine = Int32(i)
                case .map:
                    mapLine = Int32(i)
                case .bitrate:
                    bitrate = record.valid ? record.value : -1
                case .part:
                    pendingParts.append(i)
                case .dateRange:
                    if let list = store.attributes(i) {
                        index.dateRanges.append(
                            PlacedDateRange(
                                dateRange: DateRange(attributes: list),
                                position: index.segments.count,
                                lineIndex: i
                            )
                        )
                    }
                default:
                    break
                }
            case .uri:
                if infLine < 0 {
                    sink.report(
                        .error,
                        .segmentWithoutDuration,
                        line: i,
                        column: 0,
                        "the segment URI has no #EXTINF before it",
                        hint: "add #EXTINF:<duration>, on the line before the URI"
                    )
                }
                if flags & SegmentRecord.discontinuityFlag != 0 { discontinuitySequence += 1 }
                if flags & SegmentRecord.byteRangeFlag != 0, byteOffset < 0 {
                    if previousRangeURILine >= 0, sameText(store, previousRangeURILine, i) {
                        byteOffset = previousRangeEnd
                    } else {
                        sink.report(
                            .error,
                            .byteRange,
                            line: Int(infLine >= 0 ? infLine : Int32(i)),
                            column: 0,
                            "the byte range has no offset and does not follow a range of the same resource",
                            hint: "write the offset: #EXT-X-BYTERANGE:<length>@<offset>"
                        )
                        byteOffset = 0
                    }
                }
                if flags & SegmentRecord.byteRangeFlag != 0 {
                    index.hasByteRanges = true
                    previousRangeEnd = byteOffset.saturatingPlus(byteLength)
                    previousRangeURILine = i
                } else {
                    previousRangeURILine = -1
                }
                var recordFlags = flags
                if bitrate >= 0 { recordFlags |= SegmentRecord.bitrateFlag }
                index.segments.append(
                    SegmentRecord(
                        firstLine: Int32(segmentFirst >= 0 ? segmentFirst : i),
                        uriLine: Int32(i),
                        infLine: infLine,
                        keyLine: keyLine,
                        mapLine: mapLine,
                        flags: recordFlags,
                        duration: duration,
                        start: start,
                        date: flags & SegmentRecord.explicitDateFlag != 0 ? explicitDate : 0,
                        discontinuitySequence: discontinuitySequence,
                        byteLength: byteLength,
                        byteOffset: byteOffset,
                        bitrate: bitrate
                    )
                )
                start = start.saturatingPlus(duration)
                segmentFirst = -1
                infLine = -1
                duration = 0
                flags = 0
                byteOffset = -1
                pendingParts.removeAll(keepingCapacity: true)
            }
        }
        index.trailingPartLines = pendingParts
        index.trailingFirstLine = segmentFirst >= 0 ? segmentFirst : count
        if infLine >= 0 {
            sink.reportDanglingSegmentInformation(line: Int(infLine), atEnd: true)
        }
        if index.targetDurationLine < 0 {
            sink.report(
                .error,
                .missingTargetDuration,
                line: 0,
                column: 0,
                "the media playlist has no #EXT-X-TARGETDURATION",
                hint: "add #EXT-X-TARGETDURATION:<seconds> (the longest segment, rounded)"
            )
        }
        if !index.dateRanges.isEmpty, !index.hasProgramDateTime {
            sink.report(
                .error,
                .dateRangeWithoutProgramDateTime,
                line: index.dateRanges[0].lineIndex,
                column: 0,
                "the playlist has EXT-X-DATERANGE tags but no EXT-X-PROGRAM-DATE-TIME",
                hint: "add #EXT-X-PROGRAM-DATE-TIME before the first segment so dates map to media time"
            )
        }
        index.resolveDates()
        return index
    }

    static func sameText(_ store: LineStore, _ a: Int, _ b: Int) -> Bool {
        store.withContent(a) { x in
            store.withContent(b) { y in
                x.count == y.count && x.elementsEqual(y)
            }
        }
    }

    /// Fills in every segment's effective date: forward from each PROGRAM-DATE-TIME, and backward
    /// from the first one for the segments before it.
    mutating func resolveDates() {
        guard self.hasProgramDateTime else { return }
        var firstExplicit = -1
        var current: Int64 = 0
        var haveDate = false
        for k in self.segments.indices {
            if self.segments[k].flags & SegmentRecord.explicitDateFlag != 0 {
                current = self.segments[k].date
                haveDate = true
                if firstExplicit < 0 { firstExplicit = k }
            } else if haveDate {
                self.segments[k].date = current
            }
            if haveDate { current = current.saturatingPlus(self.segments[k].duration) }
        }
        if firstExplicit > 0 {
            var date = self.segments[firstExplicit].date
            var k = firstExplicit - 1
            while k >= 0 {
                date = date.saturatingMinus(self.segments[k].duration)
                self.segments[k].date = date
                k -= 1
            }
        }
    }
}

extension MediaIndex {
    /// Brings the index up to date after date range lines are inserted, without reading the
    /// playlist again: every
    /// line number at or after an insertion point moves down by the lines inserted up to it, and
    /// the ranges join ``dateRanges`` in line order.
    ///
    /// - Parameter placed: For each inserted line, in the order of the new lines, the line it goes
    ///   in before (in the numbering before the insertion; the line count for the end) and its
    ///   date range as read back from it (`nil`: its attributes do not parse, so it is not indexed).
    mutating func insertDateRanges(_ placed: [(line: Int, dateRange: DateRange?)]) {
        guard let firstPoint = placed.first?.line else { return }
        // The insertion points, ascending, and how many lines go in at or before each.
        var points: [Int] = []
        var moved: [Int] = []
        for p in placed {
            if points.last == p.line {
                moved[moved.count - 1] += 1
            } else {
                points.append(p.line)
                moved.append((moved.last ?? 0) + 1)
            }
        }
        /// `line` in the new numbering (-1 stays -1): binary search for the last point at or before it.
        func shift(_ line: Int) -> Int {
            guard line >= firstPoint else { return line }
            var low = 0
            var high = points.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if points[middle] <= line { low = middle } else { high = middle - 1 }
            }
            return line + moved[low]
        }
        /// The same for a field that only grows from one call to the next: a cursor, not a search.
        struct Cursor {
            var k = -1
            mutating func shift(_ line: Int32, _ points: [Int], _ moved: [Int]) -> Int32 {
                guard line >= 0 else { return line }
                while self.k + 1 < points.count, points[self.k + 1] <= Int(line) { self.k += 1 }
                return self.k >= 0 ? line + Int32(moved[self.k]) : line
            }
        }

        // Date ranges: the old ones move, the new ones go in before the line they were placed at.
        var ranges: [PlacedDateRange] = []
        ranges.reserveCapacity(self.dateRanges.count + placed.count)
        var old = 0
        var before = 0  // lines inserted before the current point
        var p = 0
        while p < placed.count {
            let point = placed[p].line
            while old < self.dateRanges.count, self.dateRanges[old].lineIndex < point {
                var range = self.dateRanges[old]
                range.lineIndex += before
                ranges.append(range)
                old += 1
            }
            // The segment count before the point: the segments whose URI line precedes it (the
            // segments are moved after this loop).
            var position = 0
            var upper = self.segments.count
            while position < upper {
                let middle = (position + upper) / 2
                if Int(self.segments[middle].uriLine) < point { position = middle + 1 } else { upper = middle }
            }
            while p < placed.count, placed[p].line == point {
                if let dateRange = placed[p].dateRange {
                    ranges.append(PlacedDateRange(dateRange: dateRange, position: position, lineIndex: point + before))
                }
                before += 1
                p += 1
            }
        }
        while old < self.dateRanges.count {
            var range = self.dateRanges[old]
            range.lineIndex += before
            ranges.append(range)
            old += 1
        }
        self.dateRanges = ranges

        // Segments: those ending before the first point keep their lines.
        var firstMoved = 0
        var high = self.segments.count
        while firstMoved < high {
            let middle = (firstMoved + high) / 2
            if Int(self.segments[middle].uriLine) < firstPoint { firstMoved = middle + 1 } else { high = middle }
        }
        if firstMoved < self.segments.count {
            var firstLines = Cursor()
            var infLines = Cursor()
            var uriLines = Cursor()
            // Key and map lines repeat from segment to segment: remember the last one shifted.
            var lastKey: (old: Int32, new: Int32) = (-1, -1)
            var lastMap: (old: Int32, new: Int32) = (-1, -1)
            self.segments.withUnsafeMutableBufferPointer { segments in
                for s in firstMoved..<segments.count {
                    segments[s].firstLine = firstLines.shift(segments[s].firstLine, points, moved)
                    segments[s].infLine = infLines.shift(segments[s].infLine, points, moved)
                    segments[s].uriLine = uriLines.shift(segments[s].uriLine, points, moved)
                    let key = segments[s].keyLine
                    if key != lastKey.old { lastKey = (key, key < 0 ? key : Int32(shift(Int(key)))) }
                    segments[s].keyLine = lastKey.new
                    let map = segments[s].mapLine
                    if map != lastMap.old { lastMap = (map, map < 0 ? map : Int32(shift(Int(map)))) }
                    segments[s].mapLine = lastMap.new
                }
            }
        }

        func shiftLine(_ line: Int) -> Int { line < 0 ? line : shift(line) }
        self.versionLine = shiftLine(self.versionLine)
        self.targetDurationLine = shiftLine(self.targetDurationLine)
        self.mediaSequenceLine = shiftLine(self.mediaSequenceLine)
        self.discontinuitySequenceLine = shiftLine(self.discontinuitySequenceLine)
        self.playlistTypeLine = shiftLine(self.playlistTypeLine)
        self.endListLine = shiftLine(self.endListLine)
        self.iFramesOnlyLine = shiftLine(self.iFramesOnlyLine)
        self.independentSegmentsLine = shiftLine(self.independentSegmentsLine)
        self.startLine = shiftLine(self.startLine)
        self.partInformationLine = shiftLine(self.partInformationLine)
        self.serverControlLine = shiftLine(self.serverControlLine)
        self.skipLine = shiftLine(self.skipLine)
        self.defineLines = self.defineLines.map(shift)
        self.preloadHintLines = self.preloadHintLines.map(shift)
        self.renditionReportLines = self.renditionReportLines.map(shift)
        self.trailingPartLines = self.trailingPartLines.map(shift)
        self.trailingFirstLine = shift(self.trailingFirstLine)
        // The first segment tag or date range: the first new line may now come first.
        self.headerEnd = min(shift(self.headerEnd), firstPoint)
    }
}
