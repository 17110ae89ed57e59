import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// An origin serving the files of `folder`, counting the reads: `GET /count` answers how many other
/// requests it had.
private func countingOrigin(folder: String) async -> PageServer? {
    await PageServer(
        handler: """
            if self.path == "/count":
                body = str(getattr(type(self), "hits", 0)).encode()
            else:
                type(self).hits = getattr(type(self), "hits", 0) + 1
                try:
                    body = open(\(String(reflecting: folder)) + self.path.split("?")[0], "rb").read()
                except OSError:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            """
    )
}

/// How many times the origin was read.
private func reads(_ origin: PageServer) async throws -> Int {
    let answer = try await rawExchange(
        port: origin.port,
        "GET /count HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    return Int(String(decoding: answer.body, as: UTF8.self)) ?? -1
}

/// Waits (up to `limit`) until the origin has been read at least `count` times.
private func waitForReads(_ origin: PageServer, atLeast count: Int, limit: Duration = .seconds(20)) async throws -> Int
{
    var seen = -1
    try await waitUntil(within: limit, checkingEvery: .milliseconds(100)) {
        seen = try await reads(origin)
        return seen >= count
    }
    return seen
}

/// How many sleep on `clock` until at most 1 s past its time: the reading loop's pauses (half a
/// second here), not the decision pruner's, which waits on the same clock for a minute.
private func loopPauses(_ clock: ManualClock) -> Int {
    let horizon = clock.now.advanced(by: .seconds(1))
    return clock.deadlines.filter { $0 <= horizon }.count
}

/// A live playlist of `count` segments from `first`, each `target` seconds.
private func livePlaylist(target: Int, first: Int, count: Int) -> String {
    "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        + "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
        + (first..<first + count).map { "#EXTINF:\(target).0,\ns\($0).ts\n" }.joined()
}

/// A scratch folder holding `up/live.m3u8`, a counting origin serving it, and the demo
/// configuration with a channel `up` that reads it.
private struct CountingUpstream {
    struct OriginDidNotStart: Error {}

    let folder: String
    let origin: PageServer
    var configuration: ServerConfiguration

    init(playlist: String, clock: any WallClock) async throws {
        self.folder = try makeScratchFolder()
        try write(playlist, to: self.folder + "/up/live.m3u8")
        guard let origin = await countingOrigin(folder: self.folder) else { throw OriginDidNotStart() }
        self.origin = origin
        self.configuration = try demoConfiguration(clock: clock)
        self.configuration.adInsertion.channels.append(
            LiveChannel(id: "up", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"))
        )
    }

    /// Stops the origin and removes the folder.
    func remove() {
        self.origin.stop()
        try? FileManager.default.removeItem(atPath: self.folder)
    }
}

@Suite(.realTime) struct UpstreamPollingTests {
    /// Four connections ask for an upstream channel as fast as they can for four seconds: the
    /// upstream is read by the background loop about once per half target duration (1 s), never
    /// per request.
    @Test(.timeLimit(.minutes(1))) func theUpstreamIsReadOncePerHalfTargetDurationWhateverTheRequestRate()
        async throws
    {
        let upstream = try await CountingUpstream(
            playlist: livePlaylist(target: 2, first: 10, count: 3),
            clock: SystemWallClock()
        )
        defer { upstream.remove() }
        let origin = upstream.origin
        try await withServer(upstream.configuration) { client in
            let server = try #require(client.port)
            let asked = ContinuousClock.now
            #expect(try await client.get("/live/up/live.m3u8").status == .ok)
            let before = try await reads(origin)
            // The first request's read, plus the loop's reads if the machine was slow to get here.
            let waited = ContinuousClock.now - asked
            #expect(before >= 1 && before <= 1 + Int(waited / .seconds(1)) + 1, "\(before) reads in \(waited)")
            let served = ManagedCounter()
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        // At least four seconds and at least 100 requests (a loaded machine
                        // serves fewer per second), within 40 s.
                        while ContinuousClock.now - started < .seconds(4)
                            || (served.value < 100 && ContinuousClock.now - started < .seconds(40))
                        {
                            let answer = try await rawExchange(
                                port: server,
                                "GET /live/up/live.m3u8 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                            )
                            #expect(answer.status == 200)
                            served.add()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = ContinuousClock.now - started
            let polled = try await reads(origin) - before
            // One read per second of the window, give or take the reads under way at either end; a
            // loaded machine may make the loop late, never early.
            #expect(polled >= 2, "\(polled) reads in \(elapsed)")
            #expect(polled <= Int(elapsed / .seconds(1)) + 2, "\(polled) reads in \(elapsed)")
            // Reads follow the clock, not the requests: a read per request would be 100 or more.
            #expect(served.value >= 100, "\(served.value) requests in \(elapsed)")
        }
    }

    /// A blocking reload (`_HLS_msn`) for the next segment has the upstream read at once (the loop
    /// would wait 100 s: half of this target duration, longer than the test may run), and waits
    /// for the segment; one more than two segments ahead, or a malformed one, is a 400.
    @Test(.timeLimit(.minutes(1))) func aBlockingReloadReadsTheUpstreamAtOnce() async throws {
        let upstream = try await CountingUpstream(
            playlist: livePlaylist(target: 200, first: 10, count: 1),
            clock: ManualWallClock(t0 + 10)
        )
        defer { upstream.remove() }
        let origin = upstream.origin
        try await withServer(upstream.configuration) { client in
            let first = try await client.get("/live/up/live.m3u8")
            #expect(first.status == .ok && first.text.contains("/s10.ts"))
            // Segment 10 is there: answered at once, nothing read.
            #expect(try await client.get("/live/up/live.m3u8?_HLS_msn=10").text == first.text)
            let hostile = [
                "_HLS_msn=13", "_HLS_msn=x1", "_HLS_msn=-1", "_HLS_msn=99999999999999999999", "_HLS_part=1",
                "_HLS_msn=9223372036854775807", "_HLS_msn=-9223372036854775808", "_HLS_msn=nan", "_HLS_msn=1e308",
                "_HLS_msn=%00", "_HLS_msn=10%00", "_HLS_msn=%2e%2e", "_HLS_msn=10&_HLS_part=nan",
                "_HLS_msn=10&_HLS_part=-1", "_HLS_msn=" + String(repeating: "9", count: 6_000),
            ]
            for bad in hostile {
                let refused = try await client.get("/live/up/live.m3u8?" + bad)
                #expect(refused.status == .badRequest, "\(bad.prefix(60)): \(refused.text.prefix(200))")
                #expect(refused.json?["error"]?["field"]?.stringValue?.hasPrefix("_HLS_") == true, "\(bad.prefix(60))")
            }
            #expect(try await reads(origin) == 1)
            try write(livePlaylist(target: 200, first: 10, count: 2), to: upstream.folder + "/up/live.m3u8")
            let blocking = try await client.get("/live/up/live.m3u8?_HLS_msn=11")
            #expect(blocking.status == .ok)
            #expect(blocking.text.contains("/s11.ts"))
            #expect(try await reads(origin) == 2)
            // The cache has the new answer too.
            #expect(try await client.get("/live/up/live.m3u8").text == blocking.text)
        }
    }

    /// A channel nobody asks for in ten target durations (10 s here) stops being read; the next
    /// request starts the loop again.
    ///
    /// On a manual clock: the loop's pauses and its idle time are measured on the server's timer
    /// clock, which the test advances.
    @Test(.timeLimit(.minutes(1))) func anIdleChannelStopsBeingReadUntilTheNextRequest() async throws {
        var upstream = try await CountingUpstream(
            playlist: livePlaylist(target: 1, first: 10, count: 3),
            clock: SystemWallClock()
        )
        defer { upstream.remove() }
        let clock = ManualClock()
        upstream.configuration.timerClock = clock
        let origin = upstream.origin
        try await withServer(upstream.configuration) { client in
            // The request reads the upstream (read 1) at 0 s of the clock and starts the loop.
            #expect(try await client.get("/live/up/live.m3u8").status == .ok)
            // Nobody asks again. The loop reads at every half second up to ten target durations
            // (10 s: reads 2 to 21), each time once it is pausing and the clock passes the pause.
            for step in 1...20 {
                #expect(await waitUntil { loopPauses(clock) == 1 }, "the loop is not pausing at step \(step)")
                clock.advance(by: .milliseconds(500))
                #expect(await waitUntil { (try? await reads(origin)) == step + 1 }, "read \(step + 1)")
            }
            // At 10.5 s it is idle: it stops without reading, and pauses no more.
            #expect(await waitUntil { loopPauses(clock) == 1 })
            clock.advance(by: .milliseconds(500))
            #expect(await waitUntil { loopPauses(clock) == 0 }, "still pausing after 10.5 s without a request")
            clock.advance(by: .seconds(2))
            #expect(try await reads(origin) == 21)
            // Asked again: answered (from the last read, which the wall clock, not moved by the
            // test, still calls fresh), and the loop starts again: read 22 after its first pause.
            let again = try await client.get("/live/up/live.m3u8")
            #expect(again.status == .ok && again.text.contains("/s12.ts"))
            #expect(await waitUntil { loopPauses(clock) == 1 }, "the loop did not start again")
            clock.advance(by: .milliseconds(500))
            #expect(await waitUntil { (try? await reads(origin)) == 22 })
        }
    }

    /// The loops end with the server: after it has shut down, nothing pauses on the clock any more
    /// and the upstream is not read again, however far the clock moves.
    @Test(.timeLimit(.minutes(1))) func shutdownEndsTheReadingLoops() async throws {
        var upstream = try await CountingUpstream(
            playlist: livePlaylist(target: 1, first: 10, count: 3),
            clock: SystemWallClock()
        )
        defer { upstream.remove() }
        let clock = ManualClock()
        upstream.configuration.timerClock = clock
        let origin = upstream.origin
        try await withServer(upstream.configuration) { client throws -> Void in
            #expect(try await client.get("/live/up/live.m3u8").status == .ok)
            for step in 1...2 {
                #expect(await waitUntil { loopPauses(clock) == 1 })
                clock.advance(by: .milliseconds(500))
                #expect(await waitUntil { (try? await reads(origin)) == step + 1 })
            }
        }
        #expect(await waitUntil { loopPauses(clock) == 0 }, "a loop still pauses after the shutdown")
        let afterShutdown = try await reads(origin)
        clock.advance(by: .seconds(10))
        #expect(try await reads(origin) == afterShutdown)
    }
}
