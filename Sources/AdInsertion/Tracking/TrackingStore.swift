import HLSPlaylist

/// What identifies one beacon: an ad slot of a decision and an event.
///
/// A decision is the viewer and the break (`DecisionKey`); anonymous viewers get a decision
/// identifier of their own per asset list, so that their beacons are not merged.
public struct BeaconKey: Sendable, Hashable, Codable {
    /// The viewer (or the anonymous decision's own identifier).
    public var viewer: String
    /// `vod-{asset}` or `live-{channel}`.
    public var scope: String
    /// The break's ID.
    public var breakID: String
    /// The ad's place in the pod, from 0.
    public var slot: Int
    /// The event.
    public var event: TrackingEvent
    /// What tells apart several beacons of one event in a slot: a `progress` beacon's offset in
    /// milliseconds; `nil` for the other events (one per slot).
    public var detail: String?

    /// Creates a key.
    public init(
        viewer: String,
        scope: String,
        breakID: String,
        slot: Int,
        event: TrackingEvent,
        detail: String? = nil
    ) {
        self.viewer = viewer
        self.scope = scope
        self.breakID = breakID
        self.slot = slot
        self.event = event
        self.detail = detail
    }

    /// The event as the stores write it: its name, then `@` and the ``detail`` when there is one
    /// (`progress@5000`).
    public var storedEvent: String {
        self.detail.map { self.event.rawValue + "@" + $0 } ?? self.event.rawValue
    }

    /// The event a stored name (``storedEvent``) stands for, or `nil`.
    public static func event(stored text: String) -> TrackingEvent? {
        TrackingEvent(rawValue: String(text.prefix { $0 != "@" }))
    }
}

/// A beacon received: its key, the creative and plan of the slot, and when.
public struct Beacon: Sendable, Hashable, Codable {
    /// Which slot and event.
    public var key: BeaconKey
    /// The creative played in the slot.
    public var creativeID: String
    /// The viewer's plan when the pod was decided.
    public var plan: ViewerPlan
    /// When it arrived.
    public var receivedAt: DateTime

    /// Creates a beacon.
    public init(key: BeaconKey, creativeID: String, plan: ViewerPlan, receivedAt: DateTime) {
        self.key = key
        self.creativeID = creativeID
        self.plan = plan
        self.receivedAt = receivedAt
    }
}

/// What recording a beacon did: stored it for the first time, or counted a duplicate.
public struct BeaconRecording: Sendable, Hashable {
    /// `true` when this was the first beacon of its key (it is forwarded); `false` for a duplicate.
    public var isNew: Bool
    /// How many duplicates of the key have arrived so far (0 for the first).
    public var duplicates: Int

    /// Creates a recording.
    public init(isNew: Bool, duplicates: Int) {
        self.isNew = isNew
        self.duplicates = duplicates
    }
}

/// A line of a report: how many beacons of an event arrived for a creative under a plan.
public struct BeaconCount: Sendable, Hashable, Codable {
    /// The scope, or `*` in reports across scopes.
    public var scope: String
    /// The break, or `*` in reports across breaks.
    public var breakID: String
    /// The creative.
    public var creativeID: String
    /// The plan.
    public var plan: ViewerPlan
    /// The event.
    public var event: TrackingEvent
    /// Distinct beacons (one per slot and decision).
    public var beacons: Int
    /// Duplicates received and not stored again.
    public var duplicates: Int

    /// Creates a line.
    public init(
        scope: String,
        breakID: String,
        creativeID: String,
        plan: ViewerPlan,
        event: TrackingEvent,
        beacons: Int,
        duplicates: Int
    ) {
        self.scope = scope
        self.breakID = breakID
        self.creativeID = creativeID
        self.plan = plan
        self.event = event
        self.beacons = beacons
        self.duplicates = duplicates
    }
}

/// Which beacons a report counts.
public enum BeaconReportFilter: Sendable, Hashable {
    /// The beacons of one break of a presentation.
    case breakOf(scope: String, breakID: String)
    /// The beacons of one creative, wherever it played.
    case creative(String)
}

/// Where tracking beacons are kept: each (decision, slot, event) once, with its duplicates counted.
///
/// Implementations: ``InMemoryTrackingStore`` here; SQLite and PostgreSQL (shared by instances) in
/// the server.
public protocol TrackingStore: Sendable {
    /// Records a beacon, durably before it returns: the first of its key is stored, later ones
    /// only add to its duplicate count.
    func record(_ beacon: Beacon) async throws -> BeaconRecording
    /// Counts the beacons `filter` selects, by creative, plan and event (sorted by creative, plan,
    /// then event in ``TrackingEvent`` order).
    func beaconCounts(_ filter: BeaconReportFilter) async throws -> [BeaconCount]
}

extension BeaconCount {
    /// Sorts lines by scope, break, creative, plan, then event in the order of ``TrackingEvent``,
    /// after adding up the lines of one event (a slot's `progress` beacons are stored one per
    /// offset).
    public static func sorted(_ lines: [BeaconCount]) -> [BeaconCount] {
        var merged: [BeaconCount] = []
        var index: [String: Int] = [:]
        for line in lines {
            let name = [line.scope, line.breakID, line.creativeID, line.plan.rawValue, line.event.rawValue]
                .joined(separator: "\u{0}")
            if let at = index[name] {
                merged[at].beacons += line.beacons
                merged[at].duplicates += line.duplicates
            } else {
                index[name] = merged.count
                merged.append(line)
            }
        }
        let lines = merged
        let order = Dictionary(uniqueKeysWithValues: TrackingEvent.allCases.enumerated().map { ($1, $0) })
        return lines.sorted {
            ($0.scope, $0.breakID, $0.creativeID, $0.plan.rawValue, order[$0.event] ?? 0)
                < ($1.scope, $1.breakID, $1.creativeID, $1.plan.rawValue, order[$1.event] ?? 0)
        }
    }
}

/// An in-memory ``TrackingStore`` for tests and runs that need no persistence.
public actor InMemoryTrackingStore: TrackingStore {
    private var beacons: [BeaconKey: (beacon: Beacon, duplicates: Int)] = [:]

    /// Creates an empty store.
    public init() {}

    /// Records a beacon (see ``TrackingStore/record(_:)``).
    public func record(_ beacon: Beacon) async throws -> BeaconRecording {
        if let known = self.beacons[beacon.key] {
            self.beacons[beacon.key] = (known.beacon, known.duplicates + 1)
            return BeaconRecording(isNew: false, duplicates: known.duplicates + 1)
        }
        self.beacons[beacon.key] = (beacon, 0)
        return BeaconRecording(isNew: true, duplicates: 0)
    }

    /// Counts beacons (see ``TrackingStore/beaconCounts(_:)``).
    public func beaconCounts(_ filter: BeaconReportFilter) async throws -> [BeaconCount] {
        var lines: [String: BeaconCount] = [:]
        for (beacon, duplicates) in self.beacons.values {
            var scope = "*"
            var breakID = "*"
            switch filter {
            case .breakOf(let s, let b):
                guard beacon.key.scope == s, beacon.key.breakID == b else { continue }
                (scope, breakID) = (s, b)
            case .creative(let id):
                guard beacon.creativeID == id else { continue }
            }
            let name = [beacon.creativeID, beacon.plan.rawValue, beacon.key.event.rawValue].joined(separator: "\u{0}")
            var line =
                lines[name]
                ?? BeaconCount(
                    scope: scope,
                    breakID: breakID,
                    creativeID: beacon.creativeID,
                    plan: beacon.plan,
                    event: beacon.key.event,
                    beacons: 0,
                    duplicates: 0
                )
            line.beacons += 1
            line.duplicates += duplicates
            lines[name] = line
        }
        return BeaconCount.sorted(Array(lines.values))
    }
}
