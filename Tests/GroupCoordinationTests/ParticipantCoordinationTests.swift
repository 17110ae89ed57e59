import GroupCoordination
import HLSPlaylist
import Testing

/// Three participants and a hub, as value types, on one true clock.
///
/// Each participant's clock is
/// skewed from the hub's and messages take a fixed time each way, so the tests check that the
/// decision logic turns one group command into the same true instant everywhere.
struct GroupRig {
    struct Member {
        var coordination: ParticipantCoordination
        /// The participant's clock minus the hub's, in milliseconds.
        var skew: Int64
        var position: ItemPosition = .primary(.zero)
        var actions: [ParticipantCoordination.Action] = []
    }

    var hub: GroupHub
    var members: [String: Member] = [:]
    /// One-way network time, in milliseconds.
    var latency: Int64 = 4
    /// True (hub) time, in milliseconds.
    var now: Int64 = 0

    init(policy: GroupPolicy) {
        self.hub = GroupHub(policy: policy, now: ClockInstant(milliseconds: 0))
    }

    func local(_ id: String, _ trueMilliseconds: Int64) -> ClockInstant {
        ClockInstant(milliseconds: trueMilliseconds + self.members[id]!.skew)
    }

    mutating func add(
        _ id: String,
        skew: Int64,
        timeline: CoordinatedTimeline = .identity,
        description: ParticipantDescription
    ) {
        self.members[id] = Member(
            coordination: ParticipantCoordination(participantID: id, timeline: timeline),
            skew: skew
        )
        // Four clock probes, then the hello.
        for _ in 0..<4 {
            let sent = self.local(id, self.now)
            let pong = self.hub.pong(
                sent: sent,
                received: ClockInstant(milliseconds: self.now + self.latency),
                answered: ClockInstant(milliseconds: self.now + self.latency)
            )
            self.receive(id, pong, at: self.now + 2 * self.latency)
            self.now += 100
        }
        self.deliver(
            self.hub.join(participantID: id, description: description, at: ClockInstant(milliseconds: self.now)),
            from: id
        )
    }

    mutating func receive(_ id: String, _ message: GroupMessage, at trueTime: Int64) {
        let member = self.members[id]!
        var coordination = member.coordination
        let actions = coordination.receive(message, at: self.local(id, trueTime), position: member.position)
        self.members[id]!.coordination = coordination
        self.members[id]!.actions += actions
        self.perform(id, actions)
    }

    /// Applies seeks to the member's position (a seek is instant here).
    mutating func perform(_ id: String, _ actions: [ParticipantCoordination.Action]) {
        for action in actions {
            if case .seek(let position) = action { self.members[id]!.position = position }
        }
    }

    mutating func deliver(_ outputs: [GroupHub.Output], from sender: String) {
        for output in outputs {
            switch output {
            case .reply(let message): self.receive(sender, message, at: self.now + self.latency)
            case .broadcast(let message):
                for id in self.members.keys.sorted() { self.receive(id, message, at: self.now + self.latency) }
            }
        }
    }

    /// A member's sent messages go to the hub (arriving after the latency).
    mutating func send(_ id: String, _ actions: [ParticipantCoordination.Action]) {
        self.members[id]!.actions += actions
        self.perform(id, actions)
        for action in actions {
            guard case .send(let message) = action else { continue }
            self.now += self.latency
            self.deliver(self.hub.handle(message, from: id, at: ClockInstant(milliseconds: self.now)), from: id)
        }
    }

    /// Takes and clears a member's actions.
    mutating func take(_ id: String) -> [ParticipantCoordination.Action] {
        defer { self.members[id]!.actions = [] }
        return self.members[id]!.actions
    }

    /// The true instant (hub milliseconds) of the member's last `play(at:)`.
    func lastPlayInstant(_ id: String) -> Int64? {
        for action in self.members[id]!.actions.reversed() {
            if case .play(_, let at) = action { return at.nanoseconds / 1_000_000 - self.members[id]!.skew }
        }
        return nil
    }
}

@Suite struct ParticipantCoordinationTests {
    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }
    static let vod = ParticipantDescription(isLive: false, itemDuration: MediaTime(seconds: 600))

    @Test func onePlayStartsEveryParticipantAtTheSameTrueInstant() {
        var rig = GroupRig(policy: GroupPolicy())
        rig.add("alice", skew: 3_600_000, description: Self.vod)
        rig.add("bob", skew: -17_123, description: Self.vod)
        rig.add("carol", skew: 5, description: Self.vod)
        for id in ["alice", "bob", "carol"] { _ = rig.take(id) }
        rig.send("bob", rig.members["bob"]!.coordination.request(.play(rate: 1)))
        let starts = ["alice", "bob", "carol"].map { rig.lastPlayInstant($0) }
        #expect(starts.allSatisfy { $0 != nil })
        // The hub read the command at rig.now and set the anchor 250 ms later.
        #expect(Set(starts.compactMap { $0 }) == [rig.now + 250])
        #expect(rig.members["alice"]!.coordination.status == .playing(rate: 1))
    }

    @Test func aSeekIntoAStitchedAdMovesTheGroupToItsStart() {
        var rig = GroupRig(policy: GroupPolicy())
        // Alice has a 20 s stitched ad at 30 s; Bob has none.
        let alice = CoordinatedTimeline(nonPrimaryRanges: [
            NonPrimaryTimeRange(identifier: "ad", start: Self.s(30), duration: Self.s(20))
        ])
        rig.add(
            "alice",
            skew: 40,
            timeline: alice,
            description: ParticipantDescription(
                isLive: false,
                itemDuration: Self.s(620),
                nonPrimaryRanges: alice.nonPrimaryRanges
            )
        )
        rig.add("bob", skew: -90, description: ParticipantDescription(isLive: false, itemDuration: Self.s(600)))
        rig.send("alice", rig.members["alice"]!.coordination.requestSeek(toItemTime: Self.s(41)))
        #expect(rig.members["alice"]!.position == .primary(Self.s(30)))  // the start of her ad
        #expect(rig.members["bob"]!.position == .primary(Self.s(30)))  // the same group moment
        #expect(rig.hub.state.timebase.time == Self.s(30))
    }

    @Test func byDefaultAParticipantLeavingItsAdCatchesUp() {
        var rig = GroupRig(policy: GroupPolicy())
        rig.add("alice", skew: 0, description: Self.vod)
        rig.add("bob", skew: 250, description: Self.vod)
        rig.send("alice", [.send(.command(.play(rate: 1)))])
        let start = rig.now + 250
        // At group time 30 s Bob starts a 20 s interstitial (its own ad).
        rig.now = start + 30_000
        rig.members["bob"]!.position = .primary(Self.s(30))
        var bob = rig.members["bob"]!.coordination
        let suspend = bob.beginInterstitial(
            at: rig.local("bob", rig.now),
            position: .primary(Self.s(30)),
            expectedDuration: Self.s(20)
        )
        rig.members["bob"]!.coordination = bob
        rig.send("bob", suspend)
        #expect(rig.hub.state.timebase.rate == 1)  // nobody waits
        #expect(rig.members["bob"]!.coordination.status == .suspended(.playingInterstitial))
        #expect(rig.members["alice"]!.coordination.status == .playing(rate: 1))
        // 25 s later (a 20 s ad plus 5 s of slow start) Bob is back at primary 30 s (resume offset 0).
        rig.now = start + 55_000
        _ = rig.take("bob")
        bob = rig.members["bob"]!.coordination
        let back = bob.endInterstitial(at: rig.local("bob", rig.now), position: .primary(Self.s(30)))
        rig.members["bob"]!.coordination = bob
        rig.send("bob", back)
        // He skips what the group played meanwhile: 55 s of group time, give or take the clock error.
        guard case .primary(let time) = rig.members["bob"]!.position else {
            Issue.record("Bob is not in the primary")
            return
        }
        #expect((time - Self.s(55)).magnitude <= MediaTime(milliseconds: 20))
        #expect(rig.members["bob"]!.coordination.status == .playing(rate: 1))
    }

    @Test func withTheWaitingPolicyTheOthersWaitAndKnowForHowLong() {
        var rig = GroupRig(policy: .waitsForInterstitials)
        rig.add("alice", skew: 1_000, description: Self.vod)
        rig.add("bob", skew: 0, description: Self.vod)
        rig.add("carol", skew: -1_000, description: Self.vod)
        rig.send("alice", [.send(.command(.play(rate: 1)))])
        let start = rig.now + 250
        rig.now = start + 30_000
        for id in ["alice", "carol"] { rig.members[id]!.position = .primary(Self.s(30)) }
        var bob = rig.members["bob"]!.coordination
        let suspend = bob.beginInterstitial(
            at: rig.local("bob", rig.now),
            position: .primary(Self.s(30)),
            expectedDuration: Self.s(20)
        )
        rig.members["bob"]!.coordination = bob
        let suspendedAt = rig.now + rig.latency
        rig.send("bob", suspend)
        for id in ["alice", "carol"] {
            let status = rig.members[id]!.coordination.status
            guard case .waitingForCoordinatedPlayback(let ids, let until?) = status else {
                Issue.record("\(id) is \(status)")
                continue
            }
            #expect(ids == ["bob"])
            #expect(status.timeControlStatus == "waitingToPlayAtSpecifiedRate")
            // Until the end of Bob's ad, on this participant's own clock.
            #expect(until == rig.local(id, suspendedAt + 20_000))
            #expect(rig.members[id]!.actions.contains(.pause))
        }
        // Bob is back: all three start together at 30 s.
        rig.now = suspendedAt + 20_000
        for id in ["alice", "bob", "carol"] { _ = rig.take(id) }
        bob = rig.members["bob"]!.coordination
        let back = bob.endInterstitial(at: rig.local("bob", rig.now), position: .primary(Self.s(30)))
        rig.members["bob"]!.coordination = bob
        rig.send("bob", back)
        let starts = Set(["alice", "bob", "carol"].compactMap { rig.lastPlayInstant($0) })
        #expect(starts == [rig.now + 250])
        #expect(rig.hub.state.timebase.time == Self.s(30))
    }

    /// A pre-roll that begins before the hub's clock is known (before the first pong) is told to the
    /// group on welcome with what is left of it, dated on the participant's own clock: the others
    /// then know how long they will wait (the expected duration used to be dropped).
    @Test func aPreRollBegunBeforeTheHubClockIsKnownTellsTheGroupWhatIsLeft() {
        var dave = ParticipantCoordination(participantID: "dave", timeline: .identity)
        let begun = dave.beginInterstitial(
            at: ClockInstant(milliseconds: 1_000),
            position: .primary(.zero),
            expectedDuration: Self.s(10)
        )
        #expect(
            begun.contains(.send(.suspend(reason: .playingInterstitial, time: .zero, expectedDuration: Self.s(10))))
        )
        let state = GroupState(
            timebase: GroupTimebase(revision: 1, time: .zero, anchor: ClockInstant(milliseconds: 0), rate: 0),
            intendedRate: 0,
            participants: ["dave"]
        )
        // Admitted 3.5 s into the 10 s pre-roll: 6.5 s are left.
        let welcomed = dave.receive(
            .welcome(participantID: "dave", policy: .waitsForInterstitials, state: state),
            at: ClockInstant(milliseconds: 4_500),
            position: .primary(.zero)
        )
        #expect(
            welcomed.first == .send(.suspend(reason: .playingInterstitial, time: .zero, expectedDuration: Self.s(6.5))),
            "\(welcomed)"
        )
        // Admitted after the pre-roll should have ended: nothing left, not a negative wait.
        var late = ParticipantCoordination(participantID: "erin", timeline: .identity)
        _ = late.beginInterstitial(
            at: ClockInstant(milliseconds: 0),
            position: .primary(.zero),
            expectedDuration: Self.s(2)
        )
        let lateWelcome = late.receive(
            .welcome(participantID: "erin", policy: .waitsForInterstitials, state: state),
            at: ClockInstant(milliseconds: 5_000),
            position: .primary(.zero)
        )
        #expect(
            lateWelcome.first == .send(.suspend(reason: .playingInterstitial, time: .zero, expectedDuration: .zero))
        )
    }

    @Test func driftBeyondTheToleranceIsCorrected() {
        var rig = GroupRig(policy: GroupPolicy())
        rig.add("alice", skew: 0, description: Self.vod)
        rig.send("alice", [.send(.command(.play(rate: 1)))])
        let start = rig.now + 250
        var alice = rig.members["alice"]!.coordination
        let now = rig.local("alice", start + 10_000)
        #expect(alice.observe(position: .primary(Self.s(10.03)), at: now).isEmpty)  // within 50 ms
        let actions = alice.observe(position: .primary(Self.s(9.5)), at: now)
        #expect(actions == [.seek(.primary(Self.s(10)))])
    }

    @Test func enteringAndLeavingAStitchedRangeSuspendsAndResumes() {
        var rig = GroupRig(policy: .waitsForInterstitials)
        let timeline = CoordinatedTimeline(nonPrimaryRanges: [
            NonPrimaryTimeRange(identifier: "ad", start: Self.s(10), duration: Self.s(6))
        ])
        rig.add(
            "alice",
            skew: 0,
            timeline: timeline,
            description: ParticipantDescription(
                isLive: false,
                itemDuration: Self.s(606),
                nonPrimaryRanges: timeline.nonPrimaryRanges
            )
        )
        rig.add("bob", skew: 0, description: Self.vod)
        rig.send("alice", [.send(.command(.play(rate: 1)))])
        let start = rig.now + 250
        rig.now = start + 10_000
        var alice = rig.members["alice"]!.coordination
        let entering = alice.observe(position: .primary(Self.s(10)), at: rig.local("alice", rig.now))
        rig.members["alice"]!.coordination = alice
        #expect(
            entering.contains(
                .send(.suspend(reason: .playingInterstitial, time: Self.s(10), expectedDuration: Self.s(6)))
            )
        )
        rig.send("alice", entering)
        #expect(rig.hub.state.waitingFor.keys.sorted() == ["alice"])
        rig.now += 6_000
        alice = rig.members["alice"]!.coordination
        let leaving = alice.observe(position: .primary(Self.s(16)), at: rig.local("alice", rig.now))
        rig.members["alice"]!.coordination = alice
        #expect(leaving.first == .send(.resume(time: Self.s(10))))
        rig.send("alice", leaving)
        #expect(rig.hub.state.waitingFor.isEmpty)
        #expect(rig.hub.state.timebase.rate == 1)
    }

    @Test func staleStatesAreIgnored() {
        var rig = GroupRig(policy: GroupPolicy())
        rig.add("alice", skew: 0, description: Self.vod)
        rig.send("alice", [.send(.command(.play(rate: 1)))])
        var alice = rig.members["alice"]!.coordination
        let old = GroupState(
            timebase: GroupTimebase(revision: 0, time: Self.s(99), anchor: ClockInstant(milliseconds: 0), rate: 0),
            intendedRate: 0
        )
        #expect(alice.receive(.state(old), at: rig.local("alice", rig.now), position: .primary(.zero)).isEmpty)
        #expect(alice.groupState?.timebase.revision == 1)
    }

    @Test func refusalIsReported() {
        var alice = ParticipantCoordination(participantID: "alice", timeline: .identity)
        let actions = alice.receive(
            .refused(reasons: ["no"]),
            at: ClockInstant(nanoseconds: 0),
            position: .primary(.zero)
        )
        #expect(actions == [.status(.refused(["no"]))])
        #expect(alice.status.timeControlStatus == "paused")
    }
}
