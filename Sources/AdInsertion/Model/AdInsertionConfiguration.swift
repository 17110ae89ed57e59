import HLSInterstitials
import HLSPlaylist

/// A VOD presentation served with ad breaks.
public struct VODAsset: Sendable, Hashable {
    /// The name in URLs: `/vod/{id}/...`.
    public var id: String
    /// The folder the presentation lives in: an `http(s)://` base URL, or a path on this server
    /// (`/media/{mount}/...`) for a local folder.
    public var origin: String
    /// The main playlist's path inside ``origin`` (multivariant or media), `main.m3u8` by default.
    public var playlist: String
    /// The breaks, in any order.
    public var breaks: [VODBreak]
    /// The date given to media time 0 when the origin has no `EXT-X-PROGRAM-DATE-TIME`.
    public var programDateTimeOrigin: DateTime
    /// The VAST ad server asked for the breaks' ads, if any (else the local inventory decides).
    public var adServer: AdServerSettings?
    /// The creatives of the local inventory this asset's pods are filled from, by ID (configuration
    /// key `inventory`); `nil` (the default): all of them.
    ///
    /// An audio-only episode takes audio-only creatives and a video presentation video ones. A
    /// creative added later through the admin API counts when its ID is listed.
    public var inventory: Set<String>?
    /// The client the interstitial tags are written for (configuration key `profile`); `nil` (the
    /// default): the spec's defaults as ``VODBreak`` describes them.
    ///
    /// With `ValidationProfile.podcast` the tags follow Apple's rules for podcast episodes (the
    /// rules of that profile): no `CUE="PRE"` (a pre-roll is dated at the first segment),
    /// `CUE="POST"` for post-rolls and nothing else in `CUE`, `X-SNAP="OUT,IN"` on mid-rolls,
    /// `X-RESUME-OFFSET=0`, `X-TIMELINE-OCCUPIES="RANGE"`, `X-TIMELINE-STYLE="PRIMARY"`, no
    /// `X-RESTRICT`. The breaks' own `once`, `resumeOffset` and `restrictions` are then not written.
    public var profile: ValidationProfile?

    /// Creates an asset.
    public init(
        id: String,
        origin: String,
        playlist: String = "main.m3u8",
        breaks: [VODBreak] = [],
        programDateTimeOrigin: DateTime = DateTime(nanosecondsSince1970: 1_735_689_600_000_000_000)
    ) {
        self.id = id
        self.origin = origin
        self.playlist = playlist
        self.breaks = breaks
        self.programDateTimeOrigin = programDateTimeOrigin
    }

    /// The main playlist's URL: ``playlist`` resolved against ``origin``.
    public var playlistURL: String {
        OriginPath.resolve(self.playlist, against: self.origin)
    }
}

/// Regular breaks of a live channel: one every ``interval``.
public struct LiveBreakPlan: Sendable, Hashable {
    /// The time between break starts.
    public var interval: MediaTime
    /// Each break's pod duration.
    public var duration: MediaTime
    /// The first break's start after the channel's start date (the interval by default).
    public var offset: MediaTime?
    /// `X-RESTRICT` members.
    public var restrictions: [String]
    /// `X-SNAP` members.
    public var snap: [String]

    /// Creates a plan.
    public init(
        interval: MediaTime,
        duration: MediaTime,
        offset: MediaTime? = nil,
        restrictions: [String] = AttributeName.restrict.allowedValues ?? [],
        snap: [String] = []
    ) {
        self.interval = interval
        self.duration = duration
        self.offset = offset
        self.restrictions = restrictions
        self.snap = snap
    }

    /// The planned breaks that overlap `[from, to]`, with IDs `auto-0`, `auto-1`, … counted from
    /// `startDate`.
    ///
    /// The work is proportional to the number of breaks in the range, whatever the dates: the first
    /// index is computed, and dates that would not fit in 64-bit nanoseconds end the list.
    public func breaks(channel: String, startDate: DateTime, from: DateTime, to: DateTime) -> [LiveBreak] {
        guard self.interval > .zero, self.duration >= .zero, from <= to else { return [] }
        guard let first = Self.checkedSum(startDate.nanosecondsSince1970, (self.offset ?? self.interval).nanoseconds)
        else { return [] }
        let step = self.interval.nanoseconds
        // The earliest index whose break can still overlap `from`.
        var m: Int64 = 0
        if let earliest = Self.checkedDifference(from.nanosecondsSince1970, self.duration.nanoseconds),
            let distance = Self.checkedDifference(earliest, first), distance > 0
        {
            m = distance / step
        }
        var result: [LiveBreak] = []
        while let start = self.start(index: m, first: first), start <= to.nanosecondsSince1970 {
            if let end = Self.checkedSum(start, self.duration.nanoseconds), end >= from.nanosecondsSince1970 {
                result.append(self.liveBreak(index: m, start: start, channel: channel, startDate: startDate))
            }
            m += 1
        }
        return result
    }

    /// The planned break `auto-N`, computed directly (constant time), or `nil` when `id` is not of
    /// that form (decimal digits only, no sign) or its date does not fit in 64-bit nanoseconds.
    public func plannedBreak(id: String, channel: String, startDate: DateTime) -> LiveBreak? {
        guard self.interval > .zero, id.hasPrefix("auto-") else { return nil }
        let digits = id.utf8.dropFirst(5)
        // At most 18 digits: every such number fits in Int64 (the date check below does the rest).
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            digits.count == 1 || digits.first != 0x30,
            let m = Int64(String(decoding: digits, as: UTF8.self)),
            let first = Self.checkedSum(startDate.nanosecondsSince1970, (self.offset ?? self.interval).nanoseconds),
            let start = self.start(index: m, first: first),
            Self.checkedSum(start, self.duration.nanoseconds) != nil
        else { return nil }
        return self.liveBreak(index: m, start: start, channel: channel, startDate: startDate)
    }

    /// The start of break `index`, in nanoseconds since 1970, or `nil` when it does not fit.
    private func start(index: Int64, first: Int64) -> Int64? {
        let (span, overflow) = self.interval.nanoseconds.multipliedReportingOverflow(by: index)
        return overflow ? nil : Self.checkedSum(first, span)
    }

    private func liveBreak(index: Int64, start: Int64, channel: String, startDate: DateTime) -> LiveBreak {
        LiveBreak(
            id: "auto-\(index)",
            channel: channel,
            startDate: DateTime(nanosecondsSince1970: start),
            duration: self.duration,
            restrictions: self.restrictions,
            snap: self.snap,
            origin: .scheduled,
            updatedAt: startDate
        )
    }

    private static func checkedSum(_ a: Int64, _ b: Int64) -> Int64? {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }

    private static func checkedDifference(_ a: Int64, _ b: Int64) -> Int64? {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? nil : difference
    }
}

/// A live channel.
public struct LiveChannel: Sendable, Hashable {
    /// Where the channel's playlists come from.
    public enum Source: Sendable, Hashable {
        /// A live playlist on another server (its URL, multivariant or media).
        case upstream(String)
        /// A VOD presentation looped forever: its folder (as ``VODAsset/origin``) and main playlist.
        case loop(origin: String, playlist: String)
    }

    /// The name in URLs: `/live/{id}/...`.
    public var id: String
    /// The source.
    public var source: Source
    /// How many segments a simulated channel's playlists keep (the sliding window).
    public var windowSegments: Int
    /// When a simulated channel's loop began (segment 0); `nil` for midnight UTC of the server's start day.
    public var startDate: DateTime?
    /// Regular breaks, if any.
    public var breakPlan: LiveBreakPlan?
    /// How far ahead of the last segment breaks are announced.
    public var lookahead: MediaTime
    /// An upstream that has not changed for this long is reported stale in `/health`.
    public var staleAfter: MediaTime
    /// Breaks this long are assumed when an SCTE-35 out has no duration.
    public var defaultSCTE35Duration: MediaTime
    /// How the upstream's SCTE-35 markers are read: which segmentation types open and close a break
    /// (configuration keys `scte35BreakStarts` and `scte35BreakEnds`; by default provider and
    /// distributor advertisement and placement-opportunity starts and ends).
    public var scte35Signals = SCTE35CueReader()
    /// How long the last good playlist of a failing upstream is served in its place; after that
    /// the channel answers `503` with `Retry-After`.
    ///
    /// `nil` (the default): three target durations of
    /// that playlist (``staleAfter`` for a multivariant playlist).
    public var lastGoodLimit: MediaTime?
    /// Whether the channel's mid-rolls (breaks with neither `PRE` nor `POST`) are written with
    /// `CUE="ONCE"` (configuration key `cueOnce`; `false` by default).
    ///
    /// For hls.js players that cannot be given `interstitialAppendInPlace: false`: hls.js 1.6.15 to
    /// 1.7.1 lose live breaks announced ahead of the last segment, and `ONCE` is reported to avoid
    /// that (issue 16). The cost: a break plays at most once per viewing session, so a viewer who
    /// plays that part of the window again (seeking back) sees the content the break replaced
    /// instead of the ads.
    public var marksMidRollsOnce: Bool
    /// How long before each break its preload range (spec Appendix F) opens (configuration key
    /// `preloadWindow`, seconds): players request the break's asset list at a random moment
    /// inside it instead of all at the break.
    ///
    /// `nil` (the default):
    /// ``defaultPreloadTargetDurations`` target durations of the playlist; zero: no preload ranges.
    ///
    /// Players at the usual live hold-back (three target durations behind the last segment)
    /// request a break's list about three target durations before it anyway, and never later
    /// with a hint, so only the part of the window before that spreads the load: the default
    /// leaves five target durations of spread.
    public var preloadWindow: MediaTime?
    /// The VAST ad server asked for the breaks' ads, if any (else the local inventory decides).
    public var adServer: AdServerSettings?
    /// How the channel's breaks are written in its playlist (`breakFormat`; default
    /// ``LiveBreakFormat/assetList``).
    public var breakFormat: LiveBreakFormat = .assetList
    /// The creatives of the local inventory this channel's pods are filled from, by ID
    /// (configuration key `inventory`); `nil` (the default): all of them.
    public var inventory: Set<String>?

    /// The target durations a preload window lasts by default (the `preloadWindow` property).
    public static let defaultPreloadTargetDurations = 8

    /// The preload window for a playlist of `targetDuration` seconds (the `preloadWindow` property).
    public func preloadWindow(targetDuration: Int) -> MediaTime {
        self.preloadWindow ?? MediaTime(seconds: LiveChannel.defaultPreloadTargetDurations * max(0, targetDuration))
    }

    /// The upstream playlist's URL, or `nil` for a simulated channel.
    public var upstreamURL: String? {
        if case .upstream(let url) = self.source { return url }
        return nil
    }

    /// Creates a channel.
    public init(
        id: String,
        source: Source,
        windowSegments: Int = 6,
        startDate: DateTime? = nil,
        breakPlan: LiveBreakPlan? = nil,
        lookahead: MediaTime = MediaTime(seconds: 30),
        staleAfter: MediaTime = MediaTime(seconds: 30),
        defaultSCTE35Duration: MediaTime = MediaTime(seconds: 30),
        lastGoodLimit: MediaTime? = nil,
        marksMidRollsOnce: Bool = false
    ) {
        self.id = id
        self.source = source
        self.windowSegments = windowSegments
        self.startDate = startDate
        self.breakPlan = breakPlan
        self.lookahead = lookahead
        self.staleAfter = staleAfter
        self.defaultSCTE35Duration = defaultSCTE35Duration
        self.lastGoodLimit = lastGoodLimit
        self.marksMidRollsOnce = marksMidRollsOnce
    }
}

/// How ads are chosen.
public struct DecisionPolicy: Sendable, Hashable {
    /// A creative is not served again to the same viewer within this window.
    public var repeatWindow: MediaTime

    /// Creates a policy (one hour by default).
    public init(repeatWindow: MediaTime = MediaTime(seconds: 3600)) {
        self.repeatWindow = repeatWindow
    }
}

/// Everything the ad-insertion layer is configured with.
public struct AdInsertionConfiguration: Sendable, Hashable {
    /// VOD presentations.
    public var assets: [VODAsset]
    /// Live channels.
    public var channels: [LiveChannel]
    /// The creatives to fill pods with.
    public var inventory: [Creative]
    /// How ads are chosen.
    public var policy: DecisionPolicy

    /// Creates a configuration.
    public init(
        assets: [VODAsset] = [],
        channels: [LiveChannel] = [],
        inventory: [Creative] = [],
        policy: DecisionPolicy = DecisionPolicy()
    ) {
        self.assets = assets
        self.channels = channels
        self.inventory = inventory
        self.policy = policy
    }

    /// The asset with this ID.
    public func asset(_ id: String) -> VODAsset? { self.assets.first { $0.id == id } }

    /// The channel with this ID.
    public func channel(_ id: String) -> LiveChannel? { self.channels.first { $0.id == id } }
}

/// Which presentation a break belongs to: the `{scope}` of asset-list URLs (`vod-{asset}` or `live-{channel}`).
public struct AdScope: Sendable, Hashable, CustomStringConvertible {
    /// `vod` or `live`.
    public var kind: Kind
    /// The asset or channel ID.
    public var name: String

    /// VOD or live.
    public enum Kind: String, Sendable, Hashable {
        /// A VOD asset.
        case vod
        /// A live channel.
        case live
    }

    /// Creates a scope.
    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    /// Parses `vod-{name}` or `live-{name}`.
    public init?(rawValue: String) {
        if rawValue.hasPrefix("vod-"), rawValue.count > 4 {
            self.init(kind: .vod, name: String(rawValue.dropFirst(4)))
        } else if rawValue.hasPrefix("live-"), rawValue.count > 5 {
            self.init(kind: .live, name: String(rawValue.dropFirst(5)))
        } else {
            return nil
        }
    }

    /// `vod-{name}` or `live-{name}`.
    public var rawValue: String { "\(self.kind.rawValue)-\(self.name)" }

    /// The raw value.
    public var description: String { self.rawValue }
}

/// Resolution of origin-relative paths, for `http(s)://` origins and server paths alike.
public enum OriginPath {
    /// Resolves `path` against a folder URL, adding the folder's trailing `/` when it lacks one.
    public static func resolve(_ path: String, against origin: String) -> String {
        let folder = origin.hasSuffix("/") ? origin : origin + "/"
        return URIReference.resolve(path, against: folder)
    }

    /// Whether a name is safe in a URL path segment and an ID: letters, digits, `-`, `_`, `.`, `~`.
    public static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".."
            && name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x7E
            }
    }
}
