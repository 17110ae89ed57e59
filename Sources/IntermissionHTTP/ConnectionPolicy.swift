import Logging
import NIOCore
import Prometheus
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's table of file descriptors: its limits, and raising the soft limit to the hard one.
///
/// Every connection costs a descriptor, and so do the store's files, outbound connections (origins,
/// ad servers, beacons, PostgreSQL) and the runtime itself: on Linux, libdispatch reads
/// `/proc/<tid>/stat` to size its thread pools and traps (`SIGILL`) when it cannot open it. A server
/// that lets its connections take the whole table dies; ``ConnectionPolicy`` keeps them below it.
package enum DescriptorTable {
    /// The soft and hard limits of `RLIMIT_NOFILE`.
    package struct Limits: Equatable, Sendable {
        /// The limit in force.
        package var soft: Int
        /// How far the process may raise ``soft`` by itself.
        package var hard: Int

        /// Limits of `soft` and `hard` descriptors.
        package init(soft: Int, hard: Int) {
            self.soft = soft
            self.hard = hard
        }
    }

    /// The largest limit this process asks for when the hard limit is unlimited (Linux's default
    /// `fs.nr_open`).
    package static let unlimitedCeiling = 1 << 20

    /// The limits now, or `nil` where they cannot be read.
    package static func current() -> Limits? {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return nil }
        return Limits(soft: Self.clamped(limit.rlim_cur), hard: Self.clamped(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (an unlimited hard limit counts as
    /// ``unlimitedCeiling``); the limits before and after.
    ///
    /// When the system refuses, `after` is the
    /// limit still in force.
    package static func raiseSoftLimit() -> (before: Limits, after: Limits)? {
        guard let before = Self.current() else { return nil }
        guard before.soft < before.hard else { return (before, before) }
        var limit = rlimit()
        limit.rlim_cur = rlim_t(before.hard)
        limit.rlim_max = rlim_t(before.hard)
        _ = setrlimit(Self.resource, &limit)
        return (before, Self.current() ?? before)
    }

    /// A limit as an `Int`, unlimited and anything past ``unlimitedCeiling`` as that ceiling.
    private static func clamped(_ value: rlim_t) -> Int {
        value >= rlim_t(Self.unlimitedCeiling) ? Self.unlimitedCeiling : Int(value)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}

/// Counts the server's open connections and closes new ones at accept above the cap.
///
/// Shared by every connection of one application (all its event loops): the count is atomic. A
/// connection is admitted in the channel's set-up, before any handler is added, and leaves the count
/// when it closes. Near the cap, two connections admitted at once may both be refused although one
/// would fit: the count never goes past the cap, which is what matters.
package final class ConnectionGate: Sendable {
    /// The most connections open at once.
    package let maximum: Int
    private let open = Atomic<Int>(0)
    /// Whether the last connection offered was refused: the log says when refusing starts, not once
    /// per connection.
    private let refusing = Atomic<Bool>(false)
    private let openGauge: Gauge?
    private let refusedCounter: Counter?
    private let logger: Logger?

    /// A gate for `maximum` connections; with `metrics`, `intermission_connections_open` and
    /// `intermission_connections_refused_total` count them.
    package init(maximum: Int, metrics: ServerMetrics? = nil, logger: Logger? = nil) {
        self.maximum = max(1, maximum)
        self.openGauge = metrics?.registry.makeGauge(descriptor: ServerMetrics.connectionsOpen)
        self.refusedCounter = metrics?.registry.makeCounter(descriptor: ServerMetrics.connectionsRefused)
        self.logger = logger
    }

    /// The connections open now.
    package var openConnections: Int { self.open.load(ordering: .relaxed) }

    /// Admits `channel` and counts it until it closes, or closes it now when the cap is reached;
    /// whether it was admitted.
    package func admit(_ channel: any Channel) -> Bool {
        let count = self.open.wrappingAdd(1, ordering: .relaxed).newValue
        guard count <= self.maximum else {
            self.open.wrappingSubtract(1, ordering: .relaxed)
            self.refusedCounter?.increment()
            if !self.refusing.exchange(true, ordering: .relaxed) {
                self.logger?.warning(
                    "connection limit reached: new connections are closed at accept until one closes",
                    metadata: ["maximumConnections": "\(self.maximum)"]
                )
            }
            channel.close(promise: nil)
            return false
        }
        self.refusing.store(false, ordering: .relaxed)
        self.openGauge?.increment()
        channel.closeFuture.whenComplete { _ in
            self.open.wrappingSubtract(1, ordering: .relaxed)
            self.openGauge?.decrement()
        }
        return true
    }
}

/// Why a connection's set-up failed: the server is at its connection cap (the connection is closed).
package struct ConnectionRefusedAtCap: Error {
    /// The refusal.
    package init() {}
}

/// How the server keeps connections within bounds, on every protocol it speaks: a cap on open
/// connections below the descriptor limit, a deadline for each request head, the idle timeout, and
/// a deadline for a write the client does not read.
package struct ConnectionPolicy: Sendable {
    /// Counts and caps the open connections.
    package let gate: ConnectionGate
    /// How long a request head may take to arrive whole, from the connection's start or the first
    /// byte of a later request (Slowloris); then the connection is closed.
    package let requestHeadTimeout: TimeAmount
    /// How long a connection may stay silent between requests (the server configuration's `idleTimeout`);
    /// also how long an answer may wait on a client that does not read it.
    package let idleTimeout: TimeAmount?

    /// The request-head timeout of a server that sets none (10 s).
    package static let defaultRequestHeadTimeout: Duration = .seconds(10)

    /// A policy: `gate` counts the connections; a head must arrive within `requestHeadTimeout`, and
    /// a connection may stay silent for `idleTimeout` (`nil`: as long as it likes).
    package init(gate: ConnectionGate, requestHeadTimeout: TimeAmount, idleTimeout: TimeAmount?) {
        self.gate = gate
        self.requestHeadTimeout = requestHeadTimeout
        self.idleTimeout = idleTimeout
    }

    /// The descriptors kept out of reach of connections: a quarter of the limit, and at least 256
    /// (store files, outbound connections, the runtime's own reads of `/proc`).
    package static func reservedDescriptors(limit: Int) -> Int { max(256, limit / 4) }

    /// The most connections a process with `limit` descriptors may hold open: the limit less
    /// ``reservedDescriptors(limit:)``, and at least 16.
    package static func automaticMaximum(descriptorLimit limit: Int) -> Int {
        max(16, limit - Self.reservedDescriptors(limit: limit))
    }

    /// The cap in force for a configured one (`nil`: automatic) under `descriptorLimit`: never above
    /// the automatic one; whether the configured one was lowered to it.
    package static func maximum(configured: Int?, descriptorLimit: Int) -> (maximum: Int, lowered: Bool) {
        let ceiling = Self.automaticMaximum(descriptorLimit: descriptorLimit)
        guard let configured else { return (ceiling, false) }
        return configured > ceiling ? (ceiling, true) : (max(1, configured), false)
    }

    /// The policy of a server that has not raised its descriptor limit (the receiver): the automatic
    /// cap under the soft limit in force, the default request-head timeout, and the main server's
    /// default idle timeout (75 s) unless told otherwise.
    package static func standard(idleTimeout: TimeAmount? = .seconds(75)) -> ConnectionPolicy {
        let limit = DescriptorTable.current()?.soft ?? 1024
        return ConnectionPolicy(
            gate: ConnectionGate(maximum: Self.automaticMaximum(descriptorLimit: limit)),
            requestHeadTimeout: TimeAmount(Self.defaultRequestHeadTimeout),
            idleTimeout: idleTimeout
        )
    }
}

extension ServerMetrics {
    /// `intermission_connections_open`.
    package static var connectionsOpen: MetricNameDescriptor {
        // A gauge: no unit (empty components are left out of the name).
        name("connections_open", "", "Connections open now (HTTP and WebSocket).")
    }
    /// `intermission_connections_refused_total`.
    package static var connectionsRefused: MetricNameDescriptor {
        name(
            "connections_refused",
            "total",
            "Connections closed at accept because the server was at server.maxConnections."
        )
    }
}
