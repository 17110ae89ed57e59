import Foundation
import GroupPlayback
import Hummingbird
import IntermissionHTTP
import Logging
import NIOCore

/// The HTTP face of a headless receiver, GroupPlayback's `Receiver` (`intermission receiver`).
///
/// It lives here rather than in GroupPlayback because it needs the Hummingbird server (through
/// IntermissionHTTP, the package's HTTP plumbing, shared with the ad-insertion server); the sender
/// side (`ReceiverClient`) stays in GroupPlayback.
///
/// ```
/// POST /v1/receiver/session     a ReceiverSession (JSON): hand over and start playing
/// POST /v1/receiver/commands    a ReceiverCommand: {"command":"seek","time":12} -> ReceiverReply
/// GET  /v1/receiver/events      ?after=N&wait=S: the events numbered above N (long poll, S <= 30)
/// GET  /v1/receiver/state       what it plays now
/// GET  /health
/// ```
///
/// Bad input is answered `4xx` with the server's JSON error shape
/// (`{"error":{"status":400,"code":"invalidInput","message":"...","field":"position"}}`).
///
/// Every request must pass ``ReceiverAccess``: a `Host` naming the receiver, no foreign `Origin`,
/// the token in `Authorization: Bearer` (all but `/health`), and JSON `POST` bodies.
///
/// - Parameters:
///   - receiver: The receiver served.
///   - access: Who may talk to it (the senders' token, further host names).
///   - hostname: The address to listen on.
///   - port: The port (0 picks a free one).
///   - logger: The server's logger.
///   - onRunning: Called with the bound port once the server listens.
public func buildReceiverApplication(
    receiver: Receiver,
    access: ReceiverAccess,
    hostname: String = "127.0.0.1",
    port: Int = 0,
    logger: Logger = Logger(label: "intermission.receiver"),
    onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router(context: ServerRequestContext.self)
    router.add(middleware: JSONErrorMiddleware())
    let bound = BoundPort()
    router.add(middleware: ReceiverAccessMiddleware(access: access, hostname: hostname, port: bound))
    ReceiverController(receiver: receiver).addRoutes(to: router)
    return Application(
        router: router,
        // The main server's HTTP decoder limits, with requests it refuses answered in JSON too.
        server: .guardedHTTP1(),
        configuration: ApplicationConfiguration(
            address: .hostname(hostname, port: port),
            serverName: "intermission-receiver"
        ),
        onServerRunning: { channel in
            let listening = channel.localAddress?.port ?? port
            bound.set(listening)
            await onRunning(listening)
        },
        logger: logger
    )
}

/// The receiver's routes.
struct ReceiverController {
    let receiver: Receiver

    /// The longest long poll, in seconds.
    static let maximumWait = 30.0

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("health") { _, _ in Self.jsonText(#"{"status":"ok"}"#) }
        router.post("v1/receiver/session") { request, _ in
            let bytes = try await Self.body(request, limit: ReceiverSession.Limits.documentBytes)
            let session = try Self.checked { () throws(ReceiverError) in try ReceiverSession.decode(bytes) }
            await self.receiver.start(session)
            return try Self.json(await self.receiver.state())
        }
        router.post("v1/receiver/commands") { request, _ in
            let bytes = try await Self.body(request, limit: ReceiverCommand.maximumDocumentBytes)
            let command = try Self.checked { () throws(ReceiverError) in try ReceiverCommand.decode(bytes) }
            let reply: ReceiverReply
            do {
                reply = try await self.receiver.perform(command)
            } catch let error as ReceiverError {
                throw Self.apiError(error)
            }
            return try Self.json(reply)
        }
        router.get("v1/receiver/events") { request, _ in
            let query = request.uri.queryParameters
            let after = try Self.number(query.get("after"), field: "after", range: 0...Double(Int64.max / 2)) ?? 0
            let wait = try Self.number(query.get("wait"), field: "wait", range: 0...Self.maximumWait) ?? 0
            let events = await self.receiver.events(after: Int(after), waitingUpTo: .milliseconds(Int64(wait * 1000)))
            return try Self.json(events)
        }
        router.get("v1/receiver/state") { _, _ in try Self.json(await self.receiver.state()) }
    }

    /// A query number in `range`, or `nil` when absent.
    static func number(_ text: String?, field: String, range: ClosedRange<Double>) throws -> Double? {
        guard let text else { return nil }
        guard text.utf8.count <= 20, let value = Double(text), value.isFinite, range.contains(value) else {
            var error = APIError.badRequest(
                "\(field) must be a number from \(Int64(range.lowerBound)) to \(Int64(range.upperBound))"
            )
            error.field = field
            throw error
        }
        return value
    }

    /// The body, at most `limit` bytes (`413` beyond).
    static func body(_ request: Request, limit: Int) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "tooLarge", message: "the body is larger than \(limit) bytes")
        }
    }

    static func checked<T>(_ body: () throws(ReceiverError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw Self.apiError(error)
        }
    }

    static func apiError(_ error: ReceiverError) -> APIError {
        let status: HTTPResponse.Status =
            switch error.code {
            case "noSession": .conflict
            case "tooLarge": .contentTooLarge
            default: .badRequest
            }
        var answer = APIError(status, code: error.code, message: error.message)
        answer.field = error.field
        return answer
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Self.jsonText(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func jsonText(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
