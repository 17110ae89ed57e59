/// Where the values of `EXT-X-DEFINE` variables come from (§4.4.2.3).
public struct VariableContext: Sendable, Hashable {
    /// Values for `IMPORT="name"`: the variables the multivariant playlist defined.
    public var imports: [String: String]
    /// Values for `QUERYPARAM="name"`: the query parameters of the playlist's URI.
    public var queryParameters: [String: String]

    /// Creates a context.
    public init(imports: [String: String] = [:], queryParameters: [String: String] = [:]) {
        self.imports = imports
        self.queryParameters = queryParameters
    }

    /// A context whose query parameters are read from a URI (`a=1&b=x%20y`, percent-decoded).
    public init(imports: [String: String] = [:], playlistURI: String) {
        self.imports = imports
        self.queryParameters = VariableContext.queryItems(of: playlistURI)
    }

    static func queryItems(of uri: String) -> [String: String] {
        guard let q = uri.firstIndex(of: "?") else { return [:] }
        var query = uri[uri.index(after: q)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(parts[0]))
            let value = parts.count > 1 ? percentDecode(String(parts[1])) : ""
            if items[name] == nil { items[name] = value }
        }
        return items
    }

    static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let c = input.first {
            input = input.dropFirst()
            if c == UInt8(ascii: "%"), input.count >= 2,
                let h = hexValue(input[input.startIndex]), let l = hexValue(input[input.startIndex + 1])
            {
                bytes.append(h << 4 | l)
                input = input.dropFirst(2)
            } else if c == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces every `{$name}` reference in `text` whose name has a value (§4.4.2.3).
    ///
    /// - Returns: The text after substitution, and the references left as written because `values`
    ///   has no entry for them, with their UTF-8 offsets in `text`.
    public static func substitute(
        in text: String,
        values: [String: String]
    ) -> (text: String, unresolved: [(name: String, offset: Int)]) {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var unresolved: [(name: String, offset: Int)] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "$") {
                var j = i + 2
                while j < bytes.count, VariableSubstitution.isNameByte(bytes[j]) { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "}"), j > i + 2 {
                    let name = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                    if let value = values[name] {
                        out.append(contentsOf: value.utf8)
                    } else {
                        unresolved.append((name, i))
                        out.append(contentsOf: bytes[i...j])
                    }
                    i = j + 1
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return (String(decoding: out, as: UTF8.self), unresolved)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - 55
        default: nil
        }
    }
}

/// Variable definition and substitution over a line store.
enum VariableSubstitution {
    /// Reads the definitions; reports undefined imports/query parameters and duplicates.
    static func definitions(
        _ store: LineStore,
        context: VariableContext,
        sink: inout DiagnosticSink
    ) -> [String: String] {
        var values: [String: String] = [:]
        for i in store.records.indices where store.records[i].kind == .tag && store.records[i].tag == .define {
            guard let list = store.attributes(i) else { continue }
            var name: String?
            var value: String?
            if let n = list[.name]?.quotedString {
                name = n
                value = list[.value]?.quotedString
                if value == nil {
                    sink.report(
                        .error,
                        .variable,
                        line: i,
                        column: 0,
                        "EXT-X-DEFINE NAME=\"\(n)\" has no VALUE",
                        hint: "add VALUE=\"…\""
                    )
                }
            } else if let n = list[.`import`]?.quotedString {
                name = n
                value = context.imports[n]
                if value == nil {
                    sink.report(
                        .error,
                        .variable,
                        line: i,
                        column: 0,
                        "IMPORT=\"\(n)\" names a variable the multivariant playlist does not define",
                        hint: "define \(n) in the multivariant playlist, or use NAME/VALUE here"
                    )
                }
            } else if let n = list[.queryParameter]?.quotedString {
                name = n
                value = context.queryParameters[n]
                if value == nil {
                    sink.report(
                        .error,
                        .variable,
                        line: i,
                        column: 0,
                        "QUERYPARAM=\"\(n)\" but the playlist URI has no \(n) query parameter",
                        hint: "request the playlist with ?\(n)=…, or use NAME/VALUE"
                    )
                }
            }
            guard let name else { continue }
            if values[name] != nil {
                sink.report(
                    .error,
                    .variable,
                    line: i,
                    column: 0,
                    "variable \(name) is defined more than once",
                    hint: "define each variable once"
                )
                continue
            }
            if let value { values[name] = value }
        }
        return values
    }

    /// Reports references to names that no EXT-X-DEFINE declares (NAME, IMPORT or QUERYPARAM).
    static func checkReferences(_ store: LineStore, sink: inout DiagnosticSink) {
        var declared: [String: String] = [:]
        for i in store.records.indices where store.records[i].kind == .tag && store.records[i].tag == .define {
            guard let list = store.attributes(i) else { continue }
            for key in ["NAME", "IMPORT", "QUERYPARAM"] {
                if let name = list[key]?.quotedString { declared[name] = "" }
            }
        }
        for i in store.records.indices {
            let record = store.records[i]
            guard record.kind == .uri || (record.kind == .tag && record.tag != .define) else { continue }
            _ = substitute(store.text(i), values: declared, line: i, sink: &sink)
        }
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Replaces `{$name}` in `text`; returns nil when nothing changed.
    ///
    /// Undefined names are reported.
    static func substitute(
        _ text: String,
        values: [String: String],
        line: Int,
        sink: inout DiagnosticSink
    ) -> String? {
        let result = VariableContext.substitute(in: text, values: values)
        for reference in result.unresolved {
            sink.report(
                .error,
                .variable,
                line: line,
                column: reference.offset,
                "variable {$\(reference.name)} is not defined",
                hint: "add #EXT-X-DEFINE:NAME=\"\(reference.name)\",VALUE=\"…\" before this line"
            )
        }
        return result.text == text ? nil : result.text
    }

    /// The definitions in `store` resolved against `context`, with their diagnostics dropped.
    static func definitions(_ store: LineStore, context: VariableContext) -> [String: String] {
        var sink = DiagnosticSink(file: nil)
        return Self.definitions(store, context: context, sink: &sink)
    }

    /// `store` with every `{$name}` reference replaced by the definitions it holds.
    ///
    /// - Throws: ``PlaylistParsingError`` for the first error the definitions or the references
    ///   report (an undefined variable, an IMPORT or QUERYPARAM without a value, a duplicate).
    static func substituted(_ store: LineStore, context: VariableContext) throws -> LineStore {
        var sink = DiagnosticSink(file: nil)
        let values = Self.definitions(store, context: context, sink: &sink)
        var copy = store
        Self.apply(&copy, values: values, sink: &sink)
        if let error = sink.firstError { throw PlaylistParsingError(error) }
        return copy
    }

    /// Substitutes in URI lines and in the quoted-string and hexadecimal values of tag attributes.
    static func apply(_ store: inout LineStore, values: [String: String], sink: inout DiagnosticSink) {
        for i in store.records.indices {
            let record = store.records[i]
            switch record.kind {
            case .uri:
                if let new = substitute(store.text(i), values: values, line: i, sink: &sink) {
                    let newRecord = store.makeRecord(Array(new.utf8), terminator: record.terminator)
                    store.records[i] = newRecord
                }
            case .tag where record.tag != .define && record.tag.valueForm == .attributes:
                guard store.text(i).utf8.contains(UInt8(ascii: "{")), var list = store.attributes(i) else { continue }
                var changed = false
                for k in list.indices {
                    let raw = list[k].value.rawValue
                    let form = list[k].value.form
                    guard form == .quotedString || form == .hexadecimal || raw.hasPrefix("0x{$") else { continue }
                    if let new = substitute(raw, values: values, line: i, sink: &sink) {
                        list[k].value = AttributeValue(rawValue: new)
                        changed = true
                    }
                }
                if changed {
                    let text = Tag(name: record.tag.name, attributes: list).rendered
                    let newRecord = store.makeRecord(Array(text.utf8), terminator: record.terminator)
                    store.records[i] = newRecord
                }
            default:
                continue
            }
        }
    }
}

extension MediaPlaylist {
    /// The variables this playlist defines, resolved against `context`.
    public func variables(context: VariableContext = VariableContext()) -> [String: String] {
        VariableSubstitution.definitions(self.store, context: context)
    }

    /// A copy with every `{$name}` reference replaced (§4.4.2.3); this playlist keeps its raw text.
    ///
    /// Substitution applies to URI lines and to quoted-string and hexadecimal attribute values.
    /// Only lines that change are re-rendered.
    ///
    /// - Throws: ``PlaylistParsingError`` with code ``PlaylistParsingError/Code/undefinedVariable``
    ///   for a reference to an undefined variable, an IMPORT or QUERYPARAM without a value, or a
    ///   variable defined twice.
    public func substitutingVariables(_ context: VariableContext = VariableContext()) throws -> MediaPlaylist {
        var copy = self
        copy.store = try VariableSubstitution.substituted(self.store, context: context)
        copy.reindex()
        return copy
    }
}

extension MultivariantPlaylist {
    /// The variables this playlist defines, resolved against `context` (for media playlists' IMPORT).
    public func variables(context: VariableContext = VariableContext()) -> [String: String] {
        VariableSubstitution.definitions(self.store, context: context)
    }

    /// A copy with every `{$name}` reference replaced; see ``MediaPlaylist/substitutingVariables(_:)``.
    public func substitutingVariables(_ context: VariableContext = VariableContext()) throws -> MultivariantPlaylist {
        var copy = self
        copy.store = try VariableSubstitution.substituted(self.store, context: context)
        return copy
    }
}
