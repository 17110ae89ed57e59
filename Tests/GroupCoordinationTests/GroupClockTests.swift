import GroupCoordination
import HLSPlaylist
import Testing

@Suite struct GroupClockTests {
    /// A probe exchange between a participant whose clock is `offset` behind the group's, with the
    /// given one-way delays and hub processing time (all in milliseconds).
    static func sample(at localSend: Int64, offset: Int64, out: Int64, back: Int64, hub: Int64 = 1) -> ClockSample {
        let hubReceived = localSend + out + offset
        let hubSent = hubReceived + hub
        let received = hubSent - offset + back
        return ClockSample(
            sent: ClockInstant(milliseconds: localSend),
            hubReceived: ClockInstant(milliseconds: hubReceived),
            hubSent: ClockInstant(milliseconds: hubSent),
            received: ClockInstant(milliseconds: received)
        )
    }

    @Test func symmetricDelaysGiveTheExactOffset() {
        var clock = GroupClock()
        #expect(clock.offset == nil)
        #expect(clock.groupInstant(at: ClockInstant(milliseconds: 5)) == nil)
        let added = clock.add(Self.sample(at: 1_000, offset: 7_250, out: 12, back: 12, hub: 3))
        #expect(added)
        #expect(clock.offset == MediaTime(milliseconds: 7_250))
        #expect(clock.roundTrip == MediaTime(milliseconds: 24))
        #expect(clock.groupInstant(at: ClockInstant(milliseconds: 2_000)) == ClockInstant(milliseconds: 9_250))
        #expect(clock.localInstant(at: ClockInstant(milliseconds: 9_250)) == ClockInstant(milliseconds: 2_000))
    }

    @Test func asymmetricDelaysErrWithinHalfTheRoundTrip() {
        var clock = GroupClock()
        clock.add(Self.sample(at: 0, offset: -3_000, out: 40, back: 2))
        let error = (clock.offset! - MediaTime(milliseconds: -3_000)).magnitude
        #expect(error == MediaTime(milliseconds: 19))
        #expect(error <= clock.uncertainty!)
    }

    @Test func theShortestRoundTripWins() {
        var clock = GroupClock()
        clock.add(Self.sample(at: 0, offset: 500, out: 80, back: 10))  // 45 ms off
        clock.add(Self.sample(at: 100, offset: 500, out: 3, back: 2))  // 0.5 ms off, shortest
        clock.add(Self.sample(at: 200, offset: 500, out: 30, back: 90))  // 30 ms off
        #expect(clock.roundTrip == MediaTime(milliseconds: 5))
        #expect((clock.offset! - MediaTime(milliseconds: 500)).magnitude <= MediaTime(milliseconds: 1))
    }

    @Test func onlyTheLastWindowOfSamplesCounts() {
        var clock = GroupClock()
        clock.add(Self.sample(at: 0, offset: 100, out: 1, back: 1))  // the best, but old
        for i in 1...GroupClock.sampleWindow {
            clock.add(Self.sample(at: Int64(i) * 1_000, offset: 200, out: 10, back: 10))
        }
        #expect(clock.samples.count == GroupClock.sampleWindow)
        #expect(clock.offset == MediaTime(milliseconds: 200))
    }

    @Test func inconsistentSamplesAreRefused() {
        var clock = GroupClock()
        // The answer arrives before the probe left.
        let backwards = ClockSample(
            sent: ClockInstant(milliseconds: 10),
            hubReceived: ClockInstant(milliseconds: 0),
            hubSent: ClockInstant(milliseconds: 1),
            received: ClockInstant(milliseconds: 5)
        )
        // The hub claims to have held the probe longer than the whole exchange.
        let slowHub = ClockSample(
            sent: ClockInstant(milliseconds: 0),
            hubReceived: ClockInstant(milliseconds: 0),
            hubSent: ClockInstant(milliseconds: 50),
            received: ClockInstant(milliseconds: 10)
        )
        let addedBackwards = clock.add(backwards)
        let addedSlowHub = clock.add(slowHub)
        #expect(!addedBackwards)
        #expect(!addedSlowHub)
        #expect(clock.samples.isEmpty)
    }

    @Test func extremeInstantsSaturateInsteadOfTrapping() {
        let edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        for a in edges {
            for b in edges {
                let sample = ClockSample(
                    sent: ClockInstant(nanoseconds: a),
                    hubReceived: ClockInstant(nanoseconds: b),
                    hubSent: ClockInstant(nanoseconds: b),
                    received: ClockInstant(nanoseconds: a)
                )
                var clock = GroupClock()
                if clock.add(sample) {
                    _ = clock.groupInstant(at: ClockInstant(nanoseconds: .max))
                    _ = clock.localInstant(at: ClockInstant(nanoseconds: .min))
                }
                _ = sample.offset
                _ = sample.roundTrip
            }
        }
        #expect(ClockInstant(nanoseconds: .max) + MediaTime(nanoseconds: .max) == ClockInstant(nanoseconds: .max))
        #expect(ClockInstant(nanoseconds: .min) - MediaTime(nanoseconds: .max) == ClockInstant(nanoseconds: .min))
        #expect(ClockInstant(milliseconds: .max) == ClockInstant(nanoseconds: .max))
    }
}
