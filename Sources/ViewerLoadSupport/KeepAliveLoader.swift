import HLSPlaylist
import HTTPFetch
import InterstitialPlayback
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A loader for thousands of players in one process: plain-HTTP/1.1 keep-alive connections, on
/// one SwiftNIO event loop, with nothing between a player's request and the socket but the HTTP
/// codec.
///
/// InterstitialPlayback's `HTTPResourceLoader` (AsyncHTTPClient) does everything a player may
/// meet: TLS, redirects, any origin. Holding many live viewers as a load generator, its connection
/// pool, request objects and body stream cost more CPU than the player itself. This loader keeps
/// what a load against one origin needs: up to ``connectionsPerOrigin`` connections per host and
/// port, each reused for one request after another, the same per-request deadline, body limit and
/// `X-PLAYBACK-SESSION-ID` header. What it does not do it hands to ``fallback``: `https` URLs and
/// redirects (a 3xx answer is asked again through the fallback, which follows it).
///
/// Run the players on the same event loop (install `MultiThreadedEventLoopGroup.singleton` as Swift
/// Concurrency's global executor, and give the players a clock that sleeps on that loop) and a
/// request, its answer and the player's next step never wait for a thread switch; the loader works
/// from any thread, at the cost of a hop.
///
/// A request that fails on a connection kept from an earlier answer before any of its answer came
/// back (the server closed the idle connection meanwhile) is sent once more on a new connection.
public final class KeepAliveLoader: ResourceLoader {
    /// The event loop the connections live on.
    public let eventLoop: any EventLoop
    /// The most connections open at once to one host and port; further requests wait for one.
    public let connectionsPerOrigin: Int
    /// The `User-Agent` sent.
    public let userAgent: String
    /// Where `https` URLs and redirects go.
    public let fallback: any ResourceLoader
    private let pools: NIOLoopBoundBox<Pools>

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - eventLoop: The loop the connections live on.
    ///   - connectionsPerOrigin: The most connections to one host and port (at least 1).
    ///   - userAgent: The `User-Agent` of every request.
    ///   - fallback: The loader for `https` URLs and redirects.
    public init(
        eventLoop: any EventLoop,
        connectionsPerOrigin: Int = 64,
        userAgent: String = "intermission-player/0.1",
        fallback: any ResourceLoader = HTTPResourceLoader()
    ) {
        self.eventLoop = eventLoop
        self.connectionsPerOrigin = max(1, connectionsPerOrigin)
        self.userAgent = userAgent
        self.fallback = fallback
        self.pools = .makeBoxSendingValue(
            Pools(limit: self.connectionsPerOrigin, loop: eventLoop),
            eventLoop: eventLoop
        )
    }

    deinit {
        // The connections waiting for a request close; those under way finish their answer first.
        let pools = self.pools
        self.eventLoop.execute { pools.value.closeIdle() }
    }

    /// Loads one resource on a kept connection to its origin (a new one while fewer than
    /// ``connectionsPerOrigin`` are open, else the next one free).
    ///
    /// - Parameters:
    ///   - request: What to load; `https` URLs go to ``fallback``, and so does a 3xx answer.
    ///   - sessionID: The playback session's ID, sent as `X-PLAYBACK-SESSION-ID`.
    /// - Returns: The answer (any status), or why there is none: `invalidURL`, `timeout` (no
    ///   complete answer by the request's deadline), `bodyTooLarge`, `transport`, `cancelled`.
    public func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        guard let target = Target(request.url) else {
            if request.url.hasPrefix("https://") { return await self.fallback.load(request, sessionID: sessionID) }
            return .failure(
                PlaybackError(code: .invalidURL, message: "not an absolute http URL", url: request.url)
            )
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(5)
        headers.add(name: "Host", value: target.hostField)
        headers.add(name: "User-Agent", value: self.userAgent)
        headers.add(name: "X-PLAYBACK-SESSION-ID", value: sessionID)
        if let range = request.byteRange { headers.add(name: "Range", value: range.rangeField) }
        let started = ContinuousClock.now
        // The default loader's bounds (1 ms to 1 hour), through the same saturating conversion.
        let nanoseconds = MediaTime(FetchRequest.clamp(request.timeout)).nanoseconds
        let outcome = Outcome(self.eventLoop.makePromise(of: Exchange.Answer.self))
        let exchange = Exchange(
            head: HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers),
            maximumBodySize: max(0, request.maximumBodySize),
            keepsBody: request.keepsBody,
            deadline: .now() + .nanoseconds(nanoseconds),
            outcome: outcome
        )
        let pools = self.pools
        if self.eventLoop.inEventLoop {
            pools.value.start(exchange, at: target.origin)
        } else {
            self.eventLoop.execute { pools.value.start(exchange, at: target.origin) }
        }
        let answer: Exchange.Answer
        do {
            answer = try await withTaskCancellationHandler {
                try await outcome.promise.futureResult.get()
            } onCancel: {
                outcome.fail(ExchangeError(code: .cancelled, message: "the request was cancelled"))
            }
        } catch let error as ExchangeError {
            return .failure(PlaybackError(code: error.code, message: error.message, url: request.url))
        } catch {
            return .failure(PlaybackError(code: .transport, message: "\(error)", url: request.url))
        }
        if (300..<400).contains(answer.status) {
            return await self.fallback.load(request, sessionID: sessionID)
        }
        return .success(
            LoadResponse(
                status: answer.status,
                body: answer.body,
                byteCount: answer.byteCount,
                elapsed: ContinuousClock.now - started
            )
        )
    }

    /// The connections open or opening, and the requests queued for a connection (one cancelled
    /// or timed out while queued stays counted until it is passed over), over every origin, as the
    /// loop sees them now.
    ///
    /// For the tests, which wait for a state instead of a time: a connection the server closed
    /// has left `open` once the loop saw it close, and a request waits once it is queued.
    package func census() async throws -> (open: Int, waiting: Int) {
        let pools = self.pools
        return try await self.eventLoop.submit {
            pools.value.pools.values.reduce(into: (open: 0, waiting: 0)) { sum, pool in
                sum.open += pool.open
                sum.waiting += pool.waiting.count - pool.waitingStart
            }
        }.get()
    }

    /// What a failed exchange says.
    struct ExchangeError: Error {
        var code: PlaybackError.Code
        var message: String
    }

    /// An absolute `http` URL, taken apart.
    struct Target {
        /// The host and port connected to.
        var origin: Origin
        /// The `Host` field: the authority as written.
        var hostField: String
        /// The path and query sent in the request line (`/` when the URL has none).
        var path: String

        init?(_ url: String) {
            guard url.utf8.starts(with: "http://".utf8) else { return nil }
            let rest = url.utf8.dropFirst(7)
            let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            let authority = Substring(rest[..<(end ?? rest.endIndex)])
            guard !authority.isEmpty, !authority.contains("@") else { return nil }
            var path = end.map { String(Substring(rest[$0...])) } ?? "/"
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            guard path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            var host = authority
            var port = 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                    port = number
                }
            } else if let colon = authority.lastIndex(of: ":") {
                guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
                host = authority[..<colon]
                port = number
            }
            guard !host.isEmpty, host.utf8.count <= 253, (1...65535).contains(port),
                host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
            else { return nil }
            self.origin = Origin(host: String(host), port: port)
            self.hostField = String(authority)
            self.path = path
        }
    }

    /// A host and port.
    struct Origin: Hashable, Sendable {
        var host: String
        var port: Int
    }

    /// Where a request's answer goes: settled once, by whichever comes first (the answer, a
    /// failure, its deadline, the caller's cancellation); the later ones change nothing.
    final class Outcome: Sendable {
        let promise: EventLoopPromise<Exchange.Answer>
        private let settled = Atomic<Bool>(false)

        init(_ promise: EventLoopPromise<Exchange.Answer>) {
            self.promise = promise
        }

        /// Whether the answer or a failure was given already.
        var isSettled: Bool { self.settled.load(ordering: .acquiring) }

        func succeed(_ answer: Exchange.Answer) {
            guard !self.settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self.promise.succeed(answer)
        }

        func fail(_ error: ExchangeError) {
            guard !self.settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self.promise.fail(error)
        }
    }

    /// One request: what to send, what to accept, and where its answer goes.
    struct Exchange: Sendable {
        struct Answer: Sendable {
            var status: Int
            var body: [UInt8]
            var byteCount: Int
        }

        var head: HTTPRequestHead
        var maximumBodySize: Int
        var keepsBody: Bool
        var deadline: NIODeadline
        var outcome: Outcome
        /// Whether it was already sent once on a kept connection that then failed.
        var retried = false
    }

    /// The connections of every origin; used on the event loop only.
    final class Pools {
        let limit: Int
        let loop: any EventLoop
        var pools: [Origin: Pool] = [:]

        init(limit: Int, loop: any EventLoop) {
            self.limit = limit
            self.loop = loop
        }

        func start(_ exchange: Exchange, at origin: Origin) {
            let pool: Pool
            if let known = self.pools[origin] {
                pool = known
            } else {
                pool = Pool(origin: origin, limit: self.limit, loop: self.loop)
                self.pools[origin] = pool
            }
            pool.start(exchange)
        }

        func closeIdle() {
            for pool in self.pools.values {
                for connection in pool.idle { connection.close() }
                pool.limit = 0
            }
        }
    }

    /// The connections to one origin; used on the event loop only.
    final class Pool {
        let origin: Origin
        /// The most connections (0 once the loader is gone: those under way close after their answer).
        var limit: Int
        let loop: any EventLoop
        /// Connections waiting for a request, the most recently used last.
        var idle: [ExchangeHandler] = []
        /// Connections open or opening.
        var open = 0
        /// Requests waiting for a connection, oldest first.
        var waiting: [Exchange] = []
        var waitingStart = 0

        init(origin: Origin, limit: Int, loop: any EventLoop) {
            self.origin = origin
            self.limit = limit
            self.loop = loop
        }

        func start(_ exchange: Exchange) {
            while let connection = self.idle.popLast() {
                if connection.isUsable {
                    connection.send(exchange, reused: true)
                    return
                }
            }
            guard self.open < self.limit else {
                // Its deadline holds while it waits too: a timer fails it if no connection frees
                // up in time (once it is under way, its connection's own timer does).
                let outcome = exchange.outcome
                self.loop.scheduleTask(deadline: exchange.deadline) {
                    outcome.fail(ExchangeError(code: .timeout, message: "no connection was free in time"))
                }
                self.waiting.append(exchange)
                return
            }
            self.connect(for: exchange)
        }

        private func connect(for exchange: Exchange) {
            self.open += 1
            let handler = ExchangeHandler(pool: self)
            let loop = self.loop.assumeIsolated()
            // The channel lives on this same loop (the bootstrap's group is the loop itself).
            let bound = NIOLoopBound(handler, eventLoop: self.loop)
            let bootstrap = ClientBootstrap(group: self.loop)
                .connectTimeout(.nanoseconds(max(1, (exchange.deadline - .now()).nanoseconds)))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(bound.value)
                    }
                }
            let connecting = bootstrap.connect(host: self.origin.host, port: self.origin.port)
            connecting.assumeIsolated().whenComplete { result in
                switch result {
                case .success where exchange.outcome.isSettled:
                    self.release(handler)  // cancelled or timed out while connecting
                case .success:
                    handler.send(exchange, reused: false)
                case .failure(let error):
                    self.open -= 1
                    // Connecting took the rest of the request's deadline: a timeout, as the
                    // default loader says it.
                    let timedOut: Bool
                    if case ChannelError.connectTimeout = error { timedOut = true } else { timedOut = false }
                    exchange.outcome.fail(
                        ExchangeError(code: timedOut ? .timeout : .transport, message: "could not connect: \(error)")
                    )
                    // Those waiting try for themselves: the server may be back.
                    if let next = self.nextWaiting() { loop.execute { self.start(next) } }
                }
            }
        }

        /// The oldest waiting request still wanted: those cancelled or timed out while waiting
        /// (their outcome is settled already) are passed over.
        private func nextWaiting() -> Exchange? {
            while self.waitingStart < self.waiting.count {
                let next = self.waiting[self.waitingStart]
                self.waitingStart += 1
                if self.waitingStart > 64, self.waitingStart * 2 > self.waiting.count {
                    self.waiting.removeFirst(self.waitingStart)
                    self.waitingStart = 0
                }
                if !next.outcome.isSettled { return next }
            }
            return nil
        }

        /// A connection finished an exchange and may take another.
        func release(_ connection: ExchangeHandler) {
            if let next = self.nextWaiting() {
                connection.send(next, reused: true)
            } else {
                self.idle.append(connection)
            }
        }

        /// A connection closed.
        func closed(_ connection: ExchangeHandler) {
            self.open -= 1
            if let k = self.idle.lastIndex(where: { $0 === connection }) { self.idle.remove(at: k) }
            if let next = self.nextWaiting() { self.start(next) }
        }
    }

    /// One connection: sends a request, reads its answer, gives the connection back.
    final class ExchangeHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        /// The pool it goes back to (a connection keeps its pool alive until it closes).
        private let pool: Pool
        private var context: ChannelHandlerContext?
        private var current: Exchange?
        private var timer: Scheduled<Void>?
        private var status = 0
        private var keepAlive = true
        private var answered = false
        private var body: [UInt8] = []
        private var byteCount = 0
        private var wasReused = false
        private var closing = false

        init(pool: Pool) {
            self.pool = pool
        }

        var isUsable: Bool { self.context != nil && !self.closing }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
        }

        func send(_ exchange: Exchange, reused: Bool) {
            guard let context = self.context, !self.closing else {
                self.pool.start(exchange)
                return
            }
            self.current = exchange
            self.wasReused = reused
            self.status = 0
            self.answered = false
            self.keepAlive = true
            self.body = []
            self.byteCount = 0
            let loop = context.eventLoop.assumeIsolated()
            self.timer = loop.scheduleTask(deadline: exchange.deadline) {
                self.fail(ExchangeError(code: .timeout, message: "no complete answer in time"), context: context)
            }
            context.write(self.wrapOutboundOut(.head(exchange.head)), promise: nil)
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard let exchange = self.current else { return }
            switch self.unwrapInboundIn(data) {
            case .head(let head):
                self.answered = true
                self.status = Int(head.status.code)
                self.keepAlive = head.isKeepAlive
                if let length = head.headers.first(name: "content-length").flatMap(Int.init),
                    length > exchange.maximumBodySize
                {
                    self.fail(
                        ExchangeError(
                            code: .bodyTooLarge,
                            message: "the body is larger than \(exchange.maximumBodySize) bytes"
                        ),
                        context: context
                    )
                }
            case .body(let buffer):
                self.byteCount += buffer.readableBytes
                guard self.byteCount <= exchange.maximumBodySize else {
                    self.fail(
                        ExchangeError(
                            code: .bodyTooLarge,
                            message: "the body is larger than \(exchange.maximumBodySize) bytes"
                        ),
                        context: context
                    )
                    return
                }
                if exchange.keepsBody { self.body.append(contentsOf: buffer.readableBytesView) }
            case .end:
                self.timer?.cancel()
                self.timer = nil
                self.current = nil
                exchange.outcome.succeed(
                    Exchange.Answer(status: self.status, body: self.body, byteCount: self.byteCount)
                )
                self.body = []
                if self.keepAlive, self.pool.limit > 0 {
                    self.pool.release(self)
                } else {
                    self.closing = true
                    context.close(promise: nil)
                }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            self.fail(ExchangeError(code: .transport, message: "\(error)"), context: context)
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.closing = true
            self.timer?.cancel()
            self.timer = nil
            if var exchange = self.current {
                self.current = nil
                if self.wasReused, !self.answered, !exchange.retried, NIODeadline.now() < exchange.deadline {
                    // The server closed the kept connection as the request went out: once more, afresh.
                    exchange.retried = true
                    self.pool.closed(self)
                    self.pool.start(exchange)
                    self.context = nil
                    return
                }
                exchange.outcome.fail(
                    ExchangeError(code: .transport, message: "the connection closed before the answer ended")
                )
            }
            self.context = nil
            self.pool.closed(self)
        }

        /// Closes the connection (idle: nothing is under way).
        func close() {
            self.closing = true
            self.context?.close(promise: nil)
        }

        /// Fails the exchange under way and closes the connection (its answer is cut short).
        private func fail(_ error: ExchangeError, context: ChannelHandlerContext) {
            guard let exchange = self.current else { return }
            self.current = nil
            self.timer?.cancel()
            self.timer = nil
            exchange.outcome.fail(error)
            self.closing = true
            context.close(promise: nil)
        }
    }
}
