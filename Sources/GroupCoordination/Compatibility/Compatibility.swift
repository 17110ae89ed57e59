import HLSPlaylist

/// What a participant tells the group about its item before joining, so the group can check that
/// coordinated playback is possible and can say how long waits will last.
public struct ParticipantDescription: Sendable, Hashable, Codable {
    /// Whether the participant's primary is live (no `EXT-X-ENDLIST`).
    public var isLive: Bool
    /// The duration of the participant's whole item (VOD), stitched ads included; `nil` for live.
    public var itemDuration: MediaTime?
    /// The participant's left-out ranges (stitched ads).
    public var nonPrimaryRanges: [NonPrimaryTimeRange]
    /// The participant's breaks of HLS interstitials whose content may vary, on the group's timeline:
    /// where each starts and how long this participant will be away for it.
    public var interstitialBreaks: [ScheduledBreak]
    /// Where the participant is on the group's timeline when it joins: for a live primary, the
    /// program date it joined the stream at (seconds since 1970), where a group it makes starts;
    /// `nil` for VOD, whose groups start at 0.
    public var startTime: MediaTime?

    /// Creates a description.
    public init(
        isLive: Bool,
        itemDuration: MediaTime? = nil,
        nonPrimaryRanges: [NonPrimaryTimeRange] = [],
        interstitialBreaks: [ScheduledBreak] = [],
        startTime: MediaTime? = nil
    ) {
        self.isLive = isLive
        self.itemDuration = itemDuration
        self.nonPrimaryRanges = nonPrimaryRanges
        self.interstitialBreaks = interstitialBreaks
        self.startTime = startTime
    }

    /// The duration of the content every participant shares: the item less its left-out ranges
    /// (VOD only).
    public var contentDuration: MediaTime? {
        self.itemDuration.map {
            CoordinatedTimeline(nonPrimaryRanges: self.nonPrimaryRanges).coordinatedDuration(ofItemDuration: $0)
        }
    }
}

/// A break a participant will play on its own: where it starts on the group's timeline and how long
/// the participant is away.
public struct ScheduledBreak: Sendable, Hashable, Codable {
    /// The break's identifier (the first event's date-range ID).
    public var identifier: String
    /// Where the break starts on the group's timeline.
    public var coordinatedTime: MediaTime
    /// How long the participant plays it.
    public var duration: MediaTime

    /// Creates a break.
    public init(identifier: String, coordinatedTime: MediaTime, duration: MediaTime) {
        self.identifier = identifier
        self.coordinatedTime = coordinatedTime
        self.duration = duration
    }
}

/// Whether a participant can join a group: the SharePlay talk's compatibility rules.
///
/// - VOD primaries must have the same content duration once their left-out ranges (stitched ads) are
///   taken out; HLS interstitials are outside the primary already.
/// - Live primaries with stitched breaks must have equal break durations: every break both know of
///   (by identifier) lasts as long on both.
/// - A live participant cannot join a VOD group, nor the reverse.
public struct CompatibilityCheck: Sendable, Hashable {
    /// The largest difference in content or break duration still taken as equal: `EXTINF` values
    /// are often rounded to milliseconds, and a few segments' rounding adds up.
    public static let defaultTolerance = MediaTime(milliseconds: 100)

    /// The tolerance this check uses.
    public var tolerance: MediaTime

    /// Creates a check.
    public init(tolerance: MediaTime = CompatibilityCheck.defaultTolerance) {
        self.tolerance = tolerance
    }

    /// The reasons a joining participant is incompatible with the group's reference participant;
    /// empty when it may join.
    public func reasons(joining: ParticipantDescription, group: ParticipantDescription) -> [String] {
        var reasons: [String] = []
        if joining.isLive != group.isLive {
            let kind = { (live: Bool) in live ? "live" : "VOD" }
            return ["the group plays a \(kind(group.isLive)) stream and this participant a \(kind(joining.isLive)) one"]
        }
        if !group.isLive {
            switch (joining.contentDuration, group.contentDuration) {
            case (let mine?, let theirs?):
                if (mine - theirs).magnitude > self.tolerance {
                    reasons.append(
                        "content durations differ once stitched ads are left out: \(mine.decimalString(places: 3)) s here, "
                            + "\(theirs.decimalString(places: 3)) s in the group"
                    )
                }
            default:
                reasons.append("a VOD participant must state its item duration")
            }
        } else {
            let theirs = Dictionary(
                group.nonPrimaryRanges.map { ($0.identifier, $0.duration) },
                uniquingKeysWith: { a, _ in a }
            )
            for range in joining.nonPrimaryRanges {
                guard let other = theirs[range.identifier], (other - range.duration).magnitude > self.tolerance else {
                    continue
                }
                reasons.append(
                    "live stitched break \"\(range.identifier)\" lasts \(range.duration.decimalString(places: 3)) s here and "
                        + "\(other.decimalString(places: 3)) s in the group"
                )
            }
        }
        return reasons
    }
}
