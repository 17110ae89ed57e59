import HLSPlaylist
import IntermissionTestSupport
import Testing

/// The batched edits (several insertions in one pass, date ranges rendered beforehand with the
/// index moved instead of rebuilt, URIs rewritten on bytes) against the same edits made one at a
/// time, and against a fresh parse of what they write.
@Suite struct BatchEditingTests {
    static let media: [(name: String, playlist: MediaPlaylist)] =
        (Fixture.all(in: "playlists").map { ($0.name, $0.bytes) } + [
            ("no final newline", Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n#EXTINF:6,\nb.ts".utf8)),
            ("no segments", Array("#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n".utf8)),
        ]).compactMap { name, bytes in
            guard case .media(let playlist) = PlaylistParser.parse(bytes).playlist else { return nil }
            return (name, playlist)
        }

    /// The model equals a fresh parse of the bytes it writes.
    func expectConsistent(_ playlist: MediaPlaylist, _ context: String) {
        guard case .media(let fresh) = PlaylistParser.parse(playlist.serialized()).playlist else {
            Issue.record("\(context): no longer a media playlist")
            return
        }
        #expect(playlist.dateRanges == fresh.dateRanges, "\(context)")
        #expect(Array(playlist.segments) == Array(fresh.segments), "\(context)")
        #expect(playlist.trailingParts == fresh.trailingParts, "\(context)")
        #expect(playlist.renditionReports == fresh.renditionReports, "\(context)")
        #expect(playlist.hasEndList == fresh.hasEndList, "\(context)")
        #expect(playlist.targetDuration == fresh.targetDuration, "\(context)")
        for k in 0...playlist.segments.count {
            #expect(
                playlist.insertionLine(forSegment: k) == fresh.insertionLine(forSegment: k),
                "\(context) segment \(k)"
            )
        }
    }

    /// Date ranges rendered beforehand, inserted at the first segment, in the middle (two at the
    /// same place), after the last and past the end, write what inserting their lines one at a
    /// time from the last writes, and keep the model equal to a fresh parse; so do the same ranges
    /// given as `DateRange`s.
    @Test func renderedDateRangesEqualLinesInsertedOneAtATime() throws {
        for (name, playlist) in Self.media {
            let count = playlist.segments.count
            let positions = [0, count / 2, count / 2, count, count + 3]
            let ranges = positions.enumerated().map { k, position in
                var range = DateRange(id: "batch-\(k)", startDate: DateTime(millisecondsSince1970: 1_000 * Int64(k)))
                range.duration = MediaTime(seconds: k + 1)
                range.attributes["X-ASSET-LIST"] = .quoted("https://ads.example.com/\(k).json")
                return (range, position)
            }
            var batched = playlist
            batched.insertDateRanges(rendered: ranges.map { (RenderedDateRange($0.0), $0.1) })
            var typed = playlist
            typed.insertDateRanges(ranges.map { ($0.0, $0.1) })
            var oneByOne = playlist
            let lines = ranges.map { (line: playlist.insertionLine(forSegment: $0.1), text: $0.0.tag.rendered) }
            // From the last line back, and within a line from the last range, so that each goes in
            // before those after it.
            for (line, text) in lines.enumerated().sorted(by: {
                ($0.element.line, $0.offset) > ($1.element.line, $1.offset)
            }).map(\.element) {
                oneByOne.insertLines([text], at: line)
            }
            #expect(batched.serialized() == oneByOne.serialized(), "\(name)")
            #expect(typed.serialized() == oneByOne.serialized(), "\(name)")
            expectConsistent(batched, name)
            // Edited again afterwards, the moved index still holds.
            batched.insertDateRanges(rendered: [(RenderedDateRange(DateRange(id: "again", startDate: nil)), count / 3)])
            expectConsistent(batched, name + " again")
        }
    }

    /// Insertions given in any order, several at the same line, go in as if made one at a time
    /// from the last (later insertions at a line before earlier ones).
    @Test func batchedLineInsertionsEqualInsertionsOneAtATime() throws {
        for (name, playlist) in Self.media {
            let count = playlist.lines.count
            let insertions: [(index: Int, lines: [String])] = [
                (count, ["# end a", "# end b"]), (1, ["# one"]), (count / 2, ["# middle a"]), (1, ["# one again"]),
                (count / 2, []), (0, ["# first"]),
            ]
            var batched = playlist
            batched.insertLines(insertions)
            var oneByOne = playlist
            for insertion in insertions.enumerated().sorted(by: { $0.element.index > $1.element.index }).map(\.element)
            {
                oneByOne.insertLines(insertion.lines, at: insertion.index)
            }
            #expect(batched.serialized() == oneByOne.serialized(), "\(name)")
            expectConsistent(batched, name)
        }
    }

    /// Rewriting URIs on bytes writes what the `String` rewrite writes (with the same mapping),
    /// including lines kept as they are and URIs with spaces around them, and keeps the model.
    @Test func byteRewriteEqualsStringRewrite() throws {
        func mapped(_ uri: String) -> String {
            uri.hasSuffix(".ts") || uri.hasSuffix(".mp4") ? "https://cdn.example.com/p/" + uri : uri
        }
        for (name, playlist) in Self.media {
            var strings = playlist
            strings.rewriteURIs(mapped)
            var bytes = playlist
            bytes.rewriteURIBytes { uri, output in
                let new = mapped(String(decoding: uri, as: UTF8.self))
                guard new.utf8.count != uri.count else { return false }
                output.append(contentsOf: new.utf8)
                return true
            }
            #expect(bytes.serialized() == strings.serialized(), "\(name)")
            expectConsistent(bytes, name)
            // Rewritten to themselves (trimmed): the same bytes either way.
            var same = playlist
            same.rewriteURIBytes { uri, output in
                output.append(contentsOf: uri)
                return true
            }
            var sameStrings = playlist
            sameStrings.rewriteURIs { $0 }
            #expect(same.serialized() == sameStrings.serialized(), "\(name)")
        }
    }
}
