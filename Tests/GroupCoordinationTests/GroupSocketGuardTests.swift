import GroupCoordination
import HLSPlaylist
import Testing

/// The hub's and the sockets' decisions about who may join and how much they may send, without
/// sockets: secrets, joins per address, the message rate and bounded fields.
@Suite struct GroupSocketGuardTests {
    static func at(_ milliseconds: Int64) -> ClockInstant { ClockInstant(milliseconds: milliseconds) }
    static let vod = GroupHubTests.vod

    /// The secret of a `welcome` among a hub's outputs.
    static func secret(_ outputs: [GroupHub.Output]) -> String? {
        guard case .reply(.welcome(_, _, _, let secret)) = outputs.first else { return nil }
        return secret
    }

    /// Whether the outputs are a refusal.
    static func refused(_ outputs: [GroupHub.Output]) -> [String]? {
        guard case .reply(.refused(let reasons)) = outputs.first, outputs.count == 1 else { return nil }
        return reasons
    }

    @Test func aConnectedIDIsGivenBackOnlyForItsSecret() throws {
        var hub = GroupHub(policy: GroupPolicy(), now: Self.at(0))
        let alice = GroupHub.Arrival(address: "10.0.0.1", connection: 1, newSecret: "s-alice")
        let welcome = hub.join(participantID: "alice", description: Self.vod, arrival: alice, at: Self.at(0))
        #expect(Self.secret(welcome) == "s-alice")

        // An impostor with the ID, without the secret or with a wrong one, is refused.
        let impostor = GroupHub.Arrival(address: "10.0.0.2", connection: 2, newSecret: "s-impostor")
        for secret in [nil, "", "s-alic", "s-alicf", "s-alice-"] as [String?] {
            let outputs = hub.join(
                participantID: "alice",
                description: Self.vod,
                secret: secret,
                arrival: impostor,
                at: Self.at(1)
            )
            let reasons = try #require(Self.refused(outputs), "\(String(describing: secret))")
            #expect(reasons.contains { $0.contains("in use") })
        }
        #expect(hub.connection(of: "alice") == 1)

        // Alice, back on a new connection with her secret, keeps her secret and her place.
        let back = GroupHub.Arrival(address: "10.0.0.1", connection: 3, newSecret: "unused")
        let again = hub.join(
            participantID: "alice",
            description: Self.vod,
            secret: "s-alice",
            arrival: back,
            at: Self.at(2)
        )
        #expect(Self.secret(again) == "s-alice")
        #expect(hub.connection(of: "alice") == 3)
        // The old connection's leave does not take her out; the new one's does.
        #expect(hub.leave(participantID: "alice", connection: 1, at: Self.at(3)).isEmpty)
        #expect(hub.state.participants == ["alice"])
        #expect(!hub.leave(participantID: "alice", connection: 3, at: Self.at(4)).isEmpty)
        #expect(hub.isEmpty)
    }

    /// A participant keeps the secret of its welcome and presents it in its next `hello` (a
    /// reconnect), which the hub takes while the group still holds its ID.
    @Test func aParticipantPresentsItsSecretWhenItSaysHelloAgain() throws {
        var participant = ParticipantCoordination(participantID: "alice", timeline: CoordinatedTimeline())
        let first = participant.hello(description: Self.vod, policy: GroupPolicy())
        #expect(first == [.send(.hello(participantID: "alice", description: Self.vod, policy: GroupPolicy()))])
        var hub = GroupHub(policy: GroupPolicy(), now: Self.at(0))
        let arrival = GroupHub.Arrival(address: "10.0.0.1", connection: 1, newSecret: "s-alice")
        let welcome = try #require(
            hub.join(participantID: "alice", description: Self.vod, arrival: arrival, at: Self.at(0)).first
        )
        guard case .reply(let message) = welcome else {
            Issue.record("no welcome: \(welcome)")
            return
        }
        _ = participant.receive(message, at: Self.at(1), position: .primary(.zero))
        #expect(participant.secret == "s-alice")
        let again = participant.hello(description: Self.vod, policy: GroupPolicy())
        guard case .send(.hello(_, _, _, let secret)) = again.first else {
            Issue.record("no hello: \(again)")
            return
        }
        let back = GroupHub.Arrival(address: "10.0.0.1", connection: 2, newSecret: "unused")
        #expect(
            Self.secret(
                hub.join(participantID: "alice", description: Self.vod, secret: secret, arrival: back, at: Self.at(2))
            ) == "s-alice"
        )
    }

    @Test func oneAddressCannotFillAGroup() throws {
        var hub = GroupHub(policy: GroupPolicy(), now: Self.at(0))
        hub.joinsPerAddress = 3
        for k in 0..<3 {
            let arrival = GroupHub.Arrival(address: "10.0.0.9", connection: UInt64(k + 1), newSecret: "s\(k)")
            #expect(
                Self.secret(hub.join(participantID: "p\(k)", description: Self.vod, arrival: arrival, at: Self.at(0)))
                    != nil
            )
        }
        let fourth = GroupHub.Arrival(address: "10.0.0.9", connection: 9, newSecret: "s9")
        let reasons = try #require(
            Self.refused(hub.join(participantID: "p9", description: Self.vod, arrival: fourth, at: Self.at(1)))
        )
        #expect(reasons == ["the group has 3 participants from this address already"])
        // Another address still gets in, and a place freed on the first is taken again.
        let other = GroupHub.Arrival(address: "10.0.0.8", connection: 10, newSecret: "s10")
        #expect(Self.secret(hub.join(participantID: "q", description: Self.vod, arrival: other, at: Self.at(1))) != nil)
        _ = hub.leave(participantID: "p0", at: Self.at(2))
        #expect(
            Self.secret(hub.join(participantID: "p9", description: Self.vod, arrival: fourth, at: Self.at(3))) != nil
        )
    }

    @Test func messagesOverTheRateAreRefusedThenTheSocketIsClosed() {
        let limits = GroupSocketGuard.Limits(
            helloTimeout: MediaTime(seconds: 5),
            messagesPerSecond: 10,
            burst: 5,
            refusalsBeforeClosing: 3
        )
        var guarded = GroupSocketGuard(limits: limits, opened: Self.at(0))
        #expect(guarded.helloDeadline == Self.at(5_000))
        // A burst of 5 is taken at once, the 6th refused.
        for _ in 0..<5 { #expect(guarded.message(at: Self.at(0)) == .take) }
        guard case .refuse(.error(let code, _)) = guarded.message(at: Self.at(0)) else {
            Issue.record("not refused")
            return
        }
        #expect(code == "rate-limited")
        // 100 ms later one more token: taken, and the refusals in a row start again.
        #expect(guarded.message(at: Self.at(100)) == .take)
        #expect(guarded.message(at: Self.at(100)) != .take)
        #expect(guarded.message(at: Self.at(100)) != .take)
        #expect(guarded.message(at: Self.at(100)) == .close(reason: "too many messages"))
        // Time never refills more than the burst.
        var rested = GroupSocketGuard(limits: limits, opened: Self.at(0))
        let verdicts = (0..<7).map { _ in rested.message(at: Self.at(3_600_000)) }
        #expect(verdicts.filter { $0 == .take }.count == 5)
    }

    @Test func freeTextFieldsAreBounded() {
        let long = String(repeating: "x", count: GroupMessage.maximumTextBytes + 1)
        let fine = String(repeating: "x", count: GroupMessage.maximumTextBytes)
        #expect(
            GroupMessage.suspend(reason: SuspensionReason(rawValue: fine), time: .zero, expectedDuration: nil)
                .fieldProblem == nil
        )
        #expect(
            GroupMessage.suspend(reason: SuspensionReason(rawValue: long), time: .zero, expectedDuration: nil)
                .fieldProblem
                == "reason is longer than 128 bytes"
        )
        let ranges = (0...GroupMessage.maximumListEntries).map {
            NonPrimaryTimeRange(
                identifier: "r\($0)",
                start: MediaTime(seconds: Double($0)),
                duration: MediaTime(seconds: 1)
            )
        }
        let problems = [
            GroupMessage.hello(participantID: long, description: Self.vod, policy: GroupPolicy()),
            .hello(participantID: "a", description: Self.vod, policy: GroupPolicy(), secret: long),
            .hello(
                participantID: "a",
                description: ParticipantDescription(
                    isLive: false,
                    nonPrimaryRanges: [
                        NonPrimaryTimeRange(identifier: long, start: .zero, duration: MediaTime(seconds: 1))
                    ]
                ),
                policy: GroupPolicy()
            ),
            .hello(
                participantID: "a",
                description: ParticipantDescription(isLive: false, nonPrimaryRanges: ranges),
                policy: GroupPolicy()
            ),
            .hello(
                participantID: "a",
                description: Self.vod,
                policy: GroupPolicy(suspensionReasonsThatTriggerWaiting: [SuspensionReason(rawValue: long)])
            ),
        ].map(\.fieldProblem)
        #expect(
            problems == [
                "participantID is longer than 128 bytes", "secret is longer than 128 bytes",
                "description.nonPrimaryRanges[].identifier is longer than 128 bytes",
                "description.nonPrimaryRanges has more than 256 entries",
                "policy.suspensionReasonsThatTriggerWaiting[] is longer than 128 bytes",
            ]
        )
        #expect(
            GroupMessage.hello(participantID: fine, description: Self.vod, policy: .waitsForInterstitials, secret: fine)
                .fieldProblem == nil
        )
    }
}
