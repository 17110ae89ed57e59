import ArgumentParser
import Foundation
import GroupPlayback
import Hummingbird
import Logging
import ReceiverServer

/// `intermission receiver`: a headless receiver that senders hand sessions to.
struct ReceiverCommandLine: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiver",
        abstract: "Run a headless receiver that plays sessions handed over by `intermission cast`.",
        discussion: """
            Prints its URL, then every event of the sessions it plays (interstitials starting and \
            ending, remote commands with their answers, transition risks). It enforces X-RESTRICT on \
            every remote command as the local player would. With --profile (a receiver profile such \
            as Examples/receiver-low-end.json) it reports, before an interstitial plays, when its \
            variant needs another decoder or output mode than the primary's. Senders pair with \
            the token it prints (a random one unless --token or INTERMISSION_RECEIVER_TOKEN gives \
            it): every request but /health needs Authorization: Bearer TOKEN, a Host naming the \
            receiver (its address, localhost, or an --allow-host name), no foreign Origin, and \
            Content-Type: application/json on a POST.
            """
    )

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8090

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "A receiver profile (JSON): the codecs, ranges and sizes it decodes.")
    var profile: String?

    @Option(
        help: """
            The token senders pair with (16 to 256 visible ASCII characters; default: \
            INTERMISSION_RECEIVER_TOKEN, or a random one printed at start).
            """
    )
    var token: String?

    @Option(help: "A further host name the Host header may carry (a LAN name, say); repeatable, at most 64.")
    var allowHost: [String] = []

    @Flag(help: "Print the URL and the events as JSON lines.")
    var json = false

    func validate() throws {
        guard (0...65_535).contains(self.port) else { throw ValidationError("--port takes 0 to 65535") }
        _ = try self.access()
    }

    /// The access rules: the token given (`--token`, else the environment) or a random one, and
    /// the `--allow-host` names.
    func access() throws -> ReceiverAccess {
        let given = self.token ?? environmentToken()
        do {
            return try ReceiverAccess(token: given ?? ReceiverAccess.randomToken(), allowedHosts: self.allowHost)
        } catch {
            let option = error.field == "token" ? "--token" : "--allow-host"
            throw ValidationError("\(option): \(error.message)")
        }
    }

    func run() async throws {
        var profile: ReceiverProfile?
        if let file = self.profile {
            guard let data = FileManager.default.contents(atPath: file) else {
                printError("intermission: \(file): cannot be read")
                throw ExitCode(2)
            }
            do {
                profile = try ReceiverProfile.decode(Array(data))
            } catch {
                printError("intermission: \(file): \(error)")
                throw ExitCode(2)
            }
        }
        let access = try self.access()
        let receiver = Receiver(profile: profile)
        let updates = await receiver.updates()
        let json = self.json
        let host = self.host == "0.0.0.0" ? "127.0.0.1" : self.host
        var logger = Logger(label: "intermission.receiver")
        logger.logLevel = .warning
        let app = buildReceiverApplication(
            receiver: receiver,
            access: access,
            hostname: self.host,
            port: self.port,
            logger: logger
        ) { port in
            let url = "http://\(host):\(port)"
            if json {
                ReceiverOutput.line(["event": "listening", "url": url, "token": access.token])
            } else {
                ReceiverOutput.write("intermission receiver listening on \(url)\npairing token: \(access.token)\n")
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            group.addTask {
                for await event in updates { ReceiverOutput.print(event, json: json) }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}

/// The pairing token in `INTERMISSION_RECEIVER_TOKEN`, when it is set and not empty.
func environmentToken() -> String? {
    guard let token = ProcessInfo.processInfo.environment[ReceiverAccess.tokenEnvironmentVariable], !token.isEmpty
    else { return nil }
    return token
}

/// How `receiver` and `cast` print.
enum ReceiverOutput {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func line(_ fields: [String: String]) {
        let data =
            (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func encoded(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// One event: a JSON line, or `t kind [event] [message]`.
    static func print(_ event: ReceiverEvent, json: Bool) {
        if json {
            Self.write(Self.encoded(event) + "\n")
            return
        }
        var parts = [String(format: "%8.3f", event.t), event.kind]
        if let id = event.eventID { parts.append(id) }
        if let time = event.primaryTime { parts.append("at \(String(format: "%.3f", time))") }
        if let events = event.events { parts.append("[" + events.joined(separator: ", ") + "]") }
        if let reply = event.reply {
            parts.append("\(reply.command.rawValue) \(reply.allowed ? "allowed" : "refused"): \(reply.reason)")
        }
        if let message = event.message { parts.append(message) }
        Self.write(parts.joined(separator: " ") + "\n")
    }
}

/// `intermission cast`: hands a stream over to a receiver and prints what the receiver does.
struct Cast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hand a stream over to a receiver (intermission receiver) and print its events.",
        discussion: """
            Sends the session (URL, position, plan, client-side events, languages) to the receiver, \
            then prints the receiver's events until the session ends (or --until seconds pass). \
            Commands: --seek T (once the receiver plays) or T@AT, --pause AT, --rate R@AT and --skip \
            AT (AT: seconds after the receiver first plays), and, when standard input is a terminal \
            or a pipe, one a line (play, pause, rate R, seek T, skip); the receiver's answer to each \
            (granted, or refused with the restriction's reason) is printed. \
            Plans: A ads as the playlist says, B no ads, C the first ad of a pod cannot be skipped, \
            the later ones can. Only this session's events are printed; when another sender hands \
            over a new session, this one ends and cast exits 3 saying so.
            """
    )

    @Argument(help: "The multivariant or media playlist URL to play.")
    var streamURL: String

    @Option(help: "The receiver's URL (http://HOST:PORT).")
    var to: String

    @Option(help: "The token the receiver printed (default: INTERMISSION_RECEIVER_TOKEN).")
    var token: String?

    @Option(help: "The service plan: A, B or C.")
    var plan: String = "A"

    @Option(help: "Where to start, in seconds on the primary timeline.")
    var position: Double?

    @Option(
        help:
            "Seek the receiver to T seconds: T alone once it plays, T@AT AT seconds after it first plays; repeatable, sent in order."
    )
    var seek: [String] = []

    @Option(help: "Pause the receiver AT seconds after it first plays; repeatable.")
    var pause: [String] = []

    @Option(help: "Set the receiver's rate to R (0 pauses) AT seconds after it first plays (R@AT); repeatable.")
    var rate: [String] = []

    @Option(help: "Ask the receiver to skip its current interstitial AT seconds after it first plays; repeatable.")
    var skip: [String] = []

    /// The timed commands: `--seek T` alone is at 0 s (once the receiver plays), in order.
    var timedCommands: [TimedViewerCommand] {
        get throws {
            let seeks = self.seek.map { $0.contains("@") ? $0 : $0 + "@0" }
            return try TimedViewerCommand.options(pause: self.pause, seek: seeks, rate: self.rate, skip: self.skip)
        }
    }

    @Option(help: "A client-side interstitial as an EXT-X-DATERANGE line; repeatable.")
    var dateRange: [String] = []

    @Option(
        help:
            "The interstitial in progress on this sender, ID@OFFSET (seconds into it): the receiver continues it there; --position is where it is on the primary."
    )
    var interstitial: String?

    /// `--interstitial ID@OFFSET`, read.
    var interstitialInProgress: InterstitialInProgress? {
        get throws {
            guard let text = self.interstitial else { return nil }
            guard let at = text.lastIndex(of: "@") else {
                throw ValidationError("--interstitial takes ID@OFFSET, not '\(text.prefix(40))'")
            }
            let offset = try ViewerCommand.seconds(String(text[text.index(after: at)...]), what: "--interstitial")
            return InterstitialInProgress(eventID: String(text[..<at]), offset: offset)
        }
    }

    @Flag(help: "Do not play the playlist's own interstitials (automaticallyHandlesInterstitialEvents off).")
    var noInterstitials = false

    @Option(help: "The selected audio language.")
    var audioLanguage: String?

    @Option(help: "The selected subtitle language.")
    var subtitleLanguage: String?

    @Option(help: "Stop after this many seconds (0 to 1e6).")
    var until: Double?

    @Flag(help: "Print the receiver's events and answers as JSON lines.")
    var json = false

    func validate() throws {
        guard ServicePlan(rawValue: self.plan.uppercased()) != nil else {
            throw ValidationError("--plan takes A, B or C, not '\(self.plan.prefix(20))'")
        }
        try checkUntilOption(self.until)
        _ = try self.interstitialInProgress
        for command in try self.timedCommands {
            if case .seek(let time) = command.command, time > ReceiverSession.Limits.seconds {
                throw ValidationError("--seek takes seconds from 0 to 1e7")
            }
        }
    }

    /// Sends a viewer's command to the receiver; its answer comes back as a `command` event.
    static func send(_ command: ViewerCommand, with sender: ReceiverClient) async {
        let remote: ReceiverCommand
        switch command {
        case .play: remote = ReceiverCommand(.play)
        case .pause: remote = ReceiverCommand(.pause)
        case .rate(let rate): remote = ReceiverCommand(.rate, rate: rate)
        case .seek(let time): remote = ReceiverCommand(.seek, time: time)
        case .skip: remote = ReceiverCommand(.skip)
        }
        do {
            _ = try await sender.send(remote)
        } catch {
            printError("intermission: \(command): \(error)")
        }
    }

    var session: ReceiverSession {
        ReceiverSession(
            url: self.streamURL,
            position: self.position,
            plan: ServicePlan(rawValue: self.plan.uppercased()),
            automaticallyHandlesInterstitialEvents: self.noInterstitials ? false : nil,
            dateRanges: self.dateRange.isEmpty ? nil : self.dateRange,
            audioLanguage: self.audioLanguage,
            subtitleLanguage: self.subtitleLanguage,
            interstitial: try? self.interstitialInProgress
        )
    }

    func run() async throws {
        try await self.run(clock: ContinuousClock())
    }

    /// Runs the command, the timed commands and `--until` on `clock`.
    func run(clock: some Clock<Duration>) async throws {
        let session = self.session
        if let problem = session.problems().first {
            printError("intermission: \(problem)")
            throw ExitCode(2)
        }
        let sender: ReceiverClient
        // The session's number: events of other sessions (an earlier sender's, or a later one that
        // replaced this) are not this sender's.
        let mine: Int?
        do {
            let token = self.token ?? environmentToken()
            sender = try ReceiverClient(receiverURL: self.to, token: token)
            mine = try await sender.handOver(session).session
        } catch {
            printError("intermission: the receiver did not take the session: \(error)")
            throw ExitCode(2)
        }
        let json = self.json
        let script = try ViewerScript(commands: try self.timedCommands, until: self.until, clock: clock)
        let typed = StandardInputLines.lines()
        // Said once, when the receiver first plays: the timed commands count from then.
        let (played, playedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Self.follow(sender: sender, session: mine, script: script, json: json) {
                    playedContinuation.yield()
                    playedContinuation.finish()
                }
            }
            group.addTask {
                var iterator = played.makeAsyncIterator()
                if !script.commands.isEmpty, await iterator.next() != nil {
                    try await script.perform(from: clock.now) { await Self.send($0, with: sender) }
                }
                await waitUntilCancelled()
            }
            if let typed {
                group.addTask {
                    for await line in typed {
                        do {
                            guard let command = try ViewerCommand.parse(line: line) else { continue }
                            await Self.send(command, with: sender)
                        } catch {
                            printError("intermission: \(error)")
                        }
                    }
                    await waitUntilCancelled()
                }
            }
            // Following the session ends the command (its end, its error, a replacement, --until).
            try await group.next()
            group.cancelAll()
        }
    }

    /// Prints this session's events until it ends, fails, is replaced or the script's `until`
    /// seconds pass on its clock (checked between long polls); `played` is called when the
    /// receiver first plays.
    static func follow<C: Clock<Duration>>(
        sender: ReceiverClient,
        session mine: Int?,
        script: ViewerScript<C>,
        json: Bool,
        played: @Sendable () -> Void
    ) async throws {
        let deadline = script.deadline(from: script.clock.now)
        var last = 0
        var playing = false
        while script.isBefore(deadline) {
            let events: [ReceiverEvent]
            do {
                events = try await sender.events(after: last, wait: .seconds(1))
            } catch {
                printError("intermission: \(error)")
                throw ExitCode(2)
            }
            for event in events {
                last = max(last, event.sequence)
                guard mine == nil || event.session == nil || event.session == mine else { continue }
                if event.kind == "replaced" {
                    ReceiverOutput.print(event, json: json)
                    printError("intermission: another sender took the receiver over; this session has ended")
                    throw ExitCode(3)
                }
                ReceiverOutput.print(event, json: json)
                if event.kind == "ended" { return }
                if event.kind == "error" {
                    printError(
                        "intermission: the receiver cannot play the stream: \(event.message ?? "no reason given")"
                    )
                    throw ExitCode(1)
                }
                if event.kind == "status", event.message == "playing", !playing {
                    playing = true
                    played()
                }
            }
        }
    }
}
