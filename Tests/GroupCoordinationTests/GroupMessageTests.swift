import Foundation
import GroupCoordination
import HLSPlaylist
import Testing

@Suite struct GroupMessageTests {
    static let state = GroupState(
        timebase: GroupTimebase(
            revision: 3,
            time: MediaTime(seconds: 12.5),
            anchor: ClockInstant(nanoseconds: 9),
            rate: 1
        ),
        intendedRate: 1,
        waitingFor: [
            "bob": Suspension(
                reason: .playingInterstitial,
                coordinatedTime: MediaTime(seconds: 12),
                expectedEnd: ClockInstant(nanoseconds: 20)
            )
        ],
        participants: ["alice", "bob"]
    )

    static let every: [GroupMessage] = [
        .hello(
            participantID: "alice",
            description: ParticipantDescription(
                isLive: false,
                itemDuration: MediaTime(seconds: 60),
                nonPrimaryRanges: [NonPrimaryTimeRange(identifier: "ad", start: .zero, duration: MediaTime(seconds: 5))]
            ),
            policy: .waitsForInterstitials
        ),
        .ping(sent: ClockInstant(nanoseconds: .max)),
        .command(.play(rate: 1.5)),
        .command(.pause),
        .command(.seek(to: MediaTime(seconds: 30))),
        .suspend(reason: .playingInterstitial, time: MediaTime(seconds: 3), expectedDuration: nil),
        .suspend(reason: SuspensionReason(rawValue: "custom"), time: .zero, expectedDuration: MediaTime(seconds: 15)),
        .resume(time: MediaTime(seconds: 3)),
        .welcome(participantID: "alice", policy: GroupPolicy(), state: state),
        .refused(reasons: ["a", "b"]),
        .pong(
            sent: ClockInstant(nanoseconds: 1),
            hubReceived: ClockInstant(nanoseconds: .min),
            hubSent: ClockInstant(nanoseconds: 3)
        ),
        .state(state),
        .error(code: "bad-command", message: "rate"),
    ]

    @Test(arguments: every)
    func everyMessageRoundTrips(_ message: GroupMessage) throws {
        let data = try JSONEncoder().encode(message)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["type"] as? String == message.type)
        #expect(try JSONDecoder().decode(GroupMessage.self, from: data) == message)
    }

    @Test func aPlayWithoutARateMeansOne() throws {
        let message = try JSONDecoder().decode(
            GroupMessage.self,
            from: Data(#"{"type":"command","command":"play"}"#.utf8)
        )
        #expect(message == .command(.play(rate: 1)))
    }

    @Test func hostileMessagesFailToDecode() {
        let hostile = [
            #"{"type":"launch"}"#,
            #"{"command":"play"}"#,
            #"{"type":"command","command":"rewind"}"#,
            #"{"type":"command","command":"seek","time":{"nanoseconds":1e308}}"#,
            #"{"type":"command","command":"seek","time":{"nanoseconds":9223372036854775808}}"#,
            #"{"type":"ping","sent":"now"}"#,
            #"{"type":"ping","sent":-9223372036854775809}"#,
            #"{"type":"hello","participantID":"a"}"#,
            "{\"type\":\"\u{0}\"}",
            #"{"type":""# + String(repeating: "x", count: 100_000) + #""}"#,
            "[]",
            "",
        ]
        for text in hostile {
            #expect(throws: (any Error).self, "\(text.prefix(60))") {
                try JSONDecoder().decode(GroupMessage.self, from: Data(text.utf8))
            }
        }
    }

    @Test func anUnknownTypeIsNamedButCutShort() {
        let long = String(repeating: "y", count: 100_000)
        do {
            _ = try JSONDecoder().decode(GroupMessage.self, from: Data(#"{"type":"\#(long)"}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(String(describing: error).count < 2_000)
        }
    }
}
