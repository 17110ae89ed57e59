import HLSPlaylist

/// How the engine reads draft, legacy and non-spec names of interstitial attributes.
///
/// Under ``accept`` (the default) a draft name whose meaning is unambiguous is read as its spec
/// name (see ``DraftName/specName``); when the spec name is present too, the spec name wins (the
/// validator reports `INT-DRAFT-NAME-SHADOWED`). Under ``refuse`` every draft name is ignored, as a
/// player that follows the spec to the letter does: the attribute stays a user-defined `X-`
/// attribute and has no effect.
public enum DraftNamePolicy: String, Sendable, Hashable, CaseIterable {
    /// Read unambiguous draft names as their spec names.
    case accept
    /// Ignore draft names.
    case refuse
}

/// A draft, legacy or non-spec spelling of an interstitial attribute, restriction member or
/// asset-list key, with the spec spelling it stands for.
///
/// ``all`` lists every name the validator warns about, the engine can accept and
/// ``DraftNameFixer`` rewrites. Names with no ``specName`` have no unambiguous spec meaning: they
/// are reported, never mapped or rewritten.
public struct DraftName: Sendable, Hashable, CustomStringConvertible {
    /// Where a draft name appears.
    public enum Place: String, Sendable, Hashable {
        /// An attribute name of an `EXT-X-DATERANGE` tag.
        case attribute
        /// A member of the `X-RESTRICT` list.
        case restrictMember
        /// A key of the `SKIP-CONTROL` object of an asset list.
        case assetListSkipControlKey
    }

    /// The draft spelling, such as `X-ENABLE-SKIP-AFTER`.
    public let name: String
    /// Where it appears.
    public let place: Place
    /// The spec spelling it is read as, or `nil` when its meaning is not unambiguous.
    public let specName: String?
    /// The rule of its warning.
    public let rule: InterstitialRule
    /// Where the spelling comes from.
    public let origin: String
    /// What to write instead, for the warning's fix hint.
    public let hint: String

    /// Whether only date ranges that are (or look like) interstitials carry this name's meaning.
    ///
    /// A vendor prefetch attribute is reported on any date range.
    public var needsInterstitial: Bool { self.rule != .vendorPrefetch }

    /// `NAME -> SPEC` or `NAME (no spec equivalent)`.
    public var description: String { self.name + (self.specName.map { " -> " + $0 } ?? " (no unambiguous spec name)") }

    // MARK: - The names

    /// `X-CUE`: `CUE` before 2022 (hls.js still falls back to it).
    public static let legacyCue = DraftName(
        name: "X-CUE",
        place: .attribute,
        specName: "CUE",
        rule: .legacyCue,
        origin: "earlier drafts (before 2022; hls.js issue 5730)",
        hint: "rename X-CUE to CUE (same members: PRE, POST, ONCE)"
    )
    /// `X-ENABLE-SKIP-AFTER`: `X-SKIP-CONTROL-OFFSET` in Apple's October 2024 proposal.
    public static let enableSkipAfter = DraftName(
        name: "X-ENABLE-SKIP-AFTER",
        place: .attribute,
        specName: "X-SKIP-CONTROL-OFFSET",
        rule: .draftSkipControl,
        origin: "the October 2024 skip-control proposal (Shaka Player before PR 9276)",
        hint: "rename X-ENABLE-SKIP-AFTER to X-SKIP-CONTROL-OFFSET"
    )
    /// `X-ENABLE-SKIP-FOR`: `X-SKIP-CONTROL-DURATION` in Apple's October 2024 proposal.
    public static let enableSkipFor = DraftName(
        name: "X-ENABLE-SKIP-FOR",
        place: .attribute,
        specName: "X-SKIP-CONTROL-DURATION",
        rule: .draftSkipControl,
        origin: "the October 2024 skip-control proposal (Shaka Player before PR 9276)",
        hint: "rename X-ENABLE-SKIP-FOR to X-SKIP-CONTROL-DURATION"
    )
    /// `X-SKIP-AFTER`: HLSKit's "seconds after which the user can skip", the spec's skip offset.
    public static let skipAfter = DraftName(
        name: "X-SKIP-AFTER",
        place: .attribute,
        specName: "X-SKIP-CONTROL-OFFSET",
        rule: .nonSpecSkip,
        origin: "HLSKit (atelier-socle/swift-hls-kit), not in any draft",
        hint: "rename X-SKIP-AFTER to X-SKIP-CONTROL-OFFSET (a decimal integer of seconds)"
    )
    /// `X-SKIP-BUTTON-START`: HLSKit's "when the skip button appears"; with `X-SKIP-AFTER` it
    /// splits what the spec's one offset means, so it has no unambiguous spec name.
    public static let skipButtonStart = DraftName(
        name: "X-SKIP-BUTTON-START",
        place: .attribute,
        specName: nil,
        rule: .nonSpecSkip,
        origin: "HLSKit (atelier-socle/swift-hls-kit), not in any draft",
        hint:
            "remove it: the spec has one X-SKIP-CONTROL-OFFSET, the moment the skip control appears and works"
    )
    /// `X-RESTRICT="SEEK"`: HLSKit's "prevent seeking within the interstitial", which is the
    /// spec's `SKIP` (no forward seek or faster rate during the interstitial), not `JUMP` (no seek
    /// past the interstitial from before it; HLSKit spells that `JUMP` too).
    public static let restrictSeek = DraftName(
        name: "SEEK",
        place: .restrictMember,
        specName: "SKIP",
        rule: .nonSpecRestrict,
        origin: "HLSKit (atelier-socle/swift-hls-kit), whose SEEK prevents seeking within the interstitial",
        hint: "write SKIP (no seeking within the interstitial); JUMP is the other restriction (no seeking past it)"
    )
    /// `X-PREFETCH-ID`: a vendor prefetch range that predates Appendix F.
    public static let prefetchID = DraftName(
        name: "X-PREFETCH-ID",
        place: .attribute,
        specName: nil,
        rule: .vendorPrefetch,
        origin: "vendor prefetch date ranges seen in the wild (before Appendix F)",
        hint:
            "announce the prefetch with a CLASS=\"com.apple.hls.preload\" date range (Appendix F) with X-URI, X-TARGET-ID and X-TARGET-CLASS"
    )
    /// `X-PRELOAD-AHEAD`: HLSKit's preload lead time, which Appendix F expresses as the preload range's
    /// own START-DATE and DURATION. (HLSKit's other preload attribute, `X-com.apple.hls.preload`, is
    /// not a legal attribute name: the playlist parser reports it as `HLS-ATTR-SYNTAX`.)
    public static let preloadAhead = DraftName(
        name: "X-PRELOAD-AHEAD",
        place: .attribute,
        specName: nil,
        rule: .vendorPrefetch,
        origin: "HLSKit (atelier-socle/swift-hls-kit)",
        hint: "give the CLASS=\"com.apple.hls.preload\" date range a START-DATE and DURATION for the preload window"
    )
    /// `ENABLE-SKIP-AFTER` in an asset list's `SKIP-CONTROL` object: `OFFSET` in the 2024 proposal.
    public static let assetListEnableSkipAfter = DraftName(
        name: "ENABLE-SKIP-AFTER",
        place: .assetListSkipControlKey,
        specName: "OFFSET",
        rule: .draftAssetListSkipControl,
        origin: "the October 2024 skip-control proposal (Shaka Player before PR 9276)",
        hint: "rename the SKIP-CONTROL key ENABLE-SKIP-AFTER to OFFSET"
    )
    /// `ENABLE-SKIP-FOR` in an asset list's `SKIP-CONTROL` object: `DURATION` in the 2024 proposal.
    public static let assetListEnableSkipFor = DraftName(
        name: "ENABLE-SKIP-FOR",
        place: .assetListSkipControlKey,
        specName: "DURATION",
        rule: .draftAssetListSkipControl,
        origin: "the October 2024 skip-control proposal (Shaka Player before PR 9276)",
        hint: "rename the SKIP-CONTROL key ENABLE-SKIP-FOR to DURATION"
    )

    /// Every draft name, in the order above.
    public static let all: [DraftName] = [
        .legacyCue, .enableSkipAfter, .enableSkipFor, .skipAfter, .skipButtonStart, .restrictSeek, .prefetchID,
        .preloadAhead, .assetListEnableSkipAfter, .assetListEnableSkipFor,
    ]

    /// The draft attribute names of date ranges, by name.
    static let attributes: [String: DraftName] = Dictionary(
        uniqueKeysWithValues: all.filter { $0.place == .attribute }.map { ($0.name, $0) }
    )

    /// The draft keys of an asset list's `SKIP-CONTROL` object, by key.
    static let assetListKeys: [String: DraftName] = Dictionary(
        uniqueKeysWithValues: all.filter { $0.place == .assetListSkipControlKey }.map { ($0.name, $0) }
    )
}

extension InterstitialRule {
    /// `X-CUE` instead of `CUE`.
    public static let legacyCue = InterstitialRule(
        "INT-LEGACY-CUE",
        .warning,
        "X-CUE is the pre-2022 name of CUE"
    )
    /// `X-ENABLE-SKIP-AFTER` or `X-ENABLE-SKIP-FOR` instead of `X-SKIP-CONTROL-*`.
    public static let draftSkipControl = InterstitialRule(
        "INT-DRAFT-SKIP-CONTROL",
        .warning,
        "X-ENABLE-SKIP-AFTER and X-ENABLE-SKIP-FOR are the 2024 draft names of X-SKIP-CONTROL-OFFSET and -DURATION"
    )
    /// `ENABLE-SKIP-AFTER` or `ENABLE-SKIP-FOR` in an asset list's `SKIP-CONTROL` object.
    public static let draftAssetListSkipControl = InterstitialRule(
        "INT-DRAFT-ASSET-LIST-SKIP-CONTROL",
        .warning,
        "ENABLE-SKIP-AFTER and ENABLE-SKIP-FOR in SKIP-CONTROL are the 2024 draft names of OFFSET and DURATION"
    )
    /// `X-SKIP-AFTER` or `X-SKIP-BUTTON-START`.
    public static let nonSpecSkip = InterstitialRule(
        "INT-NONSPEC-SKIP",
        .warning,
        "X-SKIP-AFTER and X-SKIP-BUTTON-START are not spec names; the skip control is X-SKIP-CONTROL-*"
    )
    /// `X-RESTRICT` with the member `SEEK`.
    public static let nonSpecRestrict = InterstitialRule(
        "INT-NONSPEC-RESTRICT",
        .warning,
        "SEEK is not an X-RESTRICT member; the members are SKIP and JUMP"
    )
    /// A vendor prefetch or preload attribute instead of an Appendix F preload date range.
    public static let vendorPrefetch = InterstitialRule(
        "INT-VENDOR-PREFETCH",
        .warning,
        "vendor prefetch attributes are not read by clients; preloading is a com.apple.hls.preload date range"
    )
    /// A draft name and its spec name both given: the spec name wins.
    public static let draftNameShadowed = InterstitialRule(
        "INT-DRAFT-NAME-SHADOWED",
        .warning,
        "when a draft name and its spec name are both given, the spec name is read and the draft name ignored"
    )

    /// The rules of draft, legacy and non-spec names (kept apart from ``all``: their fixtures are
    /// under `Tests/Fixtures/legacy`, one per name, not `interstitial-rules`).
    public static let draftNameRules: [InterstitialRule] = [
        .legacyCue, .draftSkipControl, .draftAssetListSkipControl, .nonSpecSkip, .nonSpecRestrict, .vendorPrefetch,
        .draftNameShadowed,
    ]
}
