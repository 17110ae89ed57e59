import HLSPlaylist

/// An instant on a clock: a participant's own clock or the group's (the hub's), in nanoseconds from
/// that clock's origin.
///
/// Instants of different clocks are never compared directly: ``GroupClock`` converts between a
/// participant's clock and the group's. Arithmetic saturates at the ends of `Int64` rather than
/// trapping, so a hostile or broken peer cannot crash a participant with an extreme instant.
public struct ClockInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds from the clock's origin.
    public var nanoseconds: Int64

    /// Creates an instant from nanoseconds.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates an instant from milliseconds, saturating at the ends of the range.
    public init(milliseconds: Int64) {
        let (product, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        self.nanoseconds = overflow ? (milliseconds < 0 ? .min : .max) : product
    }

    /// The time elapsed on the continuous clock since `origin`, as an instant of a clock whose origin
    /// that is (saturating).
    public init(since origin: ContinuousClock.Instant) {
        self.nanoseconds = MediaTime(ContinuousClock.now - origin).nanoseconds
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: ClockInstant, rhs: ClockInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `duration` after `instant`, saturating.
    public static func + (instant: ClockInstant, duration: MediaTime) -> ClockInstant {
        ClockInstant(nanoseconds: instant.nanoseconds.saturatingAdding(duration.nanoseconds))
    }

    /// The instant `duration` before `instant`, saturating.
    public static func - (instant: ClockInstant, duration: MediaTime) -> ClockInstant {
        let (difference, overflow) = instant.nanoseconds.subtractingReportingOverflow(duration.nanoseconds)
        return ClockInstant(nanoseconds: overflow ? (duration.nanoseconds > 0 ? .min : .max) : difference)
    }

    /// The time from `self` to `other` (negative when `other` comes first), saturating.
    public func duration(to other: ClockInstant) -> MediaTime {
        let (difference, overflow) = other.nanoseconds.subtractingReportingOverflow(self.nanoseconds)
        return MediaTime(nanoseconds: overflow ? (self.nanoseconds > 0 ? .min : .max) : difference)
    }

    /// The instant in seconds with millisecond precision, for logs.
    public var description: String { MediaTime(nanoseconds: self.nanoseconds).decimalString(places: 3) }

    /// Encodes the instant as a JSON number of nanoseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.nanoseconds)
    }

    /// Decodes an instant from a JSON number of nanoseconds.
    public init(from decoder: any Decoder) throws {
        self.nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
    }
}

extension Int64 {
    /// `self + other`, pinned to the ends of the range instead of trapping.
    func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = self.addingReportingOverflow(other)
        if !overflow { return sum }
        return other > 0 ? .max : .min
    }
}

/// One exchange of a clock probe between a participant and the hub: four instants, two on each
/// clock, as in NTP.
///
/// - `sent` (participant clock): the participant sent the probe.
/// - `hubReceived` (group clock): the hub read it.
/// - `hubSent` (group clock): the hub answered.
/// - `received` (participant clock): the participant read the answer.
public struct ClockSample: Sendable, Hashable, Codable {
    /// When the participant sent the probe, on its own clock.
    public var sent: ClockInstant
    /// When the hub read the probe, on the group clock.
    public var hubReceived: ClockInstant
    /// When the hub answered, on the group clock.
    public var hubSent: ClockInstant
    /// When the participant read the answer, on its own clock.
    public var received: ClockInstant

    /// Creates a sample from its four instants.
    public init(sent: ClockInstant, hubReceived: ClockInstant, hubSent: ClockInstant, received: ClockInstant) {
        self.sent = sent
        self.hubReceived = hubReceived
        self.hubSent = hubSent
        self.received = received
    }

    /// The time spent on the network both ways: the whole exchange less the hub's own time.
    public var roundTrip: MediaTime {
        self.sent.duration(to: self.received) - self.hubReceived.duration(to: self.hubSent)
    }

    /// How far the group clock is ahead of the participant's: the mean of the two one-way
    /// differences, exact when the two directions take equally long.
    public var offset: MediaTime {
        let outbound = self.sent.duration(to: self.hubReceived).nanoseconds
        let inbound = self.received.duration(to: self.hubSent).nanoseconds
        // Halve each before adding so two large values cannot overflow.
        return MediaTime(nanoseconds: outbound / 2 + inbound / 2 + (outbound % 2 + inbound % 2) / 2)
    }

    /// Whether the sample can be trusted at all: each clock moves forward, and the hub did not take
    /// longer than the whole exchange.
    public var isConsistent: Bool {
        self.sent <= self.received && self.hubReceived <= self.hubSent && self.roundTrip >= .zero
    }
}

/// A participant's estimate of the group clock, from the clock probes it exchanged with the hub.
///
/// It keeps the last ``sampleWindow`` consistent samples and trusts the one with the shortest round
/// trip, whose offset has the smallest error bound (half its round trip), as NTP's clock filter
/// does. A value type: the participant's actor feeds it samples and asks it to convert instants.
public struct GroupClock: Sendable, Hashable {
    /// How many recent samples the estimate is chosen from.
    public static let sampleWindow = 8

    /// The samples kept, oldest first.
    public private(set) var samples: [ClockSample] = []

    /// Creates a clock with no samples: it cannot convert until the first sample arrives.
    public init() {}

    /// Adds a sample; returns `false` and keeps nothing when the sample is inconsistent.
    @discardableResult
    public mutating func add(_ sample: ClockSample) -> Bool {
        guard sample.isConsistent else { return false }
        self.samples.append(sample)
        if self.samples.count > Self.sampleWindow { self.samples.removeFirst(self.samples.count - Self.sampleWindow) }
        return true
    }

    /// The sample the estimate rests on: the shortest round trip, the newest on a tie.
    public var best: ClockSample? {
        self.samples.reversed().min { $0.roundTrip < $1.roundTrip }
    }

    /// How far the group clock is ahead of this participant's, or `nil` before the first sample.
    public var offset: MediaTime? { self.best?.offset }

    /// The round trip of the best sample, or `nil` before the first sample.
    public var roundTrip: MediaTime? { self.best?.roundTrip }

    /// The bound on the offset's error: half the best round trip.
    public var uncertainty: MediaTime? {
        self.roundTrip.map { MediaTime(nanoseconds: $0.nanoseconds / 2) }
    }

    /// The group-clock instant at a participant-clock instant, or `nil` before the first sample.
    public func groupInstant(at local: ClockInstant) -> ClockInstant? {
        self.offset.map { local + $0 }
    }

    /// The participant-clock instant at a group-clock instant, or `nil` before the first sample.
    public func localInstant(at group: ClockInstant) -> ClockInstant? {
        self.offset.map { group - $0 }
    }
}
