import ArgumentParser
import Foundation
import GroupCoordination
import GroupPlayback
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback

/// `intermission group`: joins a group on a hub as a headless participant.
struct Group: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a coordinated-playback group as a headless participant.",
        discussion: """
            Connects to a group hub (intermission serve's /v1/groups/ID, ws:// or http://) and plays \
            STREAM-URL in step with the group: play, pause and seek by any participant reach every \
            other. The participant's own interstitials are left out of the group's timeline; with \
            --wait-for-interstitials (when this participant makes the group) the others wait for \
            them, otherwise a participant returning from an ad catches up. With --json every status \
            change and, each second, the position are printed as JSON lines. Commands: --pause AT, \
            --seek T@AT, --rate R@AT and --skip AT (AT: seconds after joining), and, when standard \
            input is a terminal or a pipe, one a line (play, pause, rate R, seek T, skip); each is \
            answered granted or refused, with the reason.
            """
    )

    @Argument(help: "The group's URL: ws://HOST:PORT/v1/groups/ID (http:// is taken as ws://).")
    var groupURL: String

    @Argument(help: "The multivariant or media playlist URL to play.")
    var streamURL: String

    @Flag(help: "Make the group wait while participants play interstitials (when this participant creates it).")
    var waitForInterstitials = false

    @Option(help: "This participant's name in the group (1 to 128 bytes; a new UUID by default).")
    var name: String?

    @Flag(help: "Ask the group to play once joined.")
    var play = false

    @Option(help: "Leave the group after this many seconds (0 to 1e6).")
    var until: Double?

    @Flag(help: "Ignore the stream's interstitials (a viewer without ads).")
    var noInterstitials = false

    @Flag(help: "Print status changes and positions as JSON lines.")
    var json = false

    @Option(help: "Ask the group to pause AT seconds after joining; repeatable.")
    var pause: [String] = []

    @Option(
        help: "Ask the group to seek to T (this participant's item time) AT seconds after joining (T@AT); repeatable."
    )
    var seek: [String] = []

    @Option(help: "Ask the group to play at rate R (0 pauses) AT seconds after joining (R@AT); repeatable.")
    var rate: [String] = []

    @Option(
        help:
            "Skip this participant's own interstitial AT seconds after joining (its skip control decides); repeatable."
    )
    var skip: [String] = []

    /// The timed commands of the options.
    var timedCommands: [TimedViewerCommand] {
        get throws {
            try TimedViewerCommand.options(pause: self.pause, seek: self.seek, rate: self.rate, skip: self.skip)
        }
    }

    /// The hub's WebSocket URL: `ws://` or `wss://`, `http(s)://` turned into them.
    static func socketURL(_ text: String) throws -> String {
        guard text.utf8.count <= 2_048, !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw ValidationError("the group URL must be at most 2048 bytes with no spaces or control characters")
        }
        for (from, to) in [("http://", "ws://"), ("https://", "wss://"), ("ws://", "ws://"), ("wss://", "wss://")]
        where text.lowercased().hasPrefix(from) {
            let rest = text.dropFirst(from.count)
            guard rest.contains("/v1/groups/") else { break }
            return to + rest
        }
        throw ValidationError(
            "the group URL must be ws://HOST:PORT/v1/groups/ID (or http://…), not '\(text.prefix(80))'"
        )
    }

    func validate() throws {
        _ = try Self.socketURL(self.groupURL)
        if let name, name.isEmpty || name.utf8.count > 128 { throw ValidationError("--name takes 1 to 128 bytes") }
        try checkUntilOption(self.until)
        _ = try self.timedCommands
    }

    /// Carries out a viewer's command: play, pause, rate and seek go to the group (the player's
    /// own restrictions judge them first); skip is this participant's own interstitial's.
    static func perform(_ command: ViewerCommand, coordinator: PlaybackCoordinator, player: Player, json: Bool) async {
        let allowed: Bool
        let reason: String
        switch command {
        case .play, .pause, .rate, .seek:
            let reply: GroupCommandReply
            switch command {
            case .pause, .rate(0): reply = await coordinator.pause()
            case .rate(let rate): reply = await coordinator.play(rate: rate)
            case .seek(let time): reply = await coordinator.seek(toItemTime: MediaTime(seconds: time))
            default: reply = await coordinator.play()
            }
            (allowed, reason) = (reply.allowed, reply.reason)
        case .skip:
            let decision = await InterstitialEventController(player: player).skipCurrentEvent()
            (allowed, reason) = (decision.isAllowed, decision.reason)
        }
        Self.report(
            [
                "event": "command", "command": command.description, "allowed": allowed ? "true" : "false",
                "reason": reason,
            ],
            json: json
        )
    }

    func run() async throws {
        try await self.run(clock: ContinuousClock())
    }

    /// Runs the command, every wait (the position reports, the timed commands, `--until`) on
    /// `clock`; joining is awaited on the coordinator, not polled.
    func run(clock: some Clock<Duration>) async throws {
        let player = Player(
            item: PlayerItem(url: self.streamURL, automaticallyHandlesInterstitialEvents: !self.noInterstitials)
        )
        let coordinator = PlaybackCoordinator(
            player: player,
            groupURL: try Self.socketURL(self.groupURL),
            configuration: .init(
                participantID: self.name ?? UUID().uuidString,
                policy: self.waitForInterstitials ? .waitsForInterstitials : GroupPolicy()
            )
        )
        let json = self.json
        let statuses = await coordinator.statusUpdates()
        let asksToPlay = self.play
        let script = try ViewerScript(commands: try self.timedCommands, until: self.until, clock: clock)
        let typed = StandardInputLines.lines()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await player.run() }
            group.addTask { try await coordinator.run() }
            group.addTask {
                for await status in statuses {
                    var fields = [
                        "event": "status", "status": status.description,
                        "timeControlStatus": status.timeControlStatus,
                    ]
                    // The player's own status and reason (`waitingForCoordinatedPlayback` while the
                    // group waits), and how long the wait should last when the others said.
                    fields["playerStatus"] = await player.timeControlStatus.description
                    if let reason = await player.reasonForWaitingToPlay {
                        fields["reasonForWaitingToPlay"] = reason.description
                    }
                    if let wait = await coordinator.expectedWait(status) {
                        fields["expectedWait"] = wait.decimalString(places: 3)
                    }
                    Self.report(fields, json: json)
                    if case .refused = status { throw ExitCode(1) }
                }
            }
            group.addTask {
                if asksToPlay {
                    guard await coordinator.waitForGroupTime() != nil else { return }
                    await coordinator.play()
                }
                while !Task.isCancelled {
                    try await clock.sleep(for: .seconds(1))
                    let time = await player.currentTime
                    let groupTime = await coordinator.groupTime
                    Self.report(
                        [
                            "event": "position", "primaryTime": time.decimalString(places: 3),
                            "groupTime": groupTime?.decimalString(places: 3) ?? "",
                            "playerStatus": await player.timeControlStatus.description,
                        ],
                        json: json
                    )
                }
            }
            // The options' commands, at their times after joining; `--until` (counted from now)
            // ends the command. Without it, the commands' end does not: the task then waits for
            // the others.
            group.addTask {
                let end = try await script.run(startingWhen: { _ = await coordinator.waitForGroupTime() }) {
                    await Self.perform($0, coordinator: coordinator, player: player, json: json)
                }
                if end == .performed { await waitUntilCancelled() }
            }
            if let typed {
                group.addTask {
                    // Typed before joining: carried out once joined.
                    guard await coordinator.waitForGroupTime() != nil else { return }
                    for await line in typed {
                        do {
                            guard let command = try ViewerCommand.parse(line: line) else { continue }
                            await Self.perform(command, coordinator: coordinator, player: player, json: json)
                        } catch {
                            printError("intermission: \(error)")
                        }
                    }
                    await waitUntilCancelled()
                }
            }
            try await group.next()
            group.cancelAll()
        }
        if let reasons = await coordinator.refusal {
            printError("intermission: the group refused this participant: " + reasons.joined(separator: "; "))
            throw ExitCode(1)
        }
        // The stream could not be played (the player stopped): say why, as `play` does.
        if let error = await player.error {
            let transport = error.code == .transport || error.code == .timeout
            printError("intermission: " + (transport ? error.message : error.description))
            throw ExitCode(2)
        }
    }

    static func report(_ fields: [String: String], json: Bool) {
        if json {
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            let line = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}
