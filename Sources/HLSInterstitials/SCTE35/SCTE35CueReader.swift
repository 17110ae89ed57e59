import HLSPlaylist

/// A break start or end that a media playlist signals with SCTE-35, in one of the marker styles
/// packagers write, read through ``SpliceInfoSection`` where the marker carries the binary cue.
public struct SCTE35Cue: Sendable, Hashable {
    /// Whether the cue opens or closes a break.
    public enum Kind: Sendable, Hashable {
        /// Out of the network: a break starts.
        case breakStart
        /// Back into the network: the break ends.
        case breakEnd
    }

    /// Start or end.
    public var kind: Kind
    /// An identifier that stays the same across reloads for the same break: the date range's
    /// `ID`, `splice-{splice_event_id}`, `segmentation-{segmentation_event_id}`, or, for markers
    /// that carry no cue, `cue-{start in whole seconds since 1970}`.
    public var id: String
    /// When: the break's start for a start (a continuation marker's segment date less the elapsed
    /// time), the break's end for an end; `nil` when the playlist has no dates.
    public var date: DateTime?
    /// The break's duration, when the marker or its cue states one.
    public var duration: MediaTime?
    /// The segment the marker precedes (the date range's position for `EXT-X-DATERANGE`).
    public var segmentIndex: Int
    /// The 0-based line of the marker.
    public var lineIndex: Int
    /// The marker's style.
    public var marker: SCTE35Marker
    /// The decoded cue, when the marker carries one.
    public var section: SpliceInfoSection?
}

/// How a playlist writes an SCTE-35 cue: an open vocabulary of tag styles.
public struct SCTE35Marker: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The tag (and attribute) that carried the cue.
    public var rawValue: String

    /// Wraps a marker style.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `EXT-X-DATERANGE` with `SCTE35-OUT`, `SCTE35-IN` or `SCTE35-CMD` (hexadecimal).
    public static let dateRange = Self(rawValue: "EXT-X-DATERANGE")
    /// `EXT-X-CUE-OUT[:DURATION=]` (a start).
    public static let cueOut = Self(rawValue: "EXT-X-CUE-OUT")
    /// `EXT-X-CUE-OUT-CONT:ElapsedTime=,Duration=[,SCTE35=]` (inside a break; a start for a
    /// playlist whose window begins inside it).
    public static let cueOutContinued = Self(rawValue: "EXT-X-CUE-OUT-CONT")
    /// `EXT-X-CUE-IN` (an end).
    public static let cueIn = Self(rawValue: "EXT-X-CUE-IN")
    /// `EXT-OATCLS-SCTE35:` (Base64), usually with `EXT-X-ASSET`.
    public static let oatcls = Self(rawValue: "EXT-OATCLS-SCTE35")
    /// `EXT-X-SCTE35:CUE="..."` (Base64).
    public static let scte35Tag = Self(rawValue: "EXT-X-SCTE35")
    /// `EXT-X-SPLICEPOINT-SCTE35:` (Base64).
    public static let splicePoint = Self(rawValue: "EXT-X-SPLICEPOINT-SCTE35")

    /// The tag's name.
    public var description: String { self.rawValue }
}

/// Reads every SCTE-35 marker style of a media playlist into ``SCTE35Cue``s.
///
/// A cue's meaning comes from its command: a `splice_insert` out of the network starts a break
/// (`break_duration` its length) and one back into the network ends it; a `time_signal` starts or
/// ends one when a segmentation descriptor's type is in ``breakStarts`` or ``breakEnds``. Markers
/// without a cue (`EXT-X-CUE-OUT`, `EXT-X-CUE-IN`, `SCTE35-OUT`/`-IN` that fail to decode) mean what
/// their name says. A cue that cannot be decoded is a warning, with the line and the byte, never a
/// trap.
public struct SCTE35CueReader: Sendable, Hashable {
    /// The segmentation types that start a break (default: provider and distributor advertisement
    /// and placement-opportunity starts).
    public var breakStarts: Set<SegmentationType>
    /// The segmentation types that end one (default: the matching ends).
    public var breakEnds: Set<SegmentationType>

    /// The segment tags read: every marker style but `EXT-X-DATERANGE`.
    static let segmentMarkers: [TagName] = [
        SCTE35Marker.cueOut, .cueOutContinued, .cueIn, .oatcls, .scte35Tag, .splicePoint,
    ]
    .map { TagName(rawValue: $0.rawValue) }

    /// The rule of the warnings: a marker's cue could not be decoded.
    public static let undecodableRule = RuleID("scte35-undecodable")

    /// A reader with the given segmentation types.
    public init(
        breakStarts: Set<SegmentationType> = SegmentationType.defaultBreakStarts,
        breakEnds: Set<SegmentationType> = SegmentationType.defaultBreakEnds
    ) {
        self.breakStarts = breakStarts
        self.breakEnds = breakEnds
    }

    /// The cues of `playlist` in line order, and a warning for each marker whose cue could not be
    /// decoded.
    public func cues(in playlist: MediaPlaylist) -> (cues: [SCTE35Cue], diagnostics: [PlaylistDiagnostic]) {
        var cues: [SCTE35Cue] = []
        var diagnostics: [PlaylistDiagnostic] = []
        let segmentCount = playlist.timings.count
        /// Decodes `text` (Base64 or hexadecimal); a warning at `line` when it fails.
        func decode(_ text: String, hexadecimal: Bool, line: Int) -> SpliceInfoSection? {
            do {
                return hexadecimal ? try SpliceInfoSection(hexadecimal: text) : try SpliceInfoSection(base64: text)
            } catch {
                diagnostics.append(
                    PlaylistDiagnostic(
                        severity: .warning,
                        rule: Self.undecodableRule,
                        message:
                            "the SCTE-35 cue cannot be decoded: \(error.message) (\(error.code), byte \(error.byteOffset))",
                        hint: "check the packager's SCTE-35 output; the marker is read by its name alone",
                        location: SourceLocation(line: line + 1, column: 1)
                    )
                )
                return nil
            }
        }

        // Date ranges.
        for placed in playlist.dateRanges {
            let range = placed.dateRange
            guard !range.isInterstitial else { continue }
            let attributes = range.attributes
            let segment = min(placed.position, max(0, segmentCount - 1))
            for (name, kind) in [
                ("SCTE35-OUT", SCTE35Cue.Kind.breakStart), ("SCTE35-IN", .breakEnd), ("SCTE35-CMD", nil),
            ] {
                guard let value = attributes[name] else { continue }
                let section = decode(value.text, hexadecimal: true, line: placed.lineIndex)
                let meaning = section.flatMap(self.meaning(of:))
                guard let kind = kind ?? meaning?.kind else { continue }
                let duration = range.duration ?? range.plannedDuration ?? meaning?.duration
                let date =
                    kind == .breakEnd
                    ? (range.endDate ?? range.startDate.map { start in duration.map { start + $0 } ?? start })
                    : range.startDate
                cues.append(
                    SCTE35Cue(
                        kind: kind,
                        id: range.id,
                        date: date,
                        duration: kind == .breakStart ? duration : nil,
                        segmentIndex: segment,
                        lineIndex: placed.lineIndex,
                        marker: .dateRange,
                        section: section
                    )
                )
            }
        }

        // Segment tags: found in the line records without building the other lines (a 24-hour
        // upstream without markers costs one pass and no allocation).
        let timings = playlist.timings
        for placed in playlist.vendorTags(named: Self.segmentMarkers) where placed.segmentIndex < timings.count {
            let tag = placed.tag
            let segment = placed.segmentIndex
            let lineIndex = placed.lineIndex
            let date = timings[segment].date
            let value = tag.value ?? ""
            var kind: SCTE35Cue.Kind?
            var duration: MediaTime?
            var elapsed = MediaTime.zero
            var section: SpliceInfoSection?
            let marker = SCTE35Marker(rawValue: tag.name.rawValue)
            switch marker {
            case .cueOut:
                kind = .breakStart
                // A break longer than a day is not one: the marker is read as one without a duration.
                duration = Self.cueOutDuration(value).flatMap { $0 <= MediaTime(seconds: 86_400) ? $0 : nil }
            case .cueIn:
                kind = .breakEnd
            case .cueOutContinued:
                let fields = Self.continuation(value)
                guard let elapsedTime = fields.elapsed else { continue }
                kind = .breakStart
                elapsed = elapsedTime
                duration = fields.duration
                section = fields.cue.flatMap { decode($0, hexadecimal: false, line: lineIndex) }
            case .oatcls, .splicePoint:
                section = decode(value, hexadecimal: false, line: lineIndex)
            case .scte35Tag:
                // Read leniently: packagers write spaces around the commas (x9k3: `CUE="…" ,CUE-OUT=YES `).
                let fields = Self.fields(value)
                guard let cue = fields["CUE"] else { continue }
                section = decode(cue, hexadecimal: false, line: lineIndex)
                if fields["CUE-OUT"] == "CONT" {
                    guard let elapsedTime = fields["ELAPSED"].flatMap({ MediaTime($0) }) else { continue }
                    elapsed = elapsedTime
                }
            default:
                continue
            }
            if let section, let meaning = self.meaning(of: section) {
                // A continuation's cue is the break's own: it says start, not a new one.
                kind = kind ?? meaning.kind
                duration = duration ?? meaning.duration
            }
            guard let kind else { continue }
            let at = date.map { $0 - elapsed }
            cues.append(
                SCTE35Cue(
                    kind: kind,
                    id: section.flatMap(self.identifier(of:))
                        ?? "cue-\(at.map { String($0.millisecondsSince1970 / 1000) } ?? "msn-\(playlist.mediaSequence + segment)")",
                    date: at,
                    duration: kind == .breakStart ? duration : nil,
                    segmentIndex: segment,
                    lineIndex: lineIndex,
                    marker: marker,
                    section: section
                )
            )
        }
        cues.sort { $0.lineIndex < $1.lineIndex }
        return (cues, diagnostics)
    }

    /// What a decoded cue says: start or end, and a duration; `nil` for a cue that says neither
    /// (a cancellation, a heartbeat, a segmentation type outside the configured ones).
    public func meaning(of section: SpliceInfoSection) -> (kind: SCTE35Cue.Kind, duration: MediaTime?)? {
        switch section.command {
        case .insert(let insert):
            guard !insert.isCancelled else { return nil }
            let duration = insert.breakDuration.map { MediaTime(seconds: $0.seconds) }
            return insert.outOfNetwork ? (.breakStart, duration) : (.breakEnd, nil)
        case .timeSignal:
            for segmentation in section.segmentations where !segmentation.isCancelled {
                if self.breakStarts.contains(segmentation.type) {
                    return (.breakStart, segmentation.durationSeconds.map { MediaTime(seconds: $0) })
                }
                if self.breakEnds.contains(segmentation.type) { return (.breakEnd, nil) }
            }
            return nil
        default:
            return nil
        }
    }

    /// The identifier a cue gives its break: the splice event, or the first segmentation event of
    /// a configured type.
    func identifier(of section: SpliceInfoSection) -> String? {
        switch section.command {
        case .insert(let insert): return "splice-\(insert.eventID)"
        case .timeSignal:
            let known = self.breakStarts.union(self.breakEnds)
            return section.segmentations.first { known.contains($0.type) }.map { "segmentation-\($0.eventID)" }
        default: return nil
        }
    }

    /// The duration of `EXT-X-CUE-OUT:DURATION=12`, `EXT-X-CUE-OUT:12` or
    /// `EXT-X-CUE-OUT:DURATION=12,...`, if it states one above zero.
    public static func cueOutDuration(_ value: String?) -> MediaTime? {
        guard var text = value?[...] else { return nil }
        if let equals = text.firstIndex(of: "=") {
            guard text[..<equals].uppercased() == "DURATION" else { return nil }
            text = text[text.index(after: equals)...]
        }
        text = text.prefix { $0 != "," }
        guard let duration = MediaTime(text), duration > .zero else { return nil }
        return duration
    }

    /// The `NAME=value` fields of an attribute list read leniently: names upper-cased, spaces
    /// around names, values and commas dropped, quotes taken off (a comma inside quotes stays).
    static func fields(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var field = ""
        var quoted = false
        func finish() {
            defer { field = "" }
            guard let equals = field.firstIndex(of: "=") else { return }
            let name = field[..<equals].filter { $0 != " " && $0 != "\t" }.uppercased()
            var text = field[field.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            while text.last == " " || text.last == "\t" { text = text.dropLast() }
            if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
            if result[name] == nil { result[name] = String(text) }
        }
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted { finish() } else { field.append(character) }
        }
        finish()
        return result
    }

    /// The fields of `EXT-X-CUE-OUT-CONT`: `ElapsedTime=5,Duration=30,SCTE35=...` or `5/30`.
    static func continuation(_ value: String) -> (elapsed: MediaTime?, duration: MediaTime?, cue: String?) {
        if let slash = value.firstIndex(of: "/"), !value.contains("=") {
            return (MediaTime(value[..<slash]), MediaTime(value[value.index(after: slash)...]), nil)
        }
        var elapsed: MediaTime?
        var duration: MediaTime?
        var cue: String?
        for field in value.split(separator: ",") {
            guard let equals = field.firstIndex(of: "=") else { continue }
            let name = field[..<equals].lowercased()
            let text = field[field.index(after: equals)...].trimmingCharacters(quotes: true)
            switch name {
            case "elapsedtime", "elapsed": elapsed = MediaTime(text)
            case "duration": duration = MediaTime(text)
            case "scte35": cue = String(text)
            default: break
            }
        }
        return (elapsed, duration, cue)
    }
}

extension Substring {
    /// The text without surrounding double quotes, when `quotes` and it has both.
    fileprivate func trimmingCharacters(quotes: Bool) -> Substring {
        guard quotes, self.count >= 2, self.first == "\"", self.last == "\"" else { return self }
        return self.dropFirst().dropLast()
    }
}
