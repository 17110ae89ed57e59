import HLSInterstitials
import HLSPlaylist

/// Decorates the playlists of one VOD presentation with its ad breaks.
///
/// Built once per presentation from a reference media playlist (the first variant's), so that every
/// media playlist gets exactly the same `EXT-X-DATERANGE` tags (§6.2.4): the dates come from the
/// presentation's epoch (the reference's first `EXT-X-PROGRAM-DATE-TIME`, or the configured origin
/// when it has none) and the break offsets, never from the playlist being decorated.
///
/// ```swift
/// let decorator = VODDecorator(asset: asset, reference: firstVariant, locator: AssetListLocator())
/// let decorated = decorator.decorate(mediaPlaylist, playlistURL: "https://cdn.example.com/movie/720p.m3u8")
/// ```
public struct VODDecorator: Sendable {
    /// The date of media time 0.
    public let epoch: DateTime
    /// The reference playlist's duration (where post-rolls are dated).
    public let contentDuration: MediaTime
    /// The interstitial tags, with where each goes on the media timeline (`nil` = after the last segment).
    public let tags: [(dateRange: DateRange, time: MediaTime?)]

    /// Plans the tags of a presentation.
    ///
    /// - Parameters:
    ///   - asset: The asset and its breaks.
    ///   - reference: The media playlist whose dates and duration the tags follow.
    ///   - locator: Builds the `X-ASSET-LIST` URLs.
    public init(asset: VODAsset, reference: MediaPlaylist, locator: AssetListLocator) {
        let timings = reference.timings
        self.epoch = timings.first?.date ?? asset.programDateTimeOrigin
        self.contentDuration = reference.duration
        let scope = AdScope(kind: .vod, name: asset.id)
        var tags: [(DateRange, MediaTime?, Int)] = []
        for (order, plan) in asset.breaks.enumerated() {
            var event = InterstitialEvent(identifier: plan.id, time: .zero)
            let time: MediaTime?
            switch plan.position {
            case .preRoll:
                event.cue = .join
                time = .zero
            case .midRoll(let t):
                time = t
            case .postRoll:
                event.cue = .leave
                // Apple's validator wants every date range at least 2 s before the end, post-rolls
                // too (their `CUE="POST"`, not their date, says when they play): the podcast
                // profile dates one at the last segment boundary that far from the end.
                time =
                    asset.profile == .podcast ? Self.lastBoundary(of: reference, before: PodcastLimits.endMargin) : nil
            }
            event.willPlayOnce = plan.once
            event.duration = plan.duration
            event.resumptionOffset = plan.resumeOffset
            event.restrictions = plan.restrictions
            if asset.profile == .podcast { Self.applyPodcastRules(to: &event, position: plan.position) }
            event.assetListURI = locator.url(scope: scope, breakID: plan.id)
            let date = self.epoch + (time ?? self.contentDuration)
            guard let range = event.dateRange(startDate: date) else { continue }
            tags.append((range, time, order))
        }
        // Pre-rolls first, post-rolls last, mid-rolls by time; configuration order breaks ties.
        tags.sort { a, b in
            let ta = a.1 ?? MediaTime(nanoseconds: .max)
            let tb = b.1 ?? MediaTime(nanoseconds: .max)
            return ta == tb ? a.2 < b.2 : ta < tb
        }
        self.tags = tags.map { ($0.0, $0.1) }
    }

    /// The start of the last segment that starts at least `margin` before the playlist's end (0
    /// when none does).
    static func lastBoundary(of playlist: MediaPlaylist, before margin: MediaTime) -> MediaTime {
        let latest = playlist.duration - margin
        var result = MediaTime.zero
        var start = MediaTime.zero
        for segment in playlist.segments {
            if start > latest { break }
            result = start
            start = start + segment.duration
        }
        return result
    }

    /// Writes a break as Apple's rules for podcast episodes ask (``VODAsset/profile``).
    ///
    /// A pre-roll is an interstitial dated at the first segment without `CUE` (only `POST` may be in
    /// `CUE`), a mid-roll snaps out and in (`X-SNAP="OUT,IN"`), every break resumes where it left
    /// (`X-RESUME-OFFSET=0`), occupies a range shown as primary content
    /// (`X-TIMELINE-OCCUPIES="RANGE"`, `X-TIMELINE-STYLE="PRIMARY"`) and has no `X-RESTRICT`.
    static func applyPodcastRules(to event: inout InterstitialEvent, position: VODBreakPosition) {
        event.cue = position == .postRoll ? .leave : .none
        event.willPlayOnce = false
        event.resumptionOffset = .zero
        event.restrictions = []
        event.timelineOccupancy = .range
        event.supplementsPrimaryContent = true
        if case .midRoll = position {
            event.alignsStartWithPrimarySegmentBoundary = true
            event.alignsResumptionWithPrimarySegmentBoundary = true
        }
    }

    /// The folder of a server path (`/media/movie/prog.m3u8` gives `/media/movie/`), against which a
    /// plain relative URI (`PlainRelativeURI.isPlain(_:)`) resolves by appending it; `nil` when the
    /// path is not plain: not starting with one `/`, holding a query, a fragment, or an empty, `.` or
    /// `..` segment.
    public static func pathFolder(of path: String) -> String? {
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("?"), !path.contains("#"),
            let last = path.lastIndex(of: "/")
        else { return nil }
        let folder = path[...last]
        for segment in folder.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropLast()
        where segment.isEmpty || segment == "." || segment == ".." {
            return nil
        }
        return String(folder)
    }

    /// The media playlist with the presentation's interstitial tags, `EXT-X-PROGRAM-DATE-TIME` when it
    /// had none (dated from the epoch), and segment, key and map URIs made absolute to its origin URL.
    ///
    /// - Parameters:
    ///   - playlist: A media playlist of the presentation.
    ///   - playlistURL: Its URL at the origin (absolute, or a server path for local origins).
    public func decorate(_ playlist: MediaPlaylist, playlistURL: String) -> MediaPlaylist {
        var result = playlist
        // Plain relative segment URIs (most of them) are joined to the folder without parsing them
        // as URIs: a 24-hour DVR playlist has 43,200 of them.
        let plainBase = PlainRelativeURI.base(of: playlistURL) ?? Self.pathFolder(of: playlistURL)
        result.rewriteURIs { uri in
            if let plainBase, PlainRelativeURI.isPlain(uri) { return plainBase + uri }
            return URIReference.resolve(uri, against: playlistURL)
        }
        if !result.hasProgramDateTime {
            result.addProgramDateTimeIfMissing(startingAt: self.epoch)
        }
        let count = result.timings.count
        var insertions: [(dateRange: DateRange, position: Int)] = []
        for (range, time) in self.tags {
            let position: Int
            if let time {
                position = time == .zero ? 0 : (result.segmentIndex(containing: time) ?? count)
            } else {
                position = count
            }
            insertions.append((range, position))
        }
        result.insertDateRanges(insertions)
        return result
    }

    /// The multivariant playlist with its media playlist URIs left relative (so that players ask this
    /// server for them, where they are decorated) and every other URI made absolute to the origin.
    ///
    /// - Parameters:
    ///   - playlist: The origin's multivariant playlist.
    ///   - playlistURL: Its URL at the origin.
    public static func decorate(
        multivariant playlist: MultivariantPlaylist,
        playlistURL: String
    ) -> MultivariantPlaylist {
        var result = playlist
        let folder = String(
            playlistURL[
                ..<(playlistURL.lastIndex(of: "/").map { playlistURL.index(after: $0) } ?? playlistURL.endIndex)
            ]
        )
        result.rewriteURIs { uri in
            let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
            if path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") {
                // Media playlists stay relative; absolute ones inside the origin become relative.
                if URIReference.isAbsolute(uri) || uri.hasPrefix("/") {
                    return uri.hasPrefix(folder) ? String(uri.dropFirst(folder.count)) : uri
                }
                return uri
            }
            return URIReference.resolve(uri, against: playlistURL)
        }
        return result
    }
}
