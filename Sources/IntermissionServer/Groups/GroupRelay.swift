import Foundation
import GroupCoordination
import IntermissionStore
import Logging
import ServiceLifecycle

/// An input to a group's hub, as the instances relay it: who, what, and when by the hub clock
/// (wall-clock nanoseconds, the same on every instance of a machine and within clock sync
/// between machines).
///
/// Every instance that holds the group applies the same inputs in the same order (their numbers)
/// at the same instants, so `GroupHub`, a value type that only decides, reaches the same state on
/// each; each instance then delivers the hub's messages to the participants connected to it.
struct RelayedInput: Codable, Sendable, Equatable {
    /// What happened.
    enum Kind: String, Codable, Sendable {
        /// A participant asks to join (`message` is its `hello`).
        case join
        /// A message from a participant that joined.
        case message
        /// A participant's connection closed.
        case leave
    }

    var kind: Kind
    /// The participant's ID.
    var participant: String
    /// When, by the hub clock (nanoseconds).
    var at: Int64
    /// The instance the participant is connected to.
    var instance: String
    /// Tells a join's socket its answer among the joins of the same ID.
    var nonce: UInt64
    /// The participant's message (`join`, `message`).
    var message: GroupMessage?
    /// The participant's connection (`join`, and `leave` when it closed; a leave without one is
    /// an eviction).
    var connection: UInt64?
    /// The network address the participant joined from (`join`).
    var address: String?
    /// The secret a new participant is given (`join`).
    var newSecret: String?
}

/// A group session's link to the relay.
struct GroupRelayLink: Sendable {
    let transport: any GroupRelayTransport
    /// This instance's identifier (random, per process).
    let instance: String
    let logger: Logger

    /// A random identifier for this process.
    static func newInstanceID() -> String { UUID().uuidString }
}

/// Brings other instances' group inputs to this instance's sessions, says that this instance is
/// alive, and takes out of its groups the participants of instances that stopped saying so.
///
/// Its heartbeats and silence limit are measured on the groups' clock (`GroupSessions.timer`);
/// every task it starts is a child of ``run()``, which the service group ends at shutdown.
struct GroupRelayService: Service {
    let transport: any GroupRelayTransport
    let groups: GroupSessions
    let instance: String

    /// How often this instance says it is alive.
    static let heartbeatInterval = Duration.seconds(2)
    /// How long an instance may be silent before its participants are taken out of their groups
    /// (a killed process sends no leave).
    static let silenceLimit = Duration.seconds(10)

    func run() async throws {
        let notices = self.transport.groupNotices()
        let (groups, transport, instance) = (self.groups, self.transport, self.instance)
        let clock = groups.timer
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    await withDiscardingTaskGroup { deliveries in
                        for await notice in notices {
                            // A session orders its inputs by number: notices may be handed over in
                            // any order, and one group's reading a gap from the database does not
                            // hold the others.
                            guard let session = groups.session(notice.group) else { continue }
                            deliveries.addTask { await session.receive(notice) }
                        }
                    }
                }
                tasks.addTask {
                    let limit = Double(Self.silenceLimit.components.seconds)
                    // Since when this instance's own heartbeats have succeeded without a break:
                    // after the database was out of reach, the others need as long to be heard
                    // again, so nobody is taken out before that.
                    var reachableSince: Duration?
                    while !Task.isCancelled {
                        if (try? await transport.groupHeartbeat(instance: instance)) != nil {
                            let since = reachableSince ?? clock.elapsed
                            reachableSince = since
                            if clock.elapsed - since >= Self.silenceLimit,
                                let live = try? await transport.liveGroupInstances(within: limit)
                            {
                                for session in groups.all() {
                                    await session.evictParticipants(
                                        notOn: live.union([instance]),
                                        silentFor: Self.silenceLimit
                                    )
                                }
                            }
                        } else {
                            reachableSince = nil
                        }
                        try? await clock.sleep(for: Self.heartbeatInterval)
                    }
                }
            }
        }
    }
}
