import AdInsertion
import HLSPlaylist
import IntermissionHTTP
import IntermissionStore

/// The documented range of every number, name and size the server takes from outside: the
/// configuration file, the command line, admin bodies, queries, paths and headers.
///
/// <doc:SecurityAndLimits> lists the same ranges. A value outside its range is refused with a
/// message naming the field: exit 2 for the configuration, `400` for HTTP.
public enum InputLimits {
    /// IDs (breaks, creatives, assets, channels, media folders): 1 to 64 bytes of letters, digits,
    /// `-`, `_`, `.`, `~` (and neither `.` nor `..`).
    public static let idBytes: ClosedRange<Int> = 1...64
    /// `server.port` and `--port`.
    public static let port: ClosedRange<Int> = 0...65_535
    /// `server.maxUpstreamBytes`: 1 KiB to 256 MiB.
    public static let maximumUpstreamBytes: ClosedRange<Int> = 1024...268_435_456
    /// `server.upstreamTimeout`, seconds.
    public static let upstreamTimeout: ClosedRange<Double> = 0.1...300
    /// `server.idleTimeout`, seconds: the range ``ServerConfiguration/idleTimeout`` is kept to.
    public static let idleTimeout: ClosedRange<Double> = 0.1...86_400
    /// `server.maxConnections`: 1 to 1,048,576 (never above the descriptor limit less its reserve:
    /// see ``ServerConfiguration/maximumConnections``).
    public static let maximumConnections: ClosedRange<Int> = 1...1_048_576
    /// `server.requestHeadTimeout`, seconds.
    public static let requestHeadTimeout: ClosedRange<Double> = 0.1...3600
    /// `server.groupHelloTimeout` and `server.groupWriteTimeout`, seconds.
    public static let groupTimeout: ClosedRange<Double> = 0.1...300
    /// `server.groupPingInterval`, seconds.
    public static let groupPingInterval: ClosedRange<Double> = 0.1...3600
    /// `server.groupJoinsPerAddress`: up to a group's 64 participants.
    public static let groupJoinsPerAddress: ClosedRange<Int> = 1...64
    /// `server.groupMessagesPerSecond`.
    public static let groupMessagesPerSecond: ClosedRange<Double> = 0.1...10_000
    /// `server.groupMessageBurst`.
    public static let groupMessageBurst: ClosedRange<Int> = 1...10_000
    /// `server.groupSendQueue`, messages.
    public static let groupSendQueue: ClosedRange<Int> = 1...100_000
    /// `repeatWindow`, seconds (30 days at most).
    public static let repeatWindow: ClosedRange<Double> = 0...2_592_000
    /// Break and creative durations, early returns and SCTE-35 default durations, seconds
    /// (1 ms to one hour).
    public static let duration: ClosedRange<Double> = 0.001...3600
    /// `resumeOffset` (`X-RESUME-OFFSET`), seconds.
    public static let resumeOffset: ClosedRange<Double> = -3600...3600
    /// `startIn` of an admin break: from now to 30 days ahead, seconds.
    public static let startIn: ClosedRange<Double> = 0...2_592_000
    /// `start` of an admin break relative to now: one hour back to 30 days ahead, seconds.
    public static let startFromNow: ClosedRange<Double> = -3600...2_592_000
    /// `at` of a VOD mid-roll: seconds into the primary (7 days at most).
    public static let vodBreakAt: ClosedRange<Double> = 0...604_800
    /// A creative's `value`.
    public static let creativeValue: ClosedRange<Double> = 0...1_000_000
    /// A channel's `window`, segments.
    public static let window: ClosedRange<Int> = 3...1000
    /// `breaks.every` of a channel, seconds.
    public static let breakInterval: ClosedRange<Double> = 1...86_400
    /// `breaks.offset` of a channel, seconds.
    public static let breakOffset: ClosedRange<Double> = 0...86_400
    /// `lookahead` of a channel, seconds.
    public static let lookahead: ClosedRange<Double> = 0...3600
    /// `preloadWindow` of a channel, seconds (0: no preload ranges).
    public static let preloadWindow: ClosedRange<Double> = 0...3600
    /// `staleAfter` of a channel, seconds.
    public static let staleAfter: ClosedRange<Double> = 1...86_400
    /// Dates in the configuration (`programDateTime`, `startDate`): years 1970 to 2199.
    public static let dateSeconds: ClosedRange<Double> = 0...7_258_118_400
    /// URIs and URLs (inventory, origins, upstreams, `publicBaseURL`), bytes.
    public static let uriBytes: ClosedRange<Int> = 1...2048
    /// `_HLS_start_offset`, seconds (breaks last an hour at most).
    public static let startOffset: ClosedRange<Double> = 0...3600
    /// `_HLS_primary_id` and `X-Playback-Session-Id`, bytes.
    public static let primaryIDBytes = 200
    /// The request target (path and query), bytes; longer gets `414`.
    public static let requestTargetBytes = HTTPLimits.requestTargetBytes
    /// One header field (name and value), bytes; longer gets `431`.
    public static let headerFieldBytes = HTTPLimits.headerFieldBytes
    /// All header fields together, bytes; more gets `431`.
    public static let headerBlockBytes = HTTPLimits.headerBlockBytes
    /// Header fields per request; more gets `431`.
    public static let headerFieldCount = HTTPLimits.headerFieldCount
    /// An admin request body, bytes; larger gets `413`.
    public static let adminBodyBytes = HTTPLimits.bodyBytes

    /// A number of seconds checked against `range` (NaN and infinities are outside every range).
    ///
    /// - Throws: ``InputLimitError`` naming `field` and the range.
    static func seconds(
        _ value: Double,
        in range: ClosedRange<Double>,
        field: String
    ) throws(InputLimitError) -> MediaTime {
        guard value.isFinite, range.contains(value) else {
            throw InputLimitError(
                field: field,
                message:
                    "must be a number of seconds from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)), got \(Self.text(value))"
            )
        }
        return MediaTime(seconds: value)
    }

    /// A number of seconds checked against `range`, as a duration (whole milliseconds).
    ///
    /// - Throws: ``InputLimitError`` naming `field` and the range.
    static func duration(
        _ value: Double,
        in range: ClosedRange<Double>,
        field: String
    ) throws(InputLimitError) -> Duration {
        .milliseconds(try Self.seconds(value, in: range, field: field).milliseconds)
    }

    /// A number checked against `range` (NaN and infinities are outside every range).
    static func number(_ value: Double, in range: ClosedRange<Double>, field: String) throws(InputLimitError) -> Double
    {
        guard value.isFinite, range.contains(value) else {
            throw InputLimitError(
                field: field,
                message:
                    "must be a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)), got \(Self.text(value))"
            )
        }
        return value
    }

    /// An integer checked against `range`.
    static func integer(_ value: Int, in range: ClosedRange<Int>, field: String) throws(InputLimitError) -> Int {
        guard range.contains(value) else {
            throw InputLimitError(
                field: field,
                message: "must be an integer from \(range.lowerBound) to \(range.upperBound), got \(value)"
            )
        }
        return value
    }

    /// The most entries a list of IDs or scopes may have (`inventory`, `scopes`).
    static let idListEntries = 10_000

    /// A list of at most ``idListEntries`` `noun` as a set, each checked by `item` (given the value
    /// and its field, `field[k]`); `nil` stays `nil`.
    static func idSet(
        _ values: [String]?,
        field: String,
        noun: String,
        item: (String, String) throws -> String
    ) throws -> Set<String>? {
        guard let values else { return nil }
        guard values.count <= Self.idListEntries else {
            throw InputLimitError(
                field: field,
                message: "lists \(values.count) \(noun), more than \(Self.idListEntries)"
            )
        }
        var result: Set<String> = []
        for (k, value) in values.enumerated() { result.insert(try item(value, "\(field)[\(k)]")) }
        return result
    }

    /// An ID: 1 to 64 bytes of letters, digits, `-`, `_`, `.`, `~`.
    static func id(_ value: String, field: String) throws(InputLimitError) -> String {
        guard Self.idBytes.contains(value.utf8.count), OriginPath.isSafeName(value) else {
            throw InputLimitError(
                field: field,
                message:
                    "must be 1 to \(Self.idBytes.upperBound) letters, digits, '-', '_', '.', '~' (not '.' or '..'), got \(Self.quoted(value))"
            )
        }
        return value
    }

    /// A list of tokens from a closed vocabulary (`CUE`, `X-RESTRICT`, `X-SNAP`), each at most once.
    static func members(_ values: [String], of allowed: [String], field: String) throws(InputLimitError) -> [String] {
        for (k, value) in values.enumerated() {
            guard allowed.contains(value), !values[..<k].contains(value) else {
                throw InputLimitError(
                    field: field,
                    message:
                        "may hold \(allowed.joined(separator: ", ")), each once; \(Self.quoted(value)) is not allowed here"
                )
            }
        }
        return values
    }

    /// A date checked against ``dateSeconds``.
    static func date(_ value: DateTime, field: String) throws(InputLimitError) -> DateTime {
        let seconds = Double(value.nanosecondsSince1970) / 1_000_000_000
        guard Self.dateSeconds.contains(seconds) else {
            throw InputLimitError(field: field, message: "must be a date from 1970 to 2199, got \(value.iso8601)")
        }
        return value
    }

    /// A URI that is either an absolute `http(s)` URL with a host, or a path on this server (one `/`
    /// then not another): no spaces, control characters or backslashes, at most ``uriBytes`` bytes.
    ///
    /// - Parameters:
    ///   - value: The URI as configured.
    ///   - field: The configuration key, named by the error.
    ///   - allowsUserInfo: Whether `user:password@` may precede the host (an origin the server
    ///     reads from may need it; a URI handed to viewers never). Messages never show it.
    static func uri(_ value: String, field: String, allowsUserInfo: Bool = false) throws(InputLimitError) -> String {
        let bytes = Array(value.utf8)
        guard Self.uriBytes.contains(bytes.count),
            bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != 0x5C && $0 < 0x80 })
        else {
            throw InputLimitError(
                field: field,
                message:
                    "must be 1 to \(Self.uriBytes.upperBound) bytes of printable ASCII without spaces or backslashes, got \(Self.quoted(URLRedaction.redact(value)))"
            )
        }
        let lower = value.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            rest = value.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            rest = value.dropFirst(8)
        } else if value.hasPrefix("/") && !value.hasPrefix("//") {
            return value
        } else {
            throw InputLimitError(
                field: field,
                message:
                    "must be an http(s) URL or a path on this server (starting with a single '/'), got \(Self.quoted(URLRedaction.redact(value)))"
            )
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var host = authority
        if allowsUserInfo, let at = authority.lastIndex(of: "@") { host = authority[authority.index(after: at)...] }
        guard !host.isEmpty, !host.contains("@") else {
            throw InputLimitError(
                field: field,
                message: allowsUserInfo
                    ? "must name a host, got \(Self.quoted(URLRedaction.redact(value)))"
                    : "must name a host (and no user name or password), got \(Self.quoted(URLRedaction.redact(value)))"
            )
        }
        return value
    }

    /// A path relative to an origin folder (`main.m3u8`, `hls/index.m3u8`): printable ASCII without
    /// spaces or backslashes, no scheme, no leading `/`, no `.` or `..` segments, no fragment.
    static func relativePath(_ value: String, field: String) throws(InputLimitError) -> String {
        let segments = value.split(separator: "/", omittingEmptySubsequences: false)
        guard Self.uriBytes.contains(value.utf8.count),
            value.utf8.allSatisfy({
                $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: ":")
            }),
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else {
            throw InputLimitError(
                field: field,
                message:
                    "must be a path inside the origin folder such as main.m3u8 (no '/' at the start, no '.' or '..' segments), got \(Self.quoted(value))"
            )
        }
        return value
    }

    /// At most 40 characters of a value, quoted, for messages (a 100 KB ID is not echoed back).
    static func quoted(_ value: String) -> String {
        let shown = value.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }
            .joined()
        return "'" + shown + (value.unicodeScalars.count > 40 ? "…'" : "'")
    }

    /// A number for messages: integers without a fraction.
    static func text(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// A value outside its documented range (see ``InputLimits``).
public struct InputLimitError: Error, Sendable, CustomStringConvertible {
    /// The field or key, as the input spells it (`duration`, `server.port`).
    public var field: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `field message` ("duration must be a number of seconds from 0.001 to 3600, got 1e-300").
    public var description: String { "\(self.field) \(self.message)" }
}
