import AsyncHTTPClient
import Foundation
import GroupCoordination
import HLSInterstitials
import HLSPlaylist
import IntermissionServer
import InterstitialPlayback
import NIOCore
import NIOHTTP1

/// Why a download stopped.
struct DownloadError: Error, CustomStringConvertible {
    var description: String
}

/// Writes a playable offline copy of a stream into a folder: one variant with its chosen renditions,
/// every interstitial asset (asset lists resolved now, with one `_HLS_primary_id`), the playlists
/// rewritten to relative URIs, asset lists replaced by local JSON, a manifest, and a journal that
/// lets an interrupted run continue without fetching a byte twice.
///
/// Layout: `main.m3u8`; `primary/{video,audio,subtitles}/` (playlist `index.m3u8` and its files);
/// `interstitials/{event}/list.json` and `interstitials/{event}/{k}/main.m3u8` (or
/// `interstitials/{event}/asset/main.m3u8` for `X-ASSET-URI`); `manifest.json`;
/// `.intermission/journal.jsonl` and `.intermission/raw/` (the fetched playlists and lists).
actor OfflineCopier {
    /// A fetched file, as the journal and the manifest keep it.
    struct Entry: Codable, Sendable {
        var url: String
        var path: String
        var bytes: Int
    }

    /// What a progress line and the `--json` log are told.
    enum Report: Sendable {
        case fetched(Entry, resumedFrom: Int)
        case kept(Entry)
    }

    let root: URL
    let selection: OfflineSelection
    let client: HTTPClient
    let timeout: TimeAmount
    /// The most bytes one file may have.
    let maximumFileSize: Int64
    /// The most bytes a playlist or asset list may have (the CLI's input limit, 64 MiB).
    let maximumPlaylistSize: Int64
    /// The most segments, maps and keys the whole copy may fetch.
    let maximumSegments: Int
    /// How slow a body may be.
    let transfer: TransferLimits
    /// The segments, maps and keys of the playlists copied so far.
    private var segmentsPlanned = 0
    /// The most bytes a second to fetch (`nil`: as fast as the server sends).
    let rateLimit: Int?
    /// When this run began fetching (time elapsed on ``clock``) and how much it fetched, for the
    /// rate limit.
    private var fetchedSince: (start: Duration, bytes: Int64)?
    /// The clock that paces the rate limit and times the bodies' stalls.
    let clock: ElapsedClock
    let report: @Sendable (Report) -> Void

    /// The session ID sent as `_HLS_primary_id` with every asset-list request (kept in the journal).
    private(set) var primaryID = UUID().uuidString
    /// Files fetched, by URL (from the journal and this run).
    private var done: [String: Entry] = [:]
    /// Every entry of this copy, in the order first needed.
    private var order: [String] = []
    private var ordered: Set<String> = []
    /// Assets already copied, by event ID: the local path of their playlist or list.
    private var interstitials: [String: String] = [:]
    private var journal: FileHandle?

    init(
        root: URL,
        selection: OfflineSelection,
        client: HTTPClient,
        timeout: Double,
        maximumFileSize: Int64 = 1 << 30,
        maximumPlaylistSize: Int64 = Int64(PlaylistInput.maximumSize),
        maximumSegments: Int = OfflineCopier.defaultMaximumSegments,
        minimumRate: Int = OfflineCopier.defaultMinimumRate,
        rateLimit: Int? = nil,
        clock: some Clock<Duration> = ContinuousClock(),
        report: @escaping @Sendable (Report) -> Void
    ) {
        self.clock = ElapsedClock(clock)
        self.rateLimit = rateLimit
        self.maximumPlaylistSize = maximumPlaylistSize
        self.maximumSegments = maximumSegments
        // Our own rate limit must not pass for a slow server: the floor stays under half of it.
        let floor = rateLimit.map { min(minimumRate, $0 / 2) } ?? minimumRate
        self.transfer = TransferLimits(idleTimeout: .nanoseconds(Int64(timeout * 1e9)), minimumRate: floor)
        self.root = root
        self.selection = selection
        self.client = client
        self.timeout = .nanoseconds(Int64(timeout * 1e9))
        self.maximumFileSize = maximumFileSize
        self.report = report
    }

    /// The most segments, maps and keys a copy fetches by default (`--max-segments`): 100,000,
    /// a day of 1-second segments with room to spare.
    static let defaultMaximumSegments = 100_000
    /// The fewest bytes a second a body may bring by default (`--min-rate`): 4 KiB.
    static let defaultMinimumRate = 4096

    // MARK: The copy

    /// Copies `url` into the folder; returns the manifest's entries.
    func copy(_ url: String) async throws -> [Entry] {
        try self.openJournal()
        defer { try? self.journal?.close() }
        let (bytes, _) = try await self.fetchRaw(url)
        switch PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: url)).playlist {
        case .multivariant(let playlist):
            let text = try await self.copyPresentation(playlist, url: url, folder: "primary", playlistFolder: "")
            try self.write(Array(text.utf8), to: "main.m3u8")
        case .media(let playlist):
            let text = try await self.copyMedia(playlist, url: url, mediaFolder: "primary", playlistFolder: "")
            try self.write(Array(text.utf8), to: "main.m3u8")
        }
        let entries = self.order.compactMap { self.done[$0] }
        try self.writeManifest(source: url, entries: entries)
        return entries
    }

    /// A multivariant playlist: the chosen variant's media playlist and renditions copied under
    /// `folder`; the multivariant playlist rewritten to keep only them (written by the caller at
    /// `playlistFolder`).
    func copyPresentation(
        _ playlist: MultivariantPlaylist,
        url: String,
        folder: String,
        playlistFolder: String
    ) async throws -> String {
        guard let choice = self.selection.choose(in: playlist) else {
            throw DownloadError(description: "\(url): no variant to download")
        }
        var local: [String: String] = [:]
        local[choice.variant.uri] = try await self.copyTrack(
            choice.variant.uri,
            of: url,
            into: Self.join(folder, "video"),
            from: playlistFolder
        )
        if let audio = choice.audio?.uri {
            local[audio] = try await self.copyTrack(
                audio,
                of: url,
                into: Self.join(folder, "audio"),
                from: playlistFolder
            )
        }
        if let subtitles = choice.subtitles?.uri {
            local[subtitles] = try await self.copyTrack(
                subtitles,
                of: url,
                into: Self.join(folder, "subtitles"),
                from: playlistFolder
            )
        }
        // Only the chosen variant and its renditions stay; other lines as written.
        let kept = Set([choice.variant.lineIndex] + [choice.audio, choice.subtitles].compactMap { $0?.lineIndex })
            .union(choice.carried.map(\.lineIndex))
        var lines: [String] = []
        var skipNextURI = false
        for (index, line) in playlist.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line.hasSuffix("\r") ? line.dropLast() : line)
            if skipNextURI, !text.hasPrefix("#"), !text.isEmpty {
                skipNextURI = false
                continue
            }
            if text.hasPrefix("#EXT-X-STREAM-INF:") || text.hasPrefix("#EXT-X-MEDIA:")
                || text.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:")
            {
                guard kept.contains(index) else {
                    skipNextURI = text.hasPrefix("#EXT-X-STREAM-INF:")
                    continue
                }
            }
            lines.append(text)
        }
        guard case .multivariant(var trimmed) = PlaylistParser.parse(lines.joined(separator: "\n")).playlist else {
            throw DownloadError(description: "\(url): the kept multivariant playlist does not parse")
        }
        trimmed.rewriteURIs { local[$0] ?? $0 }
        return trimmed.text
    }

    /// The media playlist `uri` (relative to the multivariant playlist at `url`) copied into
    /// `trackFolder` as `index.m3u8`; its path as seen from `playlistFolder`.
    func copyTrack(
        _ uri: String,
        of url: String,
        into trackFolder: String,
        from playlistFolder: String
    ) async throws
        -> String
    {
        let absolute = URIReference.resolve(uri, against: url)
        let (bytes, _) = try await self.fetchRaw(absolute)
        guard
            case .media(let media) = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: absolute))
                .playlist
        else { throw DownloadError(description: "\(absolute): not a media playlist") }
        let text = try await self.copyMedia(media, url: absolute, mediaFolder: trackFolder, playlistFolder: trackFolder)
        let path = Self.join(trackFolder, "index.m3u8")
        try self.write(Array(text.utf8), to: path)
        return Self.relative(path, from: playlistFolder)
    }

    /// A media playlist: its segments, maps and keys fetched into `mediaFolder`, its interstitials'
    /// assets copied, and the playlist rewritten with URIs relative to `playlistFolder`.
    func copyMedia(
        _ playlist: MediaPlaylist,
        url: String,
        mediaFolder: String,
        playlistFolder: String
    ) async throws -> String {
        var playlist = playlist
        guard !playlist.isLive else {
            throw DownloadError(description: "\(url): a live playlist cannot be downloaded (no EXT-X-ENDLIST)")
        }
        // Every URI the playlist references (segments, maps, keys), each fetched once: a byte range
        // keeps its tag and the whole resource is fetched once.
        var local: [String: String] = [:]
        var uris: [String] = []
        playlist.rewriteURIs { uri in
            if local[uri] == nil {
                local[uri] = ""
                uris.append(uri)
            }
            return uri
        }
        guard self.segmentsPlanned + uris.count <= self.maximumSegments else {
            throw DownloadError(
                description: "\(url): \(uris.count) segments, maps and keys"
                    + (self.segmentsPlanned > 0 ? " after \(self.segmentsPlanned) others" : "")
                    + ": more than the \(self.maximumSegments) a copy may fetch (--max-segments)"
            )
        }
        self.segmentsPlanned += uris.count
        for (index, uri) in uris.enumerated() {
            let absolute = URIReference.resolve(uri, against: url)
            guard absolute.hasPrefix("http://") || absolute.hasPrefix("https://") else {
                local[uri] = uri  // data:, skd: (FairPlay keys) and other schemes stay as written
                continue
            }
            let path = Self.join(mediaFolder, "\(index)" + Self.fileExtension(of: absolute))
            try await self.fetchFile(absolute, to: path)
            local[uri] = Self.relative(path, from: playlistFolder)
        }
        playlist.rewriteURIs { local[$0] ?? $0 }
        // Interstitials: assets copied, the tags pointed at the local copies.
        for (k, placed) in playlist.dateRanges.enumerated() where placed.dateRange.isInterstitial {
            var range = placed.dateRange
            let id = range.id
            if let listURI = range.attributes[.assetList]?.quotedString {
                let path = try await self.copyAssetList(URIReference.resolve(listURI, against: url), eventID: id)
                range.attributes[.assetList] = .quoted(Self.relative(path, from: playlistFolder))
            } else if let assetURI = range.attributes[.assetURI]?.quotedString {
                let path = try await self.copyAsset(
                    URIReference.resolve(assetURI, against: url),
                    folder: Self.join("interstitials", Self.safeName(id), "asset"),
                    key: id
                )
                range.attributes[.assetURI] = .quoted(Self.relative(path, from: playlistFolder))
            } else {
                continue
            }
            playlist.replaceDateRange(at: k, with: range)
        }
        return playlist.text
    }

    /// An asset list fetched once with `_HLS_primary_id`, each asset copied, and a local list
    /// (URIs relative to it, other members kept) written; its path.
    func copyAssetList(_ url: String, eventID: String) async throws -> String {
        if let path = self.interstitials[eventID] { return path }
        let (bytes, _) = try await self.fetchRaw(InterstitialRequestURL.assetList(url, primaryID: self.primaryID))
        var list: AssetList
        do {
            list = try AssetList.decode(bytes)
        } catch {
            throw DownloadError(description: "\(url): not an asset list: \(error)")
        }
        let folder = Self.join("interstitials", Self.safeName(eventID))
        for k in list.assets.indices {
            let path = try await self.copyAsset(
                URIReference.resolve(list.assets[k].uri, against: url),
                folder: Self.join(folder, "\(k)"),
                key: "\(eventID)#\(k)"
            )
            list.assets[k].uri = Self.relative(path, from: folder)
        }
        let path = Self.join(folder, "list.json")
        try self.write(list.encode(), to: path)
        self.interstitials[eventID] = path
        return path
    }

    /// One interstitial asset (a multivariant or media playlist) copied into `folder`; the path
    /// of its `main.m3u8`.
    func copyAsset(_ url: String, folder: String, key: String) async throws -> String {
        if let path = self.interstitials[key] { return path }
        let (bytes, _) = try await self.fetchRaw(url)
        let text: String
        switch PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: url)).playlist {
        case .multivariant(let playlist):
            text = try await self.copyPresentation(playlist, url: url, folder: folder, playlistFolder: folder)
        case .media(let playlist):
            text = try await self.copyMedia(playlist, url: url, mediaFolder: folder, playlistFolder: folder)
        }
        let path = Self.join(folder, "main.m3u8")
        try self.write(Array(text.utf8), to: path)
        self.interstitials[key] = path
        return path
    }

    // MARK: Fetching, resumable

    /// A playlist or asset list: fetched once (kept under `.intermission/raw/`), read from there
    /// on a later run.
    func fetchRaw(_ url: String) async throws -> ([UInt8], String) {
        let path = ".intermission/raw/" + Self.hashName(url)
        try await self.fetchFile(url, to: path, limit: self.maximumPlaylistSize)
        let file = try self.checkedURL(path)
        guard let size = Self.size(of: file), size <= self.maximumPlaylistSize else {
            throw DownloadError(description: "\(url): larger than \(self.maximumPlaylistSize) bytes (a playlist)")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DownloadError(description: "\(path): cannot be read back")
        }
        return ([UInt8](data), path)
    }

    /// Fetches `url` into `path` unless the journal has it whole.
    ///
    /// A partial file from an interrupted run continues with a `Range` request. A body larger
    /// than `limit` bytes (the file size limit by default), or one that stalls or trickles
    /// (``transfer``), fails.
    func fetchFile(_ url: String, to path: String, limit: Int64? = nil) async throws {
        if self.ordered.insert(url).inserted { self.order.append(url) }
        let limit = limit ?? self.maximumFileSize
        let file = try self.checkedURL(path)
        if let entry = self.done[url], entry.path == path, Self.size(of: file) == Int64(entry.bytes) {
            self.report(.kept(entry))
            return
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw DownloadError(description: "\(url): only http and https URLs can be downloaded")
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let part = try self.checkedURL(path + ".part")
        var offset = Self.size(of: part) ?? 0
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "intermission-download/0.1")
        if offset > 0 { request.headers.add(name: "Range", value: "bytes=\(offset)-") }
        let response: HTTPClientResponse
        do {
            response = try await self.client.execute(request, timeout: self.timeout)
        } catch {
            throw DownloadError(description: "\(url): \(error)")
        }
        switch response.status.code {
        case 206 where offset > 0:
            break
        case 200:
            offset = 0  // the server sent it all again: start over
        case 416 where offset > 0:
            // The part is already whole.
            _ = try? await response.body.collect(upTo: 1 << 16)
            return try self.finish(url: url, part: part, file: file, path: path, resumedFrom: offset, fetched: 0)
        default:
            _ = try? await response.body.collect(upTo: 1 << 16)
            throw DownloadError(description: "\(url): HTTP \(response.status.code)")
        }
        // A length announced past the limit is refused before a byte of the body is read.
        if let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }),
            length > limit - offset
        {
            throw DownloadError(description: "\(url): larger than \(limit) bytes (Content-Length \(length))")
        }
        if !FileManager.default.fileExists(atPath: part.path) || offset == 0 {
            _ = FileManager.default.createFile(atPath: part.path, contents: nil)
        }
        let start = offset
        let written = try await TransferWatchdog.guarded(url: url, limits: self.transfer, clock: self.clock) { meter in
            try await self.writeBody(response.body, of: url, to: part, from: start, limit: limit, meter: meter)
        }
        try self.finish(url: url, part: part, file: file, path: path, resumedFrom: offset, fetched: written - offset)
    }

    /// Writes `body` into `part` (appended after `offset` bytes, or from the start when
    /// `offset` is 0), telling `meter` of every chunk; the bytes the part has at the end.
    private func writeBody(
        _ body: HTTPClientResponse.Body,
        of url: String,
        to part: URL,
        from offset: Int64,
        limit: Int64,
        meter: TransferMeter
    ) async throws -> Int64 {
        let handle = try FileHandle(forWritingTo: part)
        defer { try? handle.close() }
        if offset == 0 { try handle.truncate(atOffset: 0) } else { try handle.seekToEnd() }
        var written = offset
        do {
            for try await buffer in body {
                meter.received(buffer.readableBytes)
                written += Int64(buffer.readableBytes)
                guard written <= limit else { throw DownloadError(description: "\(url): larger than \(limit) bytes") }
                try handle.write(contentsOf: buffer.readableBytesView)
                try await self.keepToRate(Int64(buffer.readableBytes))
            }
        } catch let error as DownloadError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw DownloadError(description: "\(url): \(error)")
        }
        try handle.synchronize()
        return written
    }

    /// Waits as long as the bytes fetched so far are ahead of the rate limit.
    private func keepToRate(_ bytes: Int64) async throws {
        guard let limit = self.rateLimit else { return }
        let now = self.clock.elapsed
        var since = self.fetchedSince ?? (now, 0)
        since.bytes += bytes
        self.fetchedSince = since
        let due = Duration.seconds(Double(since.bytes) / Double(limit))
        let ahead = due - (now - since.start)
        if ahead > .milliseconds(1) { try await self.clock.sleep(for: ahead) }
    }

    /// The part is whole: renamed, journaled, reported.
    private func finish(url: String, part: URL, file: URL, path: String, resumedFrom: Int64, fetched: Int64) throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        try FileManager.default.moveItem(at: part, to: file)
        let entry = Entry(url: url, path: path, bytes: Int(Self.size(of: file) ?? 0))
        self.done[url] = entry
        try self.appendJournal(entry)
        self.report(.fetched(entry, resumedFrom: Int(resumedFrom)))
    }

    // MARK: Journal, manifest, files

    struct JournalHeader: Codable {
        var primaryID: String
    }

    /// Reads the journal of an earlier run (its session ID and finished files) and opens it for
    /// appending.
    func openJournal() throws {
        let url = try self.checkedURL(".intermission/journal.jsonl")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = FileManager.default.contents(atPath: url.path) {
            let decoder = JSONDecoder()
            for line in data.split(separator: UInt8(ascii: "\n")) {
                if let header = try? decoder.decode(JournalHeader.self, from: Data(line)) {
                    self.primaryID = header.primaryID
                } else if let entry = try? decoder.decode(Entry.self, from: Data(line)) {
                    self.done[entry.url] = entry
                }
            }
        } else {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            self.journal = try FileHandle(forWritingTo: url)
            try self.appendLine(JournalHeader(primaryID: self.primaryID))
            return
        }
        self.journal = try FileHandle(forWritingTo: url)
        try self.journal?.seekToEnd()
    }

    private func appendJournal(_ entry: Entry) throws {
        try self.appendLine(entry)
    }

    private func appendLine<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        try self.journal?.write(contentsOf: data)
        try self.journal?.synchronize()
    }

    func writeManifest(source: String, entries: [Entry]) throws {
        struct Manifest: Codable {
            var source: String
            var primaryID: String
            var files: [Entry]
            var totalBytes: Int
        }
        let media = entries.filter { !$0.path.hasPrefix(".intermission/") }
        let manifest = Manifest(
            source: source,
            primaryID: self.primaryID,
            files: entries,
            totalBytes: media.reduce(0) { $0 + $1.bytes }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try self.write([UInt8](try encoder.encode(manifest)) + [0x0A], to: "manifest.json")
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        let url = try self.checkedURL(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url, options: .atomic)
    }

    static func size(of url: URL) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value
    }

    // MARK: Paths

    /// The file `path` (relative to the root) once no part of it under the root is a symbolic
    /// link (each looked at with `lstat`, never followed), so nothing is written outside the
    /// folder through a link placed in it; parts that do not exist yet are made as folders by
    /// the writer.
    ///
    /// - Throws: ``DownloadError`` naming the link, or a part that is empty, `.` or `..`.
    func checkedURL(_ path: String) throws -> URL {
        var url = self.root
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part != ".", part != ".." else {
                throw DownloadError(description: "\(path): not a plain path inside the folder")
            }
            url.appendPathComponent(String(part))
            var status = stat()
            guard lstat(url.path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFLNK {
                throw DownloadError(
                    description: "\(url.path) is a symbolic link: refusing to write through it (remove it)"
                )
            }
        }
        return url
    }

    /// Joins relative path parts with `/` (empty parts left out).
    static func join(_ parts: String...) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// `path` (relative to the root) as seen from the folder `folder` (relative to the root).
    static func relative(_ path: String, from folder: String) -> String {
        let target = path.split(separator: "/")
        let base = folder.split(separator: "/")
        var common = 0
        while common < base.count, common < target.count - 1, base[common] == target[common] { common += 1 }
        let up = Array(repeating: "..", count: base.count - common)
        return (up + target[common...].map(String.init)).joined(separator: "/")
    }

    /// The extension of the URL's path (`.ts`, `.m4s`, `.aac`, …), at most 8 letters or digits;
    /// `.bin` when there is none.
    static func fileExtension(of url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard let last = path.split(separator: "/").last, let dot = last.lastIndex(of: ".") else { return ".bin" }
        let ext = last[last.index(after: dot)...]
        guard !ext.isEmpty, ext.count <= 8, ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return ".bin"
        }
        return "." + ext.lowercased()
    }

    /// A folder name for an event ID: letters, digits, `-` and `_` kept, at most 64; otherwise
    /// (or when something else is in it) a hash of the ID is added so names never collide.
    static func safeName(_ id: String) -> String {
        let kept = String(
            id.unicodeScalars.filter {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            }.prefix(64)
        )
        return kept == id && !kept.isEmpty ? kept : (kept.isEmpty ? "" : kept + "-") + Self.hashName(id)
    }

    /// A name for `text` made of its FNV-1a digest and length (the server's `ETag` digest).
    static func hashName(_ text: String) -> String {
        ContentDigest.hex(Array(text.utf8))
    }
}
