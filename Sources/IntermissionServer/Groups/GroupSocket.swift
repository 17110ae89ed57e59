import Foundation
import GroupPlayback
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// The group hub's WebSocket endpoint, `/v1/groups/{id}`: each text message is one JSON
/// `GroupMessage`.
///
/// The first message must be `hello` (or `ping`); the hub answers `welcome` or
/// `refused`, then sends the group's state after every change.
///
/// Limits: a message over ``maximumMessageBytes`` closes the socket (the WebSocket layer refuses
/// it); a message that is not a JSON `GroupMessage` gets an `error` message and the socket stays
/// open; binary messages get an `error`.
enum GroupSocket {
    /// The largest message read.
    static let maximumMessageBytes = 64 * 1024
    /// The path prefix of group sockets.
    static let pathPrefix = "/v1/groups/"

    /// The group ID of a request path, if it is a group socket's path (without a query).
    static func groupID(path: String) -> Substring? {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path.hasPrefix(Self.pathPrefix) else { return nil }
        return path.dropFirst(Self.pathPrefix.count)
    }

    /// Decides whether an HTTP request becomes a group socket.
    static func shouldUpgrade(
        request: HTTPRequest,
        groups: GroupSessions,
        logger: Logger
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let id = request.path.flatMap(Self.groupID(path:)) else { return .dontUpgrade }
        let groupID = String(id)
        return .upgrade([:]) { inbound, outbound, _ in
            let writer = SocketWriter(outbound: outbound)
            guard GroupSessions.isValidID(id) else {
                await Self.pauseBeforeRefusing()
                await writer.send(.error(code: "bad-group-id", message: "a group ID is 1 to 64 of A-Z a-z 0-9 . _ -"))
                try? await outbound.close(.policyViolation, reason: "bad group ID")
                return
            }
            guard let session = groups.arrive(at: groupID) else {
                await Self.pauseBeforeRefusing()
                await writer.send(
                    .error(code: "too-many-groups", message: "the server holds \(GroupSessions.maximumGroups) groups")
                )
                try? await outbound.close(.unknown(1013), reason: "too many groups")  // 1013: try again later
                return
            }
            var arriving = true
            var participant: String?
            defer {
                if arriving { groups.arrived(at: session) }
            }
            do {
                for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
                    let receivedAt = groups.clock.now()
                    guard case .text(let text) = message else {
                        await writer.send(.error(code: "not-text", message: "messages are JSON text"))
                        continue
                    }
                    let decoded: GroupMessage
                    do {
                        decoded = try JSONDecoder().decode(GroupMessage.self, from: Data(text.utf8))
                    } catch {
                        await writer.send(.error(code: "bad-message", message: Self.describe(error)))
                        continue
                    }
                    if let participant {
                        await session.handle(decoded, from: participant, receivedAt: receivedAt)
                        continue
                    }
                    switch decoded {
                    case .hello(let id, let description, let policy):
                        let send: GroupSession.Send = { await writer.send($0) }
                        if await session.join(participantID: id, description: description, policy: policy, send: send) {
                            participant = id
                            arriving = false
                            groups.arrived(at: session)
                        }
                    case .ping(let sent):
                        await writer.send(.pong(sent: sent, hubReceived: receivedAt, hubSent: groups.clock.now()))
                    default:
                        await writer.send(.error(code: "not-joined", message: "send hello first"))
                    }
                }
            } catch {
                logger.debug("group socket ended", metadata: ["group": "\(groupID)", "error": "\(error)"])
            }
            if let participant {
                await session.leave(participantID: participant)
                groups.forgetIfEmpty(session)
            }
        }
    }

    /// How long a refusal waits after the upgrade before it is sent.
    static let refusalPause = Duration.milliseconds(500)

    /// Waits ``refusalPause`` before a refusal that is sent without the client having said
    /// anything.
    ///
    /// Frames the server writes right after its `101` answer can reach the client in the same read
    /// as that answer, and WebSocket clients have lost such frames while still parsing HTTP (seen
    /// here on a loaded machine with HummingbirdWSClient: the client then waited for ever). Every
    /// other message the hub sends answers one from the client, so only refusals need the pause.
    static func pauseBeforeRefusing() async {
        try? await Task.sleep(for: Self.refusalPause)
    }

    /// A decoding error in the server's usual words (`ConfigurationFile.describe`), cut to a bounded
    /// length: a key from the message may be long.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a JSON group message" }
        return String(ConfigurationFile.describe(error).prefix(400))
    }
}

/// Writes JSON messages to one socket, one at a time (an actor, so broadcasts from several
/// participants' tasks do not interleave frames).
actor SocketWriter {
    let outbound: WebSocketOutboundWriter
    let encoder = JSONEncoder()

    init(outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    /// Sends a message; a closed socket is ignored (its reader ends the session).
    func send(_ message: GroupMessage) async {
        guard let data = try? self.encoder.encode(message) else { return }
        try? await self.outbound.writeTextMessage(String(decoding: data, as: UTF8.self))
    }
}
