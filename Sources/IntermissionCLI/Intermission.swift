import ArgumentParser

/// The `intermission` command: HLS Interstitials tools.
@main
struct Intermission: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intermission",
        abstract: "HLS Interstitials: validate, format, schedule, insert, play and serve.",
        version: "0.1.0",
        subcommands: [
            Validate.self, Format.self, ScheduleCommand.self, Insert.self, Serve.self, Play.self, Group.self,
            ReceiverCommandLine.self, Cast.self, Token.self, Download.self,
        ]
    )
}
