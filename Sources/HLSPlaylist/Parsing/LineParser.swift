/// Collects diagnostics and remembers the first error (a strict parse keeps the diagnostics up to
/// the first error in line order: see `PlaylistParser.parse`).
struct DiagnosticSink {
    var items: [PlaylistDiagnostic] = []
    let file: String?
    var firstError: PlaylistDiagnostic?

    init(file: String?) {
        self.file = file
    }

    mutating func report(
        _ severity: Severity,
        _ rule: RuleID,
        line: Int,
        column: Int,
        _ message: String,
        hint: String
    ) {
        let diagnostic = PlaylistDiagnostic(
            severity: severity,
            rule: rule,
            message: message,
            hint: hint,
            location: SourceLocation(file: self.file, line: line + 1, column: column + 1)
        )
        if severity == .error, self.firstError == nil {
            self.firstError = diagnostic
        }
        self.items.append(diagnostic)
    }
}

/// The first pass: splits bytes into classified lines and reads the scalar payload of hot tags.
enum LineParser {
    /// What a line is, from its content bytes.
    static func classify(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> LineKind {
        if start == end { return .blank }
        let first = b[start]
        if first == UInt8(ascii: "#") {
            if end - start >= 4, b[start + 1] == UInt8(ascii: "E"), b[start + 2] == UInt8(ascii: "X"),
                b[start + 3] == UInt8(ascii: "T")
            {
                return .tag
            }
            return .comment
        }
        var i = start
        while i < end, b[i] == UInt8(ascii: " ") || b[i] == UInt8(ascii: "\t") { i += 1 }
        return i == end ? .blank : .uri
    }

    /// A record for an edited or new line (its `start` and `end` are within `content`).
    static func record(forEdited content: UnsafeBufferPointer<UInt8>, terminator: LineTerminator) -> LineRecord {
        if let first = content.first, let last = content.last, first != UInt8(ascii: "#"), first != UInt8(ascii: " "),
            first != UInt8(ascii: "\t"), last != UInt8(ascii: " "), last != UInt8(ascii: "\t")
        {
            // A URI without spaces around it (what rewriting URIs writes): what `parseLine` gives,
            // without its set-up.
            return LineRecord(
                kind: .uri,
                tag: .unknown,
                terminator: terminator,
                start: 0,
                end: Int32(truncatingIfNeeded: content.count)
            )
        }
        var sink = DiagnosticSink(file: nil)
        var dates = DateTime.DayCache()
        return self.parseLine(
            content,
            start: 0,
            end: content.count,
            terminator: terminator,
            lineNumber: 0,
            sink: &sink,
            dates: &dates
        )
    }

    /// Parses every line of `bytes`.
    static func parse(_ bytes: [UInt8], sink: inout DiagnosticSink) -> LineStore {
        // Lines average 25–40 bytes; reserving for one per 12 bytes avoids regrowing (and copying)
        // the array, and the reserved pages that stay unused are never touched. A large array is
        // asked for in huge pages (see `LargeBuffer`).
        var records: [LineRecord] = LargeBuffer.emptyArray(reservingCapacity: bytes.count / 12 + 4)
        var preferred = LineTerminator.lineFeed
        var sawBrace = false
        bytes.withUnsafeBufferPointer { b in
            let n = b.count
            var i = 0
            var lineNumber = 0
            var dates = DateTime.DayCache()
            // `{` anywhere means a line may reference a variable; one vectorisable pass decides.
            sawBrace = firstIndex(of: UInt8(ascii: "{"), in: b, from: 0) < n
            while i < n {
                let start = i
                let j = firstIndex(of: 10, in: b, from: i)
                var end = j
                let terminator: LineTerminator
                if j < n {
                    if end > start, b[end - 1] == 13 {
                        end -= 1
                        terminator = .carriageReturnLineFeed
                    } else {
                        terminator = .lineFeed
                    }
                    i = j + 1
                } else {
                    terminator = .none
                    i = n
                }
                if lineNumber == 0, terminator != .none { preferred = terminator }
                let record = parseLine(
                    b,
                    start: start,
                    end: end,
                    terminator: terminator,
                    lineNumber: lineNumber,
                    sink: &sink,
                    dates: &dates
                )
                records.append(record)
                lineNumber += 1
            }
        }
        var store = LineStore(source: SourceBuffer(bytes), records: records, preferredTerminator: preferred)
        store.mayReferenceVariables = sawBrace
        return store
    }

    /// The index of the first `byte` at or after `from`, or `b.count`: eight bytes per step (SWAR:
    /// a zero byte in `word ^ byte…byte` marks a match; the lowest flagged byte is exact).
    @inline(__always)
    static func firstIndex(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        let n = b.count
        guard let base = b.baseAddress.map(UnsafeRawPointer.init) else { return n }
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        var j = from
        while j + 8 <= n {
            // Little-endian order: the byte at the lowest address is the lowest in the word.
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self)) ^ pattern
            let found = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if found != 0 {
                return j + (found.trailingZeroBitCount >> 3)
            }
            j += 8
        }
        while j < n, b[j] != byte { j += 1 }
        return j
    }

    /// The offset of a valid `#EXT-X-BYTERANGE:<length>[@<offset>]` line, or -1 without one.
    static func byteRangeOffset(_ line: UnsafeBufferPointer<UInt8>) -> Int64 {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return -1 }
        var end = line.count
        while end > colon + 1, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        guard let at = line[(colon + 1)..<end].firstIndex(of: UInt8(ascii: "@")) else { return -1 }
        return parseUnsigned(line, at + 1, end) ?? -1
    }

    /// A decimal-integer in `0...PlaylistParser.maximumInteger`, or `nil` (not digits, or too large).
    static func parseUnsigned(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int64? {
        readUnsigned(b, start, end).value
    }

    /// Reads a decimal-integer with checked arithmetic: its value when it is digits only and at most
    /// ``PlaylistParser/maximumInteger``; `outOfRange` when it is digits only but larger.
    static func readUnsigned(
        _ b: UnsafeBufferPointer<UInt8>,
        _ start: Int,
        _ end: Int
    ) -> (value: Int64?, outOfRange: Bool) {
        guard start < end else { return (nil, false) }
        var value: Int64 = 0
        var tooLarge = false
        var i = start
        while i < end {
            let d = b[i] &- 48
            if d > 9 { return (nil, false) }
            if !tooLarge {
                // Checked before multiplying: value * 10 + d stays at most maximumInteger.
                if value > (PlaylistParser.maximumInteger - Int64(d)) / 10 {
                    tooLarge = true
                } else {
                    value = value * 10 + Int64(d)
                }
            }
            i += 1
        }
        return tooLarge ? (nil, true) : (value, false)
    }

    static func reportRange(
        _ sink: inout DiagnosticSink,
        line: Int,
        column: Int,
        _ what: String,
        limit: String,
        hint: String
    ) {
        sink.report(
            .error,
            .numberRange,
            line: line,
            column: column,
            "\(what) is out of range (\(limit)); the line is kept but its value is not used",
            hint: hint
        )
    }

    // swift-format-ignore
    static func parseLine(
        _ b: UnsafeBufferPointer<UInt8>,
        start: Int,
        end: Int,
        terminator: LineTerminator,
        lineNumber: Int,
        sink: inout DiagnosticSink,
        dates: inout DateTime.DayCache
    ) -> LineRecord {
        let kind = classify(b, start, end)
        var record = LineRecord(
            kind: kind,
            tag: .unknown,
            terminator: terminator,
            start: Int32(truncatingIfNeeded: start),
            end: Int32(truncatingIfNeeded: end)
        )
        switch kind {
        case .blank, .comment:
            return record
        case .uri:
            if b[start] == UInt8(ascii: " ") || b[start] == UInt8(ascii: "\t") || b[end - 1] == UInt8(ascii: " ")
                || b[end - 1] == UInt8(ascii: "\t")
            {
                sink.report(.warning, .whitespace, line: lineNumber, column: 0,
                    "the URI line has leading or trailing whitespace",
                    hint: "remove the spaces; clients may request the URI with them")
            }
            return record
        case .tag:
            break
        }
        // Tag name: after '#', up to ':' or the end.
        var colon = start + 1
        while colon < end, b[colon] != UInt8(ascii: ":") { colon &+= 1 }
        var nameEnd = colon
        if colon == end {
            while nameEnd > start + 1, b[nameEnd - 1] == UInt8(ascii: " ") || b[nameEnd - 1] == UInt8(ascii: "\t") {
                nameEnd -= 1
            }
            if nameEnd != end {
                sink.report(.warning, .whitespace, line: lineNumber, column: nameEnd - start,
                    "trailing whitespace after the tag",
                    hint: "remove the spaces at the end of the line")
            }
        }
        let tag = KnownTag.match(b, start + 1, nameEnd)
        record.tag = tag
        if tag == .unknown { return record }
        let valueStart = colon + 1
        var valueEnd = end
        let form = tag.valueForm
        if form != .attributes, form != .segmentInformation {
            while valueEnd > valueStart, b[valueEnd - 1] == UInt8(ascii: " ") || b[valueEnd - 1] == UInt8(ascii: "\t") {
                valueEnd -= 1
            }
            if valueEnd != end, colon < end {
                sink.report(.warning, .whitespace, line: lineNumber, column: valueEnd - start,
                    "trailing whitespace after the tag value",
                    hint: "remove the spaces at the end of the line")
            }
        }
        let column = valueStart - start
        let name = tag.name.rawValue
        switch form {
        case .none:
            record.valid = true
        case .integer:
            let reading = colon < end ? readUnsigned(b, valueStart, valueEnd) : (value: nil, outOfRange: false)
            if let value = reading.value {
                record.valid = true
                record.value = value
            } else if reading.outOfRange {
                reportRange(&sink, line: lineNumber, column: column, "the value of #\(name)",
                    limit: "at most \(PlaylistParser.maximumInteger)",
                    hint: "write a whole number of at most 18 digits")
            } else {
                sink.report(.error, .tagValue, line: lineNumber, column: column,
                    "#\(name) needs a decimal-integer value",
                    hint: "write a whole number, e.g. #\(name):6")
            }
        case .enumerated:
            let text = colon < end ? String(decoding: UnsafeBufferPointer(rebasing: b[valueStart..<valueEnd]), as: UTF8.self) : ""
            if text == "EVENT" || text == "VOD" {
                record.valid = true
                record.value = text == "VOD" ? 1 : 0
            } else {
                sink.report(.error, .tagValue, line: lineNumber, column: column,
                    "#EXT-X-PLAYLIST-TYPE must be EVENT or VOD, not '\(text)'",
                    hint: "write #EXT-X-PLAYLIST-TYPE:VOD or #EXT-X-PLAYLIST-TYPE:EVENT, or remove the tag")
            }
        case .segmentInformation:
            var comma = valueStart
            while comma < end, b[comma] != UInt8(ascii: ",") { comma &+= 1 }
            var durationEnd = comma
            if comma == end {
                while durationEnd > valueStart, b[durationEnd - 1] == UInt8(ascii: " ") { durationEnd -= 1 }
            }
            let reading: MediaTime.DecimalReading =
                colon < end ? MediaTime.readDecimal(b, from: valueStart, to: durationEnd, allowSign: false) : .notANumber
            if case .outOfRange = reading {
                reportRange(&sink, line: lineNumber, column: column, "the #EXTINF duration",
                    limit: "at most \(MediaTime.maximum) s",
                    hint: "write the segment's real duration in seconds, e.g. #EXTINF:6.006,")
            } else if case .time(let duration) = reading {
                record.valid = true
                record.value = duration.nanoseconds
                if comma == end {
                    sink.report(.warning, .tagValue, line: lineNumber, column: durationEnd - start,
                        "#EXTINF has no comma after the duration",
                        hint: "write #EXTINF:<duration>, with the comma even when there is no title")
                }
            } else {
                sink.report(.error, .tagValue, line: lineNumber, column: column,
                    "#EXTINF needs a duration in seconds",
                    hint: "write #EXTINF:<duration>,[<title>], e.g. #EXTINF:6.006,")
            }
        case .byteRange:
            var at = valueStart
            while at < valueEnd, b[at] != UInt8(ascii: "@") { at &+= 1 }
            let length = colon < end ? readUnsigned(b, valueStart, at) : (value: nil, outOfRange: false)
            let offset = at < valueEnd ? readUnsigned(b, at + 1, valueEnd) : (value: nil, outOfRange: false)
            if let value = length.value, at == valueEnd || offset.value != nil {
                record.valid = true
                record.value = value
            }
            if !record.valid, length.outOfRange || offset.outOfRange, length.value != nil || length.outOfRange,
                at == valueEnd || offset.value != nil || offset.outOfRange
            {
                reportRange(&sink, line: lineNumber, column: column, "the #EXT-X-BYTERANGE length or offset",
                    limit: "at most \(PlaylistParser.maximumInteger)",
                    hint: "write byte counts of at most 18 digits")
            } else if !record.valid {
                sink.report(.error, .tagValue, line: lineNumber, column: column,
                    "#EXT-X-BYTERANGE needs <length>[@<offset>]",
                    hint: "write e.g. #EXT-X-BYTERANGE:75232@0")
            }
        case .date:
            var outOfRange = false
            if colon < end,
                let date = DateTime.parse(b, from: valueStart, to: valueEnd, cache: &dates, outOfRange: &outOfRange)
            {
                record.valid = true
                record.value = date.nanosecondsSince1970
            } else if outOfRange {
                reportRange(&sink, line: lineNumber, column: column, "the #EXT-X-PROGRAM-DATE-TIME date",
                    limit: "\(DateTime.minimum.iso8601) to \(DateTime.maximum.iso8601)",
                    hint: "write the real date of the segment's first sample")
            } else {
                sink.report(.error, .tagValue, line: lineNumber, column: column,
                    "#EXT-X-PROGRAM-DATE-TIME needs an ISO-8601 date",
                    hint: "write e.g. #EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z")
            }
        case .attributes:
            guard colon < end else {
                sink.report(.error, .attributeSyntax, line: lineNumber, column: end - start,
                    "#\(name) needs an attribute list",
                    hint: "write #\(name):NAME=VALUE,…")
                return record
            }
            if let problem = AttributeSyntax.validate(b, from: valueStart, to: end) {
                let rule: RuleID = problem.code == .duplicateAttribute ? .duplicateAttribute : .attributeSyntax
                sink.report(.error, rule, line: lineNumber, column: column + problem.offset,
                    "#\(name): \(problem.message)", hint: problem.hint)
                return record
            }
            record.valid = true
            checkAttributes(tag, b, valueStart, end, lineNumber: lineNumber, lineStart: start, sink: &sink)
        }
        return record
    }

    /// How a numeric attribute is read, for range checks.
    enum NumericKind {
        case integer, decimal, signedDecimal, resolution, date
    }

    /// Attributes whose values are numbers or dates (§4.4), by name.
    static let numericAttributes: [(name: [UInt8], kind: NumericKind)] =
        ([
            (.bandwidth, .integer), (.averageBandwidth, .integer), (.skippedSegments, .integer),
            (.byteRangeStart, .integer), (.byteRangeLength, .integer), (.skipControlOffset, .integer),
            (.skipControlDuration, .integer), (.duration, .decimal), (.plannedDuration, .decimal),
            (.partTarget, .decimal), (.canSkipUntil, .decimal), (.holdBack, .decimal),
            (.partHoldBack, .decimal), (.playoutLimit, .decimal), (.frameRate, .decimal),
            (.score, .decimal), (.timeOffset, .signedDecimal), (.resumeOffset, .signedDecimal),
            (.resolution, .resolution), (.startDate, .date), (.endDate, .date),
        ] as [(AttributeName, NumericKind)]).map { (name: Array($0.0.rawValue.utf8), kind: $0.1) }

    /// Reports a numeric attribute whose value is well formed but out of range (`HLS-NUMBER-RANGE`).
    static func checkRange(
        _ b: UnsafeBufferPointer<UInt8>,
        _ ns: Int,
        _ ne: Int,
        _ vs: Int,
        _ ve: Int,
        lineNumber: Int,
        lineStart: Int,
        sink: inout DiagnosticSink
    ) {
        let length = ne - ns
        var kind: NumericKind?
        for entry in numericAttributes where entry.name.count == length {
            var same = true
            for k in 0..<length where b[ns + k] != entry.name[k] {
                same = false
                break
            }
            if same {
                kind = entry.kind
                break
            }
        }
        guard let kind else { return }
        let limit: String
        switch kind {
        case .integer:
            guard readUnsigned(b, vs, ve).outOfRange else { return }
            limit = "at most \(PlaylistParser.maximumInteger)"
        case .decimal, .signedDecimal:
            guard case .outOfRange = MediaTime.readDecimal(b, from: vs, to: ve, allowSign: kind == .signedDecimal)
            else { return }
            limit = "at most \(MediaTime.maximum) in magnitude"
        case .resolution:
            var x = vs
            while x < ve, b[x] != UInt8(ascii: "x") { x += 1 }
            guard x < ve else { return }
            let width = readUnsigned(b, vs, x)
            let height = readUnsigned(b, x + 1, ve)
            guard width.value != nil || width.outOfRange, height.value != nil || height.outOfRange,
                width.outOfRange || height.outOfRange
            else { return }
            limit = "each side at most \(PlaylistParser.maximumInteger)"
        case .date:
            guard ve - vs >= 2, b[vs] == UInt8(ascii: "\""), b[ve - 1] == UInt8(ascii: "\""),
                DateTime.isOutOfRange(b, from: vs + 1, to: ve - 1)
            else { return }
            limit = "\(DateTime.minimum.iso8601) to \(DateTime.maximum.iso8601)"
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: b[ns..<ne]), as: UTF8.self)
        reportRange(
            &sink,
            line: lineNumber,
            column: vs - lineStart,
            "the value of \(name)",
            limit: limit,
            hint: "write a value within the range; clients cannot use this one"
        )
    }

    /// Checks required attributes and tolerated oddities of a well-formed attribute list.
    static func checkAttributes(
        _ tag: KnownTag,
        _ b: UnsafeBufferPointer<UInt8>,
        _ start: Int,
        _ end: Int,
        lineNumber: Int,
        lineStart: Int,
        sink: inout DiagnosticSink
    ) {
        let required = tag.requiredAttributes
        var found = 0
        var hasDefineForm = false
        var warnedLowercase = false
        var warnedSpace = false
        _ = AttributeSyntax.scan(b, from: start, to: end) { ns, ne, vs, ve in
            if !warnedSpace, ns > start, b[ns - 1] == UInt8(ascii: " ") {
                warnedSpace = true
                sink.report(
                    .warning,
                    .whitespace,
                    line: lineNumber,
                    column: ns - lineStart - 1,
                    "whitespace inside the attribute list",
                    hint: "remove the space; attribute lists have no whitespace"
                )
            }
            if !warnedLowercase {
                for k in ns..<ne where b[k] >= UInt8(ascii: "a") && b[k] <= UInt8(ascii: "z") {
                    warnedLowercase = true
                    sink.report(
                        .warning,
                        .attributeSyntax,
                        line: lineNumber,
                        column: ns - lineStart,
                        "attribute names are upper-case",
                        hint: "write the name in upper case; clients compare names byte for byte"
                    )
                    break
                }
            }
            checkRange(b, ns, ne, vs, ve, lineNumber: lineNumber, lineStart: lineStart, sink: &sink)
            let length = ne - ns
            for (r, name) in required.enumerated() where name.rawValue.utf8.count == length {
                var same = true
                var k = 0
                for c in name.rawValue.utf8 {
                    if b[ns + k] != c {
                        same = false
                        break
                    }
                    k += 1
                }
                if same { found |= 1 << r }
            }
            if tag == .define {
                let name = String(decoding: UnsafeBufferPointer(rebasing: b[ns..<ne]), as: UTF8.self)
                if name == AttributeName.name.rawValue || name == AttributeName.import.rawValue
                    || name == AttributeName.queryParameter.rawValue
                {
                    hasDefineForm = true
                }
            }
        }
        for (r, name) in required.enumerated() where found & (1 << r) == 0 {
            sink.report(
                .error,
                .missingAttribute,
                line: lineNumber,
                column: start - lineStart,
                "#\(tag.name.rawValue) is missing the required \(name) attribute",
                hint: "add \(name)=… to the tag"
            )
        }
        if tag == .define, !hasDefineForm {
            sink.report(
                .error,
                .missingAttribute,
                line: lineNumber,
                column: start - lineStart,
                "#EXT-X-DEFINE needs NAME, IMPORT or QUERYPARAM",
                hint: "write NAME=\"x\",VALUE=\"…\", IMPORT=\"x\" or QUERYPARAM=\"x\""
            )
        }
    }
}
