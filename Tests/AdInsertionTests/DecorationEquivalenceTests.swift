import AdInsertion
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// One line of a playlist as bytes: its content and its terminator (empty for a last line
/// without one).
private struct TextLine {
    var content: [UInt8]
    var terminator: [UInt8]
}

/// The lines of `bytes`, split at `\n` (a `\r` before it belongs to the terminator).
private func textLines(_ bytes: [UInt8]) -> [TextLine] {
    var lines: [TextLine] = []
    var start = 0
    for k in bytes.indices where bytes[k] == 10 {
        let carriageReturn = k > start && bytes[k - 1] == 13
        lines.append(
            TextLine(
                content: Array(bytes[start..<(carriageReturn ? k - 1 : k)]),
                terminator: carriageReturn ? [13, 10] : [10]
            )
        )
        start = k + 1
    }
    if start < bytes.count { lines.append(TextLine(content: Array(bytes[start...]), terminator: [])) }
    return lines
}

/// The tags whose `URI` attribute the decorator makes absolute.
private let uriTags = [
    "EXT-X-KEY", "EXT-X-MAP", "EXT-X-PART", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT", "EXT-X-SESSION-KEY",
]

/// The decoration written the plain way, on the text.
///
/// Every URI line and `URI` attribute resolved with `URIReference.resolve` (as `String`s), the
/// break tags rendered from their events and inserted as text before the line the playlist gives
/// for their segment. The fast path must give exactly these bytes.
private func referenceDecoration(
    _ bytes: [UInt8],
    playlistURL: String,
    breaks: [LiveBreak],
    lookahead: MediaTime,
    locator: AssetListLocator,
    midRollsOnce: Bool,
    preloadWindow: MediaTime
) -> [UInt8] {
    guard case .media(let playlist) = PlaylistParser.parse(bytes).playlist else { return [] }
    var lines = textLines(bytes)
    for k in lines.indices {
        let text = String(decoding: lines[k].content, as: UTF8.self)
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        if !trimmed.isEmpty, !text.hasPrefix("#") {
            var uri = Substring(trimmed)
            while uri.last == " " || uri.last == "\t" { uri.removeLast() }
            let new = URIReference.resolve(String(uri), against: playlistURL)
            if new != text { lines[k].content = Array(new.utf8) }
            continue
        }
        guard text.hasPrefix("#"), let colon = text.firstIndex(of: ":") else { continue }
        let name = String(text[text.index(after: text.startIndex)..<colon])
        guard uriTags.contains(name), var list = try? AttributeList(parsing: String(text[text.index(after: colon)...])),
            let uri = list["URI"]?.quotedString
        else { continue }
        let new = URIReference.resolve(uri, against: playlistURL)
        if new != uri {
            list["URI"] = .quoted(new)
            lines[k].content = Array(("#" + name + ":" + list.description).utf8)
        }
    }

    // The break tags, and the line each goes before.
    var inserted: [(line: Int, text: String)] = []
    let timings = playlist.timings
    if let first = timings.first?.date, let last = timings.last, let lastDate = last.date {
        let end = lastDate + last.duration
        let existing = Set(playlist.dateRanges.map(\.dateRange.id))
        func line(for date: DateTime) -> Int {
            let position = playlist.timeMapping(at: date).map { min($0.segment, timings.count) } ?? timings.count
            return playlist.insertionLine(forSegment: date < first ? 0 : position)
        }
        let selected = breaks.filter {
            !$0.cancelled && $0.startDate + $0.duration >= first && $0.startDate <= end + lookahead
        }
        .sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
        for b in selected where !existing.contains(b.id) {
            guard let range = b.interstitialEvent(locator: locator, midRollsOnce: midRollsOnce).dateRange() else {
                continue
            }
            inserted.append((line(for: b.startDate), range.tag.rendered))
        }
        if preloadWindow > .zero {
            let preloaded = breaks.filter {
                !$0.cancelled && $0.startDate + $0.duration >= first && $0.startDate - preloadWindow <= end + lookahead
            }
            .sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
            for b in preloaded {
                guard let preload = b.preloadRange(locator: locator, window: preloadWindow),
                    !existing.contains(preload.identifier)
                else { continue }
                inserted.append((line(for: preload.start), preload.dateRange().tag.rendered))
            }
        }
    }

    // Written out: new lines end like the first line; at the end of a file without a final
    // newline, the old last line gets one and the new last line goes without.
    let newLine = lines.first.map { $0.terminator.isEmpty ? [10] : $0.terminator } ?? [10]
    var out: [UInt8] = []
    func emit(before index: Int) {
        for (line, text) in inserted where line == index {
            out += Array(text.utf8) + newLine
        }
    }
    let atEnd = inserted.contains { $0.line == lines.count }
    for (k, line) in lines.enumerated() {
        emit(before: k)
        out += line.content + (k == lines.count - 1 && atEnd && line.terminator.isEmpty ? newLine : line.terminator)
    }
    emit(before: lines.count)
    if atEnd, lines.last?.terminator.isEmpty == true { out.removeLast(newLine.count) }
    return out
}

/// Breaks around a playlist's window (before, across its start, inside, just after, beyond the
/// lookahead, cancelled, pre- and post-roll, with a resume offset and a playout limit, one reusing
/// an ID the playlist has).
private func breaks(around playlist: MediaPlaylist, channel: String) -> [LiveBreak] {
    let timings = playlist.timings
    guard let first = timings.first?.date, let last = timings.last, let lastDate = last.date else { return [] }
    let end = lastDate + last.duration
    let updated = DateTime(millisecondsSince1970: 0)
    func make(_ id: String, _ start: DateTime, _ seconds: Int) -> LiveBreak {
        LiveBreak(
            id: id,
            channel: channel,
            startDate: start,
            duration: MediaTime(seconds: seconds),
            restrictions: ["SKIP", "JUMP"],
            updatedAt: updated
        )
    }
    var result = [
        make("before", first - MediaTime(seconds: 100), 30),
        make("across-start", first - MediaTime(seconds: 5), 30),
        make("at-start", first, 10),
        make("inside", first + MediaTime(nanoseconds: (end - first).nanoseconds / 2), 20),
        make("after", end + MediaTime(seconds: 10), 30),
        make("far", end + MediaTime(seconds: 1_000), 30),
    ]
    var cancelled = make("cancelled", first + MediaTime(seconds: 1), 10)
    cancelled.cancelled = true
    var pre = make("pre", first, 15)
    pre.cue = ["PRE"]
    var post = make("post", end, 15)
    post.cue = ["POST", "ONCE"]
    var limited = make("limited", end + MediaTime(seconds: 2), 60)
    limited.playoutLimit = MediaTime(seconds: 20)
    limited.resumeOffset = .zero
    limited.snap = ["OUT", "IN"]
    result += [cancelled, pre, post, limited]
    if let id = playlist.dateRanges.first?.dateRange.id, !id.isEmpty {
        result.append(make(id, first + MediaTime(seconds: 1), 10))
    }
    return result
}

/// A live window with segment URIs of every shape, a map and a key, dated.
private func window(first: Int, count: Int, lineEnd: String = "\n", finalNewline: Bool = true) -> [UInt8] {
    var text =
        "#EXTM3U\(lineEnd)#EXT-X-VERSION:7\(lineEnd)#EXT-X-TARGETDURATION:2\(lineEnd)#EXT-X-MEDIA-SEQUENCE:\(first)\(lineEnd)"
    text += "#EXT-X-MAP:URI=\"init.mp4\"\(lineEnd)#EXT-X-KEY:METHOD=AES-128,URI=\"keys/k1.bin\"\(lineEnd)"
    text +=
        "#EXT-X-PROGRAM-DATE-TIME:\(DateTime(millisecondsSince1970: 1_735_689_600_000 + Int64(first) * 2_000))\(lineEnd)"
    for k in first..<first + count {
        let uri: String
        switch k % 6 {
        case 0: uri = "1080p/seg-\(k).ts"
        case 1: uri = "seg-\(k).ts?token=a%2Fb"
        case 2: uri = "https://cdn.example.com/live/seg-\(k).ts"
        case 3: uri = "../other/seg-\(k).ts"
        case 4: uri = "  seg-\(k).ts\t"
        default: uri = "seg%20\(k).ts"
        }
        text += "#EXTINF:2.000,\(lineEnd)\(uri)\(lineEnd)"
    }
    if !finalNewline { text.removeLast(lineEnd.count) }
    return Array(text.utf8)
}

@Suite struct DecorationEquivalenceTests {
    static let urls = [
        "https://origin.example.com/live/channel-1/1080p/index.m3u8",
        "http://up.example.com/channel/live/p.m3u8?token=t",
        "https://origin.example.com/a/../b/index.m3u8",  // not a plain base: every URI resolved in full
        "https://origin.example.com/index.m3u8",
    ]

    static let inputs: [(name: String, bytes: [UInt8])] =
        Fixture.all(in: "playlists").map { ($0.name, $0.bytes) } + [
            ("window", window(first: 1_000, count: 6)),
            ("window-crlf", window(first: 7, count: 40, lineEnd: "\r\n")),
            ("window-no-final-newline", window(first: 3, count: 12, finalNewline: false)),
            ("window-long", window(first: 0, count: 2_000)),
        ]

    /// The decorator (fresh and with a kept resolver, cold and with the break lines cached, with
    /// and without preload ranges and `CUE="ONCE"` on mid-rolls) gives the bytes of the plain
    /// text-level decoration on every fixture and generated window, and its model equals a fresh
    /// parse of those bytes.
    @Test(arguments: Self.inputs.indices)
    func theFastPathEqualsThePlainDecoration(_ input: Int) throws {
        let (name, bytes) = Self.inputs[input]
        guard case .media(let playlist) = PlaylistParser.parse(bytes).playlist else { return }
        let locator = AssetListLocator(baseURL: "https://ads.example.com")
        let channelBreaks = breaks(around: playlist, channel: "equivalence-\(input)")
        for url in Self.urls {
            for (midRollsOnce, preloadWindow) in [(false, MediaTime.zero), (true, MediaTime(seconds: 20))] {
                let expected = referenceDecoration(
                    bytes,
                    playlistURL: url,
                    breaks: channelBreaks,
                    lookahead: 30,
                    locator: locator,
                    midRollsOnce: midRollsOnce,
                    preloadWindow: preloadWindow
                )
                var uris = SegmentURIResolver(playlistURL: url)
                for round in 0..<2 {
                    let fresh = LiveDecorator.decorate(
                        playlist,
                        playlistURL: url,
                        breaks: channelBreaks,
                        lookahead: 30,
                        locator: locator,
                        midRollsOnce: midRollsOnce,
                        preloadWindow: preloadWindow
                    )
                    let kept = LiveDecorator.decorate(
                        playlist,
                        uris: &uris,
                        breaks: channelBreaks,
                        lookahead: 30,
                        locator: locator,
                        midRollsOnce: midRollsOnce,
                        preloadWindow: preloadWindow
                    )
                    let context = "\(name) \(url) once=\(midRollsOnce) preload=\(preloadWindow) round \(round)"
                    #expect(fresh.serialized() == expected, "\(context)")
                    #expect(kept.serialized() == expected, "\(context)")
                    guard case .media(let reparsed) = PlaylistParser.parse(expected).playlist else {
                        Issue.record("\(context): not a media playlist")
                        continue
                    }
                    #expect(fresh.dateRanges == reparsed.dateRanges, "\(context)")
                    #expect(Array(fresh.segments) == Array(reparsed.segments), "\(context)")
                }
            }
        }
    }

    /// A break changed under the same ID (a new duration, an early return, other restrictions)
    /// gets its new line on the next decoration, whatever was rendered for it before; so does a
    /// new locator.
    @Test func aChangedBreakIsRenderedAgain() throws {
        let bytes = window(first: 0, count: 6)
        guard case .media(let playlist) = PlaylistParser.parse(bytes).playlist else {
            Issue.record("not a media playlist")
            return
        }
        let url = Self.urls[0]
        var liveBreak = LiveBreak(
            id: "changing",
            channel: "changed-break",
            startDate: DateTime(millisecondsSince1970: 1_735_689_600_000 + 5_000),
            duration: MediaTime(seconds: 30),
            updatedAt: DateTime(millisecondsSince1970: 0)
        )
        var versions: [(LiveBreak, AssetListLocator)] = [(liveBreak, AssetListLocator())]
        liveBreak.duration = MediaTime(seconds: 45)
        versions.append((liveBreak, AssetListLocator()))
        liveBreak.playoutLimit = MediaTime(seconds: 10)
        versions.append((liveBreak, AssetListLocator()))
        liveBreak.restrictions = ["SKIP"]
        versions.append((liveBreak, AssetListLocator()))
        versions.append((liveBreak, AssetListLocator(baseURL: "https://other.example.com")))
        var outputs: Set<[UInt8]> = []
        for (version, locator) in versions + versions {
            let decorated = LiveDecorator.decorate(
                playlist,
                playlistURL: url,
                breaks: [version],
                lookahead: 30,
                locator: locator
            )
            let expected = referenceDecoration(
                bytes,
                playlistURL: url,
                breaks: [version],
                lookahead: 30,
                locator: locator,
                midRollsOnce: false,
                preloadWindow: .zero
            )
            #expect(decorated.serialized() == expected)
            outputs.insert(expected)
        }
        #expect(outputs.count == versions.count)
    }

    /// The plain-segment test on bytes agrees with a character-set reference on every byte, alone
    /// and inside a path, and with the `String` form.
    @Test func plainBytesAreLettersDigitsAndFourMarks() {
        let allowed = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8))
        for byte in UInt8.min...UInt8.max where byte != UInt8(ascii: "/") && byte != UInt8(ascii: ".") {
            for bytes in [[byte], Array("a/".utf8) + [byte, UInt8(ascii: "x")]] {
                let plain = bytes.withUnsafeBufferPointer { PlainRelativeURI.isPlain($0) }
                #expect(plain == allowed.contains(byte), "byte \(byte)")
            }
        }
        for uri in ["seg.ts", ".", "..", "...", "a/./b", "a/../b", "a//b", "/a", "a/", "a/.../b", ".x/y..z", "~_-"] {
            var copy = uri
            let onBytes = copy.withUTF8 { PlainRelativeURI.isPlain($0) }
            #expect(onBytes == PlainRelativeURI.isPlain(uri), "\(uri)")
        }
        #expect(!PlainRelativeURI.isPlain(String(repeating: "a", count: 2_049)))
        #expect(PlainRelativeURI.isPlain(String(repeating: "a", count: 2_048)))
    }
}
