import HTTPTypes
import IntermissionHTTP
import IntermissionStore
import Prometheus

/// The ad-insertion server's own metrics: decisions, storage, breaks, origins, the journal,
/// outbound requests, VAST errors and answers given on the event loop.
extension ServerMetrics {
    /// `intermission_decisions_total`.
    static var decisions: MetricNameDescriptor {
        name("decisions", "total", "Asset-list decisions, by scope and result.")
    }
    /// `intermission_decided_ads_total`.
    static var decidedAds: MetricNameDescriptor { name("decided_ads", "total", "Ads decided, by scope.") }
    /// `intermission_storage_failures_total`.
    static var storageFailures: MetricNameDescriptor {
        name("storage_failures", "total", "Failed storage writes, by operation and code.")
    }
    /// `intermission_event_loop_answers_total`.
    static var eventLoopAnswers: MetricNameDescriptor {
        name(
            "event_loop_answers",
            "total",
            "Requests answered from fresh cache entries on the connection's event loop (also counted by route)."
        )
    }
    /// The counter of answers given on the event loop (see ``EventLoopAnswers``).
    func eventLoopAnswerCounter() -> Counter { self.registry.makeCounter(descriptor: Self.eventLoopAnswers) }
    /// `intermission_breaks_total`.
    static var breaks: MetricNameDescriptor { name("breaks", "total", "Live breaks created or changed, by origin.") }
    /// `intermission_origin_failures_total`.
    static var originFailures: MetricNameDescriptor {
        name("origin_failures", "total", "Failed reads of origin and upstream playlists, by scope.")
    }

    /// `intermission_journal_entries_total`.
    static var journalEntries: MetricNameDescriptor {
        name(
            "journal_entries",
            "total",
            "Decisions and beacons kept in the local journal while PostgreSQL was unreachable (event journaled) and written to it afterwards (event replayed), by kind."
        )
    }

    /// Counts the PostgreSQL journal's entries: `intermission_journal_entries_total{kind,event}`,
    /// `kind` `decision` or `beacon`, `event` `journaled` or `replayed`.
    func journalObserver() -> DecisionJournal.Observer {
        let registry = self.registry
        return { kind, event, count in
            registry.makeCounter(
                descriptor: Self.journalEntries,
                labels: [("kind", kind), ("event", event.rawValue)]
            ).increment(by: Int64(count))
        }
    }

    /// `intermission_decisions_pruned_total`.
    static var decisionsPruned: MetricNameDescriptor {
        name("decisions_pruned", "total", "Stored decisions deleted past their retention or the cap.")
    }
    /// `intermission_decisions_stored`.
    static var decisionsStored: MetricNameDescriptor {
        name("decisions", "stored", "Decisions stored, as counted after the last pruning run.")
    }

    /// Counts decisions the pruner deleted.
    func decisionsPruned(_ count: Int) {
        self.registry.makeCounter(descriptor: Self.decisionsPruned).increment(by: Int64(max(0, count)))
    }

    /// Records how many decisions are stored.
    func decisionsStored(_ count: Int) {
        self.registry.makeGauge(descriptor: Self.decisionsStored).set(Int64(count))
    }

    /// Counts an ad decision.
    func decision(kind: String, isNew: Bool, assets: Int) {
        self.decision(kind: kind, result: isNew ? "new" : "stored", assets: assets)
    }

    /// Counts an ad decision by result: `new`, `stored` (asked again), `anonymous` (not stored) or
    /// `fallback` (the storage failed; an empty pod was answered).
    func decision(kind: String, result: String, assets: Int) {
        // Made once per scope kind and result (both come from short fixed lists), not per request.
        let (decisions, ads) = self.bound.decisionCounters(kind: kind, result: result) {
            (
                self.registry.makeCounter(descriptor: Self.decisions, labels: [("scope", kind), ("result", result)]),
                result == "new" || result == "anonymous"
                    ? self.registry.makeCounter(descriptor: Self.decidedAds, labels: [("scope", kind)]) : nil
            )
        }
        decisions.increment()
        ads?.increment(by: Int64(assets))
    }

    /// Counts a failed storage write: `intermission_storage_failures_total{operation,code}`, where
    /// `code` is the SQLite result code (`13` full, `8` read-only, …) or `file` (the database file
    /// is no longer the one opened).
    func storageFailure(operation: String, code: String) {
        self.registry.makeCounter(
            descriptor: Self.storageFailures,
            labels: [("operation", operation), ("code", code)]
        ).increment()
    }

    /// Counts a live break created or changed.
    func breakChanged(origin: String) {
        self.registry.makeCounter(
            descriptor: Self.breaks,
            labels: [("origin", origin)]
        ).increment()
    }

    /// Counts a failed read of an origin or upstream playlist: `intermission_origin_failures_total{scope}`,
    /// where `scope` is `live-{channel}` or `vod-{asset}` (IDs from the configuration only).
    func originFailure(scope: String) {
        self.registry.makeCounter(descriptor: Self.originFailures, labels: [("scope", scope)]).increment()
    }

    /// `intermission_outbound_refused_total`.
    static var outboundRefused: MetricNameDescriptor {
        name(
            "outbound_refused",
            "total",
            "Requests not sent because the outbound policy refused their destination (private, loopback, link-local, … addresses), by purpose: vast (wrappers and their redirects) or forward (beacons and error URLs)."
        )
    }
    /// `intermission_forwards_dropped_total`.
    static var forwardsDropped: MetricNameDescriptor {
        name(
            "forwards_dropped",
            "total",
            "Beacon and error-URL forwards dropped without being sent, by reason: queueFull, rateLimited (the destination host was over tracking.forwardRatePerHost) or shutdown (still queued, or waiting to retry, when a graceful shutdown's drain ended)."
        )
    }

    /// Counts a request the outbound policy refused: `intermission_outbound_refused_total{purpose}`.
    func outboundRefused(purpose: String) {
        self.registry.makeCounter(descriptor: Self.outboundRefused, labels: [("purpose", purpose)]).increment()
    }

    /// `intermission_vast_errors_total`.
    static var vastErrors: MetricNameDescriptor {
        name(
            "vast_errors",
            "total",
            "VAST errors reported to ad servers' Error URLs, by source (decision: an ad the server dropped while deciding; player: an error beacon a player sent) and VAST error code."
        )
    }

    /// Counts a VAST error reported: `intermission_vast_errors_total{source,code}`, `source`
    /// `decision` or `player`, `code` a VAST error code (100 to 999, checked before).
    func vastError(source: String, code: Int) {
        self.registry.makeCounter(descriptor: Self.vastErrors, labels: [("source", source), ("code", String(code))])
            .increment()
    }

    /// Counts a forward dropped: `intermission_forwards_dropped_total{reason}`.
    func forwardDropped(reason: String) {
        self.registry.makeCounter(descriptor: Self.forwardsDropped, labels: [("reason", reason)]).increment()
    }
}
