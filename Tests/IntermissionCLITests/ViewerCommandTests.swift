import Foundation
import IntermissionTestSupport
import Testing

@testable import IntermissionCLI

/// The commands `group` and `cast` take, as options at a time and typed on standard input.
@Suite(.realTime) struct ViewerCommandTests {
    @Test func typedLinesAreReadAsCommands() throws {
        #expect(try ViewerCommand.parse(line: "pause") == .pause)
        #expect(try ViewerCommand.parse(line: "  PLAY\r") == .play)
        #expect(try ViewerCommand.parse(line: "seek 30.5") == .seek(30.5))
        #expect(try ViewerCommand.parse(line: "rate 2") == .rate(2))
        #expect(try ViewerCommand.parse(line: "rate 0") == .rate(0))
        #expect(try ViewerCommand.parse(line: "skip") == .skip)
        #expect(try ViewerCommand.parse(line: "") == nil)
        #expect(try ViewerCommand.parse(line: "# a comment") == nil)
        for bad in [
            "seek", "seek -1", "seek nan", "seek 1e308", "seek 1000000001", "rate 1001", "rate inf", "rate -1",
            "jump 3", "pause now", "seek 1 2", "seek \u{0}", String(repeating: "p", count: 100_000),
        ] {
            #expect(throws: (any Error).self, "\(bad.prefix(20))") { try ViewerCommand.parse(line: bad) }
        }
    }

    @Test func optionsAreOrderedByTimeAndRangeChecked() throws {
        let commands = try TimedViewerCommand.options(
            pause: ["5"],
            seek: ["30@1", "10@5"],
            rate: ["2@0.5"],
            skip: ["5"]
        )
        #expect(commands.map(\.at) == [0.5, 1, 5, 5, 5])
        // Same time: the options' order (pause, seek, rate, skip).
        #expect(commands.map(\.command) == [.rate(2), .seek(30), .pause, .seek(10), .skip])
        for (pause, seek, rate) in [
            (["-1"], [String](), [String]()), (["nan"], [], []), ([], ["30"], []), ([], ["30@"], []), ([], ["@1"], []),
            ([], ["9223372036854775807@1"], []), ([], [], ["2000@1"]), ([], [], ["2@1@2"]),
        ] {
            #expect(throws: (any Error).self, "\(pause) \(seek) \(rate)") {
                try TimedViewerCommand.options(pause: pause, seek: seek, rate: rate, skip: [])
            }
        }
    }

    @Test func badCommandOptionsAreRefusedByGroupAndCast() async throws {
        let group = try await CLI.run(["group", "ws://h/v1/groups/a", "http://127.0.0.1:1/x.m3u8", "--seek", "5"])
        #expect(group.status == 64 && group.stderr.contains("--seek takes VALUE@AT"), "\(group.stderr)")
        let rate = try await CLI.run(["group", "ws://h/v1/groups/a", "http://127.0.0.1:1/x.m3u8", "--rate", "nan@1"])
        #expect(rate.status == 64, "\(rate.stderr)")
        let cast = try await CLI.run([
            "cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1", "--pause", "-3",
        ])
        #expect(cast.status == 64, "\(cast.stderr)")
        for bad in ["ad1", "ad1@nan", "ad1@-2", "@3"] {
            let result = try await CLI.run([
                "cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1", "--interstitial", bad,
            ])
            #expect(
                [2, 64].contains(result.status) && result.stderr.contains("interstitial"),
                "\(bad): \(result.stderr)"
            )
        }
    }

    /// A time out of range (NaN, negative, 1e308, Int64.max, infinite) given to `--until` or as a
    /// command's time is refused by `group` and `cast` with a message naming the option, before
    /// they connect to anything (usage error, 64).
    @Test func timesOutOfRangeAreRefusedByGroupAndCastBeforeTheyRun() async throws {
        let commands = [
            ("group", ["group", "ws://127.0.0.1:1/v1/groups/a", "http://127.0.0.1:1/x.m3u8"]),
            ("cast", ["cast", "http://127.0.0.1:1/x.m3u8", "--to", "http://127.0.0.1:1"]),
        ]
        for (name, command) in commands {
            for (option, value, message) in [
                ("--until", "nan", "--until takes seconds from 0 to 1e6"),
                ("--until", "-1", "--until takes seconds from 0 to 1e6"),
                ("--until", "1e308", "--until takes seconds from 0 to 1e6"),
                ("--until", "9223372036854775807", "--until takes seconds from 0 to 1e6"),
                ("--pause", "nan", "--pause takes seconds from 0 to 1e9"),
                ("--skip", "1e308", "--skip takes seconds from 0 to 1e9"),
                ("--seek", "1@9223372036854775807", "--seek takes seconds from 0 to 1e9"),
                ("--rate", "1@-1", "--rate takes seconds from 0 to 1e9"),
            ] {
                let result = try await CLI.run(command + ["\(option)=\(value)"])
                #expect(
                    result.status == 64 && result.stderr.contains(message) && result.stdout.isEmpty,
                    "\(name) \(option)=\(value): \(result.stderr)"
                )
            }
        }
    }

    /// `play --seek T@AT` and `--rate R@AT` are read by the same reader as `group`'s and `cast`'s:
    /// before, `play` read them with `Double(_:)`, which takes exponents, hexadecimal and `nan`
    /// (refused later only by a range check), and a rate up to 1e9.
    @Test func playReadsItsTimedOptionsAsGroupAndCastDo() async throws {
        for (option, bad) in [
            ("--seek", "5"), ("--seek", "1e3@1"), ("--seek", "0x10@1"), ("--seek", "10@nan"), ("--seek", "-1@1"),
            ("--seek", "9223372036854775807@1"), ("--seek", "1@2@3"),
            ("--rate", "2000@1"), ("--rate", "1e308@1"), ("--rate", "-1@0"), ("--rate", "inf@1"),
            ("--rate", String(repeating: "9", count: 100_000) + "@1"),
        ] {
            let result = try await CLI.run(["play", "http://127.0.0.1:1/x.m3u8", option, bad])
            #expect(
                result.status == 64 && result.stderr.contains(option),
                "\(option) \(bad.prefix(20)): \(result.stderr)"
            )
        }
    }
}
