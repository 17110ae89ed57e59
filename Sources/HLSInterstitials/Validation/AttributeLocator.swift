import HLSPlaylist

/// Finds where attributes stand on a tag line, for diagnostic columns.
struct AttributeLocator {
    /// 1-based byte column of each attribute name (first occurrence), by name.
    private(set) var columns: [String: Int] = [:]

    /// Scans `#TAG:NAME=VALUE,…`, honouring quoted values.
    init(line: String) {
        let b = Array(line.utf8)
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return }
        var i = colon + 1
        while i < b.count {
            while i < b.count, b[i] == UInt8(ascii: " ") { i += 1 }
            let nameStart = i
            while i < b.count, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ",") { i += 1 }
            let name = String(decoding: b[nameStart..<i], as: UTF8.self)
            if !name.isEmpty, self.columns[name] == nil { self.columns[name] = nameStart + 1 }
            if i < b.count, b[i] == UInt8(ascii: "=") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "\"") {
                    i += 1
                    while i < b.count, b[i] != UInt8(ascii: "\"") { i += 1 }
                    i += 1
                }
                while i < b.count, b[i] != UInt8(ascii: ",") { i += 1 }
            }
            i += 1  // the comma
        }
    }

    /// The column of `name`, or 1 (the tag) when absent.
    func column(of name: String?) -> Int {
        guard let name else { return 1 }
        return self.columns[name] ?? 1
    }
}

extension MediaPlaylist {
    /// The location of a date range's tag, or of one of its attributes.
    func location(of placed: PlacedDateRange, attribute: String? = nil, file: String?) -> SourceLocation {
        let column: Int
        if let attribute, placed.lineIndex >= 0, placed.lineIndex < self.lines.count {
            column = AttributeLocator(line: self.lines[placed.lineIndex].text).column(of: attribute)
        } else {
            column = 1
        }
        return SourceLocation(file: file, line: placed.lineIndex + 1, column: column)
    }
}
