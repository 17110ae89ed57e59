import ArgumentParser
import Foundation
import HLSInterstitials
import HLSPlaylist

/// `intermission validate`: spec conformance of playlists and their interstitials.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check playlists against draft-pantos-hls-rfc8216bis and its interstitial rules.",
        discussion: """
            Prints one line per problem: file:line:col: severity[RULE]: message (hint). A multivariant \
            playlist is checked with every media playlist it references, and the media playlists are \
            checked against each other (the same interstitials in each). The documents of scheduled \
            date ranges (com.apple.hls.daterange-schedule, Appendix H of Apple's preliminary WWDC26 \
            draft) are read and checked too, each problem located by document and JSON pointer \
            (document#/DATERANGES/2/X-SCHEDULE-OFFSET). Exit status: 0 no errors, \
            1 errors found, 2 unusable input.
            """
    )

    @Argument(help: "Playlist files, '-' for standard input, or http(s) URLs.")
    var playlists: [String]

    @Flag(help: "Print a JSON array of diagnostics instead of text.")
    var json = false

    @Flag(help: "Leave out notes (keep errors and warnings).")
    var noNotes = false

    @Option(help: "Add the rules of a client profile (podcast: Apple Podcasts, rules INT-PODCAST-*).")
    var profile: ValidationProfile?

    @OptionGroup var network: NetworkOptions

    func run() async throws {
        let validator = InterstitialValidator(configuration: .init(includesNotes: !self.noNotes))
        var diagnostics: [PlaylistDiagnostic] = []
        var scheduleDiagnostics: [ScheduleDiagnostic] = []
        for location in self.playlists {
            let input = try await PlaylistInput.readPlaylistOrExit(location, timeout: self.network.timeout)
            diagnostics += validator.validate(playlist: input.bytes, file: input.name, profile: self.profile)
            let parsed = PlaylistParser.parse(input.bytes)
            if case .media(let media) = parsed.playlist {
                scheduleDiagnostics += await ScheduleDocuments.resolve(
                    playlist: media,
                    input: input,
                    timeout: self.network.timeout
                ).diagnostics
            }
            guard case .multivariant(let multivariant) = parsed.playlist else { continue }
            var mediaPlaylists: [String: MediaPlaylist] = [:]
            for uri in InterstitialInserter.mediaPlaylistURIs(in: multivariant) {
                let child = input.resolve(uri)
                do {
                    let media = try await PlaylistInput.read(child, timeout: self.network.timeout)
                    diagnostics += validator.validate(playlist: media.bytes, file: child, profile: self.profile)
                    if case .media(let playlist) = PlaylistParser.parse(media.bytes).playlist {
                        mediaPlaylists[uri] = playlist
                    }
                } catch {
                    diagnostics.append(
                        PlaylistDiagnostic(
                            severity: .error,
                            rule: "CLI-UNREADABLE",
                            message: "the media playlist \(uri) cannot be read: \(error)",
                            hint: "check the URI in the multivariant playlist",
                            location: SourceLocation(file: input.name, line: 1, column: 1)
                        )
                    )
                }
            }
            diagnostics += validator.validate(
                multivariant: multivariant,
                file: input.name,
                mediaPlaylists: mediaPlaylists
            )
        }
        if self.noNotes { scheduleDiagnostics.removeAll { $0.severity == .note } }
        if self.json {
            let array = JSONValue.array(diagnostics.map(\.json) + scheduleDiagnostics.map(\.json))
            print(array.text(options: .pretty))
        } else {
            for diagnostic in diagnostics { print(diagnostic) }
            for diagnostic in scheduleDiagnostics { print(diagnostic) }
            let severities = diagnostics.map(\.severity) + scheduleDiagnostics.map(\.severity)
            let errors = severities.filter { $0 == .error }.count
            let warnings = severities.filter { $0 == .warning }.count
            printError("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if diagnostics.contains(where: { $0.severity == .error })
            || scheduleDiagnostics.contains(where: { $0.severity == .error })
        {
            throw ExitCode(1)
        }
    }
}

extension ValidationProfile: ExpressibleByArgument {}

extension PlaylistDiagnostic {
    /// The diagnostic as a JSON object.
    var json: JSONValue {
        .object([
            ("file", self.location.file.map { .string($0) } ?? .null),
            ("line", .number(Double(self.location.line))),
            ("column", .number(Double(self.location.column))),
            ("severity", .string(self.severity.description)),
            ("rule", .string(self.rule.rawValue)),
            ("message", .string(self.message)),
            ("hint", .string(self.hint)),
        ])
    }
}
