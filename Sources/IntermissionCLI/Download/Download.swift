import ArgumentParser
import AsyncHTTPClient
import Foundation
import InterstitialPlayback
import Synchronization

/// `intermission download`: a playable offline copy of a VOD stream with its interstitials.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a playable offline copy of a VOD stream, interstitials included.",
        discussion: """
            Keeps one variant (--variant: a bandwidth in bits per second, the highest at or under it; \
            or WIDTHxHEIGHT, the largest resolution at or under it; default the highest bandwidth) with \
            its audio and subtitle renditions in --language, and every interstitial: asset lists are \
            requested now with one _HLS_primary_id and replaced by local JSON, and each asset keeps \
            its variant by the same criteria. Playlists are rewritten to relative URIs with their \
            interstitial date ranges otherwise as written. DIR gets main.m3u8, manifest.json (every \
            file fetched, with its URL and size) and .intermission/ (the journal). Run it again after \
            an interruption: finished files are kept and a partial one continues with a Range \
            request, so no byte is fetched twice. `intermission play DIR/main.m3u8` plays the copy \
            without the network. Against a hostile server: --timeout bounds the answer and every \
            pause in a body, a body slower than --min-rate fails, playlists and asset lists are read \
            up to 64 MiB, a copy fetches at most --max-segments files, and nothing is written \
            through a symbolic link inside DIR.
            """
    )

    @Argument(help: "The multivariant or media playlist URL (http or https; a VOD stream).")
    var url: String

    @Argument(help: "The folder to write the copy into (made if missing).")
    var directory: String

    @Option(help: "BANDWIDTH (bits per second) or WIDTHxHEIGHT.")
    var variant: String?

    @Option(help: "Preferred audio and subtitle language (RFC 5646, e.g. en or fr-CA).")
    var language: String?

    @Option(help: "Fetch at most this many bytes a second (1000 to 1e12).")
    var limitRate: Int?

    @Option(
        help: """
            Fail a body that brings fewer bytes a second than this over each --timeout (at least 1 s) \
            window (0 to 1e9, 0 off; default 4096; kept under half of --limit-rate).
            """
    )
    var minRate: Int = OfflineCopier.defaultMinimumRate

    @Option(help: "The most segments, maps and keys the copy may fetch (1 to 1e7; default 100000).")
    var maxSegments: Int = OfflineCopier.defaultMaximumSegments

    @Flag(help: "Print each file as a JSON line (fetched or kept) instead of the progress line.")
    var json = false

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if let variant, OfflineSelection.criterion(variant) == nil {
            throw ValidationError(
                "--variant takes a bandwidth in bits per second or WIDTHxHEIGHT, not '\(variant.prefix(40))'"
            )
        }
        if let language,
            language.isEmpty || language.utf8.count > 35
                || !language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        {
            throw ValidationError("--language takes a language tag such as en or fr-CA")
        }
        if let limitRate, !(1000...1_000_000_000_000).contains(limitRate) {
            throw ValidationError("--limit-rate takes bytes a second from 1000 to 1e12")
        }
        guard (0...1_000_000_000).contains(self.minRate) else {
            throw ValidationError("--min-rate takes bytes a second from 0 to 1e9")
        }
        guard (1...10_000_000).contains(self.maxSegments) else {
            throw ValidationError("--max-segments takes 1 to 1e7")
        }
        guard self.url.hasPrefix("http://") || self.url.hasPrefix("https://") else {
            throw ValidationError("the stream must be an http or https URL")
        }
    }

    func run() async throws {
        let selection = OfflineSelection(
            variant: self.variant.flatMap(OfflineSelection.criterion) ?? .highest,
            language: self.language
        )
        let root = URL(fileURLWithPath: self.directory, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let json = self.json
        let terminal = isatty(STDERR_FILENO) == 1
        let progress = DownloadProgress()
        let client = PlaylistInput.makeClient(timeout: self.network.timeout)
        let copier = OfflineCopier(
            root: root,
            selection: selection,
            client: client,
            timeout: self.network.timeout,
            maximumSegments: self.maxSegments,
            minimumRate: self.minRate,
            rateLimit: self.limitRate
        ) { report in
            let line = progress.add(report)
            if json {
                FileHandle.standardOutput.write(Data((Self.jsonLine(report) + "\n").utf8))
            } else if terminal {
                FileHandle.standardError.write(Data(("\r" + line).utf8))
            }
        }
        do {
            let entries = try await copier.copy(self.url)
            try? await client.shutdown()
            if terminal && !json { FileHandle.standardError.write(Data("\n".utf8)) }
            if !json {
                let bytes = entries.filter { !$0.path.hasPrefix(".intermission/") }.reduce(0) { $0 + $1.bytes }
                print("\(self.directory)/main.m3u8: \(entries.count) files, \(bytes) bytes (manifest.json)")
            }
        } catch {
            try? await client.shutdown()
            if terminal && !json { FileHandle.standardError.write(Data("\n".utf8)) }
            printError("intermission: \(error) (run the command again to continue)")
            throw ExitCode(1)
        }
    }

    /// One report as a JSON object: `event` (`fetched` or `kept`), `url`, `path`, `bytes`, and for a
    /// fetched file `resumedFrom` (the bytes a partial file already had).
    static func jsonLine(_ report: OfflineCopier.Report) -> String {
        struct Line: Encodable {
            var event: String
            var url: String
            var path: String
            var bytes: Int
            var resumedFrom: Int?
        }
        let line: Line
        switch report {
        case .fetched(let entry, let resumedFrom):
            line = Line(
                event: "fetched",
                url: entry.url,
                path: entry.path,
                bytes: entry.bytes,
                resumedFrom: resumedFrom
            )
        case .kept(let entry):
            line = Line(event: "kept", url: entry.url, path: entry.path, bytes: entry.bytes)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// The progress line's counts.
final class DownloadProgress: Sendable {
    private let counts = Mutex((files: 0, kept: 0, bytes: 0))

    /// Counts `report`; the line to show.
    func add(_ report: OfflineCopier.Report) -> String {
        self.counts.withLock { counts in
            counts.files += 1
            switch report {
            case .fetched(let entry, let resumedFrom): counts.bytes += entry.bytes - resumedFrom
            case .kept: counts.kept += 1
            }
            let megabytes = Double(counts.bytes) / 1_048_576
            return "downloading: \(counts.files) files (\(counts.kept) already here), "
                + String(format: "%.1f", megabytes) + " MB fetched"
        }
    }
}
