import IntermissionHTTP
import Prometheus

extension ServerMetrics {
    /// `intermission_conditioning_jobs_total`.
    static var conditioningJobs: MetricNameDescriptor {
        name(
            "conditioning_jobs",
            "total",
            "Creative conditioning jobs taken from this instance's queue, by result: ready, failed, or skipped (another instance held the lease, or the creative was not due)."
        )
    }
    /// `intermission_conditioning_duration_seconds`.
    static var conditioningDuration: MetricNameDescriptor {
        name(
            "conditioning_duration",
            "seconds",
            "Time to condition a creative that became ready (fetch, probe, ffmpeg)."
        )
    }
    /// `intermission_conditioning_queue_length`.
    static var conditioningQueueLength: MetricNameDescriptor {
        name("conditioning_queue", "length", "Creatives waiting for a conditioning job on this instance.")
    }
    /// `intermission_conditioning_creatives`.
    static var conditioningCreatives: MetricNameDescriptor {
        name(
            "conditioning",
            "creatives",
            "Creatives in the conditioning store, by state (pending, conditioning, ready, failed), as counted after the last job here."
        )
    }
    /// `intermission_conditioning_ffmpeg_runs_total`.
    static var ffmpegRuns: MetricNameDescriptor {
        name("conditioning_ffmpeg_runs", "total", "ffmpeg runs started by this instance to condition creatives.")
    }
    /// `intermission_conditioning_omitted_total`.
    static var conditioningOmitted: MetricNameDescriptor {
        name(
            "conditioning_omitted",
            "total",
            "Creatives left out of a pod because their conditioned HLS was not ready, by scope kind."
        )
    }
    /// `intermission_conditioning_dropped_total`.
    static var conditioningDropped: MetricNameDescriptor {
        name(
            "conditioning_dropped",
            "total",
            "Creatives not queued because the conditioning queue was full (asked for again by a later asset list)."
        )
    }

    /// Counts a job's result, with its duration when it became ready.
    func conditioningJob(result: String, duration: Duration? = nil) {
        self.registry.makeCounter(descriptor: Self.conditioningJobs, labels: [("result", result)]).increment()
        if let duration {
            self.registry.makeDurationHistogram(
                descriptor: Self.conditioningDuration,
                buckets: [
                    .seconds(1), .seconds(5), .seconds(15), .seconds(30), .seconds(60), .seconds(120),
                    .seconds(300), .seconds(600), .seconds(1800),
                ]
            ).record(duration)
        }
    }

    /// Records the queue's length.
    func conditioningQueue(_ length: Int) {
        self.registry.makeGauge(descriptor: Self.conditioningQueueLength).set(Int64(length))
    }

    /// Records how many stored creatives are in `state`.
    func conditioningCreatives(state: String, count: Int) {
        self.registry.makeGauge(descriptor: Self.conditioningCreatives, labels: [("state", state)]).set(Int64(count))
    }

    /// Counts an ffmpeg run.
    func ffmpegRun() {
        self.registry.makeCounter(descriptor: Self.ffmpegRuns).increment()
    }

    /// Counts a creative left out of a pod.
    func conditioningOmitted(kind: String) {
        self.registry.makeCounter(descriptor: Self.conditioningOmitted, labels: [("scope", kind)]).increment()
    }

    /// Counts a creative the full queue turned away.
    func conditioningDropped() {
        self.registry.makeCounter(descriptor: Self.conditioningDropped).increment()
    }
}
