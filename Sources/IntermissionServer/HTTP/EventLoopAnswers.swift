import AdInsertion
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import IntermissionHTTP
import NIOCore
import NIOHTTPTypes
import Prometheus

/// An answer ready to be written: a status, header fields and the body (`nil` for none).
struct PreparedAnswer {
    /// The status.
    var status: HTTPResponse.Status
    /// The header fields (`Content-Length` included where there is a body or would be one).
    var headers: HTTPFields
    /// The body, or `nil` (`HEAD`, `304`).
    var body: ByteBuffer?

    /// An answer of `status` with `headers` and `body`.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The answer as a Hummingbird response.
    var response: Response {
        Response(status: self.status, headers: self.headers, body: self.body.map { .init(byteBuffer: $0) } ?? .init())
    }
}

/// What the connections answer on their event loop: fresh entries of the playlist cache and of the
/// small `/media/` files, and returning viewers' asset lists (``AssetListAnswers``), with the
/// metrics of their routes bound once.
struct EventLoopAnswers: Sendable {
    let responses: ResponseCache
    let mediaFiles: MediaFileCache
    let vodMetrics: ServerMetrics.BoundRoute
    let liveMetrics: ServerMetrics.BoundRoute
    let mediaMetrics: ServerMetrics.BoundRoute
    /// The `Server` field of every answer (Hummingbird's `serverName`), or `nil`.
    let serverName: String?
    /// `intermission_event_loop_answers_total`, or `nil` to count nothing beyond the routes.
    var answered: Counter? = nil
    /// Returning viewers' asset lists of VOD breaks, or `nil` to leave them to the router.
    var assetLists: AssetListAnswers? = nil

    /// The answer to a request from a fresh entry, counted in its route's metrics, or `nil` when
    /// no fresh entry answers it (the request then goes to the responders, which render, load or
    /// refuse it).
    ///
    /// Only `GET` and `HEAD` are answered, and only when the caches say the entry is fresh: a
    /// stale entry, a missing one, a large file, all go the usual way, which keeps every rule of
    /// ``CachingResponder`` and ``MediaFileResponder`` (single flight, stale while revalidate,
    /// rechecking a file's time) in one place.
    func answer(_ request: HTTPRequest) -> PreparedAnswer? {
        guard request.method == .get || request.method == .head else { return nil }
        if let assetLists = self.assetLists, let answer = assetLists.answer(request) {
            self.answered?.increment()
            return answer
        }
        let start = ContinuousClock.now
        if let key = ResponseCache.key(request.path) {
            guard let entry = self.responses.fresh(key) else { return nil }
            let answer = entry.answer(to: request)
            let metrics = key.hasPrefix("/live/") ? self.liveMetrics : self.vodMetrics
            metrics.record(method: request.method, status: answer.status, duration: ContinuousClock.now - start)
            self.answered?.increment()
            return answer
        }
        if let key = MediaFileCache.key(request.path) {
            guard let file = self.mediaFiles.fresh(key) else { return nil }
            let answer = file.answer(to: request)
            if answer.status == .ok || answer.status == .notModified {
                self.mediaMetrics.record(
                    method: request.method,
                    status: answer.status,
                    duration: ContinuousClock.now - start
                )
            }
            self.answered?.increment()
            return answer
        }
        return nil
    }
}

/// Answers requests from fresh cache entries on the connection's event loop, before they reach
/// Hummingbird's per-connection task: a hit then costs no hop to the concurrency pool and back, no
/// `Request`, no logger, no middleware.
///
/// Sits right before the channel's `NIOAsyncChannel` (after Hummingbird's
/// `HTTPConnectionStateHandler`, which sees every request and answer, so idle timeouts and graceful
/// shutdown work as before). Anything else is passed on untouched, and the order of answers is kept:
/// a request is answered here only when every request passed on before it has been answered in
/// full, so a pipelined request never overtakes an earlier one. It is not answered here either when
/// the channel is not writable (the client reads slowly): the task's writer then applies
/// back pressure as usual. A request with `Connection: close` (after which Hummingbird's task closes
/// the connection) or with `Expect` goes the usual way too.
///
/// Each answer carries the `Date` and `Server` fields Hummingbird adds to the others.
final class EventLoopAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: EventLoopAnswers
    /// Requests passed on whose answer has not ended yet.
    private var passedOn = 0
    /// The body and end of a request answered here are dropped.
    private var dropping = false
    /// Answers written since the last flush.
    private var unflushed = false
    /// The second of `date`, since 1970.
    private var dateSecond = Int.min
    private var date = ""

    init(answers: EventLoopAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let request):
            if self.passedOn == 0, context.channel.isWritable, Self.mayAnswer(request),
                let answer = self.answers.answer(request)
            {
                self.dropping = true
                self.write(answer, context: context)
                return
            }
            self.passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if !self.dropping { context.fireChannelRead(data) }
        case .end:
            if self.dropping {
                self.dropping = false
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if self.unflushed {
            self.unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only answers of requests passed on come through here (this handler's own answers start
        // at the next handler).
        if case .end = self.unwrapOutboundIn(data) { self.passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// Whether a request may be answered here: not `Connection: close` (compared as Hummingbird's
    /// task compares it, which then closes the connection) and no `Expect`.
    static func mayAnswer(_ request: HTTPRequest) -> Bool {
        request.headerFields[.connection] != "close" && request.headerFields[.expect] == nil
    }

    private func write(_ answer: PreparedAnswer, context: ChannelHandlerContext) {
        var headers = answer.headers
        headers[.date] = self.currentDate()
        if let server = self.answers.serverName { headers[.server] = server }
        context.write(
            self.wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))),
            promise: nil
        )
        if let body = answer.body, body.readableBytes > 0 {
            context.write(self.wrapOutboundOut(.body(body)), promise: nil)
        }
        context.write(self.wrapOutboundOut(.end(nil)), promise: nil)
        self.unflushed = true
    }

    /// The `Date` field: now, formatted once a second.
    private func currentDate() -> String {
        let second = time(nil)
        if second != self.dateSecond {
            self.dateSecond = second
            self.date = HTTPDate.format(secondsSince1970: Int64(second))
        }
        return self.date
    }
}

/// Puts an ``EventLoopAnswerHandler`` in a connection that began in hummingbird-websocket's upgrade
/// negotiation, once its first request turned out to be plain HTTP.
///
/// That channel adds Hummingbird's HTTP handlers (codec, these additional handlers, then
/// `HTTPConnectionStateHandler`) only when the first request does not upgrade. This handler is
/// added with them; at the first request part it reaches, it adds the answer handler right after
/// the state handler (where `GuardedHTTP1Channel` puts it), passes the part on (through the new
/// handler) and leaves the pipeline. A connection that upgrades never sees it.
final class EventLoopAnswerInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let answers: EventLoopAnswers
    private var installed = false

    init(answers: EventLoopAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !self.installed {
            self.installed = true
            let operations = context.pipeline.syncOperations
            if let state = try? operations.handler(type: HTTPConnectionStateHandler.self) {
                try? operations.addHandler(EventLoopAnswerHandler(answers: self.answers), position: .after(state))
            }
            context.fireChannelRead(data)
            operations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

extension HTTPServerBuilder {
    /// The guarded HTTP/1.1 channel of IntermissionHTTP; with `answers`, fresh cache entries are
    /// answered on the event loop (``EventLoopAnswerHandler``).
    static func guardedHTTP1(answers: EventLoopAnswers?, policy: ConnectionPolicy) -> HTTPServerBuilder {
        guard let answers else { return .guardedHTTP1(policy: policy) }
        return .guardedHTTP1(
            eventLoopAnswers: { @Sendable () -> any ChannelHandler in EventLoopAnswerHandler(answers: answers) },
            policy: policy
        )
    }
}
