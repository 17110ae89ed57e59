/// A place in a playlist: 1-based line and column (in UTF-8 bytes), and optionally the file.
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file or URL the playlist came from, when known.
    public var file: String?
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in UTF-8 bytes.
    public var column: Int

    /// Creates a location.
    public init(file: String? = nil, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:col`, or `line:col` without a file.
    public var description: String {
        if let file { return "\(file):\(self.line):\(self.column)" }
        return "\(self.line):\(self.column)"
    }
}

/// How serious a diagnostic is.
public struct Severity: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    private let level: UInt8

    private init(level: UInt8) {
        self.level = level
    }

    /// The playlist breaks a MUST of the spec; clients may refuse it.
    public static let error = Severity(level: 2)
    /// The playlist breaks a SHOULD, or does something clients handle inconsistently.
    public static let warning = Severity(level: 1)
    /// Information worth knowing; nothing to fix.
    public static let note = Severity(level: 0)

    /// Whether `lhs` orders before `rhs`.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.level < rhs.level }

    /// `error`, `warning` or `note`.
    public var description: String {
        switch self.level {
        case 2: "error"
        case 1: "warning"
        default: "note"
        }
    }

    /// Reads the value from its JSON spelling.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "error": self = .error
        case "warning": self = .warning
        default: self = .note
        }
    }

    /// Writes the value in its JSON spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}

/// The stable identifier of a rule a diagnostic reports, such as `HLS-ATTR-SYNTAX`.
///
/// Identifiers never change meaning; new rules get new identifiers. Rules of the playlist layer
/// start with `HLS-`; interstitial rules (in `HLSInterstitials`) start with `INT-`.
public struct RuleID: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier.
    public let rawValue: String

    /// Creates a rule identifier.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a rule identifier from a literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Reads the value from its JSON spelling.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the value in its JSON spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    /// The identifier.
    public var description: String { self.rawValue }

    /// The first line is not `#EXTM3U` (§4.4.1.1).
    public static let missingHeader: RuleID = "HLS-HEADER"
    /// An attribute list does not follow §4.2.
    public static let attributeSyntax: RuleID = "HLS-ATTR-SYNTAX"
    /// An attribute name repeats within one tag (§4.2).
    public static let duplicateAttribute: RuleID = "HLS-ATTR-DUPLICATE"
    /// A required attribute is missing.
    public static let missingAttribute: RuleID = "HLS-ATTR-REQUIRED"
    /// An attribute value is not of the type the spec gives it.
    public static let attributeValue: RuleID = "HLS-ATTR-VALUE"
    /// A tag value (after the colon) does not parse.
    public static let tagValue: RuleID = "HLS-TAG-VALUE"
    /// A tag that must appear at most once appears again.
    public static let duplicateTag: RuleID = "HLS-TAG-DUPLICATE"
    /// Media-playlist and multivariant-playlist tags are mixed (§4.1).
    public static let mixedPlaylist: RuleID = "HLS-PLAYLIST-MIXED"
    /// A media segment URI has no `EXTINF` before it (§4.4.4.1).
    public static let segmentWithoutDuration: RuleID = "HLS-SEGMENT-NO-EXTINF"
    /// Segment tags are not followed by a URI.
    public static let danglingSegmentTags: RuleID = "HLS-SEGMENT-NO-URI"
    /// A media playlist has no `EXT-X-TARGETDURATION` (§4.4.3.1).
    public static let missingTargetDuration: RuleID = "HLS-TARGETDURATION-MISSING"
    /// A rounded `EXTINF` duration exceeds the target duration (§4.4.3.1).
    public static let segmentExceedsTarget: RuleID = "HLS-TARGETDURATION-EXCEEDED"
    /// A `STREAM-INF` tag is not followed by a URI (§4.4.6.2).
    public static let variantWithoutURI: RuleID = "HLS-VARIANT-NO-URI"
    /// Whitespace where the spec allows none; clients usually tolerate it.
    public static let whitespace: RuleID = "HLS-WHITESPACE"
    /// A variable is referenced but not defined, or defined twice (§4.4.2.3).
    public static let variable: RuleID = "HLS-DEFINE"
    /// A playlist-level tag appears after the first media segment.
    public static let tagPlacement: RuleID = "HLS-TAG-PLACEMENT"
    /// A tag that the parser does not know (kept as written).
    public static let unknownTag: RuleID = "HLS-TAG-UNKNOWN"
    /// Date ranges without `EXT-X-PROGRAM-DATE-TIME` (§4.4.5.1).
    public static let dateRangeWithoutProgramDateTime: RuleID = "HLS-DATERANGE-NO-PDT"
    /// A byte-range without offset that does not follow a byte-range of the same resource.
    public static let byteRange: RuleID = "HLS-BYTERANGE"
    /// A number or date is well formed but outside the range this library represents: times
    /// beyond ``MediaTime/validRange``, decimal-integers above ``PlaylistParser/maximumInteger``,
    /// dates outside ``DateTime/validRange``.
    ///
    /// Lenient parsing keeps the line but does not use its value.
    public static let numberRange: RuleID = "HLS-NUMBER-RANGE"
}

/// A problem or remark about a playlist, with where it is, which rule it breaks and how to fix it.
///
/// Diagnostics are returned, never thrown: a lenient parse gives the model plus its diagnostics.
public struct PlaylistDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious it is.
    public var severity: Severity
    /// The rule it reports.
    public var rule: RuleID
    /// What is wrong, in one sentence.
    public var message: String
    /// What to change.
    public var hint: String
    /// Where it is.
    public var location: SourceLocation

    /// Creates a diagnostic.
    public init(severity: Severity, rule: RuleID, message: String, hint: String, location: SourceLocation) {
        self.severity = severity
        self.rule = rule
        self.message = message
        self.hint = hint
        self.location = location
    }

    /// `file:line:col: severity[RULE]: message (hint)`.
    public var description: String {
        "\(self.location): \(self.severity)[\(self.rule)]: \(self.message)"
            + (self.hint.isEmpty ? "" : " (\(self.hint))")
    }
}

/// The error a strict parse throws at the first error, and that malformed input raises.
public struct PlaylistParsingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is.
    ///
    /// Compare codes, not message text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case missingHeader, malformedAttributeList, duplicateAttribute, missingAttribute, invalidValue
            case duplicateTag, mixedPlaylist, segmentWithoutDuration, danglingSegmentTags, missingTargetDuration
            case segmentExceedsTarget, variantWithoutURI, undefinedVariable, notUTF8, tagPlacement, byteRange
            case dateRangeWithoutProgramDateTime, numberOutOfRange
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The input does not start with `#EXTM3U`.
        public static let missingHeader = Code(.missingHeader)
        /// An attribute list is malformed.
        public static let malformedAttributeList = Code(.malformedAttributeList)
        /// An attribute name repeats in one tag.
        public static let duplicateAttribute = Code(.duplicateAttribute)
        /// A required attribute is missing.
        public static let missingAttribute = Code(.missingAttribute)
        /// A value does not parse as its type.
        public static let invalidValue = Code(.invalidValue)
        /// A tag allowed once appears again.
        public static let duplicateTag = Code(.duplicateTag)
        /// Media and multivariant tags are mixed.
        public static let mixedPlaylist = Code(.mixedPlaylist)
        /// A URI without `EXTINF`.
        public static let segmentWithoutDuration = Code(.segmentWithoutDuration)
        /// Segment tags without a URI after them.
        public static let danglingSegmentTags = Code(.danglingSegmentTags)
        /// No `EXT-X-TARGETDURATION`.
        public static let missingTargetDuration = Code(.missingTargetDuration)
        /// A segment longer than the target duration.
        public static let segmentExceedsTarget = Code(.segmentExceedsTarget)
        /// `EXT-X-STREAM-INF` without a URI.
        public static let variantWithoutURI = Code(.variantWithoutURI)
        /// A variable reference with no definition.
        public static let undefinedVariable = Code(.undefinedVariable)
        /// The input is not UTF-8 text.
        public static let notUTF8 = Code(.notUTF8)
        /// A tag appears where it is not allowed.
        public static let tagPlacement = Code(.tagPlacement)
        /// A byte range cannot be resolved.
        public static let byteRange = Code(.byteRange)
        /// Date ranges but no program date time.
        public static let dateRangeWithoutProgramDateTime = Code(.dateRangeWithoutProgramDateTime)
        /// A number or date outside the range the library represents (rule `HLS-NUMBER-RANGE`).
        public static let numberOutOfRange = Code(.numberOutOfRange)

        /// The code's name.
        public var description: String { self.base.rawValue }

        init(rule: RuleID) {
            switch rule {
            case .missingHeader: self = .missingHeader
            case .attributeSyntax: self = .malformedAttributeList
            case .duplicateAttribute: self = .duplicateAttribute
            case .missingAttribute: self = .missingAttribute
            case .duplicateTag: self = .duplicateTag
            case .mixedPlaylist: self = .mixedPlaylist
            case .segmentWithoutDuration: self = .segmentWithoutDuration
            case .danglingSegmentTags: self = .danglingSegmentTags
            case .missingTargetDuration: self = .missingTargetDuration
            case .segmentExceedsTarget: self = .segmentExceedsTarget
            case .variantWithoutURI: self = .variantWithoutURI
            case .variable: self = .undefinedVariable
            case .tagPlacement: self = .tagPlacement
            case .byteRange: self = .byteRange
            case .dateRangeWithoutProgramDateTime: self = .dateRangeWithoutProgramDateTime
            case .numberRange: self = .numberOutOfRange
            default: self = .invalidValue
            }
        }
    }

    /// What kind of error.
    public var code: Code
    /// What is wrong.
    public var message: String
    /// Where.
    public var location: SourceLocation
    /// How to fix it.
    public var hint: String

    /// Creates an error.
    public init(code: Code, message: String, location: SourceLocation, hint: String = "") {
        self.code = code
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// Creates the error for an error diagnostic.
    public init(_ diagnostic: PlaylistDiagnostic) {
        self.init(
            code: Code(rule: diagnostic.rule),
            message: diagnostic.message,
            location: diagnostic.location,
            hint: diagnostic.hint
        )
    }

    /// `line:col: error: message (hint)`.
    public var description: String {
        "\(self.location): error: \(self.message)" + (self.hint.isEmpty ? "" : " (\(self.hint))")
    }
}
