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
    /// Content range in the source (without the terminator); unused when `edit` is set.
    var start: Int32
    var end: Int32
    /// For a line that was edited or added: the index of its content in `LineStore.edits`; else -1.
    /// (Declared before the 64-bit field so a record packs into 24 bytes.)
    var edit: Int32
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
        edit: Int32 = -1
    ) {
        self.kind = kind
        self.tag = tag
        self.terminator = terminator
        self.start = start
        self.end = end
        self.valid = valid
        self.value = value
        self.edit = edit
    }
}

/// The lossless line store under every playlist: the source bytes and one record a line.
struct LineStore: Sendable {
    var source: SourceBuffer
    var records: [LineRecord]
    /// Content of edited and added lines, referenced by `LineRecord.edit`.
    var edits: [[UInt8]] = []
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
        if record.edit >= 0 {
            return self.edits[Int(record.edit)].withUnsafeBufferPointer(body)
        }
        return self.source.bytes.withUnsafeBufferPointer { b in
            body(UnsafeBufferPointer(rebasing: b[Int(record.start)..<Int(record.end)]))
        }
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
        self.withContent(index) { b in
            guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            if case .success(let list) = AttributeSyntax.parse(b, from: colon + 1, to: b.count) {
                return list
            }
            return nil
        }
    }

    /// The line as a ``Line`` value.
    func line(_ index: Int) -> Line {
        let record = self.records[index]
        return Line(text: self.text(index), kind: record.kind, terminator: record.terminator)
    }

    /// Appends every line, terminators included, to `out`.
    func serialize(into out: inout [UInt8]) {
        self.source.bytes.withUnsafeBufferPointer { src in
            var runStart = -1
            var runEnd = -1
            func flush() {
                if runStart >= 0 {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<runEnd]))
                    runStart = -1
                }
            }
            for record in self.records {
                if record.edit >= 0 {
                    flush()
                    out.append(contentsOf: self.edits[Int(record.edit)])
                    out.append(contentsOf: record.terminator.bytes)
                    continue
                }
                let start = Int(record.start)
                let end = Int(record.end) + record.terminator.length
                if runStart >= 0, start == runEnd {
                    runEnd = end
                } else {
                    flush()
                    runStart = start
                    runEnd = end
                }
            }
            flush()
        }
    }

    /// Every line, terminators included.
    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(self.source.bytes.count + 256)
        self.serialize(into: &out)
        return out
    }

    /// A record for new line content.
    mutating func makeRecord(_ content: [UInt8], terminator: LineTerminator? = nil) -> LineRecord {
        var record = LineParser.record(forEdited: content, terminator: terminator ?? self.preferredTerminator)
        record.edit = Int32(self.edits.count)
        self.edits.append(content)
        return record
    }

    /// Ensures the line before `index` ends with a terminator (when inserting after a last line without one).
    mutating func terminatePrevious(before index: Int) {
        guard index > 0, index - 1 < self.records.count else { return }
        let record = self.records[index - 1]
        guard record.terminator == .none else { return }
        if record.edit < 0 {
            // The source has no terminator after this line: keep its content as an edit.
            let content = self.withContent(index - 1) { Array($0) }
            self.records[index - 1].edit = Int32(self.edits.count)
            self.edits.append(content)
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
