/// URI references (RFC 3986): splitting, resolving a relative reference against a base, and editing
/// query items without touching anything else.
///
/// Everything works on the text as written: nothing is normalised or decoded except where RFC 3986
/// §5.2 says so (dot segments are removed when resolving).
///
/// ```swift
/// URIReference.resolve("../ads/list.json", against: "https://example.com/live/main/index.m3u8")
/// // "https://example.com/live/ads/list.json"
/// URIReference.settingQueryItems([("_HLS_primary_id", "abc")], in: "https://e.com/a.json?x=1#f")
/// // "https://e.com/a.json?x=1&_HLS_primary_id=abc#f"
/// ```
public enum URIReference {
    /// The five parts of a URI reference (RFC 3986 §3, split as in Appendix B).
    public struct Components: Sendable, Hashable, CustomStringConvertible {
        /// The scheme without `:` (`https`), or `nil` for a relative reference.
        public var scheme: String?
        /// The authority without `//` (`example.com:8080`), or `nil` when there is none.
        public var authority: String?
        /// The path (may be empty).
        public var path: String
        /// The query without `?`, or `nil` when there is no `?`.
        public var query: String?
        /// The fragment without `#`, or `nil` when there is no `#`.
        public var fragment: String?

        /// Creates components.
        public init(
            scheme: String? = nil,
            authority: String? = nil,
            path: String,
            query: String? = nil,
            fragment: String? = nil
        ) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        /// Splits a reference.
        ///
        /// A prefix before `:` counts as a scheme only when it is a valid
        /// scheme name (a letter, then letters, digits, `+`, `-` or `.`).
        public init(parsing reference: String) {
            var rest = Substring(reference)
            if let hash = rest.firstIndex(of: "#") {
                self.fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            } else {
                self.fragment = nil
            }
            if let question = rest.firstIndex(of: "?") {
                self.query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            } else {
                self.query = nil
            }
            self.scheme = nil
            if let colon = rest.firstIndex(of: ":") {
                let candidate = rest[..<colon]
                if URIReference.isSchemeName(candidate) {
                    self.scheme = String(candidate)
                    rest = rest[rest.index(after: colon)...]
                }
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let slash = rest.firstIndex(of: "/") ?? rest.endIndex
                self.authority = String(rest[..<slash])
                rest = rest[slash...]
            } else {
                self.authority = nil
            }
            self.path = String(rest)
        }

        /// The reference put back together (RFC 3986 §5.3).
        public var description: String {
            var out = ""
            if let scheme { out += scheme + ":" }
            if let authority { out += "//" + authority }
            out += self.path
            if let query { out += "?" + query }
            if let fragment { out += "#" + fragment }
            return out
        }
    }

    static func isSchemeName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, Self.isAlpha(first) else { return false }
        return text.utf8.allSatisfy { c in
            Self.isAlpha(c) || (c >= 48 && c <= 57) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                || c == UInt8(ascii: ".")
        }
    }

    static func isAlpha(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    /// The scheme of a reference, lower-cased, or `nil` for a relative reference.
    public static func scheme(of reference: String) -> String? {
        Components(parsing: reference).scheme?.lowercased()
    }

    /// Whether the reference has a scheme (an absolute URI, possibly with a fragment), as
    /// `X-ASSET-URI` and the URIs of an asset list must.
    public static func isAbsolute(_ reference: String) -> Bool {
        Components(parsing: reference).scheme != nil
    }

    /// Resolves a reference against a base URI, strictly as RFC 3986 §5.2.2 describes.
    ///
    /// - Parameters:
    ///   - reference: An absolute URI or a relative reference (`ads/list.json`, `/x`, `//host/x`,
    ///     `?q`, `#f`, `../x`).
    ///   - base: The URI the reference appears in (such as a media playlist's URI). A base with a
    ///     fragment has it ignored.
    /// - Returns: The target URI.
    public static func resolve(_ reference: String, against base: String) -> String {
        let r = Components(parsing: reference)
        let b = Components(parsing: base)
        var t = Components(path: "")
        if let scheme = r.scheme {
            t.scheme = scheme
            t.authority = r.authority
            t.path = removeDotSegments(r.path)
            t.query = r.query
        } else {
            if let authority = r.authority {
                t.authority = authority
                t.path = removeDotSegments(r.path)
                t.query = r.query
            } else {
                if r.path.isEmpty {
                    t.path = b.path
                    t.query = r.query ?? b.query
                } else {
                    if r.path.hasPrefix("/") {
                        t.path = removeDotSegments(r.path)
                    } else {
                        t.path = removeDotSegments(merge(base: b, path: r.path))
                    }
                    t.query = r.query
                }
                t.authority = b.authority
            }
            t.scheme = b.scheme
        }
        t.fragment = r.fragment
        return t.description
    }

    /// RFC 3986 §5.2.3.
    static func merge(base: Components, path: String) -> String {
        if base.authority != nil && base.path.isEmpty {
            return "/" + path
        }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// Removes `.` and `..` segments (RFC 3986 §5.2.4).
    public static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []  // each element is a segment with its leading "/" (or the first, without)
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment (with its leading "/", if any) to the output.
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    // MARK: - Query items

    /// Adds query items to a URI, replacing existing items of the same names in place and keeping
    /// every other item, the fragment and all other text exactly as written.
    ///
    /// - Parameters:
    ///   - items: Names (written as given) and values (percent-encoded by
    ///     ``percentEncodedQueryValue(_:)``).
    ///   - uri: The URI to edit.
    /// - Returns: The URI with the items.
    public static func settingQueryItems(_ items: [(name: String, value: String)], in uri: String) -> String {
        guard !items.isEmpty else { return uri }
        var head = Substring(uri)
        var fragment: Substring?
        if let hash = head.firstIndex(of: "#") {
            fragment = head[hash...]
            head = head[..<hash]
        }
        var query: Substring?
        if let question = head.firstIndex(of: "?") {
            query = head[head.index(after: question)...]
            head = head[..<question]
        }
        var parts: [String] = []
        if let query, !query.isEmpty {
            parts = query.split(separator: "&", omittingEmptySubsequences: false).map(String.init)
        }
        for item in items {
            let rendered = item.name + "=" + percentEncodedQueryValue(item.value)
            let index = parts.firstIndex { part in
                let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return name == item.name
            }
            if let index {
                parts[index] = rendered
                // Drop later duplicates of the same name so the server sees one value.
                var k = parts.count - 1
                while k > index {
                    let name =
                        parts[k].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    if name == item.name { parts.remove(at: k) }
                    k -= 1
                }
            } else {
                parts.append(rendered)
            }
        }
        return String(head) + "?" + parts.joined(separator: "&") + (fragment.map(String.init) ?? "")
    }

    /// The query items of a URI as written (names and values not decoded), in order.
    public static func queryItems(of uri: String) -> [(name: String, value: String?)] {
        guard let query = Components(parsing: uri).query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { part in
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(pair[0]), pair.count > 1 ? String(pair[1]) : nil)
        }
    }

    /// Percent-encodes a query value: every byte of its UTF-8 form except the RFC 3986 unreserved
    /// characters (`A–Z a–z 0–9 - . _ ~`) becomes `%XX` (upper-case hex).
    public static func percentEncodedQueryValue(_ value: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for c in value.utf8 {
            if isAlpha(c) || (c >= 48 && c <= 57) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
            {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` sequences (and nothing else); malformed sequences stay as written.
    public static func percentDecoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let h = ASCIIHex.value(bytes[i + 1]),
                let l = ASCIIHex.value(bytes[i + 2])
            {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
