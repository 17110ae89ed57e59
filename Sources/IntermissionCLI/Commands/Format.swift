import ArgumentParser
import Foundation
import HLSInterstitials
import HLSPlaylist

/// `intermission format`: lossless re-serialization, and `--fix` for draft and legacy names.
struct Format: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the playlist re-serialized by the lossless model.",
        discussion: """
            The output equals the input byte for byte: comments, blank lines, CRLF line ends and \
            attribute order are kept. With --check nothing is printed and the exit status says \
            whether the round trip was exact (0) or not (1). Unreadable or non-playlist input exits 2.

            With --fix, draft, legacy and non-spec names are rewritten to the spec spelling and \
            everything else is kept byte for byte: X-CUE -> CUE, X-ENABLE-SKIP-AFTER and X-SKIP-AFTER \
            -> X-SKIP-CONTROL-OFFSET, X-ENABLE-SKIP-FOR -> X-SKIP-CONTROL-DURATION, X-RESTRICT member \
            SEEK -> SKIP, and CLASS="com.apple.hls.interstitial" is added to a date range with \
            X-ASSET-URI or X-ASSET-LIST but no CLASS. A .json file is an asset list: ENABLE-SKIP-AFTER \
            and ENABLE-SKIP-FOR in SKIP-CONTROL become OFFSET and DURATION. Each rewrite, and each \
            name left alone (no unambiguous spec name, or the spec name is already there), is listed \
            on standard error. With --fix --check nothing is printed and the exit status is 1 when \
            something would be rewritten.
            """
    )

    @Argument(
        help: "A playlist file, '-' for standard input, or an http(s) URL; with --fix also an asset-list .json file."
    )
    var playlist: String

    @Flag(help: "Exit 1 unless the re-serialized playlist is byte-identical to the input.")
    var check = false

    @Flag(help: "Rewrite draft and legacy names (X-CUE, X-ENABLE-SKIP-AFTER, …) to the spec spelling.")
    var fix = false

    @OptionGroup var network: NetworkOptions

    func run() async throws {
        if self.fix && self.playlist.hasSuffix(".json") {
            let name = self.playlist
            guard let size = ((try? FileManager.default.attributesOfItem(atPath: name))?[.size] as? NSNumber)?.intValue,
                size <= PlaylistInput.maximumSize, let data = FileManager.default.contents(atPath: name)
            else {
                printError("intermission: \(name): no such file, unreadable, or over 64 MiB")
                throw ExitCode(2)
            }
            try self.write(DraftNameFixer().fix(assetList: [UInt8](data)), name: name)
            return
        }
        let input = try await PlaylistInput.readPlaylistOrExit(self.playlist, timeout: self.network.timeout)
        if self.fix {
            try self.write(DraftNameFixer().fix(playlist: input.bytes), name: input.name)
            return
        }
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

    /// Lists the fixer's rewrites and the names it left alone on standard error, then prints the
    /// rewritten input (or, with `--check`, exits 1 when something would change).
    private func write(_ result: DraftNameFixer.Result, name: String) throws {
        for change in result.changes {
            printError("\(name):\(change.line):\(change.column): fixed: \(change.original) -> \(change.replacement)")
        }
        for left in result.unchanged {
            printError("\(name):\(left.line):\(left.column): left alone: \(left.original): \(left.replacement)")
        }
        if self.check {
            if !result.changes.isEmpty { throw ExitCode(1) }
            return
        }
        FileHandle.standardOutput.write(Data(result.bytes))
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
