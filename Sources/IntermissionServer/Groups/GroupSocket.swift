import Foundation
import GroupCoordination
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
/// it); a message that is not a JSON `GroupMessage`, or has a field over its bound
/// (`GroupMessage.fieldProblem`), gets an `error` message and the socket stays open; binary
/// messages get an `error`. The deadlines, rates and queue of ``GroupLimits`` apply: a socket that
/// has not joined by `helloTimeout` is closed; messages over the rate get a `rate-limited` error,
/// and a socket that keeps sending them is closed; a socket that does not read what it is sent is
/// closed (``GroupConnection``).
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
        channel: any Channel,
        groups: GroupSessions,
        logger: Logger
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let id = request.path.flatMap(Self.groupID(path:)) else { return .dontUpgrade }
        let groupID = String(id)
        let limits = groups.limits
        return .upgrade([:]) { inbound, outbound, _ in
            let connection = GroupConnection(
                channel: channel,
                address: limits.address(of: request, connection: channel.remoteAddress?.ipAddress),
                capacity: limits.sendQueue,
                writeTimeout: limits.writeTimeout,
                clock: groups.timer
            )
            let refusal = await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await connection.drain(to: outbound) }
                let refusal = await Self.serve(
                    connection,
                    inbound: inbound,
                    groupID: groupID,
                    groups: groups,
                    logger: logger
                )
                connection.finish()
                return refusal
            }
            if let refusal { try? await outbound.close(refusal.code, reason: refusal.reason) }
        }
    }

    /// Reads a socket's messages and hands them to its group, within the socket's limits
    /// (`GroupSocketGuard`): a socket that has not joined by the hello deadline is closed.
    ///
    /// - Returns: The close code and reason of a socket the server ends (a bad group ID, too many
    ///   groups, too many messages), sent once its last messages are written.
    static func serve(
        _ connection: GroupConnection,
        inbound: WebSocketInboundStream,
        groupID: String,
        groups: GroupSessions,
        logger: Logger
    ) async -> (code: WebSocketErrorCode, reason: String)? {
        guard GroupSessions.isValidID(groupID[...]) else {
            await Self.pauseBeforeRefusing(on: groups.timer)
            connection.send(.error(code: "bad-group-id", message: "a group ID is 1 to 64 of A-Z a-z 0-9 . _ -"))
            return (.policyViolation, "bad group ID")
        }
        guard let session = groups.arrive(at: groupID) else {
            await Self.pauseBeforeRefusing(on: groups.timer)
            connection.send(
                .error(code: "too-many-groups", message: "the server holds \(GroupSessions.maximumGroups) groups")
            )
            return (.unknown(1013), "too many groups")  // 1013: try again later
        }
        var socketGuard = GroupSocketGuard(limits: groups.limits.socketGuard, opened: groups.clock.now())
        let (timer, helloTimeout) = (groups.timer, groups.limits.helloTimeout)
        // Owned by this socket: cancelled once it joins, and when it ends (`defer`).
        let helloTimer = Task {
            try await timer.sleep(for: helloTimeout)
            logger.debug("group socket did not say hello in time", metadata: ["group": "\(groupID)"])
            connection.close()
        }
        var participant: String?
        var closing: (code: WebSocketErrorCode, reason: String)?
        defer {
            helloTimer.cancel()
            if participant == nil { groups.arrived(at: session) }
        }
        do {
            reading: for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
                let receivedAt = groups.clock.now()
                switch socketGuard.message(at: receivedAt) {
                case .take:
                    break
                case .refuse(let answer):
                    connection.send(answer)
                    continue
                case .close(let reason):
                    logger.debug("group socket closed", metadata: ["group": "\(groupID)", "reason": "\(reason)"])
                    connection.send(.error(code: "closing", message: reason))
                    closing = (.policyViolation, reason)
                    break reading
                }
                guard case .text(let text) = message else {
                    connection.send(.error(code: "not-text", message: "messages are JSON text"))
                    continue
                }
                let decoded: GroupMessage
                do {
                    decoded = try JSONDecoder().decode(GroupMessage.self, from: Data(text.utf8))
                } catch {
                    connection.send(.error(code: "bad-message", message: Self.describe(error)))
                    continue
                }
                if let problem = decoded.fieldProblem {
                    connection.send(.error(code: "field-too-long", message: problem))
                    continue
                }
                if let participant {
                    await session.handle(decoded, from: participant, on: connection, receivedAt: receivedAt)
                    continue
                }
                switch decoded {
                case .hello(let id, let description, let policy, let secret):
                    let admitted = await session.join(
                        participantID: id,
                        description: description,
                        policy: policy,
                        secret: secret,
                        connection: connection
                    )
                    if admitted {
                        participant = id
                        helloTimer.cancel()
                        groups.arrived(at: session)
                    }
                case .ping(let sent):
                    connection.send(.pong(sent: sent, hubReceived: receivedAt, hubSent: groups.clock.now()))
                default:
                    connection.send(.error(code: "not-joined", message: "send hello first"))
                }
            }
        } catch {
            logger.debug("group socket ended", metadata: ["group": "\(groupID)", "error": "\(error)"])
        }
        if let participant {
            await session.leave(participantID: participant, connection: connection)
            groups.forgetIfEmpty(session)
        }
        return closing
    }

    /// How long a refusal waits after the upgrade before it is sent.
    static let refusalPause = Duration.milliseconds(500)

    /// Waits ``refusalPause`` on `clock` before a refusal that is sent without the client having
    /// said anything.
    ///
    /// Frames the server writes right after its `101` answer can reach the client in the same read
    /// as that answer, and WebSocket clients have lost such frames while still parsing HTTP (seen
    /// here on a loaded machine with HummingbirdWSClient: the client then waited for ever). Every
    /// other message the hub sends answers one from the client, so only refusals need the pause.
    static func pauseBeforeRefusing(on clock: ElapsedClock) async {
        try? await clock.sleep(for: Self.refusalPause)
    }

    /// A decoding error in the server's usual words (`ConfigurationFile.describe`), cut to a bounded
    /// length: a key from the message may be long.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a JSON group message" }
        return String(ConfigurationFile.describe(error).prefix(400))
    }
}
