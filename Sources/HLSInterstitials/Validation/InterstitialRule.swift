import HLSPlaylist

/// A rule ``InterstitialValidator`` checks: its stable identifier, how serious breaking it is, and
/// what it requires.
///
/// Identifiers start with `INT-` and never change meaning; new rules get new identifiers. Three
/// checks of the checklist belong to the playlist parser and keep its identifiers:
/// `HLS-ATTR-DUPLICATE` (an attribute name repeats in one tag), `HLS-ATTR-REQUIRED` (a date range
/// without `ID`) and `HLS-DATERANGE-NO-PDT` (date ranges without any PROGRAM-DATE-TIME).
/// ``InterstitialValidator/validate(playlist:file:)-([UInt8],_)`` returns those too.
public struct InterstitialRule: Sendable, Hashable, CustomStringConvertible {
    /// The stable identifier, such as `INT-ASSET-MISSING`.
    public let id: RuleID
    /// The severity of every diagnostic of this rule.
    public let severity: Severity
    /// What the rule requires, in one sentence.
    public let summary: String

    init(_ id: String, _ severity: Severity, _ summary: String) {
        self.id = RuleID(id)
        self.severity = severity
        self.summary = summary
    }

    /// `ID: summary`.
    public var description: String { "\(self.id): \(self.summary)" }

    // MARK: - Every date range

    /// `ID=""`: a date range needs a non-empty ID.
    public static let idEmpty = InterstitialRule("INT-ID-EMPTY", .error, "ID must not be empty")
    /// The first tag of an ID has no `START-DATE`.
    public static let startDateMissing = InterstitialRule(
        "INT-START-DATE-MISSING",
        .error,
        "the first EXT-X-DATERANGE of an ID must have START-DATE"
    )
    /// `START-DATE` or `END-DATE` is not a quoted ISO-8601 date.
    public static let dateValue = InterstitialRule(
        "INT-DATE-VALUE",
        .error,
        "START-DATE and END-DATE must be quoted ISO-8601 dates"
    )
    /// `DURATION` or `PLANNED-DURATION` is negative or not a decimal number.
    public static let durationValue = InterstitialRule(
        "INT-DURATION-VALUE",
        .error,
        "DURATION and PLANNED-DURATION must be non-negative decimal numbers"
    )
    /// `END-DATE` is before `START-DATE`.
    public static let endDateBeforeStart = InterstitialRule(
        "INT-END-DATE-BEFORE-START",
        .error,
        "END-DATE must not be before START-DATE"
    )
    /// `END-DATE` differs from `START-DATE` + `DURATION`.
    public static let endDateMismatch = InterstitialRule(
        "INT-END-DATE-MISMATCH",
        .error,
        "with both DURATION and END-DATE, END-DATE must equal START-DATE + DURATION"
    )
    /// `CUE` has both `PRE` and `POST`.
    public static let cuePreAndPost = InterstitialRule(
        "INT-CUE-PRE-POST",
        .error,
        "CUE must not contain both PRE and POST"
    )
    /// `END-ON-NEXT` together with `DURATION` or `END-DATE`.
    public static let endOnNextWithEnd = InterstitialRule(
        "INT-END-ON-NEXT-WITH-END",
        .error,
        "a range with END-ON-NEXT must not have DURATION or END-DATE"
    )
    /// `END-ON-NEXT` without `CLASS`.
    public static let endOnNextWithoutClass = InterstitialRule(
        "INT-END-ON-NEXT-NO-CLASS",
        .error,
        "a range with END-ON-NEXT must have CLASS"
    )
    /// Ranges of a class that uses `END-ON-NEXT` overlap.
    public static let endOnNextOverlap = InterstitialRule(
        "INT-END-ON-NEXT-OVERLAP",
        .error,
        "ranges of a CLASS that uses END-ON-NEXT must not overlap"
    )
    /// A later tag with the same ID changes a value.
    public static let dateRangeChanged = InterstitialRule(
        "INT-DATERANGE-CHANGED",
        .error,
        "a later tag with the same ID may add attributes but not change their values"
    )
    /// A client `X-` attribute value is not a quoted-string, hexadecimal-sequence or signed decimal.
    public static let clientAttributeType = InterstitialRule(
        "INT-CLIENT-ATTRIBUTE-TYPE",
        .error,
        "client attribute values must be quoted-strings, hexadecimal-sequences or signed decimal numbers"
    )
    /// An attribute the spec defines has a value of the wrong syntactic type.
    public static let attributeType = InterstitialRule(
        "INT-ATTRIBUTE-TYPE",
        .error,
        "defined attributes must have values of their type (quoted, enumerated, hexadecimal)"
    )
    /// `CUE`, `X-SNAP` or `X-RESTRICT` has a member the spec does not define.
    public static let unknownMember = InterstitialRule(
        "INT-UNKNOWN-MEMBER",
        .warning,
        "unknown members of CUE, X-SNAP and X-RESTRICT are ignored"
    )

    // MARK: - Interstitials

    /// A tag looks like an interstitial but its `CLASS` is not exactly `com.apple.hls.interstitial`.
    public static let classValue = InterstitialRule(
        "INT-CLASS-VALUE",
        .warning,
        "an interstitial needs CLASS=\"com.apple.hls.interstitial\" exactly"
    )
    /// Neither `X-ASSET-URI` nor `X-ASSET-LIST`.
    public static let assetMissing = InterstitialRule(
        "INT-ASSET-MISSING",
        .error,
        "an interstitial must have X-ASSET-URI or X-ASSET-LIST"
    )
    /// Both `X-ASSET-URI` and `X-ASSET-LIST`.
    public static let assetBoth = InterstitialRule(
        "INT-ASSET-BOTH",
        .error,
        "an interstitial must not have both X-ASSET-URI and X-ASSET-LIST"
    )
    /// `X-ASSET-URI` is relative.
    public static let assetURIRelative = InterstitialRule(
        "INT-ASSET-URI-RELATIVE",
        .error,
        "X-ASSET-URI must be an absolute URI"
    )
    /// `X-RESUME-OFFSET` is not a signed decimal number.
    public static let resumeOffsetValue = InterstitialRule(
        "INT-RESUME-OFFSET-VALUE",
        .error,
        "X-RESUME-OFFSET must be a signed decimal number of seconds"
    )
    /// `X-PLAYOUT-LIMIT` is not a positive decimal number.
    public static let playoutLimitValue = InterstitialRule(
        "INT-PLAYOUT-LIMIT-VALUE",
        .error,
        "X-PLAYOUT-LIMIT must be a decimal number of seconds greater than 0"
    )
    /// `X-SKIP-CONTROL-OFFSET` or `X-SKIP-CONTROL-DURATION` is not a decimal integer.
    public static let skipControlValue = InterstitialRule(
        "INT-SKIP-CONTROL-VALUE",
        .error,
        "X-SKIP-CONTROL-OFFSET and X-SKIP-CONTROL-DURATION must be decimal integers"
    )
    /// `X-SKIP-CONTROL-LABEL-ID` has characters outside `[a-zA-Z-_]`.
    public static let skipLabelID = InterstitialRule(
        "INT-SKIP-LABEL-ID",
        .error,
        "X-SKIP-CONTROL-LABEL-ID must be a quoted-string of the characters a-z, A-Z, '-' and '_'"
    )
    /// `X-CONTENT-MAY-VARY`, `X-TIMELINE-OCCUPIES` or `X-TIMELINE-STYLE` has an unknown value.
    public static let unknownValue = InterstitialRule(
        "INT-UNKNOWN-VALUE",
        .warning,
        "unknown values of X-CONTENT-MAY-VARY, X-TIMELINE-OCCUPIES and X-TIMELINE-STYLE are treated as absent"
    )
    /// An interstitial starts after the end of a VOD primary.
    public static let afterEnd = InterstitialRule(
        "INT-AFTER-END",
        .warning,
        "an interstitial scheduled after the end of a VOD primary never plays"
    )
    /// No `DURATION`, `END-DATE` or `END-ON-NEXT`.
    public static let durationUnknown = InterstitialRule(
        "INT-DURATION-UNKNOWN",
        .note,
        "without DURATION the interstitial's duration is unknown until its assets load"
    )
    /// No `X-RESUME-OFFSET` in a VOD playlist.
    public static let resumeOffsetDefault = InterstitialRule(
        "INT-RESUME-OFFSET-DEFAULT",
        .note,
        "without X-RESUME-OFFSET an interstitial replaces as much primary content as it lasts"
    )

    // MARK: - Preload date ranges (Appendix F)

    /// A preload range lacks `X-URI`, `X-TARGET-ID` or `X-TARGET-CLASS`.
    public static let preloadAttributeMissing = InterstitialRule(
        "INT-PRELOAD-ATTRIBUTE-MISSING",
        .error,
        "a preload range must have X-URI, X-TARGET-ID and X-TARGET-CLASS"
    )
    /// A preload range has neither `DURATION` nor `END-DATE`.
    public static let preloadDurationMissing = InterstitialRule(
        "INT-PRELOAD-DURATION-MISSING",
        .error,
        "a preload range must have DURATION or END-DATE"
    )
    /// A preload range has `CUE` or `END-ON-NEXT`.
    public static let preloadCue = InterstitialRule(
        "INT-PRELOAD-CUE",
        .error,
        "a preload range must not have CUE or END-ON-NEXT"
    )
    /// `X-DURATION-AT-JOIN` of a preload range is not a positive decimal number.
    public static let preloadDurationAtJoinValue = InterstitialRule(
        "INT-PRELOAD-DURATION-AT-JOIN-VALUE",
        .error,
        "X-DURATION-AT-JOIN must be a positive decimal number of seconds"
    )
    /// `X-TARGET-ID` names no date range of a playlist that is complete (VOD or ended).
    ///
    /// In a
    /// live playlist nothing is reported: the target may appear in a later reload (clients assume
    /// it appears at the reload at the preload range's end).
    public static let preloadTargetMissing = InterstitialRule(
        "INT-PRELOAD-TARGET-MISSING",
        .warning,
        "X-TARGET-ID should name a date range of the playlist"
    )
    /// `X-TARGET-CLASS` is not the `CLASS` of the range `X-TARGET-ID` names: clients discard the
    /// preloaded resource.
    public static let preloadTargetClass = InterstitialRule(
        "INT-PRELOAD-TARGET-CLASS",
        .warning,
        "X-TARGET-CLASS should be the CLASS of the target range"
    )
    /// `X-URI` lacks query items of the target's `X-ASSET-LIST` (or `X-ASSET-URI`): clients
    /// discard the preloaded resource.
    public static let preloadURIQuery = InterstitialRule(
        "INT-PRELOAD-URI-QUERY",
        .warning,
        "X-URI should carry the query parameters of the target's URI"
    )
    /// The preload window ends after the target's `START-DATE`.
    public static let preloadWindowAfterTarget = InterstitialRule(
        "INT-PRELOAD-WINDOW-AFTER-TARGET",
        .warning,
        "a preload range should end at or before the target's START-DATE"
    )

    // MARK: - Presentations and assets

    /// Media playlists of one presentation carry different date ranges.
    public static let presentationMismatch = InterstitialRule(
        "INT-PRESENTATION-MISMATCH",
        .error,
        "every media playlist with date ranges must carry the same ranges (same IDs, attributes and values)"
    )
    /// A rendition combination of a multivariant playlist has no media playlist with the date ranges
    /// the other playlists carry (§6.2.4).
    public static let presentationCoverage = InterstitialRule(
        "INT-PRESENTATION-COVERAGE",
        .error,
        "every playable rendition combination must include a media playlist with the date ranges"
    )
    /// A relative `X-ASSET-LIST` resolves to different URLs from different media playlists.
    public static let assetListResolution = InterstitialRule(
        "INT-ASSET-LIST-RESOLUTION",
        .error,
        "a relative X-ASSET-LIST must resolve to the same URL from every media playlist"
    )
    /// An interstitial asset's media playlist is not VOD.
    public static let assetNotVOD = InterstitialRule(
        "INT-ASSET-NOT-VOD",
        .error,
        "an interstitial asset must be VOD (EXT-X-ENDLIST or EXT-X-PLAYLIST-TYPE:VOD)"
    )
    /// An interstitial asset schedules interstitials of its own.
    public static let assetNested = InterstitialRule(
        "INT-ASSET-NESTED",
        .warning,
        "interstitials scheduled inside an interstitial asset are ignored"
    )

    /// Every rule, in the order above.
    public static let all: [InterstitialRule] = [
        .idEmpty, .startDateMissing, .dateValue, .durationValue, .endDateBeforeStart, .endDateMismatch,
        .cuePreAndPost, .endOnNextWithEnd, .endOnNextWithoutClass, .endOnNextOverlap, .dateRangeChanged,
        .clientAttributeType, .attributeType, .unknownMember, .classValue, .assetMissing, .assetBoth,
        .assetURIRelative, .resumeOffsetValue, .playoutLimitValue, .skipControlValue, .skipLabelID, .unknownValue,
        .afterEnd, .durationUnknown, .resumeOffsetDefault, .preloadAttributeMissing, .preloadDurationMissing,
        .preloadCue, .preloadDurationAtJoinValue, .preloadTargetMissing, .preloadTargetClass, .preloadURIQuery,
        .preloadWindowAfterTarget, .presentationMismatch, .presentationCoverage, .assetListResolution, .assetNotVOD,
        .assetNested,
    ]

    /// The rules whose breach makes an interstitial date range unplayable, so the schedule and the
    /// player leave it out (the spec: clients SHOULD ignore date ranges with illegal syntax): no
    /// asset or two (``assetMissing``, ``assetBoth``), an unquoted asset attribute
    /// (``attributeType``), `CUE` with PRE and POST, a negative or malformed
    /// `DURATION`/`PLANNED-DURATION`, an `END-DATE` that is malformed, before `START-DATE` or
    /// contradicts `DURATION`, `END-ON-NEXT` with an end, a malformed `X-RESUME-OFFSET` or
    /// `X-PLAYOUT-LIMIT`, and an empty `ID`. (A malformed `X-SKIP-CONTROL-*` only loses the skip
    /// button, and a relative `X-ASSET-URI` still resolves against the playlist: the interstitial
    /// still plays.)
    public static let unusableRules: Set<InterstitialRule> = [
        .assetMissing, .assetBoth, .attributeType, .cuePreAndPost, .durationValue, .dateValue,
        .endDateBeforeStart, .endDateMismatch, .endOnNextWithEnd, .resumeOffsetValue, .playoutLimitValue,
        .idEmpty,
    ]

    /// Whether breaking this rule makes an interstitial unplayable (see ``unusableRules``).
    public var makesEventUnusable: Bool { InterstitialRule.unusableRules.contains(self) }

    /// The rule with this identifier, if it is one of ``all`` or ``draftNameRules``.
    public init?(id: RuleID) {
        guard let rule = (InterstitialRule.all + InterstitialRule.draftNameRules).first(where: { $0.id == id }) else {
            return nil
        }
        self = rule
    }

    /// A diagnostic of this rule.
    func diagnostic(_ message: String, hint: String, at location: SourceLocation) -> PlaylistDiagnostic {
        PlaylistDiagnostic(severity: self.severity, rule: self.id, message: message, hint: hint, location: location)
    }
}
