import HLSPlaylist

/// A scheduled-date-range document (Appendix H of Apple's preliminary WWDC26 draft): the JSON
/// `{"DATERANGES": [...]}` that the `X-URI` of a `CLASS="com.apple.hls.daterange-schedule"` date
/// range names.
///
/// Each entry is a date range whose attributes are JSON keys. Decode one with
/// ``decode(_:document:options:)-([UInt8],_,_)``, which keeps every entry that can be scheduled and reports the
/// rest as ``ScheduleDiagnostic``s; resolve documents into interstitial events with
/// ``DateRangeScheduleResolver``.
///
/// ```swift
/// let decoded = try DateRangeSchedule.decode(bytes, document: "https://example.com/break.json")
/// for entry in decoded.schedule.dateRanges { print(entry.id, entry.start) }
/// ```
public struct DateRangeSchedule: Sendable, Hashable {
    /// `CLASS="com.apple.hls.daterange-schedule"`.
    public static let scheduleClass = "com.apple.hls.daterange-schedule"

    /// The usable date ranges, in document order.
    public var dateRanges: [ScheduledDateRange]

    /// Creates a schedule.
    public init(dateRanges: [ScheduledDateRange]) {
        self.dateRanges = dateRanges
    }

    /// Limits and readings for ``decode(_:document:options:)-([UInt8],_,_)``.
    public struct Options: Sendable, Hashable {
        /// The largest document accepted, in bytes (1 MiB by default).
        public var maximumBytes: Int
        /// The most `DATERANGES` entries accepted (10,000 by default).
        public var maximumDateRanges: Int
        /// The deepest JSON nesting accepted (32 by default).
        public var maximumDepth: Int
        /// The longest string value accepted, in UTF-8 bytes (16 KiB by default).
        public var maximumStringLength: Int
        /// Whether an entry without `ID` is refused (``ScheduleRule/idMissing``).
        ///
        /// On by default: see ``DateRangeSchedule/requiresIDByDefault``.
        public var requiresID: Bool

        /// Creates options.
        public init(
            maximumBytes: Int = 1 << 20,
            maximumDateRanges: Int = 10_000,
            maximumDepth: Int = 32,
            maximumStringLength: Int = 16 << 10,
            requiresID: Bool = DateRangeSchedule.requiresIDByDefault
        ) {
            self.maximumBytes = maximumBytes
            self.maximumDateRanges = maximumDateRanges
            self.maximumDepth = maximumDepth
            self.maximumStringLength = maximumStringLength
            self.requiresID = requiresID
        }
    }

    /// Whether each entry needs an `ID` (reading chosen where the secondary sources differ: the
    /// issue lists `ID` without "required"; the one public decoder requires it, and the events a
    /// schedule produces need identifiers).
    ///
    /// See the spec notes, "Appendix H".
    public static let requiresIDByDefault = true

    /// A decoded document: the schedule and what was wrong with the entries left out or kept.
    public struct Decoded: Sendable, Hashable {
        /// The usable entries.
        public var schedule: DateRangeSchedule
        /// Every problem found, in document order.
        public var diagnostics: [ScheduleDiagnostic]
    }
}

/// One date range of a schedule document.
public struct ScheduledDateRange: Sendable, Hashable {
    /// `ID`.
    public var id: String
    /// `CLASS`.
    public var `class`: String
    /// `START-DATE`, or `X-SCHEDULE-OFFSET` counted from the start of the schedule that lists it.
    public var start: Start
    /// Every other member, in document order, with its JSON value (`X-` values may be any JSON).
    public var attributes: [Member]
    /// Where the entry is in its document.
    public var location: ScheduleLocation

    /// Where a scheduled date range starts.
    public enum Start: Sendable, Hashable {
        /// `START-DATE`.
        case date(DateTime)
        /// `X-SCHEDULE-OFFSET`: seconds from the schedule's own start.
        case offset(MediaTime)
    }

    /// A member of the entry's JSON object.
    public struct Member: Sendable, Hashable {
        /// The key, an attribute name such as `X-ASSET-URI`.
        public var name: String
        /// The value.
        public var value: JSONValue

        /// Creates a member.
        public init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// Creates an entry.
    public init(id: String, class: String, start: Start, attributes: [Member] = [], location: ScheduleLocation) {
        self.id = id
        self.class = `class`
        self.start = start
        self.attributes = attributes
        self.location = location
    }

    /// The value of the first member named `name`.
    public subscript(name: String) -> JSONValue? {
        self.attributes.first { $0.name == name }?.value
    }

    /// Whether the entry is itself a schedule reference (`com.apple.hls.daterange-schedule`).
    public var isSchedule: Bool { self.class == DateRangeSchedule.scheduleClass }

    /// Whether the entry is an interstitial (`com.apple.hls.interstitial`).
    public var isInterstitial: Bool { self.class == DateRange.interstitialClass }
}

extension DateRangeSchedule {
    /// The keys that hold numbers of seconds.
    static let numberKeys: Set<String> = [
        "DURATION", "PLANNED-DURATION", "X-RESUME-OFFSET", "X-PLAYOUT-LIMIT", "X-SKIP-CONTROL-OFFSET",
        "X-SKIP-CONTROL-DURATION", "X-DURATION-AT-JOIN",
    ]
    /// The keys whose value is an enumerated-string list (a string `"A,B"` or an array of strings).
    static let listKeys: Set<String> = ["CUE", "X-SNAP", "X-RESTRICT"]
    /// The keys that hold strings.
    static let stringKeys: Set<String> = [
        "END-DATE", "X-ASSET-URI", "X-ASSET-LIST", "X-URI", "X-CONTENT-MAY-VARY", "X-TIMELINE-OCCUPIES",
        "X-TIMELINE-STYLE", "X-SKIP-CONTROL-LABEL-ID", "X-TARGET-ID", "X-TARGET-CLASS",
    ]
    /// The date-range attributes without an `X-` prefix that an entry may carry.
    static let plainKeys: Set<String> = [
        "ID", "CLASS", "START-DATE", "END-DATE", "DURATION", "PLANNED-DURATION", "END-ON-NEXT", "CUE",
        "SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN",
    ]

    /// Decodes a schedule document, keeping each usable entry and reporting the others.
    ///
    /// An entry is left out, with an error diagnostic, when it is not an object, has no string
    /// `CLASS`, no `ID` (with ``Options/requiresID``), repeats an earlier `ID`, has neither or
    /// both of `START-DATE` and `X-SCHEDULE-OFFSET`, has an unreadable start, or is a nested
    /// schedule without `X-URI`. A defined attribute of the wrong JSON type or a string that a
    /// playlist attribute cannot carry is reported and dropped from the entry (the event it makes
    /// then reports what it lacks).
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON response body.
    ///   - document: The document's URL or name, for locations.
    ///   - options: Limits.
    /// - Returns: The schedule and the diagnostics.
    /// - Throws: ``DateRangeScheduleDecodingError`` when the document is not JSON, too large or
    ///   deep, not an object, has no `DATERANGES` array, or more entries than the limit.
    public static func decode(
        _ bytes: [UInt8],
        document: String? = nil,
        options: Options = Options()
    ) throws(DateRangeScheduleDecodingError) -> Decoded {
        let root = ScheduleLocation(document: document, pointer: "")
        guard bytes.count <= options.maximumBytes else {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.invalidJSON.id,
                message: "the schedule is \(bytes.count) bytes, more than the limit of \(options.maximumBytes)",
                location: root
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, options: JSONParsingOptions(maximumDepth: options.maximumDepth))
        } catch let error as JSONParsingError {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.invalidJSON.id,
                message: "the schedule is not valid JSON: \(error.message)",
                location: root,
                byteOffset: error.byteOffset
            )
        } catch {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.invalidJSON.id,
                message: "the schedule is not valid JSON",
                location: root
            )
        }
        return try decode(json: json, document: document, options: options)
    }

    /// Decodes a schedule from JSON text (see ``decode(_:document:options:)-([UInt8],_,_)``).
    ///
    /// - Throws: ``DateRangeScheduleDecodingError``.
    public static func decode(
        _ text: String,
        document: String? = nil,
        options: Options = Options()
    ) throws(DateRangeScheduleDecodingError) -> Decoded {
        try decode(Array(text.utf8), document: document, options: options)
    }

    /// Decodes a schedule from a parsed JSON value (see ``decode(_:document:options:)-([UInt8],_,_)``).
    ///
    /// - Throws: ``DateRangeScheduleDecodingError``.
    public static func decode(
        json: JSONValue,
        document: String? = nil,
        options: Options = Options()
    ) throws(DateRangeScheduleDecodingError) -> Decoded {
        let root = ScheduleLocation(document: document, pointer: "")
        guard case .object = json else {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.shape.id,
                message: "the schedule must be a JSON object {\"DATERANGES\": [...]}, not \(json.typeName)",
                location: root
            )
        }
        guard case .array(let entries)? = json["DATERANGES"] else {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.shape.id,
                message: "the schedule has no DATERANGES array; add \"DATERANGES\": []",
                location: json["DATERANGES"] == nil ? root : root.appending("DATERANGES")
            )
        }
        guard entries.count <= options.maximumDateRanges else {
            throw DateRangeScheduleDecodingError(
                code: ScheduleRule.tooMany.id,
                message: "DATERANGES has \(entries.count) entries, more than the limit of \(options.maximumDateRanges)",
                location: root.appending("DATERANGES")
            )
        }
        var reader = EntryReader(options: options)
        var ranges: [ScheduledDateRange] = []
        var seen: Set<String> = []
        let list = root.appending("DATERANGES")
        for (index, entry) in entries.enumerated() {
            let location = list.appending(String(index))
            guard var range = reader.read(entry, at: location) else { continue }
            if !range.id.isEmpty || options.requiresID {
                guard seen.insert(range.id).inserted else {
                    reader.report(
                        .idDuplicate,
                        location.appending("ID"),
                        "ID \"\(range.id)\" repeats an earlier entry of this schedule; the entry is ignored",
                        "give every entry a unique ID"
                    )
                    continue
                }
            } else {
                range.id = "\(index)"
            }
            ranges.append(range)
        }
        return Decoded(schedule: DateRangeSchedule(dateRanges: ranges), diagnostics: reader.diagnostics)
    }
}

/// Reads the entries of one document and collects their diagnostics.
struct EntryReader {
    let options: DateRangeSchedule.Options
    var diagnostics: [ScheduleDiagnostic] = []

    init(options: DateRangeSchedule.Options) {
        self.options = options
    }

    mutating func report(_ rule: ScheduleRule, _ location: ScheduleLocation, _ message: String, _ hint: String) {
        self.diagnostics.append(ScheduleDiagnostic(rule: rule, location: location, message: message, hint: hint))
    }

    /// Whether a string can become a playlist attribute value; reports it when not.
    mutating func checkString(_ text: String, key: String, at location: ScheduleLocation) -> Bool {
        if text.utf8.count > self.options.maximumStringLength {
            self.report(
                .stringValue,
                location,
                "\(key) is \(text.utf8.count) bytes long, more than the limit of \(self.options.maximumStringLength)",
                "shorten it"
            )
            return false
        }
        if text.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D || $0 == 0x22 }) {
            self.report(
                .stringValue,
                location,
                "\(key) holds NUL, CR, LF or a double quote, which a date-range attribute cannot carry",
                "percent-encode or remove the character"
            )
            return false
        }
        return true
    }

    /// Reads one entry; `nil` (with a diagnostic) when it cannot be scheduled.
    mutating func read(_ entry: JSONValue, at location: ScheduleLocation) -> ScheduledDateRange? {
        guard case .object(let members) = entry else {
            self.report(
                .entryType,
                location,
                "the entry is \(entry.typeName), not an object; it is ignored",
                "write each date range as an object with CLASS, ID and START-DATE or X-SCHEDULE-OFFSET"
            )
            return nil
        }
        var id: String?
        var rangeClass: String?
        var date: DateTime?
        var offset: MediaTime?
        var startBroken = false
        var attributes: [ScheduledDateRange.Member] = []
        var seenKeys: Set<String> = []
        for (key, value) in members {
            let at = location.appending(key)
            guard self.checkString(key, key: "a key", at: at), seenKeys.insert(key).inserted else { continue }
            switch key {
            case "ID", "CLASS":
                guard case .string(let text) = value, !text.isEmpty, self.checkString(text, key: key, at: at) else {
                    self.report(
                        key == "ID" ? .idMissing : .classMissing,
                        at,
                        "\(key) must be a non-empty string, not \(value.typeName); the entry is ignored",
                        key == "ID" ? "write \"ID\": \"ad-1\"" : "write \"CLASS\": \"com.apple.hls.interstitial\""
                    )
                    return nil
                }
                if key == "ID" { id = text } else { rangeClass = text }
            case "START-DATE":
                guard case .string(let text) = value, let parsed = DateTime(iso8601: text) else {
                    self.report(
                        .dateValue,
                        at,
                        "START-DATE \(value.shortText) is not an ISO-8601 date string",
                        "write e.g. \"START-DATE\": \"2026-06-01T12:00:00.000Z\""
                    )
                    startBroken = true
                    continue
                }
                date = parsed
            case "X-SCHEDULE-OFFSET":
                guard case .number(let number) = value, !number.isNegative,
                    case .time(let seconds) = number.mediaTimeReading,
                    seconds <= MediaTime(seconds: DateRangeScheduleResolver.maximumOffsetSeconds)
                else {
                    self.report(
                        .offsetValue,
                        at,
                        "X-SCHEDULE-OFFSET \(value.shortText) is not a number of seconds from 0 to \(DateRangeScheduleResolver.maximumOffsetSeconds)",
                        "write the seconds from the schedule's start, e.g. \"X-SCHEDULE-OFFSET\": 30"
                    )
                    startBroken = true
                    continue
                }
                offset = seconds
            default:
                if let member = self.attribute(key, value, at: at) { attributes.append(member) }
            }
        }
        guard let rangeClass else {
            self.report(
                .classMissing,
                location,
                "the entry has no CLASS; it is ignored",
                "add \"CLASS\": \"com.apple.hls.interstitial\" (or another class)"
            )
            return nil
        }
        if id == nil, self.options.requiresID {
            self.report(.idMissing, location, "the entry has no ID; it is ignored", "add a unique \"ID\"")
            return nil
        }
        if startBroken { return nil }
        let start: ScheduledDateRange.Start
        switch (date, offset) {
        case (let date?, nil): start = .date(date)
        case (nil, let offset?): start = .offset(offset)
        case (_?, _?):
            self.report(
                .startBoth,
                location.appending("X-SCHEDULE-OFFSET"),
                "the entry has both START-DATE and X-SCHEDULE-OFFSET; it is ignored",
                "keep one: START-DATE for a date, X-SCHEDULE-OFFSET for seconds from the schedule's start"
            )
            return nil
        case (nil, nil):
            self.report(
                .startMissing,
                location,
                "the entry has neither START-DATE nor X-SCHEDULE-OFFSET; it is ignored",
                "add \"X-SCHEDULE-OFFSET\": <seconds from the schedule's start>"
            )
            return nil
        }
        let range = ScheduledDateRange(
            id: id ?? "",
            class: rangeClass,
            start: start,
            attributes: attributes,
            location: location
        )
        if range.isSchedule {
            guard case .string(let uri)? = range["X-URI"], !uri.isEmpty else {
                self.report(
                    .nestedURIMissing,
                    location,
                    "nested schedule \"\(range.id)\" has no string X-URI; it is ignored",
                    "add \"X-URI\": \"schedule.json\""
                )
                return nil
            }
        }
        return range
    }

    /// Checks one attribute member; `nil` (with a diagnostic) when it is dropped.
    mutating func attribute(_ key: String, _ value: JSONValue, at: ScheduleLocation) -> ScheduledDateRange.Member? {
        let member = ScheduledDateRange.Member(name: key, value: value)
        func wrongType(_ expected: String) -> ScheduledDateRange.Member? {
            self.report(
                .attributeType,
                at,
                "\(key) must be \(expected), not \(value.typeName)",
                "write \(key) as \(expected)"
            )
            return nil
        }
        if DateRangeSchedule.numberKeys.contains(key) {
            guard case .number = value else { return wrongType("a number of seconds") }
            return member
        }
        if DateRangeSchedule.stringKeys.contains(key) {
            guard case .string(let text) = value else { return wrongType("a string") }
            return self.checkString(text, key: key, at: at) ? member : nil
        }
        if DateRangeSchedule.listKeys.contains(key) {
            switch value {
            case .string(let text):
                return self.checkString(text, key: key, at: at) ? member : nil
            case .array(let items):
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item else { return wrongType("a string or an array of strings") }
                    guard self.checkString(text, key: key, at: at.appending(String(index))) else { return nil }
                }
                return member
            default:
                return wrongType("a string or an array of strings")
            }
        }
        if key == "END-ON-NEXT" {
            guard value == .string("YES") || value == .bool(true) else { return wrongType("\"YES\" or true") }
            return member
        }
        if key.hasPrefix("X-") {
            if case .string(let text) = value, !self.checkString(text, key: key, at: at) { return nil }
            return member
        }
        if !DateRangeSchedule.plainKeys.contains(key) {
            self.report(
                .unknownKey,
                at,
                "\(key) is not a date-range attribute; it is ignored",
                "prefix client attributes with X-"
            )
            return nil
        }
        return member
    }
}

extension JSONValue {
    /// The value as short JSON text for messages (at most 40 characters).
    var shortText: String {
        let text = String(decoding: self.serialized(), as: UTF8.self)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
