import ArgumentParser
import Foundation
import HLSPlaylist
import InterstitialPlayback

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

    @Argument(help: "The multivariant or media playlist URL.")
    var url: String

    @Option(help: "Clock seconds per real second.")
    var speed: Double = 1

    @Option(help: "Stop when the playback clock reaches T seconds.")
    var until: Double?

    @Option(help: "Seek the primary to T when the clock reads AT (T@AT); repeatable.")
    var seek: [String] = []

    @Option(help: "Set the rate to R when the clock reads AT (R@AT); repeatable.")
    var rate: [String] = []

    @Flag(help: "Ignore the playlist's interstitials.")
    var noInterstitials = false

    @Option(help: "Preferred audio and subtitle language.")
    var language: String?

    @Flag(help: "Print the event log as JSON lines.")
    var json = false

    static func pair(_ text: String) throws -> (Double, Double) {
        let parts = text.split(separator: "@")
        guard parts.count == 2, let value = Double(parts[0]), let at = Double(parts[1]) else {
            throw ValidationError("expected VALUE@TIME, got '\(text)'")
        }
        return (value, at)
    }

    func validate() throws {
        guard self.speed > 0 else { throw ValidationError("--speed must be positive") }
        for text in self.seek + self.rate { _ = try Self.pair(text) }
    }

    func run() async throws {
        var configuration = Player.Configuration()
        configuration.preferredLanguages = self.language.map { [$0] } ?? []
        let json = self.json
        configuration.keepsLog = false
        configuration.logHandler = { entry in
            if json { FileHandle.standardOutput.write(Data((entry.description + "\n").utf8)) }
        }
        let item = PlayerItem(url: self.url, automaticallyHandlesInterstitialEvents: !self.noInterstitials)
        let player = Player(item: item, clock: RealPlaybackClock(speed: self.speed), configuration: configuration)
        for text in self.seek {
            let (target, at) = try Self.pair(text)
            await player.schedule(.seek(to: MediaTime(seconds: target)), at: MediaTime(seconds: at))
        }
        for text in self.rate {
            let (value, at) = try Self.pair(text)
            await player.schedule(.rate(value), at: MediaTime(seconds: at))
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
                        let line = String(format: "\r%8.2f s  event %@  buffered to %.1f s  %@   ", time.seconds, event, buffered.seconds, status.description)
                        FileHandle.standardError.write(Data(line.utf8))
                        try await Task.sleep(for: .milliseconds(250))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
        if !json { FileHandle.standardError.write(Data("\n".utf8)) }
        if let error = await player.error {
            printError("intermission: \(error)")
            throw ExitCode(2)
        }
    }
}
