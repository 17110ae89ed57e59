import AdInsertion
import GroupCoordination
import HLSPlaylist
import HTTPFetch
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// The ad servers' time budget runs on the clock the client is given (the server's timer clock).
@Suite(.realTime) struct AdServerBudgetTests {
    /// A client whose budget and fetches run on `clock`, allowed to ask loopback.
    static func client(on clock: ManualClock) -> AdServerClient {
        AdServerClient(
            fetch: BoundedFetch(
                client: AdServerClient.sharedHTTPClient,
                outbound: OutboundPolicy(allowsEveryDestination: true),
                clock: clock
            ),
            metrics: nil,
            timer: ElapsedClock(clock)
        )
    }

    @Test func aBudgetSpentOnTheClockLeavesNoTimeToAsk() async {
        let clock = ManualClock()
        let client = Self.client(on: clock)
        let url = "http://127.0.0.1:1/vast"
        clock.advance(by: .seconds(5))
        // Nothing is asked: five seconds have passed on the clock, none on the wall.
        let outcome = await client.resolve(
            url: url,
            headers: [],
            resolution: AdServerResolution(breakDuration: MediaTime(seconds: 30)),
            deadline: .seconds(5)
        )
        #expect(outcome.ads.isEmpty)
        #expect(outcome.problem == "no time left in the budget for \(url)")
    }

    @Test func anAdServerThatHoldsItsAnswerIsGivenUpWhenTheClockPassesTheBudget() async throws {
        let server = try HoldingServer()
        defer { server.stop() }
        let clock = ManualClock()
        let client = Self.client(on: clock)
        let resolving = Task {
            await client.resolve(
                url: server.base + "/vast",
                headers: [],
                resolution: AdServerResolution(breakDuration: MediaTime(seconds: 30)),
                deadline: .seconds(20)
            )
        }
        // The fetch is given what is left of the budget, and its timer sleeps on the clock.
        #expect(await waitUntil { clock.deadlines == [ManualClock.Instant(offset: .seconds(20))] })
        clock.advance(by: .seconds(20))
        let outcome = try await withDeadline(.seconds(10)) { await resolving.value }
        #expect(outcome?.ads.isEmpty == true)
        #expect(outcome?.problem?.hasPrefix("no answer from \(server.base)/vast within 20 s") == true)
    }
}
