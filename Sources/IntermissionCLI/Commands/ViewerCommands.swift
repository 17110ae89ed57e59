import ArgumentParser
import Foundation
import HLSPlaylist
import Synchronization

/// A viewer's command to a group (`intermission group`) or a receiver (`intermission cast`), given
/// as options at a time, or typed on standard input at once.
enum ViewerCommand: Sendable, Hashable, CustomStringConvertible {
    case play
    case pause
    case rate(Double)
    case seek(Double)
    case skip

    /// The command's name, as typed and as printed in answers.
    var name: String {
        switch self {
        case .play: "play"
        case .pause: "pause"
        case .rate: "rate"
        case .seek: "seek"
        case .skip: "skip"
        }
    }

    /// `seek 30`, `rate 2`, `pause`.
    var description: String {
        switch self {
        case .rate(let rate): "rate \(rate)"
        case .seek(let time): "seek \(time)"
        default: self.name
        }
    }

    /// The highest rate taken (as `play --speed`).
    static let maximumRate = 1000.0
    /// The latest time taken, in seconds (as `play`'s times).
    static let maximumSeconds = 1e9

    /// Reads one line of standard input: `play`, `pause`, `rate R`, `seek T`, `skip` (case
    /// insensitive, spaces around); `nil` for a blank line or a `#` comment.
    ///
    /// - Throws: `ValidationError` saying what is wrong with the line.
    static func parse(line: some StringProtocol) throws -> ViewerCommand? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = words.first, !first.hasPrefix("#") else { return nil }
        guard line.utf8.count <= 200 else { throw ValidationError("a command line takes at most 200 bytes") }
        let verb = first.lowercased()
        let argument = words.dropFirst().first.map { String($0) }
        guard words.count <= 2 else {
            throw ValidationError("'\(line.prefix(40))': one command and its number per line")
        }
        switch (verb, argument) {
        case ("play", nil): return .play
        case ("pause", nil): return .pause
        case ("skip", nil): return .skip
        case ("rate", let value?): return .rate(try Self.rate(value))
        case ("seek", let value?): return .seek(try Self.seconds(value, what: "seek"))
        default:
            throw ValidationError(
                "'\(line.prefix(40))' is not a command: play, pause, rate R, seek T or skip, one a line"
            )
        }
    }

    /// A rate from 0 to ``maximumRate``.
    static func rate(_ text: String) throws -> Double {
        guard let rate = Double(text), rate.isFinite, rate >= 0, rate <= Self.maximumRate else {
            throw ValidationError("a rate is a number from 0 to 1000, not '\(text.prefix(40))'")
        }
        return rate
    }

    /// Seconds from 0 to ``maximumSeconds``, read with `MediaTime.read` (no exponent, NaN or sign).
    static func seconds(_ text: String, what: String) throws -> Double {
        guard case .time(let time) = MediaTime.read(text, allowSign: false),
            time <= MediaTime(seconds: Self.maximumSeconds)
        else {
            throw ValidationError("\(what) takes seconds from 0 to 1e9, not '\(text.prefix(40))'")
        }
        return time.seconds
    }
}

/// A ``ViewerCommand`` to give at a time: seconds after the viewer joined the group (`group`) or
/// after the receiver first played (`cast`).
struct TimedViewerCommand: Sendable, Hashable {
    var at: Double
    var command: ViewerCommand

    /// The commands of the `--pause AT`, `--seek T@AT`, `--rate R@AT` and `--skip AT` options, in
    /// the order of their times (options at the same time in that order).
    static func options(pause: [String], seek: [String], rate: [String], skip: [String]) throws -> [TimedViewerCommand]
    {
        var commands: [TimedViewerCommand] = []
        for text in pause {
            commands.append(TimedViewerCommand(at: try ViewerCommand.seconds(text, what: "--pause"), command: .pause))
        }
        for text in seek {
            let (value, at) = try Self.pair(text, option: "--seek")
            commands.append(
                TimedViewerCommand(
                    at: try ViewerCommand.seconds(at, what: "--seek"),
                    command: .seek(try ViewerCommand.seconds(value, what: "--seek"))
                )
            )
        }
        for text in rate {
            let (value, at) = try Self.pair(text, option: "--rate")
            commands.append(
                TimedViewerCommand(
                    at: try ViewerCommand.seconds(at, what: "--rate"),
                    command: .rate(try ViewerCommand.rate(value))
                )
            )
        }
        for text in skip {
            commands.append(TimedViewerCommand(at: try ViewerCommand.seconds(text, what: "--skip"), command: .skip))
        }
        // A stable sort: same-time commands keep the options' order.
        return commands.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// `VALUE@AT`.
    static func pair(_ text: String, option: String) throws -> (String, String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ValidationError("\(option) takes VALUE@AT, not '\(text.prefix(40))'") }
        return (String(parts[0]), String(parts[1]))
    }
}

/// The lines typed on standard input, when it is a terminal in the foreground or a pipe (a file or
/// `/dev/null` is not read): one ``ViewerCommand`` a line.
enum StandardInputLines {
    /// Whether standard input is a pipe, or a terminal whose foreground this process is (a
    /// background process reading its terminal would be stopped).
    static var isInteractiveOrPiped: Bool {
        var status = stat()
        guard fstat(0, &status) == 0 else { return false }
        if (status.st_mode & S_IFMT) == S_IFIFO { return true }
        return isatty(0) == 1 && tcgetpgrp(0) == getpgrp()
    }

    /// The lines, as they arrive, until end of input; `nil` when standard input is not read.
    ///
    /// A thread of its own reads with blocking `read(2)` calls until the end of input. It used to be
    /// `FileHandle.readabilityHandler`, a dispatch source on descriptor 0; on Linux, cancelling that
    /// source at the end of a pipe's input could crash libdispatch's event loop
    /// (`_dispatch_event_loop_drain`, a bad pointer), seen in `cast` with an empty piped input.
    /// The thread ends at the end of input or a read error; a command that ends first exits with
    /// the thread still blocked in `read`, which holds nothing else.
    static func lines() -> AsyncStream<String>? {
        guard Self.isInteractiveOrPiped else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
        Thread.detachNewThread {
            let buffer = LineBuffer()
            var bytes = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for line in buffer.append(Data(bytes[0..<count])) { continuation.yield(line) }
            }
            // End of input: what is left is the last line.
            if let rest = buffer.finish() { continuation.yield(rest) }
            continuation.finish()
        }
        return stream
    }
}

/// Bytes read so far, cut into lines (a line longer than 4 KiB is cut there).
final class LineBuffer: Sendable {
    private let pending = Mutex<[UInt8]>([])

    /// Adds `data` and returns the lines it completes.
    func append(_ data: Data) -> [String] {
        self.pending.withLock { pending in
            var lines: [String] = []
            for byte in data {
                if byte == UInt8(ascii: "\n") || pending.count >= 4096 {
                    lines.append(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                    if byte == UInt8(ascii: "\n") { continue }
                }
                pending.append(byte)
            }
            return lines
        }
    }

    /// The unfinished last line, if any.
    func finish() -> String? {
        self.pending.withLock { pending in
            guard !pending.isEmpty else { return nil }
            defer { pending.removeAll() }
            return String(decoding: pending, as: UTF8.self)
        }
    }
}

/// Waits until the task is cancelled (a command source that has said everything leaves the
/// command's other tasks running).
func waitUntilCancelled() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    for await _ in stream {}
    continuation.finish()
}
