import Foundation

/// Hides what a configured URL may carry that is secret: the user and password, and the query
/// string (tokens often travel there).
///
/// Used wherever a URL is shown: `/health`, error messages,
/// logs.
package enum URLRedaction {
    /// `https://user:pass@host/p.m3u8?token=x` → `https://REDACTED@host/p.m3u8?REDACTED`.
    ///
    /// Anything
    /// that is not an `http(s)` or `postgres(ql)` URL comes back without its query.
    package static func redact(_ url: String) -> String {
        var text = Substring(url)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        var query = false
        if let mark = text.firstIndex(of: "?") {
            text = text[..<mark]
            query = true
        }
        var result = String(text)
        for scheme in ["http://", "https://", "postgres://", "postgresql://"] where text.lowercased().hasPrefix(scheme)
        {
            let rest = text.dropFirst(scheme.count)
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") {
                result =
                    String(text.prefix(scheme.count)) + "REDACTED@" + String(authority[authority.index(after: at)...])
                    + String(rest[authorityEnd...])
            }
        }
        return query ? result + "?REDACTED" : result
    }

    /// Redacts every `http(s)://` URL inside a text (an error description, say).
    package static func redactURLs(in text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: "http", options: .caseInsensitive) {
            output += rest[..<range.lowerBound]
            let candidate = rest[range.lowerBound...]
            let end =
                candidate.firstIndex { $0 == " " || $0 == "\"" || $0 == "'" || $0 == ")" || $0 == "," || $0.isNewline }
                ?? candidate.endIndex
            let word = candidate[..<end]
            if word.lowercased().hasPrefix("http://") || word.lowercased().hasPrefix("https://") {
                output += Self.redact(String(word))
            } else {
                output += word
            }
            rest = candidate[end...]
        }
        return output + rest
    }
}
