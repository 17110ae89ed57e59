import ArgumentParser
import Foundation
import HLSPlaylist

/// `intermission format`: lossless re-serialization.
struct Format: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the playlist re-serialized by the lossless model.",
        discussion: """
            The output equals the input byte for byte: comments, blank lines, CRLF line ends and \
            attribute order are kept. With --check nothing is printed and the exit status says \
            whether the round trip was exact (0) or not (1). Unreadable or non-playlist input exits 2.
            """
    )

    @Argument(help: "A playlist file, '-' for standard input, or an http(s) URL.")
    var playlist: String

    @Flag(help: "Exit 1 unless the re-serialized playlist is byte-identical to the input.")
    var check = false

    @OptionGroup var network: NetworkOptions

    func run() async throws {
        let input = try await PlaylistInput.readPlaylistOrExit(self.playlist, timeout: self.network.timeout)
        let parsed = PlaylistParser.parse(input.bytes, options: .init(mode: .lenient, file: input.name))
        let output = parsed.playlist.serialized()
        if self.check {
            if output != input.bytes {
                printError("intermission: \(input.name): the re-serialized playlist differs from the input")
                throw ExitCode(1)
            }
            return
        }
        FileHandle.standardOutput.write(Data(output))
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
