import IntermissionTestSupport
import Synchronization
import Testing

@testable import HTTPFetch

/// The DNS cache keeps a resolution for its lifetime on the clock it is given.
@Suite struct ResolutionCacheTests {
    @Test func aResolutionIsKeptForItsLifetimeOnTheClockGiven() async throws {
        let clock = ManualClock()
        let lookups = Atomic<Int>(0)
        let address = try #require(IPAddress("192.0.2.7"))
        let cache = ResolutionCache(clock: clock) { _, _ in
            lookups.add(1, ordering: .relaxed)
            return [address]
        }
        #expect(await cache.addresses(of: "origin.example", port: 443) == [address])
        #expect(lookups.load(ordering: .relaxed) == 1)
        // Within the lifetime the kept addresses answer; another port is another entry.
        clock.advance(by: ResolutionCache.lifetime - .milliseconds(1))
        #expect(await cache.addresses(of: "origin.example", port: 443) == [address])
        #expect(lookups.load(ordering: .relaxed) == 1)
        // At the lifetime's end, on the clock and not on the wall, the name is resolved again.
        clock.advance(by: .milliseconds(1))
        #expect(await cache.addresses(of: "origin.example", port: 443) == [address])
        #expect(lookups.load(ordering: .relaxed) == 2)
    }

    @Test func nothingIsKeptWhenANameDoesNotResolve() async {
        let lookups = Atomic<Int>(0)
        let cache = ResolutionCache(clock: ManualClock()) { _, _ in
            lookups.add(1, ordering: .relaxed)
            return []
        }
        #expect(await cache.addresses(of: "nowhere.example", port: 80).isEmpty)
        #expect(await cache.addresses(of: "nowhere.example", port: 80).isEmpty)
        #expect(lookups.load(ordering: .relaxed) == 2)
    }
}
