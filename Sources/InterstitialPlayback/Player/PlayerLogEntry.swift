import HLSInterstitials
import HLSPlaylist

/// One line of the player's event log (ARCHITECTURE.md, `play --json`): the playback clock's time, the
/// event's name, and its fields in a fixed order.
///
/// ```json
/// {"t":5,"event":"currentEventDidChange","eventID":"ad1"}
/// ```
public struct PlayerLogEntry: Sendable, CustomStringConvertible {
    /// The playback clock's time when it happened (`"t"`).
    public var time: MediaTime
    /// The event's name (`"event"`), such as `request`, `playlistLoaded` or `bufferedTo`.
    public var event: String
    /// The other fields, in order.
    public var fields: [(String, JSONValue)]

    /// Creates an entry.
    public init(time: MediaTime, event: String, fields: [(String, JSONValue)] = []) {
        self.time = time
        self.event = event
        self.fields = fields
    }

    /// The field named `name`.
    public subscript(name: String) -> JSONValue? {
        self.fields.first { $0.0 == name }?.1
    }

    /// The version of the log's format (`play --json` says it in its first line,
    /// `{"t":0,"event":"log","schemaVersion":2}`): raised when an event or a field is renamed,
    /// removed or changes meaning, not when one is added.
    ///
    /// Version 2 renamed `event_id` to
    /// `eventID` (the changelog is the IntermissionServer article "JSON contracts").
    public static let schemaVersion = 2

    /// The log's first line in `play --json`: which version of the format follows.
    public static var header: PlayerLogEntry {
        PlayerLogEntry(time: .zero, event: "log", fields: [("schemaVersion", .number(Double(Self.schemaVersion)))])
    }

    /// The entry as one JSON object: `t`, `event`, then the fields.
    public var json: JSONValue {
        .object([("t", .number(Self.rounded(self.time))), ("event", .string(self.event))] + self.fields)
    }

    /// The entry as one line of compact JSON.
    public var description: String { self.json.text() }

    /// Seconds rounded to the millisecond, for the log.
    static func rounded(_ time: MediaTime) -> Double {
        (time.seconds * 1000).rounded() / 1000
    }
}

extension JSONValue {
    /// A time in seconds rounded to the millisecond.
    static func seconds(_ time: MediaTime) -> JSONValue {
        .number(PlayerLogEntry.rounded(time))
    }

    /// A time in seconds, or `null`.
    static func seconds(_ time: MediaTime?) -> JSONValue {
        time.map { .seconds($0) } ?? .null
    }

    /// A string, or `null`.
    static func optional(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }
}
