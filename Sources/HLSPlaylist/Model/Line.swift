/// The bytes a playlist was parsed from, shared by every value made from them.
///
/// Immutable after creation, so sharing it across threads is safe.
final class SourceBuffer: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static let empty = SourceBuffer([])
}

/// How a line ends.
public struct LineTerminator: Sendable, Hashable, CustomStringConvertible {
    let code: UInt8

    init(code: UInt8) {
        self.code = code
    }

    /// No terminator: the last line of a file without a final newline.
    public static let none = LineTerminator(code: 0)
    /// `\n`.
    public static let lineFeed = LineTerminator(code: 1)
    /// `\r\n`.
    public static let carriageReturnLineFeed = LineTerminator(code: 2)

    /// The terminator's bytes.
    public var bytes: [UInt8] {
        switch self.code {
        case 1: [10]
        case 2: [13, 10]
        default: []
        }
    }

    var length: Int { Int(self.code) }

    /// `none`, `LF` or `CRLF`.
    public var description: String {
        switch self.code {
        case 1: "LF"
        case 2: "CRLF"
        default: "none"
        }
    }
}

/// What a line of a playlist is (§4.1): blank, a comment, a tag, or a URI.
public enum LineKind: UInt8, Sendable, Hashable {
    /// An empty line (or one of only spaces), ignored by clients.
    case blank
    /// A line starting with `#` but not `#EXT`.
    case comment
    /// A line starting with `#EXT`.
    case tag
    /// Any other line: a URI.
    case uri
}

/// One line of a playlist as stored: where its text is and what was read from it.
struct LineRecord: Sendable, Hashable {
    var kind: LineKind
    var tag: KnownTag
    var terminator: LineTerminator
    /// Whether `value` holds a parsed payload.
    var valid: Bool
    /// Whether the line was edited or added: its content is then in `LineStore.edits`, not in the
    /// source.
    var edited: Bool
    /// Content range (without the terminator) in the source, or in `LineStore.edits` when `edited`.
    var start: Int32
    var end: Int32
    /// EXTINF: duration in ns; PROGRAM-DATE-TIME: ns since 1970; integer tags: the integer;
    /// BYTERANGE: the length (its offset, a rare tag, is read from the text when indexing:
    /// `LineParser.byteRangeOffset`), which keeps a record at 24 bytes.
    var value: Int64

    init(
        kind: LineKind,
        tag: KnownTag,
        terminator: LineTerminator,
        start: Int32,
        end: Int32,
        valid: Bool = false,
        value: Int64 = 0,
        edited: Bool = false
    ) {
        self.kind = kind
        self.tag = tag
        self.terminator = terminator
        self.start = start
        self.end = end
        self.valid = valid
        self.value = value
        self.edited = edited
    }
}

/// The lossless line store under every playlist: the source bytes and one record a line.
struct LineStore: Sendable {
    var source: SourceBuffer
    var records: [LineRecord]
    /// Content of edited and added lines, one after the other, referenced by the `start` and `end`
    /// of records that are `edited` (one buffer, not one array a line: rewriting the 43,200 URIs of
    /// a 24-hour playlist is then appends to one buffer, not 43,200 allocations).
    var edits: [UInt8] = []
    /// Whether any line contains `{` (a possible `{$variable}` reference).
    var mayReferenceVariables = false
    /// The terminator for new lines (the playlist's first).
    var preferredTerminator: LineTerminator

    init(source: SourceBuffer, records: [LineRecord], preferredTerminator: LineTerminator) {
        self.source = source
        self.records = records
        self.preferredTerminator = preferredTerminator
    }

    var count: Int { self.records.count }

    /// The content bytes of a line (without terminator).
    func withContent<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let record = self.records[index]
        let range = Int(record.start)..<Int(record.end)
        if record.edited {
            return self.edits.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        return self.source.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The content of a line as text.
    func text(_ index: Int) -> String {
        self.withContent(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// The text after `#NAME:` of a tag line, or `nil` when it has no colon.
    func tagValue(_ index: Int) -> String? {
        self.withContent(index) { b in
            guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            var end = b.count
            while end > colon + 1, b[end - 1] == UInt8(ascii: " ") || b[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: b[(colon + 1)..<end]), as: UTF8.self)
        }
    }

    /// The attribute list of an attribute tag line, or `nil` if it does not parse.
    func attributes(_ index: Int) -> AttributeList? {
        self.withContent(index) { Self.attributes(ofLine: $0) }
    }

    /// The attribute list after the colon of a tag line's content, or `nil` if it does not parse.
    static func attributes(ofLine b: UnsafeBufferPointer<UInt8>) -> AttributeList? {
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        if case .success(let list) = AttributeSyntax.parse(b, from: colon + 1, to: b.count) {
            return list
        }
        return nil
    }

    /// The line as a ``Line`` value.
    func line(_ index: Int) -> Line {
        let record = self.records[index]
        return Line(text: self.text(index), kind: record.kind, terminator: record.terminator)
    }

    /// The number of bytes ``serialized()`` returns.
    var serializedCount: Int {
        var total = 0
        for record in self.records {
            total &+= Int(record.end &- record.start) &+ record.terminator.length
        }
        return total
    }

    /// Calls `body` with the playlist's bytes in order, in as few pieces as it can: lines that
    /// follow each other in the source are one piece with their terminators.
    func forEachPiece(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let lineEnd: StaticString = "\r\n"
        let carriageReturnLineFeed = UnsafeBufferPointer(start: lineEnd.utf8Start, count: 2)
        let lineFeed = UnsafeBufferPointer(rebasing: carriageReturnLineFeed[1...])
        self.source.bytes.withUnsafeBufferPointer { src in
            self.edits.withUnsafeBufferPointer { edits in
                // The source run being gathered; empty when runStart == runEnd.
                var runStart = 0
                var runEnd = 0
                for record in self.records {
                    let start = Int(record.start)
                    let end = Int(record.end)
                    if !record.edited {
                        if start != runEnd {
                            if runEnd > runStart { body(UnsafeBufferPointer(rebasing: src[runStart..<runEnd])) }
                            runStart = start
                        }
                        runEnd = end + record.terminator.length
                        continue
                    }
                    if runEnd > runStart { body(UnsafeBufferPointer(rebasing: src[runStart..<runEnd])) }
                    runStart = 0
                    runEnd = 0
                    body(UnsafeBufferPointer(rebasing: edits[start..<end]))
                    switch record.terminator {
                    case .lineFeed: body(lineFeed)
                    case .carriageReturnLineFeed: body(carriageReturnLineFeed)
                    default: break
                    }
                }
                if runEnd > runStart { body(UnsafeBufferPointer(rebasing: src[runStart..<runEnd])) }
            }
        }
    }

    /// Every line, terminators included.
    func serialized() -> [UInt8] {
        let count = self.serializedCount
        guard count >= 1 << 16 else {
            // Small: the unsafe initializer below costs a runtime metadata lookup, more than appends.
            var out: [UInt8] = []
            out.reserveCapacity(count)
            self.forEachPiece { out.append(contentsOf: $0) }
            return out
        }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            LargeBuffer.advise(UnsafeMutableRawBufferPointer(buffer))
            var at = 0
            self.forEachPiece { piece in
                // The pieces add up to `count` (see `serializedCount`): checked, not assumed.
                precondition(piece.count <= count - at, "the pieces outgrow the serialized count")
                if let from = piece.baseAddress, let to = buffer.baseAddress {
                    (to + at).initialize(from: from, count: piece.count)
                }
                at += piece.count
            }
            initialized = at
        }
    }

    /// Appends `content` to ``edits`` and returns its range there, compacting ``edits`` first
    /// when the range would not fit the records' 32-bit offsets.
    mutating func appendEdit(_ content: UnsafeBufferPointer<UInt8>) -> (start: Int32, end: Int32) {
        if self.edits.count + content.count > Int(Int32.max) { self.compactEdits() }
        let start = self.edits.count
        precondition(start + content.count <= Int(Int32.max), "more than 2 GiB of edited lines")
        self.edits.append(contentsOf: content)
        return (Int32(start), Int32(self.edits.count))
    }

    /// Makes room in ``edits`` for `count` more bytes without moving it on the way (in storage
    /// advised for huge pages when large).
    mutating func reserveEdits(_ count: Int) {
        let needed = self.edits.count + count
        guard needed > self.edits.capacity else { return }
        var grown: [UInt8] = LargeBuffer.emptyArray(reservingCapacity: needed)
        grown.append(contentsOf: self.edits)
        self.edits = grown
    }

    /// A record for the line content appended to ``edits`` from `start` to its end (by writing
    /// into ``edits`` directly), compacting ``edits`` when it no longer fits 32-bit offsets.
    mutating func recordForAppendedEdit(from start: Int, terminator: LineTerminator) -> LineRecord {
        if self.edits.count > Int(Int32.max) {
            let content = Array(self.edits[start...])
            self.edits.removeSubrange(start...)
            return content.withUnsafeBufferPointer { self.makeRecord(bytes: $0, terminator: terminator) }
        }
        var record = self.edits.withUnsafeBufferPointer { edits in
            LineParser.record(forEdited: UnsafeBufferPointer(rebasing: edits[start...]), terminator: terminator)
        }
        record.start = Int32(start)
        record.end = Int32(self.edits.count)
        record.edited = true
        return record
    }

    /// Keeps in ``edits`` only the content that records still reference.
    mutating func compactEdits() {
        var kept: [UInt8] = []
        for k in self.records.indices where self.records[k].edited {
            let start = kept.count
            kept.append(contentsOf: self.edits[Int(self.records[k].start)..<Int(self.records[k].end)])
            self.records[k].start = Int32(start)
            self.records[k].end = Int32(kept.count)
        }
        self.edits = kept
    }

    /// A record for new line content.
    mutating func makeRecord(_ content: [UInt8], terminator: LineTerminator? = nil) -> LineRecord {
        content.withUnsafeBufferPointer { self.makeRecord(bytes: $0, terminator: terminator) }
    }

    /// A record for new line content, given as bytes.
    mutating func makeRecord(bytes content: UnsafeBufferPointer<UInt8>, terminator: LineTerminator? = nil) -> LineRecord
    {
        var record = LineParser.record(forEdited: content, terminator: terminator ?? self.preferredTerminator)
        (record.start, record.end) = self.appendEdit(content)
        record.edited = true
        return record
    }

    /// Inserts each record before line `line` (the line count: at the end), in one pass over the
    /// records: `insertions` are sorted by line (records for the same line go in in their order).
    ///
    /// The same as inserting them one line at a time from the last: records at the end after a
    /// last line without a terminator give that line one and leave their own last line without.
    mutating func insertRecords(_ insertions: [(line: Int, record: LineRecord)]) {
        guard let lastLine = insertions.last?.line else { return }
        let count = self.records.count
        precondition(insertions[0].line >= 0 && lastLine <= count, "an insertion outside the playlist")
        let unterminatedAtEnd = lastLine == count && count > 0 && self.records[count - 1].terminator == .none
        var previous = -1
        for insertion in insertions where insertion.line != previous {
            precondition(insertion.line > previous, "insertions out of order")
            self.terminatePrevious(before: insertion.line)
            previous = insertion.line
        }
        // In place, from the end: each old record moves down by the insertions at or before it
        // (one pass over the records after the first insertion, no second array).
        self.records.append(contentsOf: repeatElement(insertions[0].record, count: insertions.count))
        self.records.withUnsafeMutableBufferPointer { records in
            var to = records.count
            var from = count
            for insertion in insertions.reversed() {
                while from > insertion.line {
                    from -= 1
                    to -= 1
                    records[to] = records[from]
                }
                to -= 1
                records[to] = insertion.record
            }
        }
        if unterminatedAtEnd { self.records[self.records.count - 1].terminator = .none }
    }

    /// Ensures the line before `index` ends with a terminator (when inserting after a last line without one).
    mutating func terminatePrevious(before index: Int) {
        guard index > 0, index - 1 < self.records.count else { return }
        let record = self.records[index - 1]
        guard record.terminator == .none else { return }
        if !record.edited {
            // The source has no terminator after this line: keep its content as an edit.
            let content = self.withContent(index - 1) { Array($0) }
            let range = content.withUnsafeBufferPointer { self.appendEdit($0) }
            self.records[index - 1].edited = true
            (self.records[index - 1].start, self.records[index - 1].end) = range
        }
        self.records[index - 1].terminator = self.preferredTerminator
    }
}

/// One line of a playlist: its text, what kind of line it is, and how it ends.
public struct Line: Sendable, Hashable, CustomStringConvertible {
    /// The line's text without its terminator.
    public var text: String
    /// What kind of line it is.
    public var kind: LineKind
    /// How it ends.
    public var terminator: LineTerminator

    /// Creates a line; the kind is worked out from the text.
    public init(_ text: String, terminator: LineTerminator = .lineFeed) {
        self.text = text
        self.terminator = terminator
        var bytes = Array(text.utf8)
        self.kind = bytes.withUnsafeMutableBufferPointer { b in
            LineParser.classify(UnsafeBufferPointer(b), 0, b.count)
        }
    }

    init(text: String, kind: LineKind, terminator: LineTerminator) {
        self.text = text
        self.kind = kind
        self.terminator = terminator
    }

    /// The tag on this line, or `nil` for blank, comment and URI lines.
    public var tag: Tag? {
        guard self.kind == .tag else { return nil }
        return Tag(line: self.text)
    }

    /// The text.
    public var description: String { self.text }
}
