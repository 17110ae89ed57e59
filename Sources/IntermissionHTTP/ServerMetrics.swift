import HTTPTypes
import Prometheus
import Synchronization

/// A server's Prometheus metrics, in a registry of its own (so several applications can run in one
/// process, as tests do): here the HTTP ones (requests by route, latencies, connections); the
/// ad-insertion server adds its own in an extension.
package struct ServerMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    /// Counters and histograms already made, by route, method and status: the registry builds a
    /// counter's identity from its labels on every `makeCounter`, so each is made once.
    package let bound = BoundMetrics()

    /// Creates the metrics in a registry of their own.
    package init() {}

    /// The metrics of one route, made once and kept (see ``bind(route:)``).
    package struct BoundRoute: Sendable {
        package let histogram: DurationHistogram
        /// Counters of the statuses and methods cached answers give: GET and HEAD, `200` and `304`.
        package let getOK: Counter
        package let getNotModified: Counter
        package let headOK: Counter
        package let headNotModified: Counter

        /// Counts an answer and records its latency.
        package func record(method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration) {
            let head = method == .head
            switch status.code {
            case 304: (head ? self.headNotModified : self.getNotModified).increment()
            default: (head ? self.headOK : self.getOK).increment()
            }
            self.histogram.record(duration)
        }
    }

    /// The metrics of a route, made now, for a caller that keeps them.
    package func bind(route: String) -> BoundRoute {
        func counter(_ method: String, _ status: String) -> Counter {
            self.registry.makeCounter(
                descriptor: Self.requests,
                labels: [("route", route), ("method", method), ("status", status)]
            )
        }
        return BoundRoute(
            histogram: self.registry.makeDurationHistogram(
                descriptor: Self.requestDuration,
                labels: [("route", route)],
                buckets: Self.buckets
            ),
            getOK: counter("GET", "200"),
            getNotModified: counter("GET", "304"),
            headOK: counter("HEAD", "200"),
            headNotModified: counter("HEAD", "304")
        )
    }

    package static let buckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]

    /// The name `intermission_<metric>_<unit>`, with its `# HELP` text.
    package static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "intermission", metricName: metric, unitName: unit, helpText: help)
    }

    /// `intermission_http_requests_total`.
    package static var requests: MetricNameDescriptor {
        name("http_requests", "total", "HTTP requests answered, by route, method and status.")
    }
    /// `intermission_http_request_duration_seconds`.
    package static var requestDuration: MetricNameDescriptor {
        name("http_request_duration", "seconds", "Time to answer a request, by route.")
    }
    /// Counts a request and records its latency.
    package func request(route: String, method: String, status: Int, duration: Duration) {
        let (counter, histogram) = self.bound.metrics(route: route, method: method, status: status) {
            (
                self.registry.makeCounter(
                    descriptor: Self.requests,
                    labels: [("route", route), ("method", method), ("status", String(status))]
                ),
                self.registry.makeDurationHistogram(
                    descriptor: Self.requestDuration,
                    labels: [("route", route)],
                    buckets: Self.buckets
                )
            )
        }
        counter.increment()
        histogram.record(duration)
    }

    /// The exposition text.
    package func emit() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        self.registry.emit(into: &buffer)
        return buffer
    }
}

/// Counters and histograms by route, method and status, made once each.
///
/// Routes are patterns and
/// methods are checked before routing, so the keys stay few; past ``capacity`` they are made per
/// request again (the registry keeps them anyway).
package final class BoundMetrics: Sendable {
    private struct Key: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    /// The most combinations kept.
    package static let capacity = 1024
    private let made = Mutex<[Key: (Counter, DurationHistogram)]>([:])
    /// Decision counters by scope kind and result: the decisions and the ads decided.
    private let decisions = Mutex<[String: (Counter, Counter?)]>([:])

    /// The decision counters of a scope kind and result (the decisions, and the ads decided when the
    /// result decides ads): kept ones, or `make()`'s, kept from now on.
    package func decisionCounters(kind: String, result: String, make: () -> (Counter, Counter?)) -> (Counter, Counter?)
    {
        let key = kind + "/" + result
        if let found = self.decisions.withLock({ $0[key] }) { return found }
        let counters = make()
        self.decisions.withLock { if $0.count < Self.capacity { $0[key] = counters } }
        return counters
    }

    /// The metrics of a combination: kept ones, or `make()`'s, kept from now on.
    package func metrics(
        route: String,
        method: String,
        status: Int,
        make: () -> (Counter, DurationHistogram)
    ) -> (Counter, DurationHistogram) {
        let key = Key(route: route, method: method, status: status)
        if let found = self.made.withLock({ $0[key] }) { return found }
        let metrics = make()
        self.made.withLock { if $0.count < Self.capacity { $0[key] = metrics } }
        return metrics
    }
}
