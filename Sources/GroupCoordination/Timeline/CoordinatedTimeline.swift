import HLSPlaylist

/// A span of a participant's own item that is left out of the group's timeline: an ad or other
/// interstitial stitched into the primary playlist (between discontinuities), which other participants
/// may not have, or have with another length.
///
/// This is the range AVFoundation's `playbackCoordinator(_:interstitialTimeRangesFor:)` delegate
/// method supplies. Times are the participant's item times.
public struct NonPrimaryTimeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A name for the range: the marker's date-range ID, or one made from its media sequence number.
    public var identifier: String
    /// Where the range starts on the participant's item.
    public var start: MediaTime
    /// How long the range lasts.
    public var duration: MediaTime

    /// Creates a range.
    public init(identifier: String, start: MediaTime, duration: MediaTime) {
        self.identifier = identifier
        self.start = start
        self.duration = duration
    }

    /// Where the range ends on the participant's item.
    public var end: MediaTime { self.start + self.duration }

    /// Whether an item time falls inside the range (its end excluded).
    public func contains(_ time: MediaTime) -> Bool { time >= self.start && time < self.end }

    /// The range as `identifier [start, end)`.
    public var description: String {
        "\(self.identifier) [\(self.start.decimalString(places: 3)), \(self.end.decimalString(places: 3)))"
    }
}

/// An HLS interstitial with `X-CONTENT-MAY-VARY="NO"`: every participant plays the same content, so
/// the group plays it together, like primary content, instead of leaving it out.
public struct SharedInterstitial: Sendable, Hashable, Codable {
    /// The interstitial event's identifier (its date-range ID).
    public var identifier: String
    /// The primary time at which it plays.
    public var primaryTime: MediaTime
    /// How long it plays.
    public var duration: MediaTime
    /// Where the primary resumes, relative to ``primaryTime`` (`X-RESUME-OFFSET`); a negative
    /// offset counts as zero on the group's timeline, which moves only forward.
    public var resumeOffset: MediaTime

    /// Creates a shared interstitial.
    public init(identifier: String, primaryTime: MediaTime, duration: MediaTime, resumeOffset: MediaTime = .zero) {
        self.identifier = identifier
        self.primaryTime = primaryTime
        self.duration = duration
        self.resumeOffset = resumeOffset
    }
}

/// Where a participant is within its own item: in the primary content at an item time, or inside an
/// HLS interstitial at an offset from its start.
public enum ItemPosition: Sendable, Hashable, CustomStringConvertible {
    /// In the primary content, at this item time.
    case primary(MediaTime)
    /// Inside the interstitial with this identifier, at this offset from its start.
    case interstitial(String, offset: MediaTime)

    /// `primary 12.000` or `interstitial ad1 +3.000`.
    public var description: String {
        switch self {
        case .primary(let time): "primary \(time.decimalString(places: 3))"
        case .interstitial(let id, let offset): "interstitial \(id) +\(offset.decimalString(places: 3))"
        }
    }
}

/// The group's shared timeline as seen from one participant: its primary content with the ranges
/// only it has taken out, and the interstitials everyone plays (`X-CONTENT-MAY-VARY="NO"`) put in.
///
/// Participants exchange only coordinated times; each maps them to and from its own item with its own
/// timeline. HLS interstitials whose content may vary are not on either side: the primary time of a
/// participant's player already leaves them out, and a participant playing one is suspended from the
/// group (``SuspensionReason/playingInterstitial``).
///
/// The mapping is piecewise linear. A coordinated time that falls on the boundary of a left-out range
/// maps to the item time *before* the range, so that a group moved to the start of a stitched ad
/// plays it: this is how a seek into a stitched range "snaps the group to the start of that range".
public struct CoordinatedTimeline: Sendable, Hashable {
    /// The participant's left-out ranges, sorted, with overlapping ranges merged.
    public let nonPrimaryRanges: [NonPrimaryTimeRange]
    /// The interstitials everyone plays, sorted by primary time.
    public let sharedInterstitials: [SharedInterstitial]

    enum Source: Sendable, Hashable {
        case primary
        case interstitial(String)
    }

    struct Piece: Sendable, Hashable {
        var source: Source
        var sourceStart: MediaTime
        var coordinatedStart: MediaTime
        /// `nil` for the last piece, which runs on.
        var length: MediaTime?
        var coordinatedEnd: MediaTime? { self.length.map { self.coordinatedStart + $0 } }
    }

    let pieces: [Piece]

    /// A timeline with nothing left out and nothing shared: coordinated time is the item time.
    public static let identity = CoordinatedTimeline()

    /// Creates a participant's timeline from the ranges it leaves out and the interstitials it shares.
    public init(nonPrimaryRanges: [NonPrimaryTimeRange] = [], sharedInterstitials: [SharedInterstitial] = []) {
        self.nonPrimaryRanges = Self.merged(nonPrimaryRanges)
        self.sharedInterstitials = sharedInterstitials.filter { $0.duration >= .zero }.sorted {
            ($0.primaryTime, $0.identifier) < ($1.primaryTime, $1.identifier)
        }
        self.pieces = Self.pieces(ranges: self.nonPrimaryRanges, shared: self.sharedInterstitials)
    }

    static func merged(_ ranges: [NonPrimaryTimeRange]) -> [NonPrimaryTimeRange] {
        var result: [NonPrimaryTimeRange] = []
        for range in ranges.filter({ $0.duration > .zero }).sorted(by: { $0.start < $1.start }) {
            if let last = result.last, range.start <= last.end {
                if range.end > last.end { result[result.count - 1].duration = range.end - last.start }
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Cuts in the primary content: where it stops, where it picks up again, and what plays between.
    struct Cut {
        var at: MediaTime
        var resumesAt: MediaTime
        var inserted: SharedInterstitial?
    }

    static func pieces(ranges: [NonPrimaryTimeRange], shared: [SharedInterstitial]) -> [Piece] {
        var cuts = ranges.map { Cut(at: $0.start, resumesAt: $0.end, inserted: nil) }
        cuts += shared.map {
            Cut(at: $0.primaryTime, resumesAt: $0.primaryTime + .max(.zero, $0.resumeOffset), inserted: $0)
        }
        // A shared interstitial sorts before a left-out range at the same time: it plays first.
        cuts.sort { ($0.at, $0.inserted == nil ? 1 : 0) < ($1.at, $1.inserted == nil ? 1 : 0) }
        var pieces: [Piece] = []
        var cursor = MediaTime.zero
        var coordinated = MediaTime.zero
        for cut in cuts {
            if cut.at > cursor {
                pieces.append(
                    Piece(source: .primary, sourceStart: cursor, coordinatedStart: coordinated, length: cut.at - cursor)
                )
                coordinated = coordinated + (cut.at - cursor)
                cursor = cut.at
            }
            if let inserted = cut.inserted {
                let source = Source.interstitial(inserted.identifier)
                pieces.append(
                    Piece(source: source, sourceStart: .zero, coordinatedStart: coordinated, length: inserted.duration)
                )
                coordinated = coordinated + inserted.duration
            }
            cursor = .max(cursor, cut.resumesAt)
        }
        pieces.append(Piece(source: .primary, sourceStart: cursor, coordinatedStart: coordinated, length: nil))
        return pieces
    }

    /// Where an item position lies on the group's timeline.
    public struct Placement: Sendable, Hashable {
        /// The coordinated time.
        public var time: MediaTime
        /// The left-out range the position is inside, if any: the position then stands still on the
        /// group's timeline, at the range's start.
        public var nonPrimaryRange: NonPrimaryTimeRange?
    }

    /// The coordinated time of an item position.
    ///
    /// A primary time inside a left-out range maps to the range's start and names the range. An
    /// interstitial that is not shared has no place on the timeline and gives `nil`.
    public func placement(of position: ItemPosition) -> Placement? {
        switch position {
        case .interstitial(let id, let offset):
            guard let piece = self.pieces.first(where: { $0.source == .interstitial(id) }) else { return nil }
            let clamped = MediaTime.min(.max(.zero, offset), piece.length ?? offset)
            return Placement(time: piece.coordinatedStart + clamped, nonPrimaryRange: nil)
        case .primary(let time):
            let range = self.nonPrimaryRanges.first { $0.contains(time) }
            let primaryPieces = self.pieces.lazy.filter { $0.source == .primary }
            // The first primary piece that holds the time, its end included: at the start of a
            // shared interstitial the participant is before it, as `itemPosition(at:)` puts it.
            var before: Piece?
            for piece in primaryPieces where piece.sourceStart <= time {
                if piece.length.map({ time - piece.sourceStart <= $0 }) ?? true {
                    return Placement(time: piece.coordinatedStart + (time - piece.sourceStart), nonPrimaryRange: range)
                }
                before = piece
            }
            if let before, let length = before.length {
                // In a gap after the piece: a left-out range, or primary skipped by a resume offset.
                return Placement(time: before.coordinatedStart + length, nonPrimaryRange: range)
            }
            // Before the first primary piece: extrapolate from 0, or stand at a range that starts at 0.
            let first = primaryPieces.first!  // the last piece is always primary
            let into = time - first.sourceStart
            return Placement(
                time: first.sourceStart == .zero ? first.coordinatedStart + into : first.coordinatedStart,
                nonPrimaryRange: range
            )
        }
    }

    /// The coordinated time of an item position, or `nil` for an interstitial that is not shared.
    public func coordinatedTime(of position: ItemPosition) -> MediaTime? {
        self.placement(of: position)?.time
    }

    /// The item position at a coordinated time; on a boundary, the position before a left-out range
    /// or a shared interstitial, so that the participant then plays it.
    public func itemPosition(at time: MediaTime) -> ItemPosition {
        for piece in self.pieces {
            let end = piece.coordinatedEnd
            let inside: Bool
            switch piece.source {
            case .primary: inside = time < piece.coordinatedStart || end.map { time <= $0 } ?? true
            case .interstitial: inside = time >= piece.coordinatedStart && end.map { time < $0 } ?? true
            }
            guard inside else { continue }
            let into = time - piece.coordinatedStart
            switch piece.source {
            case .primary: return .primary(piece.sourceStart + into)
            case .interstitial(let id): return .interstitial(id, offset: into)
            }
        }
        // Unreachable: the last piece runs on.
        return .primary(time)
    }

    /// Where a seek to an item time should land so the whole group can follow: the start of the
    /// left-out range it falls in, or the time itself.
    public func snappedSeekTarget(for time: MediaTime) -> MediaTime {
        self.nonPrimaryRanges.first { $0.contains(time) }?.start ?? time
    }

    /// The length of the group's timeline for an item of this length: the content every participant
    /// shares.
    public func coordinatedDuration(ofItemDuration duration: MediaTime) -> MediaTime {
        self.placement(of: .primary(duration))?.time ?? duration
    }
}
