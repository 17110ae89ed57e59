extension MediaPlaylist {
    // MARK: - Line-level editing

    /// Replaces line `index` with new text; only that line is re-rendered.
    public mutating func replaceLine(at index: Int, with text: String) {
        let old = self.store.records[index]
        let newRecord = self.store.makeRecord(Array(text.utf8), terminator: old.terminator)
        self.store.records[index] = newRecord
        // Most edits (a date range's attributes, a segment URI) leave the segment structure as it
        // was: update the one index entry instead of rebuilding the index (O(1) instead of O(lines)).
        if !self.updateIndexInPlace(line: index, old: old, new: newRecord) {
            self.reindex()
        }
    }

    /// Brings the index up to date after line `line` changed from `old` to `new`, when the change
    /// cannot move segments or date ranges; returns `false` when only a rebuild will do.
    ///
    /// The index keeps line numbers and the parsed payload (`valid`, `value`) of a few
    /// tags; everything else it reads again on demand. So a line that keeps its kind, its tag and
    /// its payload leaves the index unchanged, except that a date range's attributes are kept
    /// parsed and a segment URI matters to byte ranges without an offset.
    private mutating func updateIndexInPlace(line: Int, old: LineRecord, new: LineRecord) -> Bool {
        guard old.kind == new.kind, old.tag == new.tag else { return false }
        switch new.kind {
        case .blank, .comment:
            return true
        case .uri:
            // A range without an offset continues the previous range only when the URIs match.
            return !self.index.hasByteRanges
        case .tag:
            switch new.tag {
            case .dateRange:
                // Date ranges are in line order: find this one by bisection.
                var low = 0
                var high = self.index.dateRanges.count
                while low < high {
                    let middle = (low + high) / 2
                    if self.index.dateRanges[middle].lineIndex < line { low = middle + 1 } else { high = middle }
                }
                guard low < self.index.dateRanges.count, self.index.dateRanges[low].lineIndex == line else {
                    return false
                }
                let k = low
                guard let list = self.store.attributes(line) else { return false }
                self.index.dateRanges[k].dateRange = DateRange(attributes: list)
                return true
            case .skip, .byteRange:
                // SKIP is read from its attributes; a byte range's offset from its text.
                return false
            default:
                return old.valid == new.valid && old.value == new.value
            }
        }
    }

    /// Inserts lines before line `index` (or at the end when `index` is the line count).
    public mutating func insertLines(_ texts: [String], at index: Int) {
        self.insertLinesWithoutReindex(texts, at: index)
        self.reindex()
    }

    /// Removes the lines at the given indices.
    public mutating func removeLines(at indices: [Int]) {
        for index in Set(indices).sorted(by: >) {
            self.store.records.remove(at: index)
        }
        self.reindex()
    }

    /// Appends a line at the end of the playlist.
    public mutating func appendLine(_ text: String) {
        self.insertLines([text], at: self.store.records.count)
    }

    mutating func insertLinesWithoutReindex(_ texts: [String], at index: Int) {
        guard !texts.isEmpty else { return }
        // Appending after a last line without newline keeps the file's "no final newline" style.
        let keepUnterminated =
            index == self.store.records.count && index > 0
            && self.store.records[index - 1].terminator == .none
        self.store.terminatePrevious(before: index)
        var records: [LineRecord] = []
        for text in texts { records.append(self.store.makeRecord(Array(text.utf8))) }
        if keepUnterminated { records[records.count - 1].terminator = .none }
        self.store.records.insert(contentsOf: records, at: index)
    }

    /// Applies several insertions at once, each given as (line index in the current playlist, lines),
    /// with one re-index: the fast path for decorating a long playlist.
    ///
    /// Lines given for the same index go in before it in the reverse of the order of the
    /// insertions (as inserting them one after the other would).
    public mutating func insertLines(_ insertions: [(index: Int, lines: [String])]) {
        let order = insertions.indices.sorted { a, b in
            insertions[a].index != insertions[b].index ? insertions[a].index < insertions[b].index : a > b
        }
        var records: [(line: Int, record: LineRecord)] = []
        for k in order {
            for text in insertions[k].lines {
                records.append((insertions[k].index, self.store.makeRecord(Array(text.utf8))))
            }
        }
        self.store.insertRecords(records)
        self.reindex()
    }

    mutating func setHeader(_ name: TagName, line: Int, value: String?) {
        let rendered = value.map { Tag(name: name, value: $0).rendered }
        switch (line >= 0, rendered) {
        case (true, let text?):
            self.replaceLine(at: line, with: text)
        case (true, nil):
            self.removeLines(at: [line])
        case (false, let text?):
            // After #EXTM3U and the header tags that exist, before the first segment.
            let insertAt = min(max(1, self.index.headerEnd), self.store.records.count)
            self.insertLines([text], at: insertAt)
        case (false, nil):
            break
        }
    }

    // MARK: - Date ranges

    /// The line where new tags for segment `position` go: before its first tag, or after the last
    /// segment (before `EXT-X-ENDLIST` and trailing parts) when `position` is the segment count.
    public func insertionLine(forSegment position: Int) -> Int {
        if position < self.index.segments.count {
            return Int(self.index.segments[position].firstLine)
        }
        if let last = self.index.segments.last {
            return Int(last.uriLine) + 1
        }
        return min(max(1, self.index.headerEnd), self.store.records.count)
    }

    /// Inserts a date range among the tags of segment `position` (or after the last segment).
    public mutating func insertDateRange(_ dateRange: DateRange, at position: Int) {
        self.insertLines([dateRange.tag.rendered], at: self.insertionLine(forSegment: position))
    }

    /// Inserts several date ranges at once.
    public mutating func insertDateRanges(_ ranges: [(dateRange: DateRange, position: Int)]) {
        self.insertDateRanges(rendered: ranges.map { (RenderedDateRange($0.dateRange), $0.position) })
    }

    /// Inserts several date ranges rendered beforehand, each among the tags of segment `position`
    /// (or after the last segment), in one pass over the lines: neither the tags nor the rest of
    /// the playlist are rendered or read again.
    ///
    /// Ranges for the same position go in in the order given. The result is the same as
    /// ``insertDateRanges(_:)`` with the ranges' `dateRange`s.
    public mutating func insertDateRanges(rendered ranges: [(dateRange: RenderedDateRange, position: Int)]) {
        guard !ranges.isEmpty else { return }
        // Where each range goes, in line order (then as given).
        var order: [(line: Int, k: Int)] = []
        order.reserveCapacity(ranges.count)
        var sorted = true
        for k in ranges.indices {
            let line = self.insertionLine(forSegment: ranges[k].position)
            if let last = order.last, last.line > line { sorted = false }
            order.append((line, k))
        }
        if !sorted { order.sort { ($0.line, $0.k) < ($1.line, $1.k) } }
        var records: [(line: Int, record: LineRecord)] = []
        records.reserveCapacity(ranges.count)
        var placed: [(line: Int, dateRange: DateRange?)] = []
        placed.reserveCapacity(ranges.count)
        for (line, k) in order {
            let rendered = ranges[k].dateRange
            var record = rendered.record
            record.terminator = self.store.preferredTerminator
            (record.start, record.end) = rendered.line.withUnsafeBufferPointer { self.store.appendEdit($0) }
            record.edited = true
            records.append((line, record))
            placed.append((line, rendered.indexed))
        }
        self.store.insertRecords(records)
        guard ranges.allSatisfy({ $0.dateRange.record.kind == .tag && $0.dateRange.record.tag == .dateRange }) else {
            self.reindex()
            return
        }
        self.index.insertDateRanges(placed)
        #if DEBUG
        var sink = DiagnosticSink(file: nil)
        assert(self.index == MediaIndex.build(self.store, sink: &sink), "the moved index differs from a rebuilt one")
        #endif
    }

    /// Replaces the `k`-th date range (in ``dateRanges`` order); only its line is re-rendered.
    public mutating func replaceDateRange(at k: Int, with dateRange: DateRange) {
        self.replaceLine(at: self.index.dateRanges[k].lineIndex, with: dateRange.tag.rendered)
    }

    /// Removes the `k`-th date range.
    public mutating func removeDateRange(at k: Int) {
        self.removeLines(at: [self.index.dateRanges[k].lineIndex])
    }

    // MARK: - Segments

    /// Sets the URI of segment `k`; only its URI line is re-rendered.
    public mutating func setURI(_ uri: String, forSegment k: Int) {
        self.replaceLine(at: Int(self.index.segments[k].uriLine), with: uri)
    }

    /// Rewrites every segment URI (and URI attributes of KEY, MAP, PART, PRELOAD-HINT and
    /// RENDITION-REPORT tags) with `transform`, re-rendering only lines that change.
    ///
    /// At most one re-index (none when only URIs changed and no segment has a byte range).
    public mutating func rewriteURIs(_ transform: (String) -> String) {
        self.rewriteURILines { line, output in
            let old = String(decoding: line, as: UTF8.self)
            output.append(contentsOf: transform(old.trimmingSpaces()).utf8)
            return true
        } tags: { uri in
            transform(uri)
        }
    }

    /// Rewrites every URI like ``rewriteURIs(_:)``, on bytes: the fast path for long playlists
    /// (no `String` is made for a segment URI, and the new URI is written where the playlist keeps
    /// it).
    ///
    /// - Parameter transform: Gets a URI's bytes (a segment URI line without the spaces and tabs
    ///   around it, or the value of a `URI` attribute without its quotes) and appends the new URI
    ///   to its second argument, which may already hold other bytes: it must only append. Returns
    ///   `false` to keep the URI as it is (what it appended is then dropped).
    public mutating func rewriteURIBytes(
        _ transform: (_ uri: UnsafeBufferPointer<UInt8>, _ output: inout [UInt8]) -> Bool
    ) {
        self.rewriteURILines { line, output in
            if let first = line.first, let last = line.last,
                first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
            {
                // Rare: trimmed as Characters, as `rewriteURIs(_:)` does (a space followed by a
                // combining mark is not a space).
                var trimmed = String(decoding: line, as: UTF8.self).trimmingSpaces()
                return trimmed.withUTF8 { transform($0, &output) }
            }
            return transform(line, &output)
        } tags: { uri in
            var uri = uri
            var output: [UInt8] = []
            return uri.withUTF8 { transform($0, &output) } ? String(decoding: output, as: UTF8.self) : uri
        }
    }

    /// The loop under both `rewriteURIs`: `line` appends the new content of a URI line to its
    /// output (returning `false` to keep the line), `tags` maps a tag's `URI` attribute value.
    ///
    /// A URI line read from the source is rewritten straight into the edit buffer: no copy.
    private mutating func rewriteURILines(
        _ line: (_ content: UnsafeBufferPointer<UInt8>, _ output: inout [UInt8]) -> Bool,
        tags: (String) -> String
    ) {
        var reindex = false
        var reserved = false
        var scratch: [UInt8] = []
        let source = self.store.source
        // Room for a small playlist's URIs at once (a large one reserves on its first URI below).
        self.store.reserveEdits(min(source.bytes.count, 1 << 16))
        for i in self.store.records.indices {
            let record = self.store.records[i]
            var newRecord: LineRecord
            switch record.kind {
            case .uri where !record.edited:
                let start = self.store.edits.count
                let changed = source.bytes.withUnsafeBufferPointer { bytes in
                    let content = UnsafeBufferPointer(rebasing: bytes[Int(record.start)..<Int(record.end)])
                    guard line(content, &self.store.edits) else { return false }
                    let written = self.store.edits.count - start
                    return written != content.count
                        || !self.store.edits.withUnsafeBufferPointer { edits in
                            UnsafeBufferPointer(rebasing: edits[start...]).elementsEqual(content)
                        }
                }
                guard changed else {
                    self.store.edits.removeSubrange(start...)
                    continue
                }
                if !reserved {
                    // The first rewritten URI tells how long the others will be, about: room for
                    // one a segment, so that the buffer does not move (and copy) as it grows.
                    reserved = true
                    let written = self.store.edits.count - start
                    self.store.reserveEdits(self.index.segments.count * (written + written / 4 + 1))
                }
                newRecord = self.store.recordForAppendedEdit(from: start, terminator: record.terminator)
            case .uri:
                scratch.removeAll(keepingCapacity: true)
                let changed = self.store.withContent(i) { content in
                    line(content, &scratch) && !(scratch.count == content.count && scratch.elementsEqual(content))
                }
                guard changed else { continue }
                newRecord = scratch.withUnsafeBufferPointer {
                    self.store.makeRecord(bytes: $0, terminator: record.terminator)
                }
            case .tag:
                switch record.tag {
                case .key, .map, .part, .preloadHint, .renditionReport, .sessionKey:
                    guard var list = self.store.attributes(i), let uri = list[.uri]?.quotedString else { continue }
                    let new = tags(uri)
                    guard new != uri else { continue }
                    list[.uri] = .quoted(new)
                    let text = Tag(name: record.tag.name, attributes: list).rendered
                    newRecord = self.store.makeRecord(Array(text.utf8), terminator: record.terminator)
                default: continue
                }
            default: continue
            }
            self.store.records[i] = newRecord
            // Lines keep their numbers: the index stays as it is unless a line changed what it
            // is, or a segment URI matters to a byte range.
            if !reindex, !self.updateIndexInPlace(line: i, old: record, new: newRecord) { reindex = true }
        }
        if reindex { self.reindex() }
    }

    /// Sets or removes segment `k`'s own `EXT-X-PROGRAM-DATE-TIME`.
    public mutating func setProgramDateTime(_ date: DateTime?, forSegment k: Int) {
        let record = self.index.segments[k]
        var existing = -1
        for line in Int(record.firstLine)..<Int(record.uriLine) where self.store.records[line].tag == .programDateTime {
            existing = line
        }
        switch (existing >= 0, date) {
        case (true, let date?): self.replaceLine(at: existing, with: Tag.programDateTime(date).rendered)
        case (true, nil): self.removeLines(at: [existing])
        case (false, let date?):
            let at = record.infLine >= 0 ? Int(record.infLine) : Int(record.uriLine)
            self.insertLines([Tag.programDateTime(date).rendered], at: at)
        case (false, nil): break
        }
    }

    /// Appends a segment at the end (before `EXT-X-ENDLIST` and trailing tags).
    ///
    /// - Parameters:
    ///   - uri: The segment URI.
    ///   - duration: The `EXTINF` duration.
    ///   - title: The `EXTINF` title.
    ///   - programDateTime: A PROGRAM-DATE-TIME to write before it.
    ///   - discontinuity: Whether to write `EXT-X-DISCONTINUITY` before it.
    ///   - places: Decimal places of the `EXTINF` duration.
    public mutating func appendSegment(
        uri: String,
        duration: MediaTime,
        title: String = "",
        programDateTime: DateTime? = nil,
        discontinuity: Bool = false,
        places: Int = 3
    ) {
        var lines: [String] = []
        if discontinuity { lines.append(Tag(name: .discontinuity).rendered) }
        if let programDateTime { lines.append(Tag.programDateTime(programDateTime).rendered) }
        lines.append(Tag.segmentInformation(duration: duration, title: title, places: places).rendered)
        lines.append(uri)
        self.insertLines(lines, at: self.index.trailingFirstLine)
    }

    /// Ensures every segment has a date: when the playlist has no PROGRAM-DATE-TIME, writes one
    /// before the first segment (and after each discontinuity) dated from `start`.
    ///
    /// Returns whether anything was added.
    @discardableResult
    public mutating func addProgramDateTimeIfMissing(startingAt start: DateTime) -> Bool {
        guard !self.index.hasProgramDateTime, !self.index.segments.isEmpty else { return false }
        var insertions: [(index: Int, lines: [String])] = []
        for (k, record) in self.index.segments.enumerated()
        where k == 0 || record.flags & SegmentRecord.discontinuityFlag != 0 {
            let date = start + MediaTime(nanoseconds: record.start)
            let at = record.infLine >= 0 ? Int(record.infLine) : Int(record.uriLine)
            insertions.append((at, [Tag.programDateTime(date).rendered]))
        }
        self.insertLines(insertions)
        return true
    }
}
