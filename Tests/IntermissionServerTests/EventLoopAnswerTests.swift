import AdInsertion
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionHTTP
import IntermissionTestSupport
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import IntermissionServer

/// Records what the handler passes on, as Hummingbird's per-connection task would receive it.
private final class PassedOn: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    var parts: [HTTPRequestPart] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.parts.append(self.unwrapInboundIn(data))
    }
}

/// A channel with the handler in front of a recorder, over a cache holding one VOD playlist
/// (`/vod/a/prog.m3u8`) and one live playlist (`/live/b/prog.m3u8`, fresh until `t0 + 2 s`).
private struct Bench {
    let channel = EmbeddedChannel()
    let recorder = PassedOn()
    let clock = ManualWallClock(t0)
    let cache: ResponseCache
    let metrics = ServerMetrics()
    static let vod = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-ENDLIST\n".utf8)
    static let live = Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nb.ts\n".utf8)

    init() throws {
        self.cache = ResponseCache(clock: self.clock)
        _ = self.cache.store(
            RenderedPlaylist(bytes: Self.vod, kind: .vod, validUntil: nil, staleFor: nil),
            key: "/vod/a/prog.m3u8",
            scope: "vod:a",
            generation: 0
        )
        _ = self.cache.store(
            RenderedPlaylist(bytes: Self.live, kind: .liveMedia(targetDuration: 2), validUntil: t0 + 2, staleFor: nil),
            key: "/live/b/prog.m3u8",
            scope: "live:b",
            generation: 0
        )
        let answers = EventLoopAnswers(
            responses: self.cache,
            mediaFiles: MediaFileCache(mounts: [:], clock: self.clock),
            vodMetrics: self.metrics.bind(route: "/vod/{asset}/**"),
            liveMetrics: self.metrics.bind(route: "/live/{channel}/**"),
            mediaMetrics: self.metrics.bind(route: "/media/**"),
            serverName: "intermission"
        )
        try self.channel.pipeline.syncOperations.addHandler(EventLoopAnswerHandler(answers: answers))
        try self.channel.pipeline.syncOperations.addHandler(self.recorder)
    }

    /// Sends a request (head and end, with body parts between when given).
    func send(
        _ path: String,
        _ fields: HTTPFields = [:],
        method: HTTPRequest.Method = .get,
        body: [String] = []
    ) throws {
        let head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: fields)
        try self.channel.writeInbound(HTTPRequestPart.head(head))
        for chunk in body { try self.channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: chunk))) }
        try self.channel.writeInbound(HTTPRequestPart.end(nil))
    }

    /// Answers one passed-on request as the task would (head and end).
    func answerPassedOn(_ status: HTTPResponse.Status = .ok) throws {
        try self.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: status)))
        try self.channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    /// Everything written towards the client since the last call.
    func written() throws -> [HTTPResponsePart] {
        var parts: [HTTPResponsePart] = []
        while let part = try self.channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
        return parts
    }

    /// The statuses and bodies of the answers in `parts`.
    static func answers(_ parts: [HTTPResponsePart]) -> [(HTTPResponse, [UInt8])] {
        var result: [(HTTPResponse, [UInt8])] = []
        for part in parts {
            switch part {
            case .head(let head): result.append((head, []))
            case .body(let body): result[result.count - 1].1 += Array(body.readableBytesView)
            case .end: break
            }
        }
        return result
    }

    /// The paths of the requests passed on.
    var passedOnPaths: [String] {
        self.recorder.parts.compactMap {
            if case .head(let head) = $0 { return head.path }
            return nil
        }
    }
}

@Suite(.realTime) struct EventLoopAnswerTests {
    /// A fresh entry is answered on the event loop with the headers the responders give, plus `Date`
    /// and `Server`; nothing reaches the task.
    @Test func freshEntriesAreAnsweredOnTheEventLoop() throws {
        let bench = try Bench()
        try bench.send("/vod/a/prog.m3u8")
        let answers = Bench.answers(try bench.written())
        #expect(answers.count == 1)
        let (head, body) = try #require(answers.first)
        #expect(head.status == .ok)
        #expect(body == Bench.vod)
        let expected = try #require(bench.cache.fresh("/vod/a/prog.m3u8")).headers
        for field in expected { #expect(head.headerFields[values: field.name] == [field.value], "\(field.name)") }
        #expect(head.headerFields[.server] == "intermission")
        #expect(HTTPDate.parse(head.headerFields[.date] ?? "") != nil)
        #expect(head.headerFields.count == expected.count + 2)
        #expect(bench.recorder.parts.isEmpty)
        // HEAD, 304 and gzip follow the entry's own rules.
        try bench.send("/vod/a/prog.m3u8", method: .head)
        try bench.send("/vod/a/prog.m3u8", [.ifNoneMatch: head.headerFields[.eTag]!])
        let more = Bench.answers(try bench.written())
        #expect(more.map(\.0.status) == [.ok, .notModified])
        #expect(more.allSatisfy { $0.1.isEmpty })
        #expect(more[0].0.headerFields[.contentLength] == String(Bench.vod.count))
        // Browsers send `Connection: keep-alive`: answered here too.
        try bench.send("/vod/a/prog.m3u8", [.connection: "keep-alive"])
        #expect(Bench.answers(try bench.written()).map(\.1) == [Bench.vod])
        #expect(bench.recorder.parts.isEmpty)
    }

    /// A request behind one passed on is passed on too, however fresh its entry, so answers keep the
    /// order of requests; once every passed-on request is answered, the next hit is answered here.
    @Test func pipelinedRequestsKeepTheirOrder() throws {
        let bench = try Bench()
        try bench.send("/vod/missing/prog.m3u8")
        try bench.send("/vod/a/prog.m3u8")
        try bench.send("/live/b/prog.m3u8")
        #expect(bench.passedOnPaths == ["/vod/missing/prog.m3u8", "/vod/a/prog.m3u8", "/live/b/prog.m3u8"])
        #expect(try bench.written().isEmpty)
        try bench.answerPassedOn(.notFound)
        try bench.answerPassedOn()
        try bench.send("/vod/a/prog.m3u8")
        #expect(bench.passedOnPaths.count == 4)  // the live playlist's answer is still owed
        try bench.answerPassedOn()
        try bench.answerPassedOn()
        #expect(Bench.answers(try bench.written()).map(\.0.status) == [.notFound, .ok, .ok, .ok])
        try bench.send("/vod/a/prog.m3u8")
        #expect(bench.passedOnPaths.count == 4)
        #expect(Bench.answers(try bench.written()).map(\.1) == [Bench.vod])
    }

    /// Stale or missing entries, other methods, `Connection: close` (the task then closes the
    /// connection) and a channel that is not writable (the task applies back pressure) go to the task.
    @Test func whatTheCacheCannotAnswerGoesToTheTask() throws {
        let bench = try Bench()
        try bench.send("/vod/a/prog.m3u8", method: .post)
        try bench.answerPassedOn(.methodNotAllowed)
        try bench.send("/vod/a/prog.m3u8", [.connection: "close"])
        try bench.answerPassedOn()
        try bench.send("/media/x/seg.ts")
        try bench.answerPassedOn(.notFound)
        bench.channel.isWritable = false
        try bench.send("/vod/a/prog.m3u8")
        try bench.answerPassedOn()
        bench.channel.isWritable = true
        bench.clock.advance(by: 2)  // the live entry is due
        try bench.send("/live/b/prog.m3u8")
        try bench.answerPassedOn()
        #expect(
            bench.passedOnPaths == [
                "/vod/a/prog.m3u8", "/vod/a/prog.m3u8", "/media/x/seg.ts", "/vod/a/prog.m3u8", "/live/b/prog.m3u8",
            ]
        )
        // The VOD entry never falls due.
        _ = try bench.written()
        try bench.send("/vod/a/prog.m3u8")
        #expect(Bench.answers(try bench.written()).map(\.0.status) == [.ok])
        #expect(bench.passedOnPaths.count == 5)
    }

    /// The body of a request answered here is dropped, not passed on, and the next request is
    /// handled as usual.
    @Test func theBodyOfAnAnsweredRequestIsDropped() throws {
        let bench = try Bench()
        try bench.send("/vod/a/prog.m3u8", [.contentLength: "10"], body: ["01234", "56789"])
        #expect(bench.recorder.parts.isEmpty)
        try bench.send("/vod/missing/prog.m3u8")
        #expect(bench.recorder.parts.count == 2)  // its head and end only
        #expect(bench.passedOnPaths == ["/vod/missing/prog.m3u8"])
    }

    /// Answers given here are counted in their route's metrics.
    @Test func answersAreCounted() throws {
        let bench = try Bench()
        try bench.send("/vod/a/prog.m3u8")
        try bench.send("/live/b/prog.m3u8")
        try bench.send("/live/b/prog.m3u8", method: .head)
        let text = String(decoding: bench.metrics.emit(), as: UTF8.self)
        #expect(
            text.contains(#"intermission_http_requests_total{route="/vod/{asset}/**",method="GET",status="200"} 1"#)
        )
        #expect(
            text.contains(#"intermission_http_requests_total{route="/live/{channel}/**",method="GET",status="200"} 1"#)
        )
        #expect(
            text.contains(#"intermission_http_requests_total{route="/live/{channel}/**",method="HEAD",status="200"} 1"#)
        )
    }
}

/// The answers in `bytes`, one after the other, each as long as its `Content-Length` says.
private func splitAnswers(_ bytes: [UInt8]) -> [RawResponse] {
    var answers: [RawResponse] = []
    var rest = bytes[...]
    let separator = Array("\r\n\r\n".utf8)
    while !rest.isEmpty {
        guard let end = rest.indices.first(where: { rest[$0...].starts(with: separator) }) else { break }
        let head = RawResponse(Array(rest[..<end]) + separator)
        let length = Int(head.header("content-length") ?? "0") ?? 0
        let bodyStart = end + separator.count
        let bodyEnd = min(rest.endIndex, bodyStart + (head.status == 304 ? 0 : length))
        answers.append(RawResponse(Array(rest[rest.startIndex..<bodyEnd])))
        rest = rest[bodyEnd...]
    }
    return answers
}

@Suite(.realTime) struct EventLoopAnswerPipeliningTests {
    /// Over TCP: a request for a playlist not rendered yet, then pipelined behind it in the same
    /// write a cached one and a cached `/media/` file; the answers come back in the order asked.
    @Test(.timeLimit(.minutes(1))) func pipelinedAnswersKeepTheirOrder() async throws {
        let clock = ManualWallClock(t0 + 100)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let port = try #require(client.port)
            let media = try await client.get("/media/demo/primary/prog.m3u8")
            let live = try await client.get("/live/demo/prog.m3u8")
            #expect(media.status == .ok && live.status == .ok)
            let request =
                "GET /vod/demo/prog.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /live/demo/prog.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /media/demo/primary/prog.m3u8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let answers = splitAnswers(try await rawExchange(port: port, request).raw)
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers.count == 3)
            guard answers.count == 3 else { return }
            #expect(String(decoding: answers[0].body, as: UTF8.self).contains("#EXT-X-ENDLIST"))
            #expect(answers[1].body == live.bytes)
            #expect(answers[2].body == media.bytes)
        }
    }
}

@Suite(.realTime) struct EventLoopAnswerChannelTests {
    /// With the group hub's WebSocket upgrade channel (the default) as without it, requests for a
    /// fresh playlist are answered on the event loop: `intermission_event_loop_answers_total` counts
    /// every request after the one that rendered it, and the answers are the rendered bytes.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func freshPlaylistsAreAnsweredOnTheEventLoop(groupHub: Bool) async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 100))
        configuration.groupHub = groupHub
        try await withServer(configuration) { client in
            let first = try await client.get("/live/demo/prog.m3u8")
            #expect(first.status == .ok)
            for _ in 0..<5 {
                let again = try await client.get("/live/demo/prog.m3u8")
                #expect(again.status == .ok && again.bytes == first.bytes)
            }
            let metrics = String(decoding: try await client.get("/metrics").bytes, as: UTF8.self)
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("intermission_event_loop_answers_total ") }
            #expect(line == "intermission_event_loop_answers_total 5", "group hub \(groupHub): \(line ?? "none")")
        }
    }
}
