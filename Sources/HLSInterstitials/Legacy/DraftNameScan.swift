/// Byte-level scans that find draft names where they stand, for the fixer and for diagnostic
/// locations.
///
/// Nothing is decoded: offsets point into the input as given.
enum DraftNameScan {
    /// One `NAME=VALUE` of a tag line, as byte offsets into the whole input.
    struct Attribute {
        var name: String
        var nameRange: Range<Int>
        var valueRange: Range<Int>

        /// The value's bytes without surrounding quotes, when it is quoted.
        func quotedContents(in b: [UInt8]) -> Range<Int>? {
            guard self.valueRange.count >= 2, b[self.valueRange.lowerBound] == UInt8(ascii: "\""),
                b[self.valueRange.upperBound - 1] == UInt8(ascii: "\"")
            else { return nil }
            return (self.valueRange.lowerBound + 1)..<(self.valueRange.upperBound - 1)
        }
    }

    /// One line of the input, without its line end.
    struct Line {
        var number: Int
        var range: Range<Int>
    }

    static let dateRangePrefix = Array("#EXT-X-DATERANGE:".utf8)

    /// The lines of `b` (LF or CRLF ends), numbered from 1.
    static func lines(_ b: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var number = 1
        for i in b.indices where b[i] == UInt8(ascii: "\n") {
            let end = i > start && b[i - 1] == UInt8(ascii: "\r") ? i - 1 : i
            lines.append(Line(number: number, range: start..<end))
            number += 1
            start = i + 1
        }
        if start < b.count { lines.append(Line(number: number, range: start..<b.count)) }
        return lines
    }

    /// Whether the line is an `EXT-X-DATERANGE` tag.
    static func isDateRange(_ line: Line, in b: [UInt8]) -> Bool {
        line.range.count >= dateRangePrefix.count
            && b[line.range.lowerBound..<(line.range.lowerBound + dateRangePrefix.count)].elementsEqual(dateRangePrefix)
    }

    /// The attributes of a tag line, honouring quoted values.
    static func attributes(of line: Line, in b: [UInt8]) -> [Attribute] {
        guard let colon = b[line.range].firstIndex(of: UInt8(ascii: ":")) else { return [] }
        var result: [Attribute] = []
        var i = colon + 1
        let end = line.range.upperBound
        while i < end {
            let nameStart = i
            while i < end, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ",") { i += 1 }
            let nameRange = nameStart..<i
            var valueRange = i..<i
            if i < end, b[i] == UInt8(ascii: "=") {
                i += 1
                let valueStart = i
                if i < end, b[i] == UInt8(ascii: "\"") {
                    i += 1
                    while i < end, b[i] != UInt8(ascii: "\"") { i += 1 }
                    if i < end { i += 1 }
                }
                while i < end, b[i] != UInt8(ascii: ",") { i += 1 }
                valueRange = valueStart..<i
            }
            if !nameRange.isEmpty {
                result.append(
                    Attribute(
                        name: String(decoding: b[nameRange], as: UTF8.self),
                        nameRange: nameRange,
                        valueRange: valueRange
                    )
                )
            }
            i += 1
        }
        return result
    }

    /// The byte ranges of the comma-separated members of a quoted list's contents.
    static func members(_ contents: Range<Int>, in b: [UInt8]) -> [(String, Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var start = contents.lowerBound
        for i in contents.lowerBound...contents.upperBound where i == contents.upperBound || b[i] == UInt8(ascii: ",") {
            result.append((String(decoding: b[start..<i], as: UTF8.self), start..<i))
            start = i + 1
        }
        return result
    }

    // MARK: - JSON

    /// A key of a JSON object.
    struct JSONKey {
        /// Which object holds it (in order of their opening braces).
        var object: Int
        /// The key whose value that object is, or `nil` (top level, array element).
        var container: String?
        /// The key as written (escapes not decoded).
        var name: String
        /// The key's bytes between its quotes.
        var range: Range<Int>
    }

    /// Every object key of a JSON text, in order.
    ///
    /// Malformed JSON is scanned as far as it goes.
    static func jsonKeys(_ b: [UInt8]) -> [JSONKey] {
        struct Level {
            var object: Int?
            var container: String?
        }
        var keys: [JSONKey] = []
        var stack: [Level] = []
        var objects = 0
        var lastKey: String?
        var i = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""):
                let start = i + 1
                var j = start
                while j < b.count, b[j] != UInt8(ascii: "\"") { j += b[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let range = start..<min(j, b.count)
                i = j + 1
                var k = i
                while k < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[k]) { k += 1 }
                if k < b.count, b[k] == UInt8(ascii: ":"), let top = stack.last, let object = top.object {
                    let name = String(decoding: b[range], as: UTF8.self)
                    keys.append(JSONKey(object: object, container: top.container, name: name, range: range))
                    lastKey = name
                    i = k + 1
                } else {
                    lastKey = nil
                }
                continue
            case UInt8(ascii: "{"):
                let container = stack.last?.object != nil ? lastKey : nil
                stack.append(Level(object: objects, container: container))
                objects += 1
                lastKey = nil
            case UInt8(ascii: "["):
                stack.append(Level(object: nil, container: nil))
                lastKey = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                lastKey = nil
            case UInt8(ascii: ","):
                lastKey = nil
            default:
                break
            }
            i += 1
        }
        return keys
    }

    /// The 1-based line and byte column of an offset.
    static func lineAndColumn(of offset: Int, in b: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, b.count) where b[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }
}
