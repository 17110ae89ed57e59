import HLSPlaylist

extension InterstitialValidator {
    /// Parses a playlist leniently and returns everything ``validate(playlist:file:)-([UInt8],_)``
    /// returns, plus the rules of `profile` for that kind of playlist (a media playlist's or a
    /// multivariant playlist's), sorted by location.
    ///
    /// - Parameters:
    ///   - bytes: The playlist file.
    ///   - file: Its path or URL, for locations.
    ///   - profile: The profile whose rules to add; `nil` adds none.
    public func validate(
        playlist bytes: [UInt8],
        file: String? = nil,
        profile: ValidationProfile?
    ) -> [PlaylistDiagnostic] {
        var diagnostics = self.validate(playlist: bytes, file: file)
        guard let profile else { return diagnostics }
        switch PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: file)).playlist {
        case .media(let playlist): diagnostics += self.validate(profile: profile, media: playlist, file: file)
        case .multivariant(let multivariant):
            diagnostics += self.validate(profile: profile, multivariant: multivariant, file: file)
        }
        return Self.sorted(diagnostics)
    }

    /// The diagnostics of `profile`'s rules for one media playlist of an episode (not the spec's
    /// rules: call ``validate(_:file:)`` for those).
    ///
    /// - Parameters:
    ///   - profile: The profile.
    ///   - playlist: A media playlist of the presentation (a variant's or a rendition's).
    ///   - file: Its path or URL, for locations.
    public func validate(
        profile: ValidationProfile,
        media playlist: MediaPlaylist,
        file: String? = nil
    )
        -> [PlaylistDiagnostic]
    {
        switch profile {
        case .podcast:
            var check = PodcastMediaCheck(playlist: playlist, file: file)
            check.check()
            return Self.sorted(check.run.diagnostics)
        }
    }

    /// The diagnostics of `profile`'s rules for a multivariant playlist (its variants and version).
    ///
    /// - Parameters:
    ///   - profile: The profile.
    ///   - multivariant: The multivariant playlist.
    ///   - file: Its path or URL, for locations.
    public func validate(
        profile: ValidationProfile,
        multivariant: MultivariantPlaylist,
        file: String? = nil
    )
        -> [PlaylistDiagnostic]
    {
        switch profile {
        case .podcast: Self.sorted(PodcastMultivariantCheck(multivariant: multivariant, file: file).run())
        }
    }
}

/// How far apart two instants in nanoseconds are (saturating at `Int64.max`).
private func gap(_ a: Int64, _ b: Int64) -> Int64 {
    (MediaTime(nanoseconds: a) - MediaTime(nanoseconds: b)).magnitude.nanoseconds
}

/// The line number (1-based) of the first line that starts with `prefix`, or 1.
private func lineNumber(in lines: PlaylistLines, startingWith prefix: String) -> Int {
    (lines.firstIndex { $0.text.hasPrefix(prefix) } ?? 0) + 1
}

/// The podcast rules of one media playlist.
struct PodcastMediaCheck {
    let playlist: MediaPlaylist
    let file: String?
    var run: PlaylistRun

    init(playlist: MediaPlaylist, file: String?) {
        self.playlist = playlist
        self.file = file
        self.run = PlaylistRun(playlist: playlist, file: file, includesNotes: false)
        self.run.merge()
        // Merge conflicts are the plain validator's to report.
        self.run.diagnostics.removeAll()
    }

    mutating func report(_ rule: InterstitialRule, line: Int, _ message: String, hint: String) {
        self.run.diagnostics.append(
            rule.diagnostic(message, hint: hint, at: SourceLocation(file: self.file, line: line, column: 1))
        )
    }

    mutating func check() {
        self.checkPlaylist()
        let timings = self.playlist.timings
        var boundaries: [Int64] = []
        for timing in timings {
            if let date = timing.date { boundaries.append(date.nanosecondsSince1970) }
        }
        if let last = timings.last, let date = last.date {
            boundaries.append((MediaTime(nanoseconds: date.nanosecondsSince1970) + last.duration).nanoseconds)
        }
        for m in self.run.merged.indices where self.run.merged[m].class == DateRange.interstitialClass {
            self.checkInterstitial(m, boundaries: boundaries)
        }
    }

    mutating func checkPlaylist() {
        let lines = self.playlist.lines
        if self.playlist.playlistType != .vod || !self.playlist.hasEndList {
            var missing: [String] = []
            if self.playlist.playlistType != .vod { missing.append("#EXT-X-PLAYLIST-TYPE:VOD") }
            if !self.playlist.hasEndList { missing.append("#EXT-X-ENDLIST") }
            self.report(
                .podcastNotVOD,
                line: 1,
                "the episode's media playlist lacks \(missing.joined(separator: " and ")); Apple Podcasts plays VOD only",
                hint:
                    "write #EXT-X-PLAYLIST-TYPE:VOD after #EXT-X-TARGETDURATION and end the playlist with #EXT-X-ENDLIST"
            )
        }
        let version = self.playlist.version ?? 1
        if version < PodcastLimits.minimumMediaVersion {
            self.report(
                .podcastVersion,
                line: self.playlist.version == nil ? 1 : lineNumber(in: lines, startingWith: "#EXT-X-VERSION"),
                "the media playlist's EXT-X-VERSION is \(version)\(self.playlist.version == nil ? " (absent)" : ""); Apple Podcasts needs at least \(PodcastLimits.minimumMediaVersion)",
                hint:
                    "write #EXT-X-VERSION:\(PodcastLimits.minimumMediaVersion) (or higher if the playlist uses newer features)"
            )
        }
        if let target = self.playlist.targetDuration, !PodcastLimits.targetDurationRange.contains(target) {
            self.report(
                .podcastTargetDuration,
                line: lineNumber(in: lines, startingWith: "#EXT-X-TARGETDURATION"),
                "EXT-X-TARGETDURATION is \(target) s; Apple Podcasts needs 4 to 10 s",
                hint:
                    "segment the episode into segments of 4 to 10 s (6 s recommended) and set EXT-X-TARGETDURATION to match"
            )
        }
        for (k, line) in lines.enumerated() where line.text.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
            let value = line.text.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)
            guard let date = DateTime(iso8601: value), date.nanosecondsSince1970 == 0 else { continue }
            self.report(
                .podcastEpoch,
                line: k + 1,
                "PROGRAM-DATE-TIME is the UNIX start time (\(value)), which Apple Podcasts does not accept",
                hint: "use any other fixed date as the episode's base time, e.g. 2026-01-01T00:00:00.000Z"
            )
        }
    }

    mutating func checkInterstitial(_ m: Int, boundaries: [Int64]) {
        let range = self.run.merged[m]
        let attributes = range.attributes
        let id = range.id
        let cue = attributes[.cue]?.stringList ?? []
        let isPost = cue.contains(AttributeName.Value.post)
        let start = range.startDate?.nanosecondsSince1970
        let tolerance = PodcastLimits.boundaryTolerance.nanoseconds
        let isPre = start != nil && boundaries.first.map { gap(start!, $0) <= tolerance } == true

        // Attributes.
        var missing: [String] = []
        for name in [AttributeName.resumeOffset, .timelineOccupies, .timelineStyle] where !attributes.contains(name) {
            missing.append(name.rawValue)
        }
        if attributes.contains(.assetURI), !attributes.contains(.duration), !attributes.contains(.plannedDuration) {
            missing.append("DURATION or PLANNED-DURATION")
        }
        if !missing.isEmpty {
            self.run.report(
                .podcastAttributeRequired,
                range: m,
                "interstitial \"\(id)\" lacks \(missing.joined(separator: ", ")), which Apple Podcasts requires",
                hint:
                    "add X-RESUME-OFFSET=0,X-TIMELINE-OCCUPIES=\"RANGE\",X-TIMELINE-STYLE=\"PRIMARY\" (and DURATION=<seconds> with X-ASSET-URI)"
            )
        }
        if let value = attributes[.resumeOffset], let offset = value.signedDecimal, offset != .zero {
            self.run.report(
                .podcastAttributeValue,
                range: m,
                attribute: .resumeOffset,
                "interstitial \"\(id)\" has X-RESUME-OFFSET=\(value.rawValue); Apple Podcasts requires 0",
                hint: "write X-RESUME-OFFSET=0: the episode resumes where the ad started"
            )
        }
        for (name, expected) in [(AttributeName.timelineOccupies, "RANGE"), (.timelineStyle, "PRIMARY")] {
            guard let value = attributes[name], value.text != expected else { continue }
            self.run.report(
                .podcastAttributeValue,
                range: m,
                attribute: name,
                "interstitial \"\(id)\" has \(name.rawValue)=\(value.rawValue); Apple Podcasts requires \"\(expected)\"",
                hint: "write \(name.rawValue)=\"\(expected)\""
            )
        }
        if attributes.contains(.restrict) {
            self.run.report(
                .podcastRestrict,
                range: m,
                attribute: .restrict,
                "interstitial \"\(id)\" has X-RESTRICT, which Apple Podcasts ignores (and its validator settings forbid)",
                hint: "remove X-RESTRICT"
            )
        }
        let others = cue.filter { $0 != AttributeName.Value.post }
        if !others.isEmpty {
            self.run.report(
                .podcastCueValue,
                range: m,
                attribute: .cue,
                "interstitial \"\(id)\" has CUE member\(others.count == 1 ? "" : "s") \(others.joined(separator: ", ")); Apple Podcasts allows only POST",
                hint:
                    "remove \(others.joined(separator: ", ")) from CUE; for a pre-roll set START-DATE to the first PROGRAM-DATE-TIME"
            )
        }
        if !isPre, !isPost {
            let snap = attributes[.snap]?.stringList ?? []
            if !snap.contains(AttributeName.Value.out) || !snap.contains(AttributeName.Value.in) {
                self.run.report(
                    .podcastSnap,
                    range: m,
                    attribute: attributes.contains(.snap) ? .snap : nil,
                    "mid-roll \"\(id)\" has \(attributes[.snap].map { "X-SNAP=\($0.rawValue)" } ?? "no X-SNAP"); Apple recommends X-SNAP=\"OUT,IN\" so the player corrects splice timing",
                    hint: "add X-SNAP=\"OUT,IN\""
                )
            }
        }
        guard let start, let first = boundaries.first, let end = boundaries.last else { return }
        self.checkPosition(m, start: start, first: first, end: end, isPost: isPost)
        if !boundaries.contains(where: { gap(start, $0) <= tolerance }) {
            let nearest = boundaries.min { gap(start, $0) < gap(start, $1) }!
            let date = DateTime(nanosecondsSince1970: nearest)
            let offset = MediaTime(nanoseconds: start) - MediaTime(nanoseconds: nearest)
            self.run.report(
                .podcastSegmentBoundary,
                range: m,
                attribute: .startDate,
                "interstitial \"\(id)\" starts \(offset.description) s from the nearest segment boundary (\(date.iso8601)), not on one",
                hint:
                    "cut a segment boundary at the cue point when encoding, or move START-DATE to \(date.iso8601) (PROGRAM-DATE-TIME plus the EXTINF durations)"
            )
        }
    }

    mutating func checkPosition(_ m: Int, start: Int64, first: Int64, end: Int64, isPost: Bool) {
        let id = self.run.merged[m].id
        let latest = (MediaTime(nanoseconds: end) - PodcastLimits.endMargin).nanoseconds
        if start < (MediaTime(nanoseconds: first) - PodcastLimits.boundaryTolerance).nanoseconds {
            self.run.report(
                .podcastDateBounds,
                range: m,
                attribute: .startDate,
                "interstitial \"\(id)\" starts before the episode's first segment (\(DateTime(nanosecondsSince1970: first).iso8601))",
                hint: "for a pre-roll set START-DATE to the first PROGRAM-DATE-TIME"
            )
        } else if start > latest {
            let last = DateTime(nanosecondsSince1970: latest).iso8601
            if isPost {
                self.run.report(
                    .podcastDateBounds,
                    range: m,
                    attribute: .startDate,
                    "post-roll \"\(id)\" starts within 2 s of the episode's end (after \(last))",
                    hint: "keep CUE=\"POST\" and move START-DATE to a segment boundary at or before \(last)"
                )
            } else {
                self.run.report(
                    .podcastCuePost,
                    range: m,
                    attribute: .startDate,
                    "interstitial \"\(id)\" starts at the episode's end (after \(last)) but has no CUE=\"POST\"",
                    hint:
                        "add CUE=\"POST\" and move START-DATE to a segment boundary at or before \(last) (within 2 s of the end is refused)"
                )
            }
        }
    }
}

/// The podcast rules of a multivariant playlist.
struct PodcastMultivariantCheck {
    let multivariant: MultivariantPlaylist
    let file: String?

    func location(_ line: Int) -> SourceLocation { SourceLocation(file: self.file, line: line, column: 1) }

    /// Whether a `CODECS` entry is an audio codec (by its RFC 6381 sample-entry prefix).
    static func isAudio(_ codec: String) -> Bool {
        ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "alac"].contains { codec.lowercased().hasPrefix($0) }
    }

    /// Whether a `CODECS` entry is a video codec; text codecs (`wvtt`, `stpp`) are neither.
    static func isVideo(_ codec: String) -> Bool {
        ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp09", "mp4v"].contains {
            codec.lowercased().hasPrefix($0)
        }
    }

    func run() -> [PlaylistDiagnostic] {
        var diagnostics: [PlaylistDiagnostic] = []
        let variants = self.multivariant.variants
        let version = self.multivariant.version ?? 1
        if version < PodcastLimits.minimumMultivariantVersion {
            diagnostics.append(
                InterstitialRule.podcastVersion.diagnostic(
                    "the multivariant playlist's EXT-X-VERSION is \(version)\(self.multivariant.version == nil ? " (absent)" : ""); Apple Podcasts needs at least \(PodcastLimits.minimumMultivariantVersion)",
                    hint: "write #EXT-X-VERSION:\(PodcastLimits.minimumMultivariantVersion) after #EXTM3U",
                    at: self.location(
                        self.multivariant.version == nil
                            ? 1 : lineNumber(in: self.multivariant.lines, startingWith: "#EXT-X-VERSION")
                    )
                )
            )
        }
        for variant in variants {
            let line = variant.lineIndex + 1
            let codecs = variant.codecs
            var missing: [String] = []
            if codecs.isEmpty { missing.append("CODECS") }
            if variant.averageBandwidth == nil { missing.append("AVERAGE-BANDWIDTH") }
            let hasVideo = codecs.contains(where: Self.isVideo)
            if hasVideo, variant.resolution == nil { missing.append("RESOLUTION") }
            if !missing.isEmpty {
                diagnostics.append(
                    InterstitialRule.podcastVariantAttribute.diagnostic(
                        "the variant \(variant.uri) lacks \(missing.joined(separator: ", ")), which Apple Podcasts requires",
                        hint: "add \(missing.map { "\($0)=…" }.joined(separator: ",")) to its EXT-X-STREAM-INF",
                        at: self.location(line)
                    )
                )
            }
            for codec in codecs where Self.isAudio(codec) {
                guard !PodcastLimits.audioCodecs.contains(codec.lowercased()) else { continue }
                diagnostics.append(
                    InterstitialRule.podcastAudioCodec.diagnostic(
                        "the variant \(variant.uri) has audio codec \(codec); Apple Podcasts asks for AAC-LC or HE-AAC v1/v2",
                        hint: "encode the audio as AAC-LC (CODECS mp4a.40.2, 48 kHz stereo recommended)",
                        at: self.location(line)
                    )
                )
            }
        }
        let audioOnly = variants.contains {
            $0.codecs.contains(where: Self.isAudio) && !$0.codecs.contains(where: Self.isVideo)
        }
        if !variants.isEmpty, !audioOnly {
            diagnostics.append(
                InterstitialRule.podcastAudioOnlyVariant.diagnostic(
                    "no variant is audio-only (CODECS with only audio codecs); Apple Podcasts needs one, and downloads audio only by default",
                    hint:
                        "add #EXT-X-STREAM-INF:BANDWIDTH=…,AVERAGE-BANDWIDTH=…,CODECS=\"mp4a.40.2\",AUDIO=\"…\" followed by an audio media playlist",
                    at: self.location(variants[0].lineIndex + 1)
                )
            )
        }
        return diagnostics
    }
}
