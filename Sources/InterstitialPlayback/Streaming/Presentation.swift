import HLSInterstitials
import HLSPlaylist

/// Which presentation a load belongs to: the primary, or one asset of an interstitial event.
struct PresentationID: Sendable, Hashable, CustomStringConvertible {
    var eventID: String?
    var assetIndex: Int

    static let primary = PresentationID(eventID: nil, assetIndex: 0)
    static func asset(_ eventID: String, _ index: Int) -> PresentationID {
        PresentationID(eventID: eventID, assetIndex: index)
    }

    var isPrimary: Bool { self.eventID == nil }
    /// `primary`, or `ad1#0` (event and 0-based asset index).
    var description: String { self.eventID.map { "\($0)#\(self.assetIndex)" } ?? "primary" }
}

/// What a load is for, so its answer goes to the right place.
enum LoadPurpose: Sendable, Hashable {
    case mainPlaylist(PresentationID)
    case mediaPlaylist(PresentationID, track: Int, blocking: Bool)
    case segment(PresentationID, track: Int, sequenceNumber: Int)
    case map(PresentationID, track: Int, url: String)
    case assetList(eventID: String)
    /// A preload range's `X-URI` (Appendix F), by the range's ID.
    case preload(rangeID: String)
    /// A scheduled-date-range document (Appendix H), by its absolute URL.
    case schedule(url: String)
    /// The head of the client-side beacon queue.
    case beacon

    var presentation: PresentationID? {
        switch self {
        case .mainPlaylist(let id), .mediaPlaylist(let id, _, _), .segment(let id, _, _), .map(let id, _, _): id
        case .assetList, .preload, .schedule, .beacon: nil
        }
    }
}

/// A load the player should start.
struct PendingLoad: Sendable {
    var purpose: LoadPurpose
    var request: LoadRequest
    /// Blocking playlist reloads wait on the server; a virtual clock does not wait for them.
    var isBlocking: Bool = false
}

/// What a presentation reports after handling an answer.
enum PresentationEvent: Sendable {
    case variantSelected(url: String, bandwidth: Int, audioLanguage: String?, subtitleLanguage: String?)
    case playlistLoaded(track: Track.Kind, url: String, segments: Int, isLive: Bool, changed: Bool, delta: Bool)
    case buffered(MediaTime)
    case failed(PlaybackError)
}

/// The limits and preferences a presentation streams with.
struct StreamingSettings: Sendable {
    var preferredLanguages: [String]
    var playlistTimeout: Duration
    var segmentTimeout: Duration
    var maximumPlaylistSize: Int
    var maximumSegmentSize: Int
    var retryLimit: Int
}

/// One HLS presentation being streamed: the primary, or an interstitial asset (each asset is a
/// presentation of its own, loaded from its multivariant or media playlist).
///
/// A value with event methods: the player asks it what to load next (`nextLoads(now:limit:bandwidth:settings:)`)
/// and hands it each answer (``handle(_:for:now:bandwidth:settings:)``); it never does I/O.
struct Presentation: Sendable {
    let id: PresentationID
    let url: String
    /// Where buffering and playback begin on this presentation's timeline.
    var startTime: MediaTime
    var multivariant: MultivariantPlaylist?
    var variants: [VariantStream] = []
    var variantIndex: Int?
    var tracks: [Track] = []
    var isLoadingMain = false
    var mainLoaded = false
    var error: PlaybackError?
    var audioLanguage: String?
    var subtitleLanguage: String?
    /// The primary's rendition choice an interstitial follows.
    ///
    /// Its audio language before the settings', and its subtitle language or none (`nil`
    /// subtitles: the primary shows none, so neither does the interstitial). `nil` for the
    /// primary: the settings decide.
    var followedChoice: FollowedRenditions?

    init(id: PresentationID, url: String, startTime: MediaTime = .zero) {
        self.id = id
        self.url = url
        self.startTime = startTime
    }

    var mainTrack: Track? { self.tracks.first }
    var isReady: Bool { !self.tracks.isEmpty && self.tracks.allSatisfy { $0.playlist != nil } }
    var isLive: Bool { self.mainTrack?.isLive ?? false }
    var hasFailed: Bool { self.error != nil }

    /// The duration of a VOD presentation (its main track), once known.
    var duration: MediaTime? {
        guard let main = self.mainTrack, main.hasEndList else { return nil }
        return main.end
    }

    /// Whether any of the presentation's media has arrived: a segment of one of its tracks is
    /// buffered (an ad's impression counts from here, not from its playlist).
    var hasMedia: Bool { self.tracks.contains { !$0.buffered.ranges.isEmpty } }

    /// How far the buffer reaches from `time` without a gap, across all tracks.
    func bufferedEnd(from time: MediaTime) -> MediaTime {
        guard self.isReady else { return time }
        return self.tracks.map { $0.buffered.contiguousEnd(from: time) }.min() ?? time
    }

    /// Whether everything from `time` to the end is buffered.
    func isFullyBuffered(from time: MediaTime) -> Bool {
        guard let duration = self.duration else { return false }
        return self.bufferedEnd(from: time) >= duration - BufferedRanges.tolerance
            || self.tracks.allSatisfy(\.isComplete)
    }

    // MARK: Loads

    /// The loads to start now: playlists not yet loaded, reloads that are due, and the next
    /// segment of each track whose start is before `limit`.
    mutating func nextLoads(now: MediaTime, limit: MediaTime, settings: StreamingSettings) -> [PendingLoad] {
        guard self.error == nil else { return [] }
        var loads: [PendingLoad] = []
        if !self.mainLoaded {
            if !self.isLoadingMain {
                self.isLoadingMain = true
                loads.append(
                    PendingLoad(
                        purpose: .mainPlaylist(self.id),
                        request: self.playlistRequest(self.url, kind: .multivariantPlaylist, settings)
                    )
                )
            }
            return loads
        }
        for k in self.tracks.indices {
            var track = self.tracks[k]
            defer { self.tracks[k] = track }
            if track.playlist == nil {
                if !track.isLoadingPlaylist {
                    track.isLoadingPlaylist = true
                    track.lastReloadStart = now
                    loads.append(
                        PendingLoad(
                            purpose: .mediaPlaylist(self.id, track: k, blocking: false),
                            request: self.playlistRequest(track.playlistURL, kind: .mediaPlaylist, settings)
                        )
                    )
                }
                continue
            }
            if track.isLive, !track.hasEndList, !track.isLoadingPlaylist, let due = track.nextReload, due <= now {
                track.isLoadingPlaylist = true
                track.nextReload = nil
                let (url, blocking) = self.reloadURL(track, now: now)
                track.lastReloadStart = now
                loads.append(
                    PendingLoad(
                        purpose: .mediaPlaylist(self.id, track: k, blocking: blocking),
                        request: self.playlistRequest(
                            url,
                            kind: .mediaPlaylist,
                            settings,
                            extraTimeout: blocking ? (track.targetDuration * 3).duration : .zero
                        ),
                        isBlocking: blocking
                    )
                )
            }
            // Buffering moved ahead (a live break's resume point) past a segment that was next: skip
            // to the one holding the new start, or wait for a reload to list it.
            if !track.isLoadingSegment, let next = track.nextSequenceNumber, let segment = track.segment(next),
                segment.end <= track.startTime + BufferedRanges.tolerance
            {
                guard let skip = track.sequenceNumber(at: track.startTime), skip > next else { continue }
                track.nextSequenceNumber = skip
            }
            guard !track.isLoadingSegment, let next = track.nextSequenceNumber, let segment = track.segment(next) else {
                continue
            }
            if let retry = track.retryAt, retry > now { continue }
            guard segment.start < limit else { continue }
            track.isLoadingSegment = true
            if let map = segment.mapURL, track.currentMap != segment.mapKey {
                loads.append(
                    PendingLoad(
                        purpose: .map(self.id, track: k, url: segment.mapKey ?? map),
                        request: LoadRequest(
                            url: map,
                            kind: .initializationSection,
                            byteRange: segment.mapRange,
                            timeout: settings.segmentTimeout,
                            maximumBodySize: settings.maximumSegmentSize,
                            keepsBody: false
                        )
                    )
                )
            } else {
                loads.append(
                    PendingLoad(
                        purpose: .segment(self.id, track: k, sequenceNumber: next),
                        request: LoadRequest(
                            url: segment.url,
                            kind: .segment,
                            byteRange: segment.byteRange,
                            timeout: settings.segmentTimeout,
                            maximumBodySize: settings.maximumSegmentSize,
                            keepsBody: false
                        )
                    )
                )
            }
        }
        return loads
    }

    /// The earliest start of a segment some track will download next (none loading).
    var nextSegmentStart: MediaTime? {
        guard self.error == nil else { return nil }
        return self.tracks.compactMap { track -> MediaTime? in
            guard !track.isLoadingSegment, let next = track.nextSequenceNumber else { return nil }
            return track.segment(next)?.start
        }.min()
    }

    /// The earliest time a reload or a retry is due; none once the presentation has failed (a
    /// retry time left from before the failure would wake the player at once, again and again).
    var nextDeadline: MediaTime? {
        guard !self.hasFailed else { return nil }
        return self.tracks.compactMap { track -> MediaTime? in
            [track.isLoadingPlaylist ? nil : track.nextReload, track.isLoadingSegment ? nil : track.retryAt].compactMap
            { $0 }.min()
        }.min()
    }

    private func playlistRequest(
        _ url: String,
        kind: LoadRequest.Kind,
        _ settings: StreamingSettings,
        extraTimeout: Duration = .zero
    ) -> LoadRequest {
        LoadRequest(
            url: url,
            kind: kind,
            timeout: settings.playlistTimeout + extraTimeout,
            maximumBodySize: settings.maximumPlaylistSize,
            keepsBody: true
        )
    }

    /// The reload URL (§6.2.5, §6.3.7, §6.3.8): `_HLS_msn` (and `_HLS_part` when the playlist has
    /// partial segments) for a blocking reload when the server offers `CAN-BLOCK-RELOAD=YES`, and
    /// `_HLS_skip` (`v2` when `CAN-SKIP-DATERANGES=YES`, else `YES`) for a delta update when the
    /// server offers `CAN-SKIP-UNTIL` and the version held is younger than half of it.
    ///
    /// The query
    /// parameters are in UTF-8 order, as the spec requires of clients using delivery directives.
    private func reloadURL(_ track: Track, now: MediaTime) -> (String, Bool) {
        var items: [(name: String, value: String)] = []
        var blocking = false
        if let control = track.serverControl, let last = track.playlist {
            if control.canBlockReload, let lastNumber = track.lastSequenceNumber {
                // The next segment, or with partial segments the next part of the segment being
                // produced (its parts so far follow the last segment).
                items.append(("_HLS_msn", String(lastNumber + 1)))
                if last.partTarget != nil {
                    items.append(("_HLS_part", String(last.trailingParts.count)))
                }
                blocking = true
            }
            if let skipUntil = control.canSkipUntil, !track.needsFullReload, let received = track.receivedAt,
                now - received <= MediaTime(nanoseconds: skipUntil.nanoseconds / 2)
            {
                items.append(("_HLS_skip", control.canSkipDateRanges ? "v2" : "YES"))
            }
        }
        guard !items.isEmpty else { return (track.playlistURL, false) }
        return (Self.settingDirectives(items, in: track.playlistURL), blocking)
    }

    /// `uri` with the delivery directives set, every query parameter in UTF-8 order (§6.3.2).
    static func settingDirectives(_ items: [(name: String, value: String)], in uri: String) -> String {
        var components = URIReference.Components(parsing: uri)
        var pairs: [(name: String, text: String)] = []
        if let query = components.query, !query.isEmpty {
            for part in query.split(separator: "&") {
                let name = String(part.prefix { $0 != "=" })
                if items.contains(where: { $0.name == name }) { continue }
                pairs.append((name, String(part)))
            }
        }
        pairs += items.map { ($0.name, $0.name + "=" + $0.value) }
        pairs.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        components.query = pairs.map(\.text).joined(separator: "&")
        return components.description
    }

    // MARK: Answers

    /// Handles the answer to one of this presentation's loads.
    mutating func handle(
        _ result: Result<LoadResponse, PlaybackError>,
        for purpose: LoadPurpose,
        now: MediaTime,
        bandwidth: Double?,
        settings: StreamingSettings
    ) -> [PresentationEvent] {
        switch purpose {
        case .mainPlaylist:
            self.isLoadingMain = false
            switch Self.body(result, url: self.url) {
            case .failure(let error):
                self.error = error
                return [.failed(error)]
            case .success(let bytes):
                return self.handleMain(bytes, now: now, bandwidth: bandwidth, settings: settings)
            }
        case .mediaPlaylist(_, let k, let blocking):
            guard self.tracks.indices.contains(k) else { return [] }
            self.tracks[k].isLoadingPlaylist = false
            switch Self.body(result, url: self.tracks[k].playlistURL) {
            case .failure(let error):
                if self.tracks[k].playlist == nil || self.tracks[k].failures >= settings.retryLimit {
                    self.error = error
                    return [.failed(error)]
                }
                self.tracks[k].failures += 1
                self.tracks[k].nextReload = now + self.tracks[k].targetDuration
                return []
            case .success(let bytes):
                guard
                    case .media(var playlist) = PlaylistParser.parse(
                        bytes,
                        options: .init(mode: .lenient, file: self.tracks[k].playlistURL)
                    ).playlist
                else {
                    let error = PlaybackError(
                        code: .invalidPlaylist,
                        message: "not a media playlist",
                        url: self.tracks[k].playlistURL
                    )
                    self.error = error
                    return [.failed(error)]
                }
                let isDelta = playlist.skip != nil
                if isDelta {
                    // §6.3.7: merge the delta into the version held; when that lacks something the
                    // delta skipped, ask for the full playlist at once.
                    guard let previous = self.tracks[k].playlist,
                        let merged = DeltaUpdate.merge(playlist, into: previous)
                    else {
                        self.tracks[k].needsFullReload = true
                        self.tracks[k].nextReload = now
                        return []
                    }
                    playlist = merged
                }
                self.tracks[k].needsFullReload = false
                return self.handleMedia(playlist, track: k, now: now, blocking: blocking, delta: isDelta)
            }
        case .segment(_, let k, let number):
            guard self.tracks.indices.contains(k) else { return [] }
            self.tracks[k].isLoadingSegment = false
            guard self.tracks[k].nextSequenceNumber == number, let segment = self.tracks[k].segment(number) else {
                return []
            }
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                self.tracks[k].failures = 0
                self.tracks[k].retryAt = nil
                self.tracks[k].buffered.insert(segment.start, segment.end)
                self.tracks[k].nextSequenceNumber = number + 1
                self.tracks[k].bytesLoaded += response.byteCount
                return [.buffered(self.bufferedEnd(from: self.startTime))]
            default:
                let error = Self.error(result, url: segment.url)
                self.tracks[k].failures += 1
                if self.tracks[k].failures > settings.retryLimit {
                    self.error = error
                    return [.failed(error)]
                }
                self.tracks[k].retryAt = now + MediaTime(seconds: 0.5 * Double(self.tracks[k].failures))
                return []
            }
        case .map(_, let k, let key):
            guard self.tracks.indices.contains(k) else { return [] }
            self.tracks[k].isLoadingSegment = false
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                self.tracks[k].currentMap = key
                return []
            default:
                let error = Self.error(result, url: key)
                self.error = error
                return [.failed(error)]
            }
        case .assetList, .preload, .schedule, .beacon:
            return []
        }
    }

    private mutating func handleMain(
        _ bytes: [UInt8],
        now: MediaTime,
        bandwidth: Double?,
        settings: StreamingSettings
    ) -> [PresentationEvent] {
        let parsed = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: self.url))
        self.mainLoaded = true
        switch parsed.playlist {
        case .media(let playlist):
            self.tracks = [Track(kind: .main, playlistURL: self.url)]
            if playlist.skip != nil {
                // A delta update with nothing to merge it into (§6.3.7): load the playlist again.
                self.tracks[0].needsFullReload = true
                return [.variantSelected(url: self.url, bandwidth: 0, audioLanguage: nil, subtitleLanguage: nil)]
            }
            let events = self.handleMedia(playlist, track: 0, now: now, blocking: false)
            return [.variantSelected(url: self.url, bandwidth: 0, audioLanguage: nil, subtitleLanguage: nil)] + events
        case .multivariant(let multivariant):
            self.multivariant = multivariant
            self.variants = multivariant.variants.sorted { $0.bandwidth < $1.bandwidth }
            guard !self.variants.isEmpty else {
                let error = PlaybackError(
                    code: .noPlayableVariant,
                    message: "the multivariant playlist has no variant",
                    url: self.url
                )
                self.error = error
                return [.failed(error)]
            }
            let index = Self.variantIndex(self.variants, bandwidth: bandwidth)
            return self.select(variant: index, settings: settings)
        }
    }

    /// The best variant for a bandwidth estimate: the highest whose `BANDWIDTH` fits in 80 % of
    /// it, else the lowest.
    static func variantIndex(_ variants: [VariantStream], bandwidth: Double?) -> Int {
        guard let bandwidth else { return 0 }
        var best = 0
        for (k, variant) in variants.enumerated() where Double(variant.bandwidth) <= bandwidth * 0.8 {
            best = k
        }
        return best
    }

    /// Picks a variant and its renditions and sets up the tracks (new playlists load next).
    private mutating func select(variant index: Int, settings: StreamingSettings) -> [PresentationEvent] {
        guard let multivariant = self.multivariant else { return [] }
        let variant = self.variants[index]
        self.variantIndex = index
        var tracks = [Track(kind: .main, playlistURL: URIReference.resolve(variant.uri, against: self.url))]
        let languages = (self.followedChoice?.audio.map { [$0] } ?? []) + settings.preferredLanguages
        let subtitleLanguages =
            self.followedChoice.map { $0.subtitles.map { [$0] } ?? [] } ?? settings.preferredLanguages
        if let group = variant.audioGroup {
            let options = multivariant.renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
            if let choice = Self.rendition(options, languages: languages, requireMatch: false) {
                self.audioLanguage = choice.language
                if let uri = choice.uri {
                    tracks.append(
                        Track(
                            kind: .audio,
                            playlistURL: URIReference.resolve(uri, against: self.url),
                            language: choice.language
                        )
                    )
                }
            }
        }
        if let group = variant.subtitlesGroup {
            let options = multivariant.renditions.filter { $0.type == "SUBTITLES" && $0.groupID == group }
            if let choice = Self.rendition(options, languages: subtitleLanguages, requireMatch: true),
                let uri = choice.uri
            {
                self.subtitleLanguage = choice.language
                tracks.append(
                    Track(
                        kind: .subtitles,
                        playlistURL: URIReference.resolve(uri, against: self.url),
                        language: choice.language
                    )
                )
            }
        }
        for k in tracks.indices { tracks[k].startTime = self.startTime }
        self.tracks = tracks
        return [
            .variantSelected(
                url: tracks[0].playlistURL,
                bandwidth: variant.bandwidth,
                audioLanguage: self.audioLanguage,
                subtitleLanguage: self.subtitleLanguage
            )
        ]
    }

    /// The rendition for a language preference: the first preferred language offered, else
    /// (unless a match is required) the `DEFAULT=YES` one, else the first.
    static func rendition(_ options: [Rendition], languages: [String], requireMatch: Bool) -> Rendition? {
        for language in languages {
            if let match = options.first(where: { Self.languageMatches($0.language, language) }) { return match }
        }
        if requireMatch { return nil }
        return options.first(where: \.isDefault) ?? options.first
    }

    /// Whether a rendition's `LANGUAGE` matches a preference (`en` matches `en-US`).
    static func languageMatches(_ language: String?, _ preference: String) -> Bool {
        guard let language = language?.lowercased() else { return false }
        let preference = preference.lowercased()
        return language == preference || language.hasPrefix(preference + "-") || preference.hasPrefix(language + "-")
    }

    /// Switches to the best variant for a new bandwidth estimate, at the buffered end of the main
    /// track.
    ///
    /// Returns the events, or nothing when the variant stays.
    mutating func adapt(bandwidth: Double, settings: StreamingSettings) -> [PresentationEvent] {
        guard self.error == nil, let current = self.variantIndex, self.variants.count > 1, self.isReady, !self.isLive
        else { return [] }
        let best = Self.variantIndex(self.variants, bandwidth: bandwidth)
        guard best != current, !self.tracks[0].isLoadingSegment else { return [] }
        let variant = self.variants[best]
        let resumeAt = self.tracks[0].buffered.contiguousEnd(from: self.startTime)
        var track = Track(kind: .main, playlistURL: URIReference.resolve(variant.uri, against: self.url))
        track.startTime = resumeAt
        track.buffered = self.tracks[0].buffered
        self.tracks[0] = track
        self.variantIndex = best
        return [
            .variantSelected(
                url: track.playlistURL,
                bandwidth: variant.bandwidth,
                audioLanguage: self.audioLanguage,
                subtitleLanguage: self.subtitleLanguage
            )
        ]
    }

    private mutating func handleMedia(
        _ playlist: MediaPlaylist,
        track k: Int,
        now: MediaTime?,
        blocking: Bool,
        delta: Bool = false
    ) -> [PresentationEvent] {
        let first = self.tracks[k].playlist == nil
        if let now { self.tracks[k].receivedAt = now }
        let partsBefore = self.tracks[k].playlist?.trailingParts.count ?? 0
        let main = self.tracks.first
        let changed = self.tracks[k].merge(playlist, baseURL: self.tracks[k].playlistURL) { track in
            // Other tracks align with the main track by date, else by sequence number.
            guard track.kind != .main, let main, !main.segments.isEmpty else { return nil }
            if let date = playlist.timings.first?.date, let mainFirst = main.segments.first,
                let mainDate = mainFirst.date
            {
                return mainFirst.start + (date - mainDate)
            }
            return main.segment(playlist.mediaSequence + playlist.skippedSegmentCount)?.start
        }
        if first || self.tracks[k].nextSequenceNumber == nil {
            self.tracks[k].nextSequenceNumber = self.tracks[k].sequenceNumber(at: self.tracks[k].startTime)
        }
        if let now, playlist.isLive, !playlist.hasEndList {
            if changed { self.tracks[k].lastChange = now }
            // §6.3.4: reload after the target duration when the playlist changed, half of it otherwise,
            // counted from when the previous load began. §6.3.8: with blocking reloads, the request
            // for the next segment goes out as soon as the previous answer brought something new
            // (the server holds it until the segment exists); an answer with nothing new falls back
            // to the polling wait so that a server ignoring the directive is not hammered.
            let start = self.tracks[k].lastReloadStart ?? now
            let half = MediaTime(nanoseconds: self.tracks[k].targetDuration.nanoseconds / 2)
            let progressed = changed || playlist.trailingParts.count != partsBefore
            if self.tracks[k].serverControl?.canBlockReload == true, progressed || !blocking {
                self.tracks[k].nextReload = now
            } else {
                let wait = changed ? self.tracks[k].targetDuration : half
                self.tracks[k].nextReload = MediaTime.max(now, start + wait)
            }
        } else {
            self.tracks[k].nextReload = nil
        }
        return [
            .playlistLoaded(
                track: self.tracks[k].kind,
                url: self.tracks[k].playlistURL,
                segments: playlist.timings.count,
                isLive: playlist.isLive,
                changed: changed,
                delta: delta
            )
        ]
    }

    /// Forgets a reload of track `k` under way (its answer will be ignored); the next is due at `now`.
    mutating func abandonReload(track k: Int, now: MediaTime) {
        guard self.tracks.indices.contains(k) else { return }
        self.tracks[k].isLoadingPlaylist = false
        self.tracks[k].nextReload = now
    }

    /// Moves buffering to `time` (a seek or a resumption elsewhere): downloads continue from the
    /// segment containing it; what is buffered stays.
    mutating func reposition(to time: MediaTime) {
        self.startTime = time
        for k in self.tracks.indices {
            self.tracks[k].startTime = time
            let end = self.tracks[k].buffered.contiguousEnd(from: time)
            if end > time {
                // Continue after what is already buffered from there.
                self.tracks[k].nextSequenceNumber =
                    self.tracks[k].sequenceNumber(at: end) ?? self.tracks[k].nextSequenceNumber
            } else {
                self.tracks[k].nextSequenceNumber =
                    self.tracks[k].sequenceNumber(at: time) ?? self.tracks[k].nextSequenceNumber
            }
        }
    }

    /// Drops buffered media that playback has passed.
    mutating func discard(before time: MediaTime) {
        for k in self.tracks.indices { self.tracks[k].buffered.removeAll(before: time) }
    }

    static func body(_ result: Result<LoadResponse, PlaybackError>, url: String) -> Result<[UInt8], PlaybackError> {
        switch result {
        case .success(let response) where (200..<300).contains(response.status): .success(response.body)
        default: .failure(Self.error(result, url: url))
        }
    }

    static func error(_ result: Result<LoadResponse, PlaybackError>, url: String) -> PlaybackError {
        switch result {
        case .failure(let error): error
        case .success(let response):
            PlaybackError(code: .httpStatus, message: "HTTP \(response.status)", url: url, status: response.status)
        }
    }
}

/// The renditions a primary chose, which its interstitials follow.
struct FollowedRenditions: Sendable, Hashable {
    /// The primary's audio language, preferred first.
    var audio: String?
    /// The primary's subtitle language; `nil` when it shows no subtitles.
    var subtitles: String?
}
