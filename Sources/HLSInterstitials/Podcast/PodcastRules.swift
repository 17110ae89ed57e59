import HLSPlaylist

/// A set of extra rules the validator adds on top of the spec's, for one kind of client.
///
/// A profile only adds rules: everything the plain validator reports is reported too. Ask for one
/// with ``InterstitialValidator/validate(playlist:file:profile:)`` or
/// ``InterstitialValidator/validate(profile:multivariant:file:)``; without a profile nothing of it
/// is checked.
public enum ValidationProfile: String, Sendable, Hashable, CaseIterable {
    /// Apple Podcasts: HLS video-on-demand episodes with interstitial ads, an audio-only variant and
    /// the authoring rules of Apple's "HLS for Apple Podcasts" pages (rules `INT-PODCAST-…`, see
    /// ``InterstitialRule/podcastRules``).
    case podcast

    /// The rules this profile adds.
    public var rules: [InterstitialRule] {
        switch self {
        case .podcast: InterstitialRule.podcastRules
        }
    }
}

/// The numbers of the podcast profile, each from the page cited.
public enum PodcastLimits {
    /// How far a `START-DATE` may be from a segment boundary and still count as on it: 1 ms.
    ///
    /// Dates in playlists are written to the millisecond, so a cue point computed from
    /// `PROGRAM-DATE-TIME` and `EXTINF` sums can be off by a rounding of less than this (our choice).
    public static let boundaryTolerance = MediaTime(milliseconds: 1)
    /// Date ranges must not start within this much of the end of the stream: 2 s (the
    /// `boundary-margin` of rule 24060 in the `mediastreamvalidator` settings Apple publishes on
    /// "Reviewing sample playlists and validating streams").
    public static let endMargin = MediaTime(seconds: 2)
    /// The allowed `EXT-X-TARGETDURATION` range, 4 to 10 s ("Authoring multivariant and media
    /// playlists", and rule 35023 of the validator settings).
    public static let targetDurationRange = 4...10
    /// The lowest `EXT-X-VERSION` of a media playlist: 7 ("Authoring multivariant and media playlists").
    public static let minimumMediaVersion = 7
    /// The lowest `EXT-X-VERSION` of a multivariant playlist: 4 ("Authoring multivariant and media
    /// playlists").
    public static let minimumMultivariantVersion = 4
    /// The audio codecs "Encoding media for HLS" names: AAC-LC (`mp4a.40.2`, recommended), HE-AAC
    /// v1 (`mp4a.40.5`) and v2 (`mp4a.40.29`).
    ///
    /// The page names the codecs; the `CODECS` strings are
    /// their standard RFC 6381 spellings (our reading).
    public static let audioCodecs: Set<String> = ["mp4a.40.2", "mp4a.40.5", "mp4a.40.29"]
}

extension InterstitialRule {
    // Sources (all under https://developer.apple.com/documentation/http-live-streaming/):
    // [ads] delivering-ad-interstitials, [playlists] multivariant-and-media-playlists,
    // [validation] examples-and-validation (the mediastreamvalidator settings "podcasts.json"),
    // [encoding] encoding-media, [downloads] downloads-and-playback.

    /// An interstitial's `START-DATE` is not on a segment boundary of the media playlist (dates from
    /// `PROGRAM-DATE-TIME` plus the `EXTINF` durations, within ``PodcastLimits/boundaryTolerance``).
    ///
    /// Source: "Delivering ad interstitials in podcast streams" asks for an exact segment boundary
    /// at each interstitial cue point "when possible", hence a warning.
    public static let podcastSegmentBoundary = InterstitialRule(
        "INT-PODCAST-SEGMENT-BOUNDARY",
        .warning,
        "each interstitial's START-DATE should fall on an exact segment boundary"
    )
    /// A mid-roll lacks `X-SNAP="OUT,IN"`.
    ///
    /// Source: "Delivering ad interstitials in podcast streams" (`X-SNAP` "Recommended", example
    /// `OUT,IN`) and "Authoring multivariant and media playlists" (`X-SNAP` recommended). Pre-rolls
    /// (starting at the first segment) and `CUE="POST"` post-rolls are not checked: there is no
    /// splice to correct, and Apple's own sample pre-roll has no `X-SNAP` (our reading).
    public static let podcastSnap = InterstitialRule(
        "INT-PODCAST-SNAP",
        .warning,
        "a mid-roll should have X-SNAP=\"OUT,IN\""
    )
    /// An interstitial that starts at (or within ``PodcastLimits/endMargin`` of) the end of the
    /// episode has no `CUE="POST"`.
    ///
    /// Source: "Delivering ad interstitials in podcast streams" (include `CUE=POST` for a post-roll).
    /// Telling a post-roll by its position near the end is our reading of that rule together with
    /// the validator's end margin.
    public static let podcastCuePost = InterstitialRule(
        "INT-PODCAST-CUE-POST",
        .error,
        "a post-roll must have CUE=\"POST\""
    )
    /// `CUE` has a member other than `POST`.
    ///
    /// Source: the validator settings on "Reviewing sample playlists and validating streams" (rule
    /// 42508 limits `CUE` to `POST`). A pre-roll is an interstitial whose `START-DATE` is the
    /// episode's first date, as in Apple's sample playlist.
    public static let podcastCueValue = InterstitialRule(
        "INT-PODCAST-CUE-VALUE",
        .error,
        "CUE may only be \"POST\" (a pre-roll starts at the first segment instead of CUE=\"PRE\")"
    )
    /// An attribute the podcast pages require is missing: `X-RESUME-OFFSET`,
    /// `X-TIMELINE-OCCUPIES`, `X-TIMELINE-STYLE`, and `DURATION` or `PLANNED-DURATION` with
    /// `X-ASSET-URI`.
    ///
    /// Source: the attribute table of "Delivering ad interstitials in podcast streams" ("Required for
    /// Podcasts", and its note on durations), and the `EXT-X-DATERANGE` row of "Authoring
    /// multivariant and media playlists". `CLASS` and `START-DATE` (also "Required") are checked by
    /// the spec's own rules.
    public static let podcastAttributeRequired = InterstitialRule(
        "INT-PODCAST-ATTRIBUTE-REQUIRED",
        .error,
        "an interstitial needs X-RESUME-OFFSET, X-TIMELINE-OCCUPIES, X-TIMELINE-STYLE (and a duration with X-ASSET-URI)"
    )
    /// `X-RESUME-OFFSET` is not 0, `X-TIMELINE-OCCUPIES` not `RANGE` or `X-TIMELINE-STYLE` not
    /// `PRIMARY`.
    ///
    /// Source: "Authoring multivariant and media playlists" lists `X-RESUME-OFFSET=0`,
    /// `X-TIMELINE-OCCUPIES="RANGE"` and `X-TIMELINE-STYLE="PRIMARY"` as required; the validator
    /// settings (rule 42508) limit the two timeline attributes to those values.
    public static let podcastAttributeValue = InterstitialRule(
        "INT-PODCAST-ATTRIBUTE-VALUE",
        .error,
        "X-RESUME-OFFSET must be 0, X-TIMELINE-OCCUPIES \"RANGE\" and X-TIMELINE-STYLE \"PRIMARY\""
    )
    /// An interstitial has `X-RESTRICT`.
    ///
    /// Source: "Authoring multivariant and media playlists" (Apple Podcasts ignores `X-RESTRICT`) and
    /// the validator settings (rule 42508 forbids it).
    public static let podcastRestrict = InterstitialRule(
        "INT-PODCAST-RESTRICT",
        .warning,
        "Apple Podcasts ignores X-RESTRICT; leave it out"
    )
    /// The media playlist is not `EXT-X-PLAYLIST-TYPE:VOD` with `EXT-X-ENDLIST`.
    ///
    /// Source: "Authoring multivariant and media playlists" (`EXT-X-PLAYLIST-TYPE` required, `VOD`;
    /// `EXT-X-ENDLIST` required for VOD) and the validator settings (rule 42518 allows VOD only).
    public static let podcastNotVOD = InterstitialRule(
        "INT-PODCAST-NOT-VOD",
        .error,
        "an episode's media playlist must have EXT-X-PLAYLIST-TYPE:VOD and EXT-X-ENDLIST"
    )
    /// An interstitial starts before the first segment, or within ``PodcastLimits/endMargin`` of the
    /// end (a `CUE="POST"` post-roll too).
    ///
    /// Source: the validator settings (rule 24060, `boundary-check` "must" with a 2 s margin).
    public static let podcastDateBounds = InterstitialRule(
        "INT-PODCAST-DATE-BOUNDS",
        .error,
        "an interstitial must start inside the episode and not within 2 s of its end"
    )
    /// A `PROGRAM-DATE-TIME` is the UNIX epoch (1970-01-01T00:00:00Z).
    ///
    /// Source: "Authoring multivariant and media playlists" (do not use the UNIX start time).
    public static let podcastEpoch = InterstitialRule(
        "INT-PODCAST-PDT-EPOCH",
        .error,
        "PROGRAM-DATE-TIME must not be the UNIX start time (1970-01-01)"
    )
    /// `EXT-X-TARGETDURATION` is outside 4 to 10 s.
    ///
    /// Source: "Authoring multivariant and media playlists" (range 4 to 10, 6 recommended) and the
    /// validator settings (rule 35023).
    public static let podcastTargetDuration = InterstitialRule(
        "INT-PODCAST-TARGET-DURATION",
        .error,
        "EXT-X-TARGETDURATION must be 4 to 10 seconds"
    )
    /// `EXT-X-VERSION` is below 7 in a media playlist or below 4 in a multivariant playlist (absent
    /// counts as 1).
    ///
    /// Source: "Authoring multivariant and media playlists" (minimum versions 7 and 4).
    public static let podcastVersion = InterstitialRule(
        "INT-PODCAST-VERSION",
        .error,
        "EXT-X-VERSION must be at least 7 in media playlists and 4 in the multivariant playlist"
    )
    /// The multivariant playlist has no audio-only variant (every codec in `CODECS` an audio codec).
    ///
    /// Source: "Authoring multivariant and media playlists" (an audio-only variant is required
    /// along with the video variants) and the validator settings (rule 33053, `audioOnly`
    /// "require"); "Handling downloads and playback" says why: followers get audio-only downloads
    /// by default.
    public static let podcastAudioOnlyVariant = InterstitialRule(
        "INT-PODCAST-AUDIO-ONLY-VARIANT",
        .error,
        "the multivariant playlist must have an audio-only variant"
    )
    /// A variant's audio codec is not AAC-LC or HE-AAC v1/v2 (``PodcastLimits/audioCodecs``).
    ///
    /// Source: "Encoding media for HLS" (AAC-LC recommended, or HE-AAC v1/v2).
    public static let podcastAudioCodec = InterstitialRule(
        "INT-PODCAST-AUDIO-CODEC",
        .warning,
        "audio should be AAC-LC (mp4a.40.2) or HE-AAC v1/v2 (mp4a.40.5, mp4a.40.29)"
    )
    /// A variant lacks `CODECS` or `AVERAGE-BANDWIDTH`, or a video variant lacks `RESOLUTION`.
    ///
    /// Source: "Authoring multivariant and media playlists" (`BANDWIDTH`, `RESOLUTION`, `CODECS`
    /// and `AVERAGE-BANDWIDTH` required). Apple's own audio-only variant has no `RESOLUTION`, so it
    /// is required of video variants only (our reading).
    public static let podcastVariantAttribute = InterstitialRule(
        "INT-PODCAST-VARIANT-ATTRIBUTE",
        .error,
        "every variant needs CODECS and AVERAGE-BANDWIDTH, and every video variant RESOLUTION"
    )

    /// The rules of ``ValidationProfile/podcast``, in the order above.
    ///
    /// They are not in ``all``:
    /// they apply only when the profile is asked for.
    public static let podcastRules: [InterstitialRule] = [
        .podcastSegmentBoundary, .podcastSnap, .podcastCuePost, .podcastCueValue, .podcastAttributeRequired,
        .podcastAttributeValue, .podcastRestrict, .podcastNotVOD, .podcastDateBounds, .podcastEpoch,
        .podcastTargetDuration, .podcastVersion, .podcastAudioOnlyVariant, .podcastAudioCodec,
        .podcastVariantAttribute,
    ]
}
