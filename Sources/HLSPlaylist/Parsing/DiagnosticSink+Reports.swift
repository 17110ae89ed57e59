/// Errors that more than one pass reports in the same words.
///
/// They run only on the error path, so the passes' loops stay as tight as before.
extension DiagnosticSink {
    /// The first line is not `EXTM3U`.
    mutating func reportMissingHeader() {
        self.report(
            .error,
            .missingHeader,
            line: 0,
            column: 0,
            "the playlist does not start with #EXTM3U",
            hint: "make #EXTM3U the first line"
        )
    }

    /// A tag that may appear once appears again on `line` (0-based).
    mutating func reportDuplicateTag(_ tag: KnownTag, line: Int) {
        self.report(
            .error,
            .duplicateTag,
            line: line,
            column: 0,
            "#\(tag.name.rawValue) appears more than once",
            hint: "keep a single #\(tag.name.rawValue) tag"
        )
    }

    /// The `EXTINF` on `line` (0-based) has no segment URI after it: another `EXTINF` comes first,
    /// or the playlist ends (`atEnd`).
    mutating func reportDanglingSegmentInformation(line: Int, atEnd: Bool) {
        self.report(
            .error,
            .danglingSegmentTags,
            line: line,
            column: 0,
            "#EXTINF is not followed by a segment URI",
            hint: atEnd
                ? "add the segment URI after #EXTINF, or remove the tag"
                : "add the segment URI on the line after #EXTINF, or remove the tag"
        )
    }

    /// The `EXT-X-STREAM-INF` on `line` (0-based) has no URI after it.
    mutating func reportVariantWithoutURI(line: Int) {
        self.report(
            .error,
            .variantWithoutURI,
            line: line,
            column: 0,
            "#EXT-X-STREAM-INF is not followed by a URI",
            hint: "put the variant's media playlist URI on the next line"
        )
    }
}
