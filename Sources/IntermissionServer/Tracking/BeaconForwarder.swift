import AsyncHTTPClient
import GroupCoordination
import HTTPFetch
import IntermissionHTTP
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Forwards recorded beacons (and VAST error URLs) to the ad server's URLs, off the request path:
/// a bounded queue, a few workers, a rate limit per destination host, and retries with exponential
/// backoff.
///
/// A forward is a `GET` of the ad server's URL with the viewer's `X-Device-IP` and
/// `X-Device-User-Agent`. A `2xx` or `3xx` answer delivers it; a `5xx`, a `429` or a network
/// failure is tried again after `retryDelay`, then twice that, and so on, up to `attempts` tries
/// in all; another `4xx` gives up at once (the URL is wrong, not the moment). When
/// `capacity` forwards are waiting, or the destination host has used up its rate
/// (`forwardRatePerHost`, `forwardBurstPerHost`), a new one is dropped and counted, so a dead ad
/// server or a document that names one host many times costs bounded memory and bounded
/// requests. Every request goes through the server's `OutboundPolicy`: a destination it refuses
/// is logged, counted and not retried.
///
/// The work happens in ``run()``, which the service group owns (``BeaconForwarderService``): the
/// workers and the retries' waits are child tasks there, so none outlives the server; the waits are
/// on the clock the forwarder is given. At a graceful shutdown (``stopTaking()``) the forwards
/// already queued are still sent, for at most ``shutdownDrain``; the retries still waiting and what
/// is left after that are dropped and counted (`reason="shutdown"`).
actor BeaconForwarder {
    /// One forward to make.
    struct Job: Sendable {
        var url: String
        var deviceIP: String?
        var deviceUserAgent: String?
        var attempt = 1
        /// `host:port` trusted as named for this forward (an inventory creative's URL, which the
        /// operator configured), or `nil`.
        var trustedHost: String? = nil
    }

    /// What the forwarder did so far.
    struct Statistics: Sendable, Hashable, Codable {
        var delivered = 0
        var retried = 0
        var failed = 0
        var dropped = 0
        var waiting = 0
        /// Dropped because their destination host was over its rate.
        var rateLimited = 0
        /// Not sent: the outbound policy refused their destination.
        var refused = 0
    }

    /// The client forwards go through: process-wide, never shut down, following no redirect
    /// itself (`BoundedFetch` follows them, checking each against the outbound policy).
    static let sharedHTTPClient = BoundedFetch.makeClient(connectTimeout: .seconds(5), maximumRedirects: 0)

    private let fetch: BoundedFetch
    private let configuration: TrackingConfiguration
    private let logger: Logger
    private let metrics: ServerMetrics?
    private var limiter: HostRateLimiter
    private var queue: [Job] = []
    private var head = 0
    /// Jobs waiting, in flight, or sleeping before a retry.
    private var pending = 0
    private var workers = 0
    private var statistics = Statistics()
    private static let maximumWorkers = 4
    /// What ``run()`` is told: jobs to work on, or a retry to wait for.
    private let wakes = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .unbounded)
    /// The clock the forwarder reads and waits on (retries, the hosts' rates, the shutdown's
    /// drain), as the time since the forwarder was made.
    private let clock: ElapsedClock
    /// Set by ``run()`` when the shutdown's drain begins: queued forwards are sent until then.
    private var drainUntil: Duration?
    /// How long a graceful shutdown keeps sending the forwards already queued.
    static let shutdownDrain = Duration.seconds(5)

    private enum Wake {
        /// Jobs were queued: start workers if fewer than `maximumWorkers` run.
        case jobs
        /// Queue `job` again after `delay`.
        case retry(Job, after: Duration)
    }

    init(
        fetch: BoundedFetch,
        configuration: TrackingConfiguration,
        logger: Logger,
        metrics: ServerMetrics? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.fetch = fetch
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.clock = ElapsedClock(clock)
        self.limiter = HostRateLimiter(
            rate: configuration.forwardRatePerHost,
            burst: configuration.forwardBurstPerHost
        )
    }

    /// Queues forwards (returns at once).
    func enqueue(_ jobs: [Job]) {
        let now = self.clock.elapsed
        for job in jobs {
            guard self.pending < self.configuration.forwardQueueCapacity else {
                self.statistics.dropped += 1
                self.metrics?.forwardDropped(reason: "queueFull")
                continue
            }
            guard self.limiter.admit(OutboundPolicy.Target(job.url)?.host ?? job.url, now: now) else {
                self.statistics.dropped += 1
                self.statistics.rateLimited += 1
                self.metrics?.forwardDropped(reason: "rateLimited")
                continue
            }
            self.pending += 1
            self.push(job)
        }
    }

    /// The counts so far.
    func currentStatistics() -> Statistics {
        var result = self.statistics
        result.waiting = self.pending
        return result
    }

    private func push(_ job: Job) {
        self.queue.append(job)
        self.wakes.continuation.yield(.jobs)
    }

    /// Sends the queued forwards until ``stopTaking()`` (or cancellation): up to `maximumWorkers`
    /// at a time, each retry waiting on the clock.
    ///
    /// Then the retries still waiting are dropped, and the workers finish what is queued, for at
    /// most ``shutdownDrain``. Every one of them is a child task here, so none outlives the
    /// forwarder's service.
    func run() async {
        let clock = self.clock
        await withDiscardingTaskGroup { workers in
            await withDiscardingTaskGroup { retries in
                for await wake in self.wakes.stream {
                    switch wake {
                    case .jobs:
                        while self.workers < Self.maximumWorkers && self.head < self.queue.count {
                            self.workers += 1
                            workers.addTask { await self.work() }
                        }
                    case .retry(let job, let delay):
                        retries.addTask {
                            guard (try? await clock.sleep(for: delay)) != nil else {
                                await self.dropAtShutdown(job)
                                return
                            }
                            await self.push(job)
                        }
                    }
                }
                retries.cancelAll()
            }
            self.drainUntil = clock.elapsed + Self.shutdownDrain
            // Workers for what is queued: a job queued after the last wake has none yet.
            while self.workers < Self.maximumWorkers && self.head < self.queue.count {
                self.workers += 1
                workers.addTask { await self.work() }
            }
        }
    }

    /// Takes no more forwards: ``run()`` sends what is queued and ends (a graceful shutdown).
    nonisolated func stopTaking() {
        self.wakes.continuation.finish()
    }

    /// A retry that was still waiting when the forwarder stopped.
    private func dropAtShutdown(_ job: Job) {
        self.statistics.dropped += 1
        self.pending -= 1
        self.metrics?.forwardDropped(reason: "shutdown")
        self.logger.warning(
            "beacon forward dropped at shutdown while waiting to retry",
            metadata: ["url": "\(job.url)"]
        )
    }

    private func next() -> Job? {
        if let until = self.drainUntil, self.clock.elapsed >= until, self.head < self.queue.count {
            let left = self.queue.count - self.head
            self.statistics.dropped += left
            self.pending -= left
            for _ in 0..<left { self.metrics?.forwardDropped(reason: "shutdown") }
            self.logger.warning("beacon forwards dropped at shutdown", metadata: ["count": "\(left)"])
            self.head = self.queue.count
        }
        guard self.head < self.queue.count else {
            self.queue.removeAll(keepingCapacity: true)
            self.head = 0
            return nil
        }
        let job = self.queue[self.head]
        self.head += 1
        if self.head > 1024 && self.head * 2 > self.queue.count {
            self.queue.removeFirst(self.head)
            self.head = 0
        }
        return job
    }

    private func work() async {
        while let job = self.next() {
            let outcome = await Self.send(job, fetch: self.fetch, timeout: self.configuration.forwardTimeout)
            self.finish(job, outcome)
        }
        self.workers -= 1
    }

    private enum Outcome { case delivered, retry(String), giveUp(String), refused(String) }

    private func finish(_ job: Job, _ outcome: Outcome) {
        switch outcome {
        case .delivered:
            self.statistics.delivered += 1
            self.pending -= 1
        case .refused(let why):
            self.statistics.refused += 1
            self.pending -= 1
            self.metrics?.outboundRefused(purpose: "forward")
            self.logger.warning("beacon forward refused: destination not allowed", metadata: ["reason": "\(why)"])
        case .giveUp(let why):
            self.statistics.failed += 1
            self.pending -= 1
            self.logger.warning("beacon forward refused", metadata: ["url": "\(job.url)", "reason": "\(why)"])
        case .retry(let why):
            guard job.attempt < self.configuration.forwardAttempts else {
                self.statistics.failed += 1
                self.pending -= 1
                self.logger.warning("beacon forward failed", metadata: ["url": "\(job.url)", "reason": "\(why)"])
                return
            }
            self.statistics.retried += 1
            var again = job
            again.attempt += 1
            let delay = self.configuration.forwardRetryDelay * (1 << min(job.attempt - 1, 20))
            if case .terminated = self.wakes.continuation.yield(.retry(again, after: delay)) {
                // The forwarder stopped taking work: no retry will wait for this one.
                self.dropAtShutdown(again)
            }
        }
    }

    private static func send(_ job: Job, fetch: BoundedFetch, timeout: Duration) async -> Outcome {
        var headers: [(name: String, value: String)] = []
        if let ip = job.deviceIP { headers.append(("X-Device-IP", ip)) }
        if let agent = job.deviceUserAgent {
            headers.append(("X-Device-User-Agent", agent))
            headers.append(("User-Agent", agent))
        }
        var request = FetchRequest(
            url: job.url,
            headers: headers,
            timeout: timeout,
            maximumBodySize: 64 << 10,
            keepsBody: false,
            acceptedStatuses: nil
        )
        if let trusted = job.trustedHost { request.trustedHosts = [trusted] }
        do {
            let response = try await fetch.get(request)
            switch response.status {
            case 200..<400: return .delivered
            case 429, 500...: return .retry("HTTP \(response.status)")
            default: return .giveUp("HTTP \(response.status)")
            }
        } catch {
            switch error.code {
            case .forbiddenDestination: return .refused(error.message)
            // The answer came, with more body than is read: delivered.
            case .bodyTooLarge: return .delivered
            case .invalidURL: return .giveUp(error.message)
            default: return .retry(error.message)
            }
        }
    }
}

/// A token bucket per destination host: `burst` requests at once, then `rate` per second.
///
/// At most ``maximumHosts`` hosts are followed; past them, the hosts whose buckets are full again
/// are forgotten (at most once a second), and a new host is refused until one is.
struct HostRateLimiter: Sendable {
    /// Requests per second per host.
    let rate: Double
    /// Requests a host may take at once.
    let burst: Double
    /// The most hosts followed at once.
    static let maximumHosts = 10_000
    /// Each host's tokens, and when they were counted (the forwarder's elapsed time).
    private var buckets: [String: (tokens: Double, at: Duration)] = [:]
    private var lastPrune: Duration?

    /// A limiter of `rate` requests per second and `burst` at once, per host.
    init(rate: Double, burst: Int) {
        self.rate = max(rate, 0)
        self.burst = Double(max(burst, 1))
    }

    /// Whether a request to `host` may go at `now` (time on the forwarder's clock); takes one
    /// token when it may.
    mutating func admit(_ host: String, now: Duration) -> Bool {
        var tokens = self.burst
        if let bucket = self.buckets[host] {
            tokens = min(self.burst, bucket.tokens + self.rate * (now - bucket.at).seconds)
        } else if self.buckets.count >= Self.maximumHosts {
            self.prune(now: now)
            guard self.buckets.count < Self.maximumHosts else { return false }
        }
        guard tokens >= 1 else {
            self.buckets[host] = (tokens, now)
            return false
        }
        self.buckets[host] = (tokens - 1, now)
        return true
    }

    /// Forgets the hosts whose buckets have filled up again, at most once a second.
    private mutating func prune(now: Duration) {
        if let last = self.lastPrune, now - last < .seconds(1) { return }
        self.lastPrune = now
        let burst = self.burst
        let rate = self.rate
        self.buckets = self.buckets.filter { $0.value.tokens + rate * (now - $0.value.at).seconds < burst }
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The beacon forwarder's part in the service group: runs its workers until the group shuts down.
struct BeaconForwarderService: Service {
    let forwarder: BeaconForwarder

    func run() async throws {
        let forwarder = self.forwarder
        await withGracefulShutdownHandler {
            await forwarder.run()
        } onGracefulShutdown: {
            forwarder.stopTaking()
        }
    }
}
