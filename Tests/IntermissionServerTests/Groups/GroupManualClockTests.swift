import Foundation
import GroupCoordination
import GroupPlayback
import HLSPlaylist
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import InterstitialPlayback
import Testing

/// The group code waits on the clock it is given, not on the machine's: a test advances a
/// ``ManualClock`` past a probe interval, a hello deadline or a long poll's timeout instead of
/// sleeping until it, and each of these tests takes well under a second of real time.
@Suite(.realTime) struct GroupManualClockTests {
    /// The server of `GroupOverLoopbackTests` with its group hub on `clock`.
    static func configuration(media: GroupOverLoopbackTests.Media, clock: ManualClock) -> ServerConfiguration {
        var configuration = GroupOverLoopbackTests.configuration(media: media)
        configuration.timerClock = clock
        // The decision pruner pauses on this clock too: a day, past every instant these tests wait
        // for, so that its sleep is never taken for the one a test means.
        configuration.retention.interval = .seconds(86_400)
        return configuration
    }

    /// Waits (at most 30 s) until something sleeps on `clock` until `instant`: the component under
    /// test has reached the wait the test means to end; fails the test otherwise.
    static func sleeper(on clock: ManualClock, until instant: Duration) async throws {
        let deadline = ManualClock.Instant(offset: instant)
        try #require(
            await waitUntil { clock.deadlines.contains(deadline) },
            "nothing slept until \(instant); sleeping until \(clock.deadlines)"
        )
    }

    /// A participant probes the hub on its own clock: four quick probes 25 ms apart, then one each
    /// probe interval, at exactly the instants of the clock it was given.
    @Test(.timeLimit(.minutes(1)))
    func aCoordinatorProbesTheHubOnTheClockItIsGiven() async throws {
        let media = try GroupOverLoopbackTests.Media()
        defer { media.remove() }
        try media.segments("p", count: 10)
        try media.vod("show.m3u8", seconds: 10)
        // The hub on the same clock: its answers take no time on it, so every probe is consistent.
        let clock = ManualClock()
        let app = try await buildApplication(configuration: Self.configuration(media: media, clock: clock))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let player = Player(item: PlayerItem(url: "http://127.0.0.1:\(port)/media/group/show.m3u8"))
            let coordinator = PlaybackCoordinator(
                player: player,
                groupURL: "ws://127.0.0.1:\(port)/v1/groups/manual",
                configuration: .init(
                    participantID: "alice",
                    observationInterval: .seconds(7),
                    probeInterval: .seconds(2)
                ),
                clock: clock
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await player.run(until: MediaTime(seconds: 30)) }
                // The playlist first: the coordinator would otherwise wait for it on the manual clock.
                try #require(await waitUntil { await player.primaryMediaPlaylist != nil }, "no playlist")
                group.addTask { try await coordinator.run() }
                for step in 1...4 {
                    try await Self.sleeper(on: clock, until: .milliseconds(25 * step))
                    clock.advance(to: ManualClock.Instant(offset: .milliseconds(25 * step)))
                }
                try await GroupOverLoopbackTests.joined(coordinator)
                // The next probe waits for the probe interval, on this clock.
                try await Self.sleeper(on: clock, until: .milliseconds(2100))
                #expect(await coordinator.clock.samples.count == 4)
                clock.advance(to: ManualClock.Instant(offset: .milliseconds(2100)))
                try #require(await waitUntil { await coordinator.clock.samples.count == 5 }, "no fifth probe")
                let sent = await coordinator.clock.samples.map(\.sent)
                #expect(sent == [0, 25, 50, 75, 2100].map { ClockInstant(milliseconds: $0) }, "\(sent)")
                group.cancelAll()
            }
        }
    }

    /// A group socket that never says hello is closed when the server's group clock passes the hello
    /// deadline, however little real time went by.
    @Test(.timeLimit(.minutes(1)))
    func theHelloDeadlineIsMeasuredOnTheServersGroupClock() async throws {
        let media = try GroupOverLoopbackTests.Media()
        defer { media.remove() }
        let clock = ManualClock()
        var configuration = Self.configuration(media: media, clock: clock)
        configuration.groupLimits.helloTimeout = .seconds(60)
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let started = ContinuousClock.now
            async let socket = RawGroupSocket.readUntilClosed(
                port: port,
                group: "silent",
                sending: [],
                within: .seconds(30)
            )
            try await Self.sleeper(on: clock, until: .seconds(60))
            clock.advance(by: .seconds(60))
            let (closed, _) = try await socket
            #expect(closed, "the socket outlived its hello deadline")
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    /// A receiver's long poll with nothing to say ends when its event clock passes the wait asked
    /// for (it used to poll the continuous clock every 25 ms).
    @Test(.timeLimit(.minutes(1)))
    func aReceiverLongPollEndsOnItsEventClock() async throws {
        let clock = ManualClock()
        let receiver = Receiver(eventClock: clock)
        async let polled = receiver.events(after: 0, waitingUpTo: .seconds(30))
        try await Self.sleeper(on: clock, until: .seconds(30))
        clock.advance(by: .seconds(30))
        #expect(await polled.isEmpty)
        #expect(clock.deadlines.isEmpty)
    }
}
