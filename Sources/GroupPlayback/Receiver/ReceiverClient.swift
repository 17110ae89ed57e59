import AsyncHTTPClient
import Foundation
import HTTPFetch
import NIOCore
import NIOHTTP1

/// The sender's side of a receiver handoff: hands a ``ReceiverSession`` to a receiver over HTTP,
/// sends it remote commands, and reads its events.
///
/// ```swift
/// let sender = try ReceiverClient(receiverURL: "http://127.0.0.1:8090", token: "the token it printed")
/// _ = try await sender.handOver(ReceiverSession(url: "https://example.com/main.m3u8", plan: .c))
/// let reply = try await sender.send(ReceiverCommand(.seek, time: 60))
/// print(reply.allowed, reply.reason)   // false, "… X-RESTRICT=SKIP …" while the first ad plays
/// for try await event in sender.eventStream() { print(event.kind) }
/// ```
public actor ReceiverClient {
    /// The receiver's base URL (`http://host:port`).
    public nonisolated let receiverURL: String
    let client: HTTPClient
    /// The token the receiver printed, sent as `Authorization: Bearer TOKEN` with every request.
    let token: String?
    /// How long one request may take (a long poll adds its wait).
    public nonisolated let timeout: Duration

    /// The client senders and receivers share by default: it fails at once when nothing listens
    /// (no retrying until the deadline); it lives as long as the program, so it is never shut down.
    public static let sharedHTTPClient: HTTPClient = BoundedFetch.makeClient(connectTimeout: .seconds(10))

    /// The largest answer read.
    static let maximumAnswerBytes = 4 << 20

    /// The longest token sent (256 characters).
    public static let maximumTokenLength = 256

    /// Creates a sender for the receiver at `receiverURL`.
    ///
    /// - Parameters:
    ///   - receiverURL: The receiver's base URL (`http://host:port`).
    ///   - token: The receiver's pairing token (it prints it when it starts); `nil` sends none,
    ///     which a receiver answers `401`.
    ///   - httpClient: The client requests go through.
    ///   - timeout: How long one request may take (a long poll adds its wait).
    /// - Throws: ``ReceiverError`` `invalidInput` when the URL is not `http(s)`, or the token is
    ///   not 1 to ``maximumTokenLength`` visible ASCII characters.
    public init(
        receiverURL: String,
        token: String? = nil,
        httpClient: HTTPClient = ReceiverClient.sharedHTTPClient,
        timeout: Duration = .seconds(20)
    )
        throws(ReceiverError)
    {
        if let problem = ReceiverSession.urlProblem(receiverURL) {
            throw ReceiverError(code: "invalidInput", message: "the receiver URL " + problem, field: "to")
        }
        if let token,
            token.isEmpty || token.utf8.count > Self.maximumTokenLength
                || !token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        {
            throw ReceiverError(
                code: "invalidInput",
                message: "the token takes 1 to \(Self.maximumTokenLength) visible ASCII characters",
                field: "token"
            )
        }
        self.token = token
        var base = receiverURL
        while base.hasSuffix("/") { base.removeLast() }
        self.receiverURL = base
        self.client = httpClient
        self.timeout = timeout
    }

    /// Hands the session over; the receiver starts playing it.
    public func handOver(_ session: ReceiverSession) async throws(ReceiverError) -> ReceiverState {
        try await self.exchange(.POST, "/v1/receiver/session", body: session)
    }

    /// Sends a remote command and returns the receiver's answer.
    public func send(_ command: ReceiverCommand) async throws(ReceiverError) -> ReceiverReply {
        try await self.exchange(.POST, "/v1/receiver/commands", body: command)
    }

    /// What the receiver is doing now.
    public func state() async throws(ReceiverError) -> ReceiverState {
        try await self.exchange(.GET, "/v1/receiver/state", body: String?.none)
    }

    /// The receiver's events numbered above `sequence`, waiting up to `wait` (at most 30 s) for one.
    public func events(after sequence: Int, wait: Duration = .seconds(5)) async throws(ReceiverError) -> [ReceiverEvent]
    {
        let seconds = min(max(Double(wait.components.seconds), 0), 30)
        return try await self.exchange(
            .GET,
            "/v1/receiver/events?after=\(sequence)&wait=\(Int(seconds))",
            body: String?.none
        )
    }

    /// The receiver's events from `sequence` on, as they happen (long polls one after another); it
    /// ends with an error when the receiver cannot be reached.
    public nonisolated func eventStream(after sequence: Int = 0) -> AsyncThrowingStream<ReceiverEvent, any Error> {
        AsyncThrowingStream { continuation in
            // Owned by the stream: cancelled when its consumer stops reading (`onTermination`).
            let task = Task {
                var last = sequence
                do {
                    while !Task.isCancelled {
                        for event in try await self.events(after: last, wait: .seconds(5)) {
                            last = max(last, event.sequence)
                            continuation.yield(event)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func exchange<Body: Encodable, Answer: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: Body?
    ) async throws(ReceiverError) -> Answer {
        var request = HTTPClientRequest(url: self.receiverURL + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let token = self.token { request.headers.add(name: "Authorization", value: "Bearer " + token) }
        do {
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
            }
            let response = try await self.client.execute(
                request,
                timeout: .seconds(self.timeout.components.seconds + 35)
            )
            let bytes = Array(try await response.body.collect(upTo: Self.maximumAnswerBytes).readableBytesView)
            guard (200..<300).contains(response.status.code) else {
                throw Self.error(status: Int(response.status.code), bytes: bytes)
            }
            return try JSONDecoder().decode(Answer.self, from: Data(bytes))
        } catch let error as ReceiverError {
            throw error
        } catch {
            throw ReceiverError(code: "unreachable", message: "\(self.receiverURL)\(path): \(error)")
        }
    }

    /// The receiver's JSON error (`{"error":{"code":…,"message":…,"field":…}}`) as a ``ReceiverError``.
    static func error(status: Int, bytes: [UInt8]) -> ReceiverError {
        struct Envelope: Decodable {
            struct Inner: Decodable {
                var code: String
                var message: String
                var field: String?
            }
            var error: Inner
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(bytes)) else {
            return ReceiverError(code: "http", message: "HTTP \(status)")
        }
        return ReceiverError(code: envelope.error.code, message: envelope.error.message, field: envelope.error.field)
    }
}
