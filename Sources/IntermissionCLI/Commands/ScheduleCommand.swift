import ArgumentParser
import Foundation
import HLSInterstitials
import HLSPlaylist

/// `intermission schedule`: the integrated timeline a player follows.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Print the interstitial schedule: a table, the JSON contract, or an SVG picture.",
        discussion: """
            Times are seconds on the primary timeline (0 = start of the first segment). Given a \
            multivariant playlist, the first variant's media playlist is the primary, and its default \
            audio rendition (when it has its own playlist) takes part in X-SNAP. Same-ID date ranges \
            are merged first. --live-join starts where a player joins a live playlist (HOLD-BACK, or \
            three target durations from the end); --start T starts at T seconds or at an ISO-8601 date. \
            Scheduled date ranges (CLASS="com.apple.hls.daterange-schedule", Appendix H of Apple's \
            preliminary WWDC26 draft) are resolved: each X-URI is read next to the playlist or over \
            HTTP, nested schedules too, and their interstitials join the schedule with their \
            scheduleIdentifier; --no-schedules leaves them out.
            """
    )

    @Argument(help: "A media or multivariant playlist: a file, '-' for standard input, or an http(s) URL.")
    var playlist: String

    @Flag(help: "Print the JSON contract (ARCHITECTURE.md) instead of the table.")
    var json = false

    @Option(help: "Also write an SVG picture of the timeline to this file.")
    var svg: String?

    @Flag(help: "Start where a player joins a live playlist.")
    var liveJoin = false

    @Option(help: "Start at this primary time in seconds, or at an ISO-8601 date.")
    var start: String?

    @Option(name: .customLong("asset-duration"), help: "A known asset duration: ID=SECONDS[,SECONDS...] (repeatable).")
    var assetDurations: [String] = []

    @Option(
        name: .customLong("played"),
        help: "An event already played in this session (repeatable): ONCE events do not play again."
    )
    var played: [String] = []

    @Flag(help: "Schedule the primary alone (AVFoundation automaticallyHandlesInterstitialEvents = false).")
    var noInterstitials = false

    @Flag(help: "Do not read scheduled date ranges (com.apple.hls.daterange-schedule).")
    var noSchedules = false

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if self.liveJoin && self.start != nil { throw ValidationError("give --live-join or --start, not both") }
        if let start, MediaTime(start) == nil, DateTime(iso8601: start) == nil {
            throw ValidationError("--start takes seconds or an ISO-8601 date, not '\(start)'")
        }
    }

    func run() async throws {
        let input = try await PlaylistInput.readPlaylistOrExit(self.playlist, timeout: self.network.timeout)
        var primaries: [MediaPlaylist] = []
        switch PlaylistParser.parse(input.bytes, options: .init(file: input.name)).playlist {
        case .media(let media):
            primaries = [media]
        case .multivariant(let multivariant):
            guard let variant = multivariant.variants.first else {
                printError("intermission: \(input.name): the multivariant playlist has no variant")
                throw ExitCode(2)
            }
            var uris = [variant.uri]
            if let group = variant.audioGroup {
                let audio = multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
                if let uri = (audio.first(where: \.isDefault) ?? audio.first)?.uri { uris.append(uri) }
            }
            for uri in uris {
                let location = input.resolve(uri)
                do {
                    let child = try await PlaylistInput.read(location, timeout: self.network.timeout)
                    guard case .media(let media) = PlaylistParser.parse(child.bytes).playlist else {
                        printError("intermission: \(location): not a media playlist")
                        throw ExitCode(2)
                    }
                    primaries.append(media)
                } catch let error as ExitCode {
                    throw error
                } catch {
                    printError("intermission: \(error)")
                    throw ExitCode(2)
                }
            }
        }
        var configuration = Schedule.Configuration(
            playedEventIDs: Set(self.played),
            handlesInterstitialEvents: !self.noInterstitials
        )
        if self.liveJoin {
            configuration.start = .liveJoin
        } else if let start {
            configuration.start = MediaTime(start).map { .time($0) } ?? DateTime(iso8601: start).map { .date($0) }
        }
        for entry in self.assetDurations {
            let parts = entry.split(separator: "=", maxSplits: 1)
            let values = parts.count == 2 ? parts[1].split(separator: ",").compactMap { MediaTime($0) } : []
            guard parts.count == 2, !values.isEmpty else {
                throw ValidationError("--asset-duration takes ID=SECONDS[,SECONDS...], not '\(entry)'")
            }
            configuration.assetDurations[String(parts[0])] = values
        }
        var events = InterstitialEvent.events(in: primaries[0])
        if !self.noSchedules {
            let written = Set(events.map(\.identifier))
            let scheduled = await ScheduleDocuments.resolve(
                playlist: primaries[0],
                input: input,
                timeout: self.network.timeout
            )
            events += scheduled.events.filter { !written.contains($0.identifier) }
            for diagnostic in scheduled.diagnostics { printError(diagnostic.description) }
        }
        let schedule = Schedule(primary: primaries, events: events, configuration: configuration)
        // Events left out as unusable: say why on standard error (the timeline stays on standard output).
        for diagnostic in schedule.diagnostics(file: input.name) {
            printError(diagnostic.description)
        }
        if let svg {
            do {
                try schedule.svg().write(toFile: svg, atomically: true, encoding: .utf8)
            } catch {
                printError("intermission: cannot write \(svg): \(error)")
                throw ExitCode(2)
            }
        }
        print(self.json ? schedule.jsonDescription : schedule.table)
    }
}
