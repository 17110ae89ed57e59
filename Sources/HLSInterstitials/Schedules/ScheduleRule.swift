import HLSPlaylist

/// A rule of scheduled date ranges (Appendix H of Apple's preliminary WWDC26 draft): its stable
/// identifier, how serious breaking it is, and what it requires.
///
/// Identifiers start with `INT-SCHEDULE-` and never change meaning. Rules about the document are
/// checked by ``DateRangeSchedule/decode(_:document:options:)-([UInt8],_,_)``, rules about the playlist's
/// `com.apple.hls.daterange-schedule` tag by ``DateRangeSchedule/tagDiagnostics(in:file:)``, and
/// the nesting rules by ``DateRangeScheduleResolver``.
public struct ScheduleRule: Sendable, Hashable, CustomStringConvertible {
    /// The stable identifier, such as `INT-SCHEDULE-START-BOTH`.
    public let id: RuleID
    /// The severity of every diagnostic of this rule.
    public let severity: Severity
    /// What the rule requires, in one sentence.
    public let summary: String

    private init(_ id: String, _ severity: Severity, _ summary: String) {
        self.id = RuleID(id)
        self.severity = severity
        self.summary = summary
    }

    /// `ID: summary`.
    public var description: String { "\(self.id): \(self.summary)" }

    // MARK: - The playlist tag

    /// A schedule date range in a playlist has no `X-URI`.
    public static let tagURIMissing = ScheduleRule(
        "INT-SCHEDULE-URI-MISSING",
        .error,
        "a com.apple.hls.daterange-schedule range must have X-URI naming its JSON document"
    )
    /// `X-URI` of a schedule date range is not a non-empty quoted-string.
    public static let tagURIType = ScheduleRule(
        "INT-SCHEDULE-URI-TYPE",
        .error,
        "X-URI of a schedule must be a non-empty quoted-string"
    )
    /// A schedule date range has `CUE` or `END-ON-NEXT`, which mean nothing for a schedule.
    public static let tagCue = ScheduleRule(
        "INT-SCHEDULE-CUE",
        .warning,
        "a schedule range should not have CUE or END-ON-NEXT"
    )

    // MARK: - The document

    /// The document is not JSON, is too large, or is too deeply nested (thrown).
    public static let invalidJSON = ScheduleRule(
        "INT-SCHEDULE-JSON",
        .error,
        "a schedule must be a JSON document within the size and depth limits"
    )
    /// The top level is not an object with a `DATERANGES` array (thrown).
    public static let shape = ScheduleRule(
        "INT-SCHEDULE-SHAPE",
        .error,
        "a schedule must be a JSON object whose DATERANGES member is an array"
    )
    /// `DATERANGES` has more entries than the decoder accepts (thrown).
    public static let tooMany = ScheduleRule(
        "INT-SCHEDULE-TOO-MANY",
        .error,
        "a schedule must not list more date ranges than the decoder's limit"
    )
    /// An entry of `DATERANGES` is not an object.
    public static let entryType = ScheduleRule(
        "INT-SCHEDULE-ENTRY-TYPE",
        .error,
        "each DATERANGES entry must be a JSON object"
    )
    /// An entry has no string `CLASS`.
    public static let classMissing = ScheduleRule(
        "INT-SCHEDULE-CLASS-MISSING",
        .error,
        "each scheduled date range must have a non-empty string CLASS"
    )
    /// An entry has no non-empty string `ID`.
    public static let idMissing = ScheduleRule(
        "INT-SCHEDULE-ID-MISSING",
        .error,
        "each scheduled date range must have a non-empty string ID"
    )
    /// Two entries of one document have the same `ID`.
    public static let idDuplicate = ScheduleRule(
        "INT-SCHEDULE-ID-DUPLICATE",
        .error,
        "the IDs of a schedule's date ranges must be unique"
    )
    /// An entry has neither `START-DATE` nor `X-SCHEDULE-OFFSET`.
    public static let startMissing = ScheduleRule(
        "INT-SCHEDULE-START-MISSING",
        .error,
        "each scheduled date range must have START-DATE or X-SCHEDULE-OFFSET"
    )
    /// An entry has both `START-DATE` and `X-SCHEDULE-OFFSET`.
    public static let startBoth = ScheduleRule(
        "INT-SCHEDULE-START-BOTH",
        .error,
        "a scheduled date range must not have both START-DATE and X-SCHEDULE-OFFSET"
    )
    /// `X-SCHEDULE-OFFSET` is not a non-negative number of seconds in range.
    public static let offsetValue = ScheduleRule(
        "INT-SCHEDULE-OFFSET-VALUE",
        .error,
        "X-SCHEDULE-OFFSET must be a non-negative number of seconds"
    )
    /// `START-DATE` or `END-DATE` is not an ISO-8601 date string.
    public static let dateValue = ScheduleRule(
        "INT-SCHEDULE-DATE-VALUE",
        .error,
        "START-DATE and END-DATE must be ISO-8601 date strings"
    )
    /// An attribute the spec defines has a JSON value of the wrong type.
    public static let attributeType = ScheduleRule(
        "INT-SCHEDULE-ATTRIBUTE-TYPE",
        .error,
        "defined attributes must be JSON strings, numbers or string lists as their type requires"
    )
    /// A string is too long, or holds a character a playlist attribute cannot carry.
    public static let stringValue = ScheduleRule(
        "INT-SCHEDULE-STRING-VALUE",
        .error,
        "strings must be within the length limit and free of NUL, CR, LF and double quotes"
    )
    /// A key is neither a date-range attribute nor an `X-` client attribute.
    public static let unknownKey = ScheduleRule(
        "INT-SCHEDULE-UNKNOWN-KEY",
        .warning,
        "keys other than date-range attributes and X- attributes are ignored"
    )
    /// A nested schedule entry has no string `X-URI`.
    public static let nestedURIMissing = ScheduleRule(
        "INT-SCHEDULE-NESTED-URI-MISSING",
        .error,
        "a nested com.apple.hls.daterange-schedule entry must have a string X-URI"
    )

    // MARK: - Resolution

    /// A schedule could not be fetched or decoded.
    public static let unreadable = ScheduleRule(
        "INT-SCHEDULE-UNREADABLE",
        .error,
        "a schedule's X-URI must return a readable schedule document"
    )
    /// Schedules nest deeper than ``DateRangeScheduleResolver/maximumNestingDepth``.
    public static let tooDeep = ScheduleRule(
        "INT-SCHEDULE-TOO-DEEP",
        .error,
        "schedules must not nest deeper than the resolver's limit"
    )
    /// A schedule refers, directly or through nested schedules, to itself.
    public static let cycle = ScheduleRule(
        "INT-SCHEDULE-CYCLE",
        .error,
        "a schedule must not refer to itself through nested schedules"
    )

    /// Every rule, in the order above.
    public static let all: [ScheduleRule] = [
        .tagURIMissing, .tagURIType, .tagCue, .invalidJSON, .shape, .tooMany, .entryType, .classMissing, .idMissing,
        .idDuplicate, .startMissing, .startBoth, .offsetValue, .dateValue, .attributeType, .stringValue, .unknownKey,
        .nestedURIMissing, .unreadable, .tooDeep, .cycle,
    ]

    /// The rule with this identifier, if it is one of ``all``.
    public init?(id: RuleID) {
        guard let rule = ScheduleRule.all.first(where: { $0.id == id }) else { return nil }
        self = rule
    }
}

/// Where in a schedule document something is: the document's URL or name and a JSON pointer
/// (RFC 6901) such as `/DATERANGES/3/X-SCHEDULE-OFFSET`.
public struct ScheduleLocation: Sendable, Hashable, CustomStringConvertible {
    /// The document's URL or name, when known.
    public var document: String?
    /// The JSON pointer; `""` for the whole document.
    public var pointer: String

    /// Creates a location.
    public init(document: String?, pointer: String) {
        self.document = document
        self.pointer = pointer
    }

    /// The location one member or element further down.
    func appending(_ token: String) -> ScheduleLocation {
        let escaped = token.replacingAll("~", with: "~0").replacingAll("/", with: "~1")
        return ScheduleLocation(document: self.document, pointer: self.pointer + "/" + escaped)
    }

    /// `document#pointer`, or the pointer alone.
    public var description: String {
        guard let document else { return self.pointer.isEmpty ? "/" : self.pointer }
        return self.pointer.isEmpty ? document : "\(document)#\(self.pointer)"
    }
}

/// A problem found in a schedule document or while resolving schedules: a rule, a location, what
/// is wrong and what to change.
public struct ScheduleDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The rule broken.
    public var rule: ScheduleRule
    /// Where.
    public var location: ScheduleLocation
    /// What is wrong, in one sentence.
    public var message: String
    /// What to change.
    public var hint: String

    /// Creates a diagnostic.
    public init(rule: ScheduleRule, location: ScheduleLocation, message: String, hint: String) {
        self.rule = rule
        self.location = location
        self.message = message
        self.hint = hint
    }

    /// The rule's severity.
    public var severity: Severity { self.rule.severity }

    /// `location: severity[RULE]: message (hint)`.
    public var description: String {
        "\(self.location): \(self.severity)[\(self.rule.id)]: \(self.message) (\(self.hint))"
    }
}

/// The error ``DateRangeSchedule/decode(_:document:options:)-([UInt8],_,_)`` throws when a document cannot be
/// read at all: not JSON, too large or deep, or not an object with a `DATERANGES` array.
public struct DateRangeScheduleDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error: the rule's identifier (``ScheduleRule/invalidJSON``,
    /// ``ScheduleRule/shape``, ``ScheduleRule/tooMany``).
    public var code: RuleID
    /// What is wrong and what to change.
    public var message: String
    /// Where, with the document's URL or name.
    public var location: ScheduleLocation
    /// The byte offset of a JSON syntax error.
    public var byteOffset: Int?

    /// Creates an error.
    public init(code: RuleID, message: String, location: ScheduleLocation, byteOffset: Int? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.byteOffset = byteOffset
    }

    /// `location: message`.
    public var description: String {
        let at = self.byteOffset.map { " (byte \($0))" } ?? ""
        return "\(self.location)\(at): \(self.message)"
    }
}

extension String {
    /// The string with every occurrence of `target` replaced (Foundation-free).
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        guard self.contains(target) else { return self }
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
