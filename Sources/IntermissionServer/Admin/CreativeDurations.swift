import AdInsertion
import HLSPlaylist
import IntermissionHTTP
import IntermissionStore
import Logging
import ServiceLifecycle

/// Reads creatives' durations from their media (the sum of the `EXTINF` durations of the first
/// variant's media playlist), so that asset lists, pods and schedules say what the media last.
///
/// Local creatives (`/media/{mount}/…`) are read before the server listens; remote ones by
/// ``CreativeDurationService`` once it runs, each once. A creative whose configured duration differs
/// from its media's by more than a frame is logged as a warning, and its media's duration is used.
/// One whose playlists cannot be read keeps its configured duration (also logged).
struct CreativeDurations: Sendable {
    /// Reads playlists: local mounts from disk, remote URIs over HTTP, both size- and time-bounded.
    let origin: OriginClient
    let logger: Logger

    /// The most playlists read at once.
    static let concurrency = 4

    /// The media's duration of the creative at `uri`, or why it cannot be read.
    func measure(_ uri: String) async -> Result<CreativeMediaDuration, CreativeDurationFailure> {
        var reading = CreativeDurationReading(uri: uri)
        var step = reading.next
        while case .read(let next) = step {
            let bytes: [UInt8]
            do {
                bytes = try await self.origin.bytes(at: next)
            } catch {
                return .failure(CreativeDurationFailure(message: "\(error)"))
            }
            step = reading.received(bytes, from: next)
        }
        switch step {
        case .measured(let measured): return .success(measured)
        case .failed(let reason): return .failure(CreativeDurationFailure(message: reason))
        case .read: return .failure(CreativeDurationFailure(message: "unreachable"))
        }
    }

    /// Measures `creatives` (at most ``concurrency`` at a time), logs each disagreement and each
    /// failure, and hands every measured duration to `registry`.
    func measure(_ creatives: [Creative], into registry: InventoryRegistry) async {
        await withTaskGroup(of: (Creative, Result<CreativeMediaDuration, CreativeDurationFailure>).self) { group in
            var pending = creatives[...]
            func startNext() {
                guard let creative = pending.popFirst() else { return }
                group.addTask { (creative, await self.measure(creative.uri)) }
            }
            for _ in 0..<Self.concurrency { startNext() }
            while let (creative, result) = await group.next() {
                startNext()
                switch result {
                case .success(let measured):
                    var warning: String?
                    if measured.disagrees(with: creative.duration) {
                        let text =
                            "its media last \(measured.duration) s, not the configured \(creative.duration) s; asset lists use the media's duration"
                        self.logger.warning(
                            "creative '\(creative.id)': \(text)",
                            metadata: ["uri": "\(URLRedaction.redact(creative.uri))"]
                        )
                        warning = text
                    }
                    await registry.useMediaDuration(
                        measured.duration,
                        of: creative.id,
                        at: creative.uri,
                        warning: warning
                    )
                case .failure(let failure):
                    self.logger.warning(
                        "creative '\(creative.id)': its media's duration cannot be read (\(failure.message)); asset lists use the configured \(creative.duration) s",
                        metadata: ["uri": "\(URLRedaction.redact(creative.uri))"]
                    )
                }
            }
        }
    }

    /// Whether the server reads this creative's media before it listens (a local mount) rather than
    /// in ``CreativeDurationService``.
    static func isLocal(_ creative: Creative) -> Bool {
        creative.uri.hasPrefix("/media/")
    }
}

/// Why a creative's duration could not be read from its media.
struct CreativeDurationFailure: Error, Sendable {
    /// What went wrong, in words.
    let message: String
}

/// Reads the remote configured creatives' durations once, at start, then waits for shutdown (a
/// measurement in progress is cancelled by it).
struct CreativeDurationService: Service {
    let durations: CreativeDurations
    let creatives: [Creative]
    let registry: InventoryRegistry

    func run() async throws {
        let (durations, creatives, registry) = (self.durations, self.creatives, self.registry)
        await cancelWhenGracefulShutdown {
            await durations.measure(creatives, into: registry)
        }
        try? await gracefulShutdown()
    }
}
