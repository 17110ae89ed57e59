import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Measures the request line of the message being received, so that a head too large for the
/// decoder can be told apart: `414` when the request line alone is too long, `431` when the header
/// fields are; and keeps the connection's deadlines (``ConnectionPolicy``).
///
/// Sits first in the pipeline, before the HTTP decoder, and only counts bytes up to the first line
/// feed of each message. With requests pipelined into one read the count can be wrong (and the
/// status `431` instead of `414`); the answer is a refusal either way.
///
/// The deadlines: a request head must arrive whole within the request-head timeout, counted from the
/// connection's start and from the first byte of each later request (a client that connects and
/// says nothing, or sends its head a byte at a time, holds no connection past it); and an answer the
/// client does not read (the connection not writable) is given up after the idle timeout. Once a
/// connection has become a WebSocket, only the second applies.
package final class RequestLineTracker: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// Bytes of the current message's request line received so far (without its line feed).
    package var requestLineBytes = 0
    /// Whether the request line's line feed has arrived.
    package var requestLineEnded = false
    /// Set once a refusal is answered: what the client still sends is dropped unread (so closing
    /// the connection does not reset it before the client has read the answer).
    package var discarding = false
    /// Whether a whole request head has been decoded on the connection (set by
    /// ``DecoderErrorResponder``).
    package var sawRequestHead = false
    /// Whether the current message's head has been decoded (set by ``headReceived()``).
    private var headDecoded = false
    /// How long a request head may take; `nil`: no deadline.
    private let headTimeout: TimeAmount?
    /// How long the connection may stay not writable; `nil`: no deadline.
    private let stalledWriteTimeout: TimeAmount?
    /// Closes the connection when the head in progress misses its deadline.
    private var headTimer: Scheduled<Void>?
    /// Closes the connection when the client has not read for too long.
    private var writeTimer: Scheduled<Void>?

    /// A tracker with the given deadlines (none by default).
    package init(headTimeout: TimeAmount? = nil, stalledWriteTimeout: TimeAmount? = nil) {
        self.headTimeout = headTimeout
        self.stalledWriteTimeout = stalledWriteTimeout
    }

    /// Starts on the next message.
    package func reset() {
        self.requestLineBytes = 0
        self.requestLineEnded = false
        self.headDecoded = false
    }

    /// The current message's head has been decoded: its deadline no longer applies.
    package func headReceived() {
        self.sawRequestHead = true
        self.headDecoded = true
        self.headTimer?.cancel()
        self.headTimer = nil
    }

    /// Whether the request line is longer than ``HTTPLimits/requestTargetBytes``.
    package var requestLineTooLong: Bool { self.requestLineBytes > HTTPLimits.requestTargetBytes }

    package func handlerAdded(context: ChannelHandlerContext) {
        // The first request's deadline runs from the connection's start.
        self.armHeadTimer(context: context)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.cancelTimers()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        self.cancelTimers()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.discarding else { return }
        if !self.requestLineEnded {
            let view = self.unwrapInboundIn(data).readableBytesView
            if self.requestLineBytes == 0, !self.headDecoded, !view.isEmpty {
                // The first byte of a message: its head's deadline starts (if it is not running).
                self.armHeadTimer(context: context)
            }
            if let feed = view.firstIndex(of: UInt8(ascii: "\n")) {
                self.requestLineBytes += view.distance(from: view.startIndex, to: feed)
                self.requestLineEnded = true
            } else {
                self.requestLineBytes += view.count
            }
        }
        context.fireChannelRead(data)
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.writeTimer?.cancel()
            self.writeTimer = nil
        } else if self.writeTimer == nil, let timeout = self.stalledWriteTimeout {
            let channel = context.channel
            self.writeTimer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    private func armHeadTimer(context: ChannelHandlerContext) {
        guard self.headTimer == nil, let timeout = self.headTimeout else { return }
        let channel = context.channel
        self.headTimer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    private func cancelTimers() {
        self.headTimer?.cancel()
        self.headTimer = nil
        self.writeTimer?.cancel()
        self.writeTimer = nil
    }
}

/// Answers requests the HTTP decoder refuses (before any routing) with the same JSON error body as
/// every other error, then closes the connection: `414` for a request target over
/// ``HTTPLimits/requestTargetBytes`` bytes, `431` for header fields over the limits, `400` for an
/// unknown method or anything else malformed.
///
/// Sits right after the decoder. Without it, Hummingbird answers a bare `400` with no body.
package final class DecoderErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    private let tracker: RequestLineTracker
    private var answered = false

    package init(tracker: RequestLineTracker) {
        self.tracker = tracker
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = self.unwrapInboundIn(data)
        switch part {
        case .head: self.tracker.headReceived()
        case .end: self.tracker.reset()
        case .body: break
        }
        context.fireChannelRead(data)
        // A WebSocket upgrade request: the decoder is about to leave the pipeline, and what follows
        // are WebSocket frames, which this handler must not see.
        if case .head(let head) = part,
            head.headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" })
        {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !self.answered else { return }
        self.answered = true
        self.tracker.discarding = true
        let (status, code, message) = Self.answer(parserError, requestLineTooLong: self.tracker.requestLineTooLong)
        let body = APIError.body(status: status, code: code, message: message)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: Int(status.code)),
            headers: headers
        )
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: written)
        // Half-close first, so the client reads the whole answer; the connection closes when the
        // client closes its side, or after five seconds.
        let channel = context.channel
        written.futureResult.whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        }
    }

    /// Puts the request-line tracker first in a pipeline and a responder right after its HTTP
    /// decoder, so requests the decoder refuses get a JSON answer; returns the tracker.
    ///
    /// With `policy`, the tracker keeps its request-head and stalled-write deadlines.
    @discardableResult
    package static func install(
        in operations: ChannelPipeline.SynchronousOperations,
        policy: ConnectionPolicy? = nil
    ) throws -> RequestLineTracker {
        let tracker = RequestLineTracker(
            headTimeout: policy?.requestHeadTimeout,
            stalledWriteTimeout: policy?.idleTimeout
        )
        try operations.addHandler(tracker, position: .first)
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try operations.addHandler(DecoderErrorResponder(tracker: tracker), position: .after(decoder))
        return tracker
    }

    /// The status, code and message for a decoder error.
    package static func answer(
        _ error: HTTPParserError,
        requestLineTooLong: Bool
    ) -> (HTTPResponse.Status, String, String) {
        switch error {
        case .headerOverflow where requestLineTooLong:
            return (
                .uriTooLong, "uriTooLong", "the request target is longer than \(HTTPLimits.requestTargetBytes) bytes"
            )
        case .headerOverflow:
            return (
                .requestHeaderFieldsTooLarge, "headersTooLarge",
                "the header fields are too large (at most \(HTTPLimits.headerFieldCount) fields, \(HTTPLimits.headerFieldBytes) bytes each, \(HTTPLimits.headerBlockBytes) bytes in all)"
            )
        case .invalidMethod:
            return (.badRequest, "badRequest", "unknown or malformed request method")
        default:
            return (.badRequest, "badRequest", "malformed HTTP request (\(error))")
        }
    }
}

/// Hummingbird's HTTP/1.1 channel with the decoder limits of ``HTTPLimits`` and the two handlers
/// above, so requests refused before routing get a JSON answer too; with `eventLoopAnswers`, some
/// requests are answered on the event loop before routing (the server's fresh cache entries).
package struct GuardedHTTP1Channel: ServerChildChannel {
    package typealias Value = HTTP1Channel.Value

    package let base: HTTP1Channel
    /// Makes a connection's handler that answers some requests on the event loop, placed right
    /// after Hummingbird's connection state handler; `nil` for none.
    package let eventLoopAnswers: (@Sendable () -> any ChannelHandler)?
    /// The connection cap and deadlines.
    package let policy: ConnectionPolicy

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard self.policy.gate.admit(channel) else {
            return channel.eventLoop.makeFailedFuture(ConnectionRefusedAtCap())
        }
        return self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            try DecoderErrorResponder.install(in: operations, policy: self.policy)
            if let makeHandler = self.eventLoopAnswers {
                let state = try operations.handler(type: HTTPConnectionStateHandler.self)
                try operations.addHandler(makeHandler(), position: .after(state))
            }
            return value
        }
    }

    package func handle(value: Value, logger: Logger) async {
        await self.base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the limits of ``HTTPLimits`` and JSON answers for requests the decoder refuses;
    /// with `eventLoopAnswers`, a handler of each connection answers some requests on the event loop.
    ///
    /// `policy` caps the
    /// connections and sets their deadlines (by default: the automatic cap, no idle timeout).
    package static func guardedHTTP1(
        eventLoopAnswers: (@Sendable () -> any ChannelHandler)? = nil,
        policy: ConnectionPolicy = .standard()
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                base: HTTP1Channel(
                    responder: responder,
                    configuration: .init(
                        idleTimeout: policy.idleTimeout,
                        httpDecoderConfiguration: HTTPLimits.decoder
                    )
                ),
                eventLoopAnswers: eventLoopAnswers,
                policy: policy
            )
        }
    }
}
