import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPFetch

/// Reads the scheduled-date-range documents (Appendix H of Apple's preliminary WWDC26 draft) of a
/// playlist for `intermission schedule`: each `X-URI` from a file next to the playlist or over HTTP,
/// nested documents too, until the resolver asks for nothing more.
enum ScheduleDocuments {
    /// The most rounds of requests (each round fetches every document the previous one named);
    /// the resolver's nesting limit ends well before.
    static let maximumRounds = DateRangeScheduleResolver.maximumNestingDepth + 1

    /// The scheduled interstitials of `playlist`, each with its `scheduleIdentifier`, and the
    /// problems found (a document that cannot be read, an entry left out, a cycle, nesting too
    /// deep), each with its document and JSON pointer (`file://` URLs shown as paths).
    static func resolve(
        playlist: MediaPlaylist,
        input: PlaylistInput,
        timeout: Double
    ) async -> (events: [InterstitialEvent], diagnostics: [ScheduleDiagnostic]) {
        let resolver = DateRangeScheduleResolver()
        let base = self.baseURL(of: input.name)
        // A playlist fetched over the network may not name local files.
        let readsFiles = base.hasPrefix("file://")
        var found: [ScheduleDiagnostic] = []
        var documents: [String: DateRangeScheduleResolver.Document] = [:]
        var resolution = resolver.resolve(playlist: playlist, playlistURL: base, documents: documents)
        var rounds = 0
        while !resolution.pendingURLs.isEmpty, rounds < self.maximumRounds {
            rounds += 1
            for url in resolution.pendingURLs {
                let (document, diagnostics) = await self.read(url, timeout: timeout, readsFiles: readsFiles)
                documents[url] = document
                found += diagnostics
            }
            resolution = resolver.resolve(playlist: playlist, playlistURL: base, documents: documents)
        }
        return (resolution.events, (found + resolution.diagnostics).map(self.display))
    }

    /// The playlist's location as the base of `X-URI`: its URL, or a `file://` URL of its path.
    static func baseURL(of name: String) -> String {
        if name.hasPrefix("http://") || name.hasPrefix("https://") { return name }
        let path = name == "<stdin>" ? FileManager.default.currentDirectoryPath + "/stdin.m3u8" : name
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file://" + absolute
    }

    /// The diagnostic with a `file://` document shown as its path.
    static func display(_ diagnostic: ScheduleDiagnostic) -> ScheduleDiagnostic {
        var shown = diagnostic
        if let document = shown.location.document, document.hasPrefix("file://") {
            shown.location.document = String(document.dropFirst("file://".count))
        }
        shown.message = shown.message.replacingOccurrences(of: "file://", with: "")
        return shown
    }

    /// The bytes of a document: a file, or an http(s) URL fetched within `timeout` seconds; one
    /// byte over the decoder's size limit is enough to refuse it, so no more is read.
    static func readBytes(_ location: String, timeout: Double) async throws -> [UInt8] {
        let limit = DateRangeSchedule.Options().maximumBytes + 1
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            let request = FetchRequest(
                url: location,
                headers: [("User-Agent", "intermission/0.1")],
                timeout: .nanoseconds(Int64(timeout * 1e9)),
                maximumBodySize: limit
            )
            do {
                return try await BoundedFetch(client: PlaylistInput.client).get(request).body
            } catch {
                throw PlaylistInput.Unusable(reason: error.message)
            }
        }
        guard let handle = FileHandle(forReadingAtPath: location) else {
            throw PlaylistInput.Unusable(reason: "\(location): no such file or not readable")
        }
        defer { try? handle.close() }
        return [UInt8](try handle.read(upToCount: limit) ?? Data())
    }

    /// Reads and decodes one document, with its decoding diagnostics; a `file://` URL only when
    /// `readsFiles` (the playlist is a local file), and no other scheme than http(s).
    static func read(
        _ url: String,
        timeout: Double,
        readsFiles: Bool
    ) async -> (DateRangeScheduleResolver.Document, [ScheduleDiagnostic]) {
        let remote = url.hasPrefix("http://") || url.hasPrefix("https://")
        let location =
            url.hasPrefix("file://")
            ? String(url.dropFirst("file://".count).split(separator: "?", maxSplits: 1).first ?? "")
            : url
        let bytes: [UInt8]
        do {
            guard remote || (readsFiles && url.hasPrefix("file://")) else {
                throw PlaylistInput.Unusable(
                    reason: readsFiles
                        ? "\(url): only http, https and file URLs can be read"
                        : "\(url): a playlist fetched over the network cannot name local files"
                )
            }
            bytes = try await self.readBytes(location, timeout: timeout)
        } catch {
            let failure = DateRangeScheduleDecodingError(
                code: ScheduleRule.unreadable.id,
                message: "\(error)",
                location: ScheduleLocation(document: url, pointer: "")
            )
            return (.failure(failure), [])
        }
        do {
            let decoded = try DateRangeSchedule.decode(bytes, document: url)
            return (.success(decoded.schedule), decoded.diagnostics)
        } catch {
            return (.failure(error), [])
        }
    }
}

extension ScheduleDiagnostic {
    /// The diagnostic as a JSON object for `intermission validate --json`: `file` (the document),
    /// `pointer` (RFC 6901), `severity`, `rule`, `message`, `hint`.
    var json: JSONValue {
        .object([
            ("file", self.location.document.map { .string($0) } ?? .null),
            ("pointer", .string(self.location.pointer)),
            ("severity", .string(self.severity.description)),
            ("rule", .string(self.rule.id.rawValue)),
            ("message", .string(self.message)),
            ("hint", .string(self.hint)),
        ])
    }
}
