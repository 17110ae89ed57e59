import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import InterstitialPlayback
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing
import ViewerLoadSupport

/// What the test server answers a request with.
private struct Answer: Sendable {
    var status: HTTPResponseStatus = .ok
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// Close the connection after the answer (with `Connection: close`).
    var close = false
    /// Close the connection without answering.
    var drop = false
    /// Send the head, then nothing more.
    var stall = false
}

/// A plain NIO HTTP/1.1 server on loopback that counts its connections and answers from a closure,
/// so the tests see exactly what reaches the socket: connections opened, request heads, answers
/// cut short, connections closed under a kept client.
private final class CountingServer: Sendable {
    let connections = Atomic<Int>(0)
    let heads = Mutex<[HTTPRequestHead]>([])
    let answer: @Sendable (HTTPRequestHead) -> Answer
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let channel = Mutex<(any Channel)?>(nil)
    /// The server side of the open connections, to close them under the client.
    let open = Mutex<[any Channel]>([])

    init(_ answer: @escaping @Sendable (HTTPRequestHead) -> Answer) {
        self.answer = answer
    }

    var port: Int { self.channel.withLock { $0?.localAddress?.port ?? 0 } }

    func start() async throws {
        let channel = try await ServerBootstrap(group: self.group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                self.connections.add(1, ordering: .relaxed)
                self.open.withLock { $0.append(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(server: self))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        self.channel.withLock { $0 = channel }
    }

    func closeConnections() {
        for channel in self.open.withLock({ $0 }) { channel.close(promise: nil) }
    }

    func stop() async throws {
        try await self.channel.withLock { $0 }?.close()
        try await self.group.shutdownGracefully()
    }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: CountingServer
        var head: HTTPRequestHead?

        init(server: CountingServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                self.server.heads.withLock { $0.append(head) }
            case .body: break
            case .end:
                guard let head = self.head else { return }
                let answer = self.server.answer(head)
                if answer.drop {
                    context.close(promise: nil)
                    return
                }
                var headers = HTTPHeaders(answer.headers)
                if !headers.contains(name: "content-length") {
                    headers.add(name: "Content-Length", value: String(answer.body.count))
                }
                if answer.close { headers.add(name: "Connection", value: "close") }
                context.write(
                    self.wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))
                    ),
                    promise: nil
                )
                if answer.stall {
                    context.flush()
                    return
                }
                context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
                let ended = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
                if answer.close { ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
            }
        }
    }
}

private func withServer(
    _ answer: @escaping @Sendable (HTTPRequestHead) -> Answer,
    _ body: (CountingServer, String, KeepAliveLoader) async throws -> Void
) async throws {
    let server = CountingServer(answer)
    try await server.start()
    let loader = KeepAliveLoader(eventLoop: MultiThreadedEventLoopGroup.singleton.next(), connectionsPerOrigin: 4)
    do {
        try await body(server, "http://127.0.0.1:\(server.port)", loader)
    } catch {
        try await server.stop()
        throw error
    }
    try await server.stop()
}

private func request(
    _ url: String,
    kind: LoadRequest.Kind = .mediaPlaylist,
    range: ByteRange? = nil,
    timeout: Duration = .seconds(5),
    limit: Int = 1 << 20,
    keepsBody: Bool = true
) -> LoadRequest {
    LoadRequest(url: url, kind: kind, byteRange: range, timeout: timeout, maximumBodySize: limit, keepsBody: keepsBody)
}

@Suite(.timeLimit(.minutes(1)), .realTime) struct KeepAliveLoaderTests {
    /// A playlist and a segment: status, body, count, the session header, the `Host` and the path
    /// with its query; a byte range is asked with `Range`; a segment's body is counted, not kept.
    @Test func anAnswerArrivesWhole() async throws {
        let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8)
        let segment = [UInt8](repeating: 0x47, count: 100_000)
        try await withServer({ head in
            head.uri.hasPrefix("/live/") ? Answer(body: playlist) : Answer(status: .partialContent, body: segment)
        }) { server, base, loader in
            let first = try await loader.load(request(base + "/live/a/prog.m3u8?x=1#frag"), sessionID: "s-1").get()
            #expect(first.status == 200 && first.body == playlist && first.byteCount == playlist.count)
            let second = try await loader.load(
                request(
                    base + "/media/seg.ts",
                    kind: .segment,
                    range: ByteRange(length: 10, offset: 5),
                    keepsBody: false
                ),
                sessionID: "s-1"
            ).get()
            #expect(second.status == 206 && second.body.isEmpty && second.byteCount == segment.count)
            let heads = server.heads.withLock { $0 }
            #expect(heads.map(\.uri) == ["/live/a/prog.m3u8?x=1", "/media/seg.ts"])
            #expect(heads.allSatisfy { $0.headers["X-PLAYBACK-SESSION-ID"] == ["s-1"] })
            #expect(heads.allSatisfy { $0.headers["Host"] == ["127.0.0.1:\(server.port)"] })
            #expect(heads[1].headers["Range"] == ["bytes=5-14"])
        }
    }

    /// Requests one after another share one connection; many at once open at most the limit, and
    /// every one is answered.
    @Test func connectionsAreKeptAndBounded() async throws {
        try await withServer({ head in Answer(body: Array(head.uri.utf8)) }) { server, base, loader in
            for k in 0..<20 {
                let answer = try await loader.load(request(base + "/p\(k)"), sessionID: "s").get()
                #expect(answer.body == Array("/p\(k)".utf8))
            }
            #expect(server.connections.load(ordering: .relaxed) == 1)
            let bodies = await withTaskGroup(of: [UInt8]?.self) { group in
                for k in 0..<50 {
                    group.addTask { try? await loader.load(request(base + "/q\(k)"), sessionID: "s").get().body }
                }
                var bodies: [[UInt8]] = []
                for await body in group { if let body { bodies.append(body) } }
                return bodies
            }
            #expect(Set(bodies) == Set((0..<50).map { Array("/q\($0)".utf8) }))
            #expect(server.connections.load(ordering: .relaxed) <= 4)
        }
    }

    /// Statuses other than 2xx are answers (the player decides), `Connection: close` is honoured
    /// (the next request opens a connection), and a connection the server closed while idle is
    /// replaced without failing the request sent on it.
    @Test func errorsStatusesAndClosedConnections() async throws {
        try await withServer({ head in
            switch head.uri {
            case "/missing": Answer(status: .notFound, body: Array("no".utf8))
            case "/close": Answer(body: Array("bye".utf8), close: true)
            default: Answer(body: Array("ok".utf8))
            }
        }) { server, base, loader in
            let missing = try await loader.load(request(base + "/missing"), sessionID: "s").get()
            #expect(missing.status == 404 && missing.body == Array("no".utf8))
            _ = try await loader.load(request(base + "/close"), sessionID: "s").get()
            _ = try await loader.load(request(base + "/ok"), sessionID: "s").get()
            #expect(server.connections.load(ordering: .relaxed) == 2)
            server.closeConnections()
            // Once the loader's loop has seen both connections close, none is left to reuse.
            #expect(try await waitUntil { try await loader.census().open == 0 })
            let again = try await loader.load(request(base + "/ok"), sessionID: "s").get()
            #expect(again.body == Array("ok".utf8))
            #expect(server.connections.load(ordering: .relaxed) == 3)
        }
    }

    /// A body over the limit (by its `Content-Length` or by what arrives), an answer that never
    /// ends, a connection dropped without an answer, and nothing listening: each fails with the
    /// player's code, and the loader goes on working.
    @Test func boundsAndFailures() async throws {
        try await withServer({ head in
            switch head.uri {
            case "/big": Answer(body: [UInt8](repeating: 1, count: 2000))
            case "/lying": Answer(headers: [("Transfer-Encoding", "chunked")], body: [UInt8](repeating: 2, count: 2000))
            case "/stall": Answer(headers: [("Content-Length", "100")], stall: true)
            case "/drop": Answer(drop: true)
            default: Answer(body: Array("ok".utf8))
            }
        }) { _, base, loader in
            func code(_ path: String, timeout: Duration = .seconds(5)) async -> PlaybackError.Code? {
                let result = await loader.load(request(base + path, timeout: timeout, limit: 1000), sessionID: "s")
                guard case .failure(let error) = result else { return nil }
                return error.code
            }
            #expect(await code("/big") == .bodyTooLarge)
            #expect(await code("/stall", timeout: .milliseconds(300)) == .timeout)
            #expect(await code("/drop") == .transport)
            let ok = try await loader.load(request(base + "/ok"), sessionID: "s").get()
            #expect(ok.body == Array("ok".utf8))
        }
        let loader = KeepAliveLoader(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let refused = await loader.load(request("http://127.0.0.1:1/x"), sessionID: "s")
        guard case .failure(let error) = refused else { Issue.record("connected to port 1"); return }
        #expect(error.code == .transport)
    }

    /// A request waiting for a connection keeps its deadline: with the only connection held by an
    /// answer that never ends, it fails by its own timeout, and a request cancelled while waiting is
    /// never sent.
    @Test func aWaitingRequestKeepsItsDeadline() async throws {
        try await withServer({ head in
            head.uri == "/stall" ? Answer(headers: [("Content-Length", "100")], stall: true) : Answer(body: [1])
        }) { server, base, _ in
            let loader = KeepAliveLoader(
                eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
                connectionsPerOrigin: 1
            )
            // The stalled answer holds the one connection until its own deadline, 3 s after it is
            // asked (no sooner than `stallDeadline`).
            let stallDeadline = NIODeadline.now() + .seconds(3)
            let stalled = Task { await loader.load(request(base + "/stall", timeout: .seconds(3)), sessionID: "s") }
            #expect(await waitUntil { server.heads.withLock { $0.map(\.uri) } == ["/stall"] })
            let cancelled = Task { await loader.load(request(base + "/cancelled"), sessionID: "s") }
            #expect(try await waitUntil { try await loader.census().waiting == 1 })
            cancelled.cancel()
            guard case .failure(let cancel) = await cancelled.value else {
                Issue.record("a cancelled request was answered")
                return
            }
            #expect(cancel.code == .cancelled)
            // The waiting request's deadline comes before the stalled one's: half of what the stall
            // has left, at most 300 ms. Both timers are on the loader's loop, which runs them in the
            // order of their deadlines however late it gets to them.
            let left = stallDeadline - NIODeadline.now()
            try #require(left > .milliseconds(200), "the stalled answer's deadline is too near to wait before it")
            let timeout = min(Duration.milliseconds(300), .nanoseconds(left.nanoseconds / 2))
            let waiting = await loader.load(request(base + "/waiting", timeout: timeout), sessionID: "s")
            guard case .failure(let error) = waiting else {
                Issue.record("a waiting request was answered")
                return
            }
            #expect(error.code == .timeout)
            // It failed while waiting for the connection the stall still held, not on one of its own.
            #expect(error.message == "no connection was free in time")
            guard case .failure(let stall) = await stalled.value else {
                Issue.record("the stalled answer ended")
                return
            }
            #expect(stall.code == .timeout)
            // Once the stalled connection is closed, the next request goes out; the cancelled one never did.
            let after = try await loader.load(request(base + "/after"), sessionID: "s").get()
            #expect(after.body == [1])
            #expect(server.heads.withLock { $0.map(\.uri) } == ["/stall", "/after"])
        }
    }

    /// Out-of-range request values from a caller: deadlines of `Int64.max` seconds, negative and
    /// zero (held to the default loader's 1 ms to 1 hour), body limits below zero and of `Int.max`,
    /// byte ranges past `Int.max` or below zero.
    ///
    /// Each gets an answer or a failure with a code,
    /// never a trap, and the `Range` field stays within `Int`.
    @Test func hostileRequestValuesDoNotTrap() async throws {
        try await withServer({ _ in Answer(body: Array("ok".utf8)) }) { server, base, loader in
            let requests: [LoadRequest] = [
                request(base + "/a", timeout: .seconds(Int64.max)),
                request(base + "/b", timeout: .seconds(-5)),
                request(base + "/c", timeout: .zero),
                request(base + "/d", limit: -1),
                request(base + "/e", limit: Int.max),
                request(base + "/f", range: ByteRange(length: Int.max, offset: Int.max)),
                request(base + "/g", range: ByteRange(length: -3, offset: -5)),
            ]
            for request in requests {
                switch await loader.load(request, sessionID: "s") {
                case .success(let answer): #expect(answer.status == 200, "\(request.url)")
                case .failure(let error):
                    #expect([.timeout, .bodyTooLarge].contains(error.code), "\(request.url): \(error)")
                }
            }
            let ranges = server.heads.withLock { $0.compactMap { $0.headers["Range"].first } }
            #expect(ranges.contains("bytes=9223372036854775807-9223372036854775807"))
            #expect(ranges.contains("bytes=0-0"))
            let answered = try await loader.load(request(base + "/after"), sessionID: "s").get()
            #expect(answered.body == Array("ok".utf8))
        }
    }

    /// Answers a hostile server sends: a `Content-Length` of `Int64.max`, one past it, not a
    /// number, a NUL in a header, a status line that is not HTTP, a 100 KB header.
    ///
    /// Each fails
    /// with a code (or, for the long header, is read), and nothing traps.
    @Test(
        arguments: [
            ("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nabc", PlaybackError.Code.bodyTooLarge),
            ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nabc", .transport),
            ("HTTP/1.1 200 OK\r\nContent-Length: nan\r\n\r\nabc", .transport),
            ("HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\nContent-Length: 3\r\n\r\nabc", .transport),
            ("SSH-2.0-OpenSSH\r\n\r\n", .transport),
            (
                "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "x", count: 100_000)
                    + "\r\nContent-Length: 3\r\n\r\nabc", .transport
            ),
        ] as [(String, PlaybackError.Code?)]
    )
    func hostileAnswersFailCleanly(answer: String, code: PlaybackError.Code?) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bytes = Array(answer.utf8)
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawAnswer(bytes: bytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = try #require(channel.localAddress?.port)
        let loader = KeepAliveLoader(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let result = await loader.load(
            request("http://127.0.0.1:\(port)/x", timeout: .seconds(5), limit: 1000),
            sessionID: "s"
        )
        try await channel.close()
        try await group.shutdownGracefully()
        switch (result, code) {
        case (.success(let answer), nil): #expect(answer.body == Array("abc".utf8))
        case (.failure(let error), .some(let code)): #expect(error.code == code, "\(error)")
        default: Issue.record("\(answer.prefix(60)): \(result)")
        }
    }

    /// URLs it cannot send: not http (https goes to the fallback), no host, a port out of range,
    /// user info, spaces, NUL, a 100 KB host.
    ///
    /// None is sent anywhere.
    @Test(arguments: [
        "ftp://example.com/x", "http://", "http:///x", "http://example.com:0/x", "http://example.com:65536/x",
        "http://example.com:-1/x", "http://example.com:99999999999999999999/x", "http://user@example.com/x",
        "http://exa mple.com/x", "http://example.com/a b", "http://example.com/\u{0}", "relative/x",
        "http://" + String(repeating: "a", count: 100_000) + "/x", "http://[::1/x",
    ])
    func unusableURLsAreRefused(url: String) async {
        let loader = KeepAliveLoader(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let result = await loader.load(request(url), sessionID: "s")
        guard case .failure(let error) = result else {
            Issue.record("loaded \(url.prefix(60))")
            return
        }
        #expect(error.code == .invalidURL || error.code == .transport, "\(url.prefix(60))")
    }

    /// A player on this loader plays a pod of two ads from an asset list as it does on the default
    /// loader: the same breaks, the same requests, each with the session header.
    @Test func aPlayerPlaysThroughIt() async throws {
        try await withServer(podProgramme) { server, base, _ in
            let loader = KeepAliveLoader(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
            let player = Player(
                item: PlayerItem(url: base + "/vod/prog.m3u8"),
                clock: VirtualPlaybackClock(),
                loader: loader
            )
            await player.play()
            try await player.run()
            #expect(await player.error == nil)
            let course = milestones(await player.log)
            #expect(
                course == [
                    "list:pod", "current:pod", "asset:pod#0", "asset:pod#1", "finished:pod", "current:nil",
                    "resumed@10.0", "ended",
                ]
            )
            let heads = server.heads.withLock { $0 }
            #expect(heads.count > 10)
            #expect(heads.allSatisfy { $0.headers["X-PLAYBACK-SESSION-ID"] == [player.sessionID] })
        }
    }
}

/// A 20 s VOD programme over the demo primary (`/vod/prog.m3u8`) with, at 10 s, a pod of the red
/// and green demo ads from an asset list (`/lists/pod.json`) that resumes where it left off; the
/// demo media itself (Sources/IntermissionServer/Demo) under `/media/`.
private func podProgramme(_ head: HTTPRequestHead) -> Answer {
    let origin = "http://" + (head.headers.first(name: "Host") ?? "")
    // The list is asked with the player's query (`_HLS_primary_id`, ...): routes go by the path.
    switch head.uri.prefix(while: { $0 != "?" }) {
    case "/vod/prog.m3u8":
        let marker =
            #"#EXT-X-DATERANGE:ID="pod",CLASS="com.apple.hls.interstitial",START-DATE="2021-01-04T05:00:10.000Z","#
            + #"X-ASSET-LIST="/lists/pod.json",X-RESUME-OFFSET=0"#
        let segments = (0..<10).map { "#EXTINF:2.000,\n/media/primary/seg-00\($0).ts" }
        let lines =
            ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
            + ["#EXT-X-PROGRAM-DATE-TIME:2021-01-04T05:00:00.000Z", marker] + segments + ["#EXT-X-ENDLIST", ""]
        return Answer(body: Array(lines.joined(separator: "\n").utf8))
    case "/lists/pod.json":
        let ads = ["red", "green"].map { #"{"URI":"\#(origin)/media/ad-\#($0)/main.m3u8","DURATION":10}"# }
        return Answer(body: Array(#"{"ASSETS":[\#(ads.joined(separator: ","))]}"#.utf8))
    case let path where path.hasPrefix("/media/") && !path.contains(".."):
        let file = Fixture.repository.appendingPathComponent("Sources/IntermissionServer/Demo")
            .appendingPathComponent(String(path.dropFirst("/media/".count)))
        guard let bytes = FileManager.default.contents(atPath: file.path) else { return Answer(status: .notFound) }
        return Answer(body: [UInt8](bytes))
    default:
        return Answer(status: .notFound)
    }
}

/// What a pod's course leaves in a player's log, one word each: the list loaded, the event
/// current (or none), each asset started, the event finished, the primary resumed, the end.
private func milestones(_ log: [PlayerLogEntry]) -> [String] {
    log.compactMap { entry -> String? in
        let event = entry["eventID"]?.stringValue
        return switch entry.event {
        case "assetListLoaded": "list:\(event ?? "")"
        case "assetListFailed": "listFailed:\(event ?? "")"
        case "currentEventDidChange": "current:\(event ?? "nil")"
        case "interstitialAssetStarted": "asset:\(event ?? "")#\(entry["index"]?.doubleValue.map { Int($0) } ?? -1)"
        case "eventDidFinish": "finished:\(event ?? "")"
        case "primaryResumed": "resumed@\(entry["primaryTime"]?.doubleValue ?? -1)"
        case "ended": "ended"
        default: nil
        }
    }
}

/// An event loop that hands everything to a real one, and notes each timer scheduled on it: its
/// delay, whether it fired on the loop's own thread, whether it was cancelled.
///
/// How the tests see that a clock sleeps on its loop (and for how long, and that a cancelled
/// sleep cancels its timer) without measuring time.
private final class NotingLoop: EventLoop {
    struct Timer: Sendable {
        var delay: TimeAmount
        var firedOnTheLoop = false
        var cancelled = false
    }

    let base: any EventLoop
    private let noted = Mutex<[Timer]>([])

    init(_ base: any EventLoop) { self.base = base }

    /// The timers scheduled so far, oldest first.
    var timers: [Timer] { self.noted.withLock { $0 } }

    var inEventLoop: Bool { self.base.inEventLoop }

    func execute(_ task: @escaping @Sendable () -> Void) { self.base.execute(task) }

    func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        self.scheduleTask(in: deadline - .now(), task)
    }

    func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        let index = self.noted.withLock { timers in
            timers.append(Timer(delay: delay))
            return timers.count - 1
        }
        let base = self.base
        let scheduled = base.scheduleTask(in: delay) {
            self.noted.withLock { $0[index].firedOnTheLoop = base.inEventLoop }
            return try task()
        }
        // Added before anyone else waits on the timer, so it is noted before they hear of it.
        scheduled.futureResult.whenFailure { error in
            if case EventLoopError.cancelled = error { self.noted.withLock { $0[index].cancelled = true } }
        }
        return scheduled
    }

    func preconditionInEventLoop(file: StaticString, line: UInt) {
        self.base.preconditionInEventLoop(file: file, line: line)
    }

    func preconditionNotInEventLoop(file: StaticString, line: UInt) {
        self.base.preconditionNotInEventLoop(file: file, line: line)
    }

    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        self.base.shutdownGracefully(queue: queue, callback)
    }
}

/// A flag one task raises and another reads.
private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { self.raised.store(true, ordering: .releasing) }

    var isRaised: Bool { self.raised.load(ordering: .acquiring) }
}

@Suite(.timeLimit(.minutes(1)), .realTime) struct EventLoopPlaybackClockTests {
    /// A sleep ends on a timer of the loop, no earlier than its deadline; a deadline passed returns
    /// at once; a cancelled sleep throws at once, its timer cancelled.
    @Test func itSleepsOnTheLoop() async throws {
        let loop = NotingLoop(MultiThreadedEventLoopGroup.singleton.next())
        let clock = EventLoopPlaybackClock(eventLoop: loop, speed: 2)
        let start = ContinuousClock.now
        let deadline = clock.now + MediaTime(milliseconds: 100)
        try await clock.sleep(until: deadline)
        #expect(clock.now >= deadline)
        #expect(ContinuousClock.now - start >= .milliseconds(50))  // speed 2: 100 ms of clock in 50 ms
        // It was one timer of the loop, fired on the loop's thread, of at most 50 ms.
        let woken = loop.timers
        #expect(woken.count == 1)
        #expect(woken.first?.firedOnTheLoop == true)
        #expect(woken.first.map { $0.delay > .zero && $0.delay <= .milliseconds(50) } == true)
        // A deadline passed: no timer at all.
        try await clock.sleep(until: .zero)
        #expect(loop.timers.count == 1)
        let sleeper = Task { try await clock.sleep(until: clock.now + MediaTime(seconds: 3600)) }
        #expect(await waitUntil { loop.timers.count == 2 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // It threw because its timer was cancelled, not because the hour passed.
        #expect(loop.timers.last.map { $0.cancelled && !$0.firedOnTheLoop } == true)
        #expect(clock.isVirtual == false)
    }

    /// A deadline at the end of time (``MediaTime/maximum``), on this clock and on the Dispatch one,
    /// waits (it does not trap converting the wait) until cancelled.
    @Test(arguments: [true, false])
    func aDeadlineAtTheEndOfTimeWaits(onTheLoop: Bool) async throws {
        let loop = NotingLoop(MultiThreadedEventLoopGroup.singleton.next())
        let clock: any PlaybackClock =
            onTheLoop ? EventLoopPlaybackClock(eventLoop: loop, speed: 1e-9) : RealPlaybackClock(speed: 1e-9)
        // The wait, converted: the longest a timer can wait, not a trap.
        #expect(RealPlaybackClock(speed: 1e-9).realNanoseconds(until: .maximum) == Int64.max)
        let started = Flag()
        let sleeper = Task {
            started.raise()
            try await clock.sleep(until: .maximum)
        }
        if onTheLoop {
            // Asleep on a timer of the loop, as long as a timer can wait.
            #expect(await waitUntil { loop.timers.map(\.delay) == [.nanoseconds(Int64.max)] })
        } else {
            // Dispatch's timer cannot be seen from here: the sleep has begun, at least.
            #expect(await waitUntil { started.isRaised })
        }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

/// Writes fixed bytes as the answer to whatever arrives, then closes.
private final class RawAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let bytes: [UInt8]
    var answered = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.answered else { return }
        self.answered = true
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: self.bytes))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
