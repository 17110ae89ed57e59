import GroupCoordination
import HLSPlaylist
import Testing

@Suite struct GroupHubTests {
    static func at(_ milliseconds: Int64) -> ClockInstant { ClockInstant(milliseconds: milliseconds) }
    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }
    static let vod = ParticipantDescription(isLive: false, itemDuration: MediaTime(seconds: 600))

    static func state(_ outputs: [GroupHub.Output]) -> GroupState? {
        for output in outputs.reversed() {
            if case .broadcast(.state(let state)) = output { return state }
        }
        return nil
    }

    static func hub(_ policy: GroupPolicy = GroupPolicy(), participants: [String] = ["alice", "bob"]) -> GroupHub {
        var hub = GroupHub(policy: policy, now: Self.at(0))
        for id in participants { _ = hub.join(participantID: id, description: Self.vod, at: Self.at(0)) }
        return hub
    }

    @Test func joiningIsWelcomedAndAnnounced() {
        var hub = GroupHub(policy: .waitsForInterstitials, now: Self.at(0))
        let outputs = hub.join(participantID: "alice", description: Self.vod, at: Self.at(5))
        guard case .reply(.welcome(let id, let policy, let state, _)) = outputs.first else {
            Issue.record("no welcome: \(outputs)")
            return
        }
        #expect(id == "alice")
        #expect(policy == .waitsForInterstitials)
        #expect(state.participants == ["alice"])
        #expect(Self.state(outputs)?.participants == ["alice"])
    }

    /// A live group starts, paused, at its first participant's program date; later joiners and a
    /// VOD group do not move it.
    @Test func aLiveGroupStartsWhereItsFirstParticipantJoinedTheStream() {
        let edge = Self.s(1_798_761_600)  // 2027-01-01T00:00:00Z as a program date
        var hub = GroupHub(policy: GroupPolicy(), now: Self.at(0))
        let first = ParticipantDescription(isLive: true, startTime: edge)
        let state = Self.state(hub.join(participantID: "alice", description: first, at: Self.at(10)))
        #expect(state?.timebase.time == edge && state?.timebase.rate == 0)
        #expect(state?.timebase.revision == 1)
        let later = ParticipantDescription(isLive: true, startTime: edge + Self.s(30))
        #expect(Self.state(hub.join(participantID: "bob", description: later, at: Self.at(20)))?.timebase.time == edge)
        let played = Self.state(hub.handle(.command(.play(rate: 1)), from: "bob", at: Self.at(1_000)))
        #expect(played?.timebase.time == edge && played?.timebase.rate == 1)
        // VOD: time 0, whatever a description says.
        var vod = GroupHub(policy: GroupPolicy(), now: Self.at(0))
        let odd = ParticipantDescription(isLive: false, itemDuration: Self.s(600), startTime: Self.s(42))
        #expect(Self.state(vod.join(participantID: "alice", description: odd, at: Self.at(0)))?.timebase.time == .zero)
    }

    /// Hostile start times from a hello: a negative one starts the group at 0; the largest one is
    /// kept and the group's clock saturates there instead of trapping.
    @Test func hostileLiveStartTimesNeitherTrapNorGoNegative() {
        for (start, expected) in [
            (MediaTime(nanoseconds: -1), MediaTime.zero), (MediaTime(nanoseconds: .min), .zero),
            (MediaTime(nanoseconds: .max), MediaTime(nanoseconds: .max)),
        ] {
            var hub = GroupHub(policy: GroupPolicy(), now: Self.at(0))
            let live = ParticipantDescription(isLive: true, startTime: start)
            #expect(
                Self.state(hub.join(participantID: "a", description: live, at: Self.at(0)))?.timebase.time == expected
            )
            let playing = Self.state(hub.handle(.command(.play(rate: 8)), from: "a", at: Self.at(1)))
            #expect(playing?.timebase.time(at: ClockInstant(nanoseconds: .max)) ?? .zero >= expected)
        }
    }

    @Test func incompatibleParticipantsAreRefusedWithTheReason() {
        var hub = Self.hub(participants: ["alice"])
        let other = ParticipantDescription(isLive: false, itemDuration: Self.s(900))
        let outputs = hub.join(participantID: "carol", description: other, at: Self.at(1))
        guard case .reply(.refused(let reasons)) = outputs.first, outputs.count == 1 else {
            Issue.record("not refused: \(outputs)")
            return
        }
        #expect(reasons.count == 1)
        #expect(reasons[0].contains("content durations differ"))
        #expect(hub.state.participants == ["alice"])
    }

    @Test func hostileIdentifiersAndFullGroupsAreRefused() {
        var hub = Self.hub(participants: [])
        for id in ["", String(repeating: "x", count: 100_000), "a\u{0}b", "tab\there"] {
            let outputs = hub.join(participantID: id, description: Self.vod, at: Self.at(0))
            guard case .reply(.refused) = outputs.first else {
                Issue.record("accepted \(id.prefix(20).debugDescription)")
                continue
            }
        }
        for i in 0..<GroupHub.maximumParticipants {
            let arrival = GroupHub.Arrival(address: "10.0.\(i).1", connection: UInt64(i + 1), newSecret: "s\(i)")
            _ = hub.join(participantID: "p\(i)", description: Self.vod, arrival: arrival, at: Self.at(0))
        }
        guard
            case .reply(.refused(let reasons)) = hub.join(participantID: "late", description: Self.vod, at: Self.at(0))
                .first
        else {
            Issue.record("a full group admitted one more")
            return
        }
        #expect(reasons.first?.contains("full") == true)
        // Coming back under an admitted ID (with its secret) is not one more.
        let back = hub.join(participantID: "p0", description: Self.vod, secret: "s0", at: Self.at(0))
        guard case .reply(.welcome) = back.first else {
            Issue.record("a rejoin was refused")
            return
        }
    }

    @Test func playStartsEveryoneAtOneInstantAfterTheLead() {
        var hub = Self.hub()
        let state = Self.state(hub.handle(.command(.play(rate: 1)), from: "bob", at: Self.at(1_000)))
        #expect(state?.timebase.revision == 1)
        #expect(state?.timebase.anchor == Self.at(1_250))
        #expect(state?.timebase.time == .zero)
        #expect(state?.timebase.rate == 1)
        #expect(state?.timebase.time(at: Self.at(3_250)) == Self.s(2))
        #expect(state?.timebase.time(at: Self.at(1_100)) == .zero)  // before the anchor: holding
    }

    @Test func pauseStopsAtOnceAndSeekKeepsTheRate() {
        var hub = Self.hub()
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        let paused = Self.state(hub.handle(.command(.pause), from: "bob", at: Self.at(10_250)))
        #expect(paused?.timebase.time == Self.s(10))
        #expect(paused?.timebase.rate == 0)
        let seeked = Self.state(hub.handle(.command(.seek(to: Self.s(100))), from: "alice", at: Self.at(11_000)))
        #expect(seeked?.timebase.time == Self.s(100))
        #expect(seeked?.timebase.rate == 0)  // still paused
        _ = hub.handle(.command(.play(rate: 2)), from: "alice", at: Self.at(12_000))
        let moving = Self.state(hub.handle(.command(.seek(to: Self.s(50))), from: "bob", at: Self.at(13_000)))
        #expect(moving?.timebase.rate == 2)
        #expect(moving?.timebase.anchor == Self.at(13_250))
        #expect(moving?.timebase.revision == 5)
    }

    @Test func hostileCommandsAreAnsweredWithAnError() {
        var hub = Self.hub()
        for command in [
            GroupCommand.play(rate: .nan), .play(rate: 1e308), .play(rate: -1), .play(rate: .infinity),
            .seek(to: Self.s(-1)),
        ] {
            let outputs = hub.handle(.command(command), from: "alice", at: Self.at(0))
            guard case .reply(.error(let code, _)) = outputs.first, outputs.count == 1 else {
                Issue.record("accepted \(command)")
                continue
            }
            #expect(code == "bad-command")
        }
        #expect(hub.state.timebase.revision == 0)
        guard case .reply(.error(let code, _)) = hub.handle(.command(.pause), from: "mallory", at: Self.at(0)).first
        else {
            Issue.record("a stranger's command was taken")
            return
        }
        #expect(code == "not-joined")
        guard
            case .reply(.error(let unexpected, _)) = hub.handle(.state(hub.state), from: "alice", at: Self.at(0)).first
        else {
            Issue.record("a hub message was taken from a participant")
            return
        }
        #expect(unexpected == "unexpected-message")
    }

    @Test func byDefaultTheGroupDoesNotWaitForAnAd() {
        var hub = Self.hub()
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        let state = Self.state(
            hub.handle(
                .suspend(reason: .playingInterstitial, time: Self.s(30), expectedDuration: Self.s(15)),
                from: "bob",
                at: Self.at(30_250)
            )
        )
        #expect(state?.timebase.rate == 1)
        #expect(state?.waitingFor.isEmpty == true)
        #expect(state?.suspensions["bob"]?.expectedEnd == Self.at(45_250))
    }

    @Test func withTheWaitingPolicyTheGroupHoldsUntilTheLastAdEnds() {
        var hub = Self.hub(.waitsForInterstitials, participants: ["alice", "bob", "carol"])
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        // Bob's 20 s ad starts at 30 s (he reports 29.9 s: the group freezes there).
        let frozen = Self.state(
            hub.handle(
                .suspend(reason: .playingInterstitial, time: Self.s(29.9), expectedDuration: Self.s(20)),
                from: "bob",
                at: Self.at(30_250)
            )
        )
        #expect(frozen?.timebase.rate == 0)
        #expect(frozen?.timebase.time == Self.s(29.9))
        #expect(frozen?.intendedRate == 1)
        #expect(frozen?.expectedWaitEnd == Self.at(50_250))
        // Carol's 30 s ad starts a moment later: the wait now lasts until hers ends.
        let longer = Self.state(
            hub.handle(
                .suspend(reason: .playingInterstitial, time: Self.s(29.9), expectedDuration: Self.s(30)),
                from: "carol",
                at: Self.at(30_300)
            )
        )
        #expect(longer?.expectedWaitEnd == Self.at(60_300))
        #expect(longer?.timebase.revision == frozen?.timebase.revision)  // no new course
        // Bob is back; the group still waits for Carol.
        let bobBack = Self.state(hub.handle(.resume(time: Self.s(29.9)), from: "bob", at: Self.at(50_250)))
        #expect(bobBack?.waitingFor.keys.sorted() == ["carol"])
        #expect(bobBack?.timebase.rate == 0)
        // Carol is back: everyone goes on from 29.9 s after the lead.
        let resumed = Self.state(hub.handle(.resume(time: Self.s(29.9)), from: "carol", at: Self.at(60_300)))
        #expect(resumed?.waitingFor.isEmpty == true)
        #expect(resumed?.timebase.time == Self.s(29.9))
        #expect(resumed?.timebase.anchor == Self.at(60_550))
        #expect(resumed?.timebase.rate == 1)
    }

    @Test func aSuspenderFarFromTheGroupDoesNotMoveIt() {
        var hub = Self.hub(.waitsForInterstitials)
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        let state = Self.state(
            hub.handle(
                .suspend(reason: .playingInterstitial, time: Self.s(500), expectedDuration: nil),
                from: "bob",
                at: Self.at(10_250)
            )
        )
        #expect(state?.timebase.time == Self.s(10))
        #expect(state?.expectedWaitEnd == nil)
    }

    @Test func aLeavingParticipantEndsTheWaitForIt() {
        var hub = Self.hub(.waitsForInterstitials)
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        _ = hub.handle(
            .suspend(reason: .playingInterstitial, time: Self.s(10), expectedDuration: Self.s(30)),
            from: "bob",
            at: Self.at(10_250)
        )
        let state = Self.state(hub.leave(participantID: "bob", at: Self.at(12_000)))
        #expect(state?.participants == ["alice"])
        #expect(state?.waitingFor.isEmpty == true)
        #expect(state?.timebase.rate == 1)
        #expect(state?.timebase.anchor == Self.at(12_250))
        #expect(hub.leave(participantID: "bob", at: Self.at(12_000)).isEmpty)
    }

    @Test func commandsDuringAWaitSetTheCourseForAfterIt() {
        var hub = Self.hub(.waitsForInterstitials)
        _ = hub.handle(.command(.play(rate: 1)), from: "alice", at: Self.at(0))
        _ = hub.handle(
            .suspend(reason: .playingInterstitial, time: Self.s(10), expectedDuration: Self.s(30)),
            from: "bob",
            at: Self.at(10_250)
        )
        _ = hub.handle(.command(.play(rate: 2)), from: "alice", at: Self.at(11_000))
        #expect(hub.state.timebase.rate == 0)
        let after = Self.state(hub.handle(.resume(time: Self.s(10)), from: "bob", at: Self.at(40_000)))
        #expect(after?.timebase.rate == 2)
    }

    @Test func pingsAreAnswered() {
        var hub = Self.hub()
        let outputs = hub.handle(.ping(sent: ClockInstant(nanoseconds: 42)), from: "alice", at: Self.at(7))
        #expect(
            outputs == [
                .reply(.pong(sent: ClockInstant(nanoseconds: 42), hubReceived: Self.at(7), hubSent: Self.at(7)))
            ]
        )
    }
}
