import HTTPFetch
import IntermissionTestSupport
import Logging
import Testing

@testable import IntermissionServer

/// The beacon forwarder's retries wait on the clock it is given, and its work is owned by `run()`:
/// a graceful shutdown sends what is queued, drops the retries still waiting, and ends.
@Suite(.realTime) struct BeaconForwarderClockTests {
    private func forwarder(_ clock: ManualClock) -> BeaconForwarder {
        var configuration = TrackingConfiguration()
        configuration.forwardRetryDelay = .seconds(10)
        configuration.forwardAttempts = 3
        return self.forwarder(clock, configuration)
    }

    private func forwarder(_ clock: ManualClock, _ configuration: TrackingConfiguration) -> BeaconForwarder {
        BeaconForwarder(
            fetch: BoundedFetch(
                client: BeaconForwarder.sharedHTTPClient,
                outbound: OutboundPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")!])
            ),
            configuration: configuration,
            logger: Logger(label: "test"),
            clock: clock
        )
    }

    @Test(.timeLimit(.minutes(1))) func aRetryWaitsOnTheClockAndNotOnRealTime() async throws {
        try await withAdServer { base, log in
            let clock = ManualClock()
            let forwarder = self.forwarder(clock)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await forwarder.run() }
                await forwarder.enqueue([BeaconForwarder.Job(url: base + "/fail")])
                // The first try fails (500) and the retry sleeps until 10 s on the manual clock.
                #expect(await waitUntil { clock.deadlines == [ManualClock.Instant(offset: .seconds(10))] })
                #expect(await forwarder.currentStatistics().retried == 1)
                clock.advance(to: ManualClock.Instant(offset: .seconds(9)))
                // Not due: still one retry waiting, and no second try.
                let retried = await forwarder.currentStatistics().retried
                #expect(clock.sleeperCount == 1 && retried == 1)
                clock.advance(to: ManualClock.Instant(offset: .seconds(10)))
                // Due: tried again, failed again, and the next retry waits twice as long.
                #expect(await waitUntil { clock.deadlines == [ManualClock.Instant(offset: .seconds(30))] })
                #expect(await forwarder.currentStatistics().retried == 2)
                forwarder.stopTaking()
                try await group.waitForAll()
            }
            _ = await log.hits
        }
    }

    /// The rate per host is counted on the forwarder's clock: a host that used its burst gets its
    /// next token when the clock has moved on by 1/rate, however much real time passed.
    @Test(.timeLimit(.minutes(1))) func aHostsRateRefillsOnTheClock() async throws {
        let clock = ManualClock()
        var configuration = TrackingConfiguration()
        configuration.forwardRatePerHost = 2
        configuration.forwardBurstPerHost = 1
        let forwarder = self.forwarder(clock, configuration)
        // Nothing runs the queue: only what is admitted is counted.
        let job = BeaconForwarder.Job(url: "http://127.0.0.1:9/beacon")
        await forwarder.enqueue([job, job])
        #expect(await forwarder.currentStatistics().rateLimited == 1)
        clock.advance(to: ManualClock.Instant(offset: .milliseconds(499)))
        await forwarder.enqueue([job])
        #expect(await forwarder.currentStatistics().rateLimited == 2, "a token before 1/rate on the clock")
        clock.advance(to: ManualClock.Instant(offset: .milliseconds(1_000)))
        await forwarder.enqueue([job])
        let statistics = await forwarder.currentStatistics()
        #expect(statistics.rateLimited == 2 && statistics.waiting == 2, "\(statistics)")
    }

    @Test(.timeLimit(.minutes(1))) func aGracefulShutdownSendsWhatIsQueuedAndDropsTheWaitingRetries() async throws {
        try await withAdServer { base, log in
            let clock = ManualClock()
            let forwarder = self.forwarder(clock)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await forwarder.run() }
                await forwarder.enqueue([BeaconForwarder.Job(url: base + "/fail")])
                #expect(await waitUntil { clock.sleeperCount == 1 })
                // Queued just before the shutdown: still sent. The retry waiting is dropped, and
                // run() ends without the clock moving.
                await forwarder.enqueue([BeaconForwarder.Job(url: base + "/beacon/last")])
                forwarder.stopTaking()
                await group.waitForAll()
            }
            let statistics = await forwarder.currentStatistics()
            #expect(statistics.delivered == 1 && statistics.dropped == 1 && statistics.waiting == 0, "\(statistics)")
            #expect(await log.hits.contains("beacon last"))
        }
    }
}
