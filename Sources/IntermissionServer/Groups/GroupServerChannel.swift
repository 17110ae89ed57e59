import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1.1 channel that can upgrade to a WebSocket (for the group hub), with the same
/// decoder limits and JSON refusals as ``GuardedHTTP1Channel``.
///
/// A request that asks to upgrade on a path other than `/v1/groups/{id}` is answered `400` by
/// hummingbird-websocket with an empty body (its failed-upgrade answer cannot be changed from
/// outside); every other request is served as by ``GuardedHTTP1Channel``.
struct GuardedWebSocketChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        self.base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try DecoderErrorResponder.install(in: channel.pipeline.syncOperations)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await self.base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the limits of ``InputLimits``, JSON answers for requests the decoder refuses, and
    /// WebSocket upgrades for the group hub.
    static func guardedHTTP1(groups: GroupSessions, logger: Logger) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedWebSocketChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(
                        http1: .init(httpDecoderConfiguration: InputLimits.decoder),
                        ws: .init(maxFrameSize: GroupSocket.maximumMessageBytes)
                    ),
                    shouldUpgrade: { request, _, _ in
                        GroupSocket.shouldUpgrade(request: request, groups: groups, logger: logger)
                    }
                )
            )
        }
    }
}
