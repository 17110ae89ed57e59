import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

/// Forwards recorded beacons to the ad server's URLs, off the request path: a bounded queue,
/// a few workers, and retries with exponential backoff.
///
/// A forward is a `GET` of the ad server's URL with the viewer's `X-Device-IP` and
/// `X-Device-User-Agent`. A `2xx` or `3xx` answer delivers it; a `5xx`, a `429` or a network
/// failure is tried again after `retryDelay`, then twice that, and so on, up to `attempts` tries
/// in all; another `4xx` gives up at once (the URL is wrong, not the moment). When
/// `capacity` forwards are waiting, a new one is dropped and counted, so a dead ad server costs
/// bounded memory.
actor BeaconForwarder {
    /// One forward to make.
    struct Job: Sendable {
        var url: String
        var deviceIP: String?
        var deviceUserAgent: String?
        var attempt = 1
    }

    /// What the forwarder did so far.
    struct Statistics: Sendable, Hashable, Codable {
        var delivered = 0
        var retried = 0
        var failed = 0
        var dropped = 0
        var waiting = 0
    }

    private let client: HTTPClient
    private let configuration: TrackingConfiguration
    private let logger: Logger
    private var queue: [Job] = []
    private var head = 0
    /// Jobs waiting, in flight, or sleeping before a retry.
    private var pending = 0
    private var workers = 0
    private var statistics = Statistics()
    private static let maximumWorkers = 4

    init(client: HTTPClient, configuration: TrackingConfiguration, logger: Logger) {
        self.client = client
        self.configuration = configuration
        self.logger = logger
    }

    /// Queues forwards (returns at once).
    func enqueue(_ jobs: [Job]) {
        for job in jobs {
            guard self.pending < self.configuration.forwardQueueCapacity else {
                self.statistics.dropped += 1
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
        if self.workers < Self.maximumWorkers {
            self.workers += 1
            Task { await self.work() }
        }
    }

    private func next() -> Job? {
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
            let outcome = await Self.send(job, client: self.client, timeout: self.configuration.forwardTimeout)
            self.finish(job, outcome)
        }
        self.workers -= 1
    }

    private enum Outcome { case delivered, retry(String), giveUp(String) }

    private func finish(_ job: Job, _ outcome: Outcome) {
        switch outcome {
        case .delivered:
            self.statistics.delivered += 1
            self.pending -= 1
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
            Task {
                try? await Task.sleep(for: delay)
                self.push(again)
            }
        }
    }

    private static func send(_ job: Job, client: HTTPClient, timeout: Duration) async -> Outcome {
        var request = HTTPClientRequest(url: job.url)
        request.method = .GET
        if let ip = job.deviceIP { request.headers.add(name: "X-Device-IP", value: ip) }
        if let agent = job.deviceUserAgent {
            request.headers.add(name: "X-Device-User-Agent", value: agent)
            request.headers.add(name: "User-Agent", value: agent)
        }
        do {
            let response = try await client.execute(request, timeout: .milliseconds(timeout.milliseconds))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            switch response.status.code {
            case 200..<400: return .delivered
            case 429, 500...: return .retry("HTTP \(response.status.code)")
            default: return .giveUp("HTTP \(response.status.code)")
            }
        } catch {
            return .retry("\(error)")
        }
    }
}

extension Duration {
    /// Whole milliseconds, for APIs that take them.
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
