import IntermissionTestSupport
import Testing

/// The gate that `.realTime` suites share (Tests/TestSupport/RealTime.swift): at most its permits
/// at once, waiters served in the order they came.
struct RealTimeGateTests {
    @Test func holdersBeyondThePermitsWaitAndAreServedInOrder() async throws {
        let gate = RealTime.Gate(permits: 2)
        await gate.acquire()
        await gate.acquire()
        let order = Entries()
        var waiters: [Task<Void, Never>] = []
        for index in 0..<3 {
            waiters.append(
                Task {
                    await gate.acquire()
                    await order.append(index)
                }
            )
            // Each waiter is queued before the next one starts.
            #expect(await waitUntil { await gate.waiting == index + 1 })
        }
        #expect(await order.values.isEmpty, "a waiter went in while both permits were held")
        await gate.release()
        await waiters[0].value
        #expect(await order.values == [0])
        await gate.release()
        await gate.release()
        await waiters[1].value
        await waiters[2].value
        #expect(await order.values == [0, 1, 2])
    }

    @Test func aWaiterForSeveralPermitsWaitsForAllAndKeepsItsPlace() async throws {
        let gate = RealTime.Gate(permits: 3)
        await gate.acquire()
        let order = Entries()
        // The whole gate is asked for while one permit is held; a single permit asked after it
        // waits behind it although two are free.
        let whole = Task {
            await gate.acquire(3)
            await order.append(3)
        }
        #expect(await waitUntil { await gate.waiting == 1 })
        let single = Task {
            await gate.acquire()
            await order.append(1)
        }
        #expect(await waitUntil { await gate.waiting == 2 })
        #expect(await order.values.isEmpty)
        await gate.release()
        await whole.value
        #expect(await order.values == [3])
        await gate.release(3)
        await single.value
        #expect(await order.values == [3, 1])
    }

    @Test func anEarlyWaiterGoesBeforeTheOrdinaryOnes() async throws {
        let gate = RealTime.Gate(permits: 1)
        await gate.acquire()
        let order = Entries()
        var waiters: [Task<Void, Never>] = []
        for (index, early) in [false, true, false, true].enumerated() {
            waiters.append(
                Task {
                    await gate.acquire(early: early)
                    await order.append(index)
                    await gate.release()
                }
            )
            #expect(await waitUntil { await gate.waiting == index + 1 })
        }
        await gate.release()
        for waiter in waiters { await waiter.value }
        // The early ones in the order they came, then the others in theirs.
        #expect(await order.values == [1, 3, 0, 2])
    }

    @Test func aSuiteWithTheTraitHoldsALane() {
        // This suite has no trait: nothing holds a lane here.
        #expect(!RealTime.isHeld)
    }
}

/// What went in, in order.
private actor Entries {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}

@Suite(.realTime) struct RealTimeLaneTests {
    @Test func itsTestsRunHoldingTheLane() {
        #expect(RealTime.isHeld)
    }
}
