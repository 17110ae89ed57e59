import ArgumentParser
import AsyncHTTPClient
import Foundation
import HLSPlaylist
import InterstitialPlayback

extension BeaconMode: ExpressibleByArgument {}

/// `intermission play`: a headless player that streams HLS and plays interstitials.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an HLS stream headlessly, interstitials included.",
        discussion: """
            Every playlist, segment and asset list is requested for real. --speed runs the playback \
            clock faster than real time. With --json the event log is printed, one JSON object per \
            line; otherwise a status line shows the position, the current event and the buffer.
            """
    )

    @Argument(help: "The multivariant or media playlist URL, or the path of one on disk (an offline copy).")
    var url: String

    @Option(help: "Clock seconds per real second.")
    var speed: Double = 1

    @Option(help: "Stop when the playback clock reaches T seconds.")
    var until: Double?

    @Option(help: "Seek the primary to T when the clock reads AT (T@AT); repeatable.")
    var seek: [String] = []

    @Option(help: "Set the rate to R when the clock reads AT (R@AT); repeatable.")
    var rate: [String] = []

    @Option(
        help:
            "Ask to skip the current interstitial when the clock reads AT; refused outside its skip window (logged with the reason); repeatable."
    )
    var skip: [String] = []

    /// The `--skip` clock times: decimal seconds from 0 to 1e9, read with `MediaTime.read` so
    /// exponents, hexadecimal, NaN, infinities and signs are refused.
    static func skipTime(_ text: String) throws -> MediaTime {
        guard case .time(let time) = MediaTime.read(text, allowSign: false), time <= MediaTime(seconds: 1e9) else {
            throw ValidationError("--skip takes clock seconds from 0 to 1e9, not '\(text.prefix(40))'")
        }
        return time
    }

    @Flag(help: "Ignore the playlist's interstitials.")
    var noInterstitials = false

    @Option(help: "Preferred audio and subtitle language.")
    var language: String?

    @Flag(help: "Print the event log as JSON lines.")
    var json = false

    @Option(
        help: """
            Who fires the tracking beacons of asset lists' X-AD-CREATIVE-SIGNALING (SVTA2053-2): off             (the server; the default) or client (this player, once per slot at its playback moment;             logged as beaconFired and beaconFailed).
            """
    )
    var beacons: BeaconMode = .off

    @OptionGroup var network: NetworkOptions

    /// The `--seek T@AT` and `--rate R@AT` options as (value, clock time) pairs, read as the `group`
    /// and `cast` commands read theirs (``TimedViewerCommand/pair(_:option:)``): seconds from 0 to
    /// 1e9 with no exponent, NaN or sign; a rate from 0 to 1000.
    func timedOptions() throws -> (seeks: [(Double, Double)], rates: [(Double, Double)]) {
        let seeks = try self.seek.map { text in
            let (value, at) = try TimedViewerCommand.pair(text, option: "--seek")
            return (try ViewerCommand.seconds(value, what: "--seek"), try ViewerCommand.seconds(at, what: "--seek"))
        }
        let rates = try self.rate.map { text in
            let (value, at) = try TimedViewerCommand.pair(text, option: "--rate")
            return (try ViewerCommand.rate(value), try ViewerCommand.seconds(at, what: "--rate"))
        }
        return (seeks, rates)
    }

    func validate() throws {
        guard self.speed > 0, self.speed <= 1000 else {
            throw ValidationError("--speed takes a number above 0 and at most 1000")
        }
        if let until, !(until >= 0 && until <= 1e9) { throw ValidationError("--until takes seconds from 0 to 1e9") }
        for text in self.skip { _ = try Self.skipTime(text) }
        _ = try self.timedOptions()
    }

    func run() async throws {
        try await self.run(clock: ContinuousClock())
    }

    /// Runs the command; the progress line is redrawn every 250 ms of `clock` (the player keeps its
    /// own playback clock, `--speed` times real time).
    func run(clock: some Clock<Duration>) async throws {
        // Its own client: a refused connection fails at once instead of being retried until the deadline.
        let client = PlaylistInput.makeClient(timeout: self.network.timeout)
        do {
            // Local files are read only for a stream played from the disk (an offline copy).
            let local = Self.streamURL(self.url).prefix(7).lowercased() == "file://"
            try await self.play(
                loader: LocalFileLoader(network: HTTPResourceLoader(client: client), readsFiles: local),
                clock: clock
            )
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    /// An http(s) or file URL as given; a path (an offline copy's `main.m3u8`) as a `file://` URL.
    static func streamURL(_ text: String) -> String {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("file://") { return text }
        return URL(fileURLWithPath: text).standardizedFileURL.absoluteString
    }

    /// Plays the stream, loading through `loader`; the progress line is redrawn on `clock`.
    func play(loader: any ResourceLoader, clock: some Clock<Duration>) async throws {
        var configuration = Player.Configuration()
        configuration.preferredLanguages = self.language.map { [$0] } ?? []
        // --timeout bounds every request (playlists, segments, asset lists), 30 s by default.
        configuration.playlistTimeout = .seconds(self.network.timeout)
        configuration.segmentTimeout = .seconds(self.network.timeout)
        configuration.interstitialRequestTimeout = .seconds(self.network.timeout)
        configuration.beaconMode = self.beacons
        let json = self.json
        configuration.keepsLog = false
        // The first line says which version of the log's format follows.
        if json { FileHandle.standardOutput.write(Data((PlayerLogEntry.header.description + "\n").utf8)) }
        configuration.logHandler = { entry in
            if json { FileHandle.standardOutput.write(Data((entry.description + "\n").utf8)) }
        }
        let item = PlayerItem(
            url: Self.streamURL(self.url),
            automaticallyHandlesInterstitialEvents: !self.noInterstitials
        )
        let player = Player(
            item: item,
            clock: RealPlaybackClock(speed: self.speed),
            loader: loader,
            configuration: configuration
        )
        let (seeks, rates) = try self.timedOptions()
        for (target, at) in seeks {
            await player.schedule(.seek(to: MediaTime(seconds: target)), at: MediaTime(seconds: at))
        }
        for (value, at) in rates {
            await player.schedule(.rate(value), at: MediaTime(seconds: at))
        }
        for text in self.skip {
            await player.schedule(.skipCurrentEvent, at: try Self.skipTime(text))
        }
        await player.play()
        let limit = self.until.map { MediaTime(seconds: $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await player.run(until: limit) }
            if !json {
                group.addTask {
                    while !Task.isCancelled {
                        let time = await player.currentTime
                        let event = await player.currentInterstitialEventID ?? "-"
                        let buffered = await player.primaryBufferedTime
                        let status = await player.timeControlStatus
                        let line = String(
                            format: "\r%8.2f s  event %@  buffered to %.1f s  %@   ",
                            time.seconds,
                            event,
                            buffered.seconds,
                            status.description
                        )
                        FileHandle.standardError.write(Data(line.utf8))
                        try await clock.sleep(for: .milliseconds(250))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
        if !json { FileHandle.standardError.write(Data("\n".utf8)) }
        if let error = await player.error {
            // Network failures already say what happened and where, in words.
            let transport = error.code == .transport || error.code == .timeout
            printError("intermission: " + (transport ? error.message : error.description))
            throw ExitCode(2)
        }
    }
}
