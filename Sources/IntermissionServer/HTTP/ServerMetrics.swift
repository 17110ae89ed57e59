import Prometheus

/// The server's Prometheus metrics, in a registry of its own (so several applications can run in one
/// process, as tests do).
struct ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    static let buckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]

    /// Counts a request and records its latency.
    func request(route: String, method: String, status: Int, duration: Duration) {
        self.registry.makeCounter(
            name: "intermission_http_requests_total",
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
        self.registry.makeDurationHistogram(
            name: "intermission_http_request_duration_seconds",
            labels: [("route", route)],
            buckets: Self.buckets
        ).record(duration)
    }

    /// Counts an ad decision.
    func decision(kind: String, isNew: Bool, assets: Int) {
        self.decision(kind: kind, result: isNew ? "new" : "stored", assets: assets)
    }

    /// Counts an ad decision by result: `new`, `stored` (asked again), `anonymous` (not stored) or
    /// `fallback` (the storage failed; an empty pod was answered).
    func decision(kind: String, result: String, assets: Int) {
        self.registry.makeCounter(
            name: "intermission_decisions_total",
            labels: [("scope", kind), ("result", result)]
        ).increment()
        if result == "new" || result == "anonymous" {
            self.registry.makeCounter(name: "intermission_decided_ads_total", labels: [("scope", kind)])
                .increment(by: Int64(assets))
        }
    }

    /// Counts a failed storage write: `intermission_storage_failures_total{operation,code}`, where
    /// `code` is the SQLite result code (`13` full, `8` read-only, …) or `file` (the database file
    /// is no longer the one opened).
    func storageFailure(operation: String, code: String) {
        self.registry.makeCounter(name: "intermission_storage_failures_total", labels: [("operation", operation), ("code", code)]).increment()
    }

    /// Counts a live break created or changed.
    func breakChanged(origin: String) {
        self.registry.makeCounter(name: "intermission_breaks_total", labels: [("origin", origin)]).increment()
    }

    /// The exposition text.
    func emit() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        self.registry.emit(into: &buffer)
        return buffer
    }
}
