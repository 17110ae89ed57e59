import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import IntermissionHTTP
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Hummingbird's HTTP/1.1 channel that can upgrade to a WebSocket (for the group hub), with the same
/// decoder limits and JSON refusals as IntermissionHTTP's `GuardedHTTP1Channel`.
///
/// A request that asks to upgrade on a path other than `/v1/groups/{id}` is answered `400` by
/// hummingbird-websocket with an empty body (its failed-upgrade answer cannot be changed from
/// outside); every other request is served as by `GuardedHTTP1Channel`.
struct GuardedWebSocketChannel: ServerChildChannel {
    /// The upgrade channel's value and the connection's request-line tracker.
    struct Value: ServerChildChannelValue {
        let base: HTTP1WebSocketUpgradeChannel.Value
        /// Touched only on the channel's event loop.
        let tracker: NIOLoopBound<RequestLineTracker>

        var channel: any Channel { self.base.channel }
    }

    let base: HTTP1WebSocketUpgradeChannel
    /// The connection cap and deadlines: until its first request head has arrived, a connection
    /// waits in hummingbird-websocket's upgrade negotiation, which starts its idle timer only once a
    /// request is known not to upgrade, so the request-head deadline is what closes a silent one.
    let policy: ConnectionPolicy

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard self.policy.gate.admit(channel) else {
            return channel.eventLoop.makeFailedFuture(ConnectionRefusedAtCap())
        }
        return self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let tracker = NIOLoopBound(
                try DecoderErrorResponder.install(in: channel.pipeline.syncOperations, policy: self.policy),
                eventLoop: channel.eventLoop
            )
            return Value(base: value, tracker: tracker)
        }
    }

    /// Serves the connection.
    ///
    /// Until its first request arrives, a connection waits in hummingbird-websocket's upgrade
    /// negotiation, which does not watch for a graceful shutdown: a client that connected and sent
    /// nothing (or half a request head) would hold the shutdown forever. On shutdown such a
    /// connection is closed here; once a request head has arrived, Hummingbird's HTTP handling (or
    /// the group socket) finishes it as usual.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        let tracker = value.tracker
        await withGracefulShutdownHandler {
            await self.base.handle(value: value.base, logger: Self.quietingUnusedConnections(logger))
        } onGracefulShutdown: {
            channel.eventLoop.execute {
                if !tracker.value.sawRequestHead { channel.close(promise: nil) }
            }
        }
    }

    /// `logger`, except that a connection closed before its first request (a browser's preconnect,
    /// a load balancer's health probe, a client shut down) is logged at `debug`, not as an error:
    /// hummingbird-websocket reports it as a failed upgrade (`inappropriateOperationForState`).
    static func quietingUnusedConnections(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.handler = UnusedConnectionLogHandler(base: logger.handler)
        return quiet
    }
}

/// Forwards to another log handler, lowering hummingbird-websocket's error for a connection that
/// closed before sending a request to `debug`.
struct UnusedConnectionLogHandler: LogHandler {
    var base: any LogHandler

    var logLevel: Logger.Level {
        get { self.base.logLevel }
        set { self.base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { self.base.metadata }
        set { self.base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { self.base.metadataProvider }
        set { self.base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.base[metadataKey: key] }
        set { self.base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, event.message.description == "Error handling upgrade result",
            case .string(let type) = event.metadata?["error.type"],
            type == "\(ChannelError.inappropriateOperationForState)"
        {
            guard self.base.logLevel <= .debug else { return }
            event.level = .debug
        }
        self.base.log(event: event)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the limits of ``InputLimits``, JSON answers for requests the decoder refuses, and
    /// WebSocket upgrades for the group hub.
    static func guardedHTTP1(
        groups: GroupSessions,
        answers: EventLoopAnswers,
        policy: ConnectionPolicy,
        logger: Logger
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedWebSocketChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(
                        http1: .init(
                            additionalChannelHandlers: [EventLoopAnswerInstaller(answers: answers)],
                            idleTimeout: policy.idleTimeout,
                            httpDecoderConfiguration: HTTPLimits.decoder
                        ),
                        ws: .init(
                            maxFrameSize: GroupSocket.maximumMessageBytes,
                            autoPing: .enabled(timePeriod: groups.limits.pingInterval)
                        )
                    ),
                    shouldUpgrade: { request, channel, _ in
                        GroupSocket.shouldUpgrade(request: request, channel: channel, groups: groups, logger: logger)
                    }
                ),
                policy: policy
            )
        }
    }
}
