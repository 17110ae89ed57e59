import Foundation
import GroupCoordination
import IntermissionStore
import Synchronization

/// The group hub's clock: monotonic nanoseconds since the server started, or wall-clock
/// nanoseconds since 1970 when groups are relayed between instances (each instance then stamps
/// the inputs it relays, and every instance must read the same clock).
///
/// Participants estimate their offset to it from clock probes, so its origin does not matter.
struct HubClock: Sendable {
    /// The monotonic clock read when the hub does not read the wall clock.
    let local: ElapsedClock
    /// Whether it reads the wall clock.
    let isWallClock: Bool

    /// A hub clock that reads the wall clock, or `local` (the continuous clock by default).
    init(wallClock: Bool = false, local: ElapsedClock = ElapsedClock()) {
        self.isWallClock = wallClock
        self.local = local
    }

    /// The hub's instant now.
    func now() -> ClockInstant {
        guard self.isWallClock else { return self.local.now() }
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return ClockInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }
}

/// One group's hub and its participants' connections. An actor per group, so groups never wait on
/// each other; the decisions are `GroupHub`'s, this only delivers them (to each connection's queue,
/// so the actor never waits for a socket).
actor GroupSession {
    let id: String
    let clock: HubClock
    /// The clock the session waits on (a relayed join's timeout) and dates its owners with.
    var timer: ElapsedClock { self.clock.local }
    /// The relay, when the group is shared by the instances on one database (see `GroupRelay`).
    let relay: GroupRelayLink?
    /// The hub's `GroupHub.joinsPerAddress`.
    let joinsPerAddress: Int
    var hub: GroupHub?
    /// The connection of each participant connected to this instance.
    var connections: [String: GroupConnection] = [:] {
        didSet { self.occupancy.store(self.connections.count, ordering: .relaxed) }
    }
    /// The connections' count, readable without the actor (under the registry's lock).
    nonisolated let occupancy = Atomic<Int>(0)
    /// Sockets that looked the group up and have not joined or given up yet.
    nonisolated let arriving = Atomic<Int>(0)

    /// Relayed inputs: the number of the last one applied, those that arrived ahead of a gap,
    /// the highest number known to exist, and whether a task is applying them.
    var applied: Int64 = 0
    var buffered: [Int64: RelayedInput?] = [:]
    var highestKnown: Int64 = 0
    var draining = false
    /// Joins of this instance's sockets waiting for their input to be applied, by nonce.
    var pendingJoins: [UInt64: PendingJoin] = [:]
    /// The instance each participant of a relayed group is connected to, and since when this
    /// instance knows it.
    var owners: [String: (instance: String, since: Duration)] = [:]
    /// Participants whose leave this instance sent for a silent instance, not applied yet.
    var evicting: Set<String> = []

    /// A socket's join on its way through the relay.
    struct PendingJoin {
        var participant: String
        var connection: GroupConnection
        var result: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }

    /// How long a relayed join waits for its input to come back before it gives up.
    static let relayedJoinTimeout = Duration.seconds(10)

    init(
        id: String,
        clock: HubClock,
        relay: GroupRelayLink? = nil,
        joinsPerAddress: Int = GroupHub.defaultJoinsPerAddress
    ) {
        self.id = id
        self.clock = clock
        self.relay = relay
        self.joinsPerAddress = joinsPerAddress
    }

    /// A new participant's secret: 128 random bits, in hex.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether nobody is in the group or on the way in.
    nonisolated var isEmpty: Bool {
        self.occupancy.load(ordering: .relaxed) == 0 && self.arriving.load(ordering: .relaxed) == 0
    }

    /// A participant asks to join on `connection`; the first one's policy becomes the group's.
    func join(
        participantID: String,
        description: ParticipantDescription,
        policy: GroupPolicy,
        secret: String?,
        connection: GroupConnection
    ) async -> Bool {
        let hello = GroupMessage.hello(
            participantID: participantID,
            description: description,
            policy: policy,
            secret: secret
        )
        let arrival = GroupHub.Arrival(
            address: connection.address,
            connection: connection.id,
            newSecret: Self.newSecret()
        )
        if let relay = self.relay {
            return await self.relayedJoin(hello, arrival: arrival, connection: connection, relay: relay)
        }
        let (outputs, admitted) = self.applyJoin(hello, arrival: arrival, at: self.clock.now())
        if admitted { self.connect(participantID, connection) }
        self.deliver(outputs, replyTo: connection)
        return admitted
    }

    /// Records a participant's connection; one it came back from is closed.
    func connect(_ participantID: String, _ connection: GroupConnection) {
        if let former = self.connections[participantID], former !== connection { former.close() }
        self.connections[participantID] = connection
    }

    /// A message from a participant that has joined on `connection` (ignored once the participant
    /// came back on another).
    func handle(
        _ message: GroupMessage,
        from participantID: String,
        on connection: GroupConnection,
        receivedAt: ClockInstant
    ) async {
        guard self.connections[participantID] === connection else { return }
        if let relay = self.relay {
            if case .ping(let sent) = message {
                connection.send(.pong(sent: sent, hubReceived: receivedAt, hubSent: self.clock.now()))
                return
            }
            await self.publish(
                RelayedInput(
                    kind: .message,
                    participant: participantID,
                    at: receivedAt.nanoseconds,
                    instance: relay.instance,
                    nonce: 0,
                    message: message
                ),
                relay: relay,
                failureTo: connection
            )
            return
        }
        guard let hub = self.hub else { return }
        if case .ping(let sent) = message {
            // Answer with the instant the message was read, not when the actor got to it.
            connection.send(hub.pong(sent: sent, received: receivedAt, answered: self.clock.now()))
            return
        }
        self.deliver(self.applyMessage(message, from: participantID, at: self.clock.now()), replyTo: connection)
    }

    /// A participant's connection closed (nothing happens when the participant came back on
    /// another).
    func leave(participantID: String, connection: GroupConnection) async {
        guard self.connections[participantID] === connection else { return }
        self.connections[participantID] = nil
        if let relay = self.relay {
            await self.publishLeave(of: participantID, connection: connection.id, relay: relay)
            return
        }
        let outputs = self.applyLeave(participantID, connection: connection.id, at: self.clock.now()).outputs
        self.deliver(outputs, replyTo: nil)
    }

    // MARK: - The hub's inputs, applied (here at once, or in the relay's order)

    /// A `hello` applied to the hub, made with the first joiner's policy: what to send, and whether
    /// it admitted the participant.
    func applyJoin(
        _ hello: GroupMessage,
        arrival: GroupHub.Arrival,
        at now: ClockInstant
    ) -> (outputs: [GroupHub.Output], admitted: Bool) {
        guard case .hello(let participantID, let description, let policy, let secret) = hello else {
            return ([], false)
        }
        var hub = self.hub ?? GroupHub(policy: policy, now: now)
        hub.joinsPerAddress = self.joinsPerAddress
        let outputs = hub.join(
            participantID: participantID,
            description: description,
            secret: secret,
            arrival: arrival,
            at: now
        )
        self.hub = hub
        let admitted = outputs.contains {
            if case .reply(.welcome) = $0 { return true }
            return false
        }
        return (outputs, admitted)
    }

    /// A message of a participant applied to the hub (none when the group has no hub).
    func applyMessage(_ message: GroupMessage, from participantID: String, at now: ClockInstant) -> [GroupHub.Output] {
        guard var hub = self.hub else { return [] }
        let outputs = hub.handle(message, from: participantID, at: now)
        self.hub = hub
        return outputs
    }

    /// A leave applied to the hub (of the participant's `connection`, or whichever it is on when
    /// `nil`): what to send, and whether the group emptied (its hub is then dropped).
    func applyLeave(
        _ participantID: String,
        connection: UInt64?,
        at now: ClockInstant
    ) -> (outputs: [GroupHub.Output], emptied: Bool) {
        guard var hub = self.hub else { return ([], false) }
        let outputs = hub.leave(participantID: participantID, connection: connection, at: now)
        self.hub = hub.isEmpty ? nil : hub
        return (outputs, hub.isEmpty)
    }

    /// Queues the hub's messages on the connections: replies to `replyTo`, broadcasts to every
    /// participant connected here.
    func deliver(_ outputs: [GroupHub.Output], replyTo: GroupConnection?) {
        for output in outputs {
            switch output {
            case .reply(let message):
                replyTo?.send(message)
            case .broadcast(let message):
                for connection in self.connections.values { connection.send(message) }
            }
        }
    }
}

/// Every group of the server, by ID.
///
/// A lock around a dictionary: looking a group up is all that is
/// shared between groups.
final class GroupSessions: Sendable {
    /// The most groups one server holds at once.
    static let maximumGroups = 100_000

    let clock: HubClock
    /// The clock every wait of the groups is measured on: hello deadlines, write deadlines,
    /// refusal pauses, relayed joins, and the relay's heartbeats and silence limit.
    var timer: ElapsedClock { self.clock.local }
    /// The relay to the other instances on the database, if groups are shared.
    let relay: GroupRelayLink?
    /// What the sockets are held to.
    let limits: GroupLimits
    private let sessions = Mutex<[String: GroupSession]>([:])

    /// The groups of one instance (`relay` `nil`), or of every instance that relays through the
    /// same transport (the hub clock is then the wall clock); every wait is measured on `clock`
    /// (the continuous clock by default; tests pass one they advance).
    init(
        relay: GroupRelayLink? = nil,
        limits: GroupLimits = GroupLimits(),
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.relay = relay
        self.limits = limits
        self.clock = HubClock(wallClock: relay != nil, local: ElapsedClock(clock))
    }

    /// The group with this ID, if this instance holds it (a participant of it is connected here).
    func session(_ id: String) -> GroupSession? {
        self.sessions.withLock { $0[id] }
    }

    /// Whether a group ID is acceptable: 1 to 64 of `A-Z a-z 0-9 . _ -`, not `.` or `..`.
    static func isValidID(_ id: Substring) -> Bool {
        GroupRelayNotice.isValidGroupID(id)
    }

    /// The group with this ID, made when it does not exist, and counted as having one more arriving
    /// socket (until ``arrived(at:)``); `nil` when the server holds too many groups.
    func arrive(at id: String) -> GroupSession? {
        self.sessions.withLock { sessions in
            let session: GroupSession
            if let existing = sessions[id] {
                session = existing
            } else {
                guard sessions.count < Self.maximumGroups else { return nil }
                session = GroupSession(
                    id: id,
                    clock: self.clock,
                    relay: self.relay,
                    joinsPerAddress: self.limits.joinsPerAddress
                )
                sessions[id] = session
            }
            session.arriving.add(1, ordering: .relaxed)
            return session
        }
    }

    /// The arriving socket has joined or given up; the group is forgotten if nobody is in it.
    func arrived(at session: GroupSession) {
        session.arriving.subtract(1, ordering: .relaxed)
        self.forgetIfEmpty(session)
    }

    /// Forgets a group once nobody is in it or arriving.
    ///
    /// The check and the removal happen under the
    /// lock that ``arrive(at:)`` takes, so a socket on its way in keeps the group.
    func forgetIfEmpty(_ session: GroupSession) {
        self.sessions.withLock { sessions in
            if session.isEmpty, sessions[session.id] === session { sessions[session.id] = nil }
        }
    }

    /// Every group this instance holds.
    func all() -> [GroupSession] {
        self.sessions.withLock { Array($0.values) }
    }

    /// How many groups exist now.
    var count: Int { self.sessions.withLock { $0.count } }
}
