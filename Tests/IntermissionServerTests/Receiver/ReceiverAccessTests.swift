import AsyncHTTPClient
import Foundation
import GroupPlayback
import HummingbirdTesting
import IntermissionTestSupport
import NIOCore
import NIOHTTP1
import ReceiverServer
import Testing

/// A receiver answers only its paired senders: the token on every route but `/health`, a `Host`
/// naming it, no foreign `Origin`, JSON `POST`s; everything else is a `4xx` JSON error, over
/// loopback to the real server.
@Suite(.realTime) struct ReceiverAccessTests {
    /// An answer: its status and the JSON error's code (`nil` when there is none).
    struct Answer {
        var status: Int
        var code: String?
    }

    /// A receiver at `http://127.0.0.1:PORT` paired with ``ReceiverHandoffTests/token``; `body`
    /// gets its port.
    static func withReceiver(
        allowedHosts: [String] = [],
        _ body: @escaping @Sendable (_ port: Int) async throws -> Void
    ) async throws {
        let receiver = Receiver()
        let access = try ReceiverAccess(token: ReceiverHandoffTests.token, allowedHosts: allowedHosts)
        let app = buildReceiverApplication(receiver: receiver, access: access)
        try await app.test(.live) { client in
            try await body(try #require(client.port))
        }
        await receiver.stop()
    }

    /// Sends one request with exactly these headers (a `Host` given here replaces the client's).
    static func send(
        port: Int,
        _ method: HTTPMethod,
        _ path: String,
        headers: [(String, String)],
        body: String? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await ReceiverClient.sharedHTTPClient.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 16)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any]
        let error = json?["error"] as? [String: Any]
        return Answer(status: Int(response.status.code), code: error?["code"] as? String)
    }

    /// The paired sender's headers, plus `extra`.
    static func paired(_ extra: [(String, String)] = []) -> [(String, String)] {
        [("Authorization", "Bearer \(ReceiverHandoffTests.token)")] + extra
    }

    static let session = #"{"url":"http://127.0.0.1:1/x.m3u8"}"#

    @Test func aPostThatIsNotJSONIsRefused() async throws {
        try await Self.withReceiver { port in
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
                let headers = Self.paired(type.map { [("Content-Type", $0)] } ?? [])
                for path in ["/v1/receiver/session", "/v1/receiver/commands"] {
                    let body = path.hasSuffix("session") ? Self.session : #"{"command":"play"}"#
                    let answer = try await Self.send(port: port, .POST, path, headers: headers, body: body)
                    #expect(answer.status == 415 && answer.code == "unsupportedMediaType", "\(path) \(type ?? "-")")
                }
            }
            // Nothing was handed over; JSON, any case, with a charset, is taken.
            let state = try await Self.send(port: port, .GET, "/v1/receiver/state", headers: Self.paired())
            #expect(state.status == 200)
            let json = Self.paired([("Content-Type", "Application/JSON; charset=utf-8")])
            let taken = try await Self.send(
                port: port,
                .POST,
                "/v1/receiver/session",
                headers: json,
                body: Self.session
            )
            #expect(taken.status == 200)
        }
    }

    @Test func aForeignOriginIsRefused() async throws {
        try await Self.withReceiver { port in
            let json = ("Content-Type", "application/json")
            for origin in ["http://evil.example", "null", "https://127.0.0.1:\(port)", "http://127.0.0.1:\(port + 1)"] {
                let post = try await Self.send(
                    port: port,
                    .POST,
                    "/v1/receiver/session",
                    headers: Self.paired([json, ("Origin", origin)]),
                    body: Self.session
                )
                #expect(post.status == 403 && post.code == "foreignOrigin", "\(origin)")
                let get = try await Self.send(
                    port: port,
                    .GET,
                    "/v1/receiver/state",
                    headers: Self.paired([("Origin", origin)])
                )
                #expect(get.status == 403 && get.code == "foreignOrigin", "\(origin)")
            }
            // Its own origin is its own.
            let own = try await Self.send(
                port: port,
                .GET,
                "/v1/receiver/state",
                headers: Self.paired([("Origin", "http://127.0.0.1:\(port)")])
            )
            #expect(own.status == 200)
        }
    }

    @Test func aForeignHostIsRefused() async throws {
        try await Self.withReceiver(allowedHosts: ["Receiver.LAN"]) { port in
            // DNS rebinding: a name of the attacker's resolved to loopback; a wrong port; junk.
            for host in [
                "evil.example:\(port)", "evil.example", "127.0.0.1:\(port + 1)", "localhost:99999", "localhost:x",
                "[::1", "10.0.0.1:\(port)", "127.0.0.1.evil.example:\(port)",
            ] {
                for path in ["/v1/receiver/state", "/v1/receiver/events", "/health"] {
                    let answer = try await Self.send(port: port, .GET, path, headers: Self.paired([("Host", host)]))
                    #expect(answer.status == 421 && answer.code == "misdirected", "\(host) \(path)")
                }
            }
            for host in [
                "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "receiver.lan:\(port)",
            ] {
                let answer = try await Self.send(
                    port: port,
                    .GET,
                    "/v1/receiver/state",
                    headers: Self.paired([("Host", host)])
                )
                #expect(answer.status == 200, "\(host)")
            }
        }
    }

    @Test func aMissingOrWrongTokenIsRefusedAndTheRightOneTaken() async throws {
        try await Self.withReceiver { port in
            let token = ReceiverHandoffTests.token
            let wrong = String(token.dropLast()) + "X"
            let refused: [[(String, String)]] = [
                [], [("Authorization", "Bearer " + wrong)], [("Authorization", "Bearer " + token + "0")],
                [("Authorization", "Bearer " + String(token.dropLast()))], [("Authorization", "Basic " + token)],
                [("Authorization", token)], [("Authorization", "Bearer")],
            ]
            let json = ("Content-Type", "application/json")
            for headers in refused {
                for (method, path) in [
                    (HTTPMethod.GET, "/v1/receiver/state"), (.GET, "/v1/receiver/events?after=0"),
                    (.POST, "/v1/receiver/session"), (.POST, "/v1/receiver/commands"), (.GET, "/nowhere"),
                ] {
                    let answer = try await Self.send(
                        port: port,
                        method,
                        path,
                        headers: headers + [json],
                        body: method == .POST ? Self.session : nil
                    )
                    #expect(answer.status == 401 && answer.code == "unauthorized", "\(path) \(headers)")
                }
            }
            // The right one, the scheme in any case; /health needs none.
            let state = try await Self.send(
                port: port,
                .GET,
                "/v1/receiver/state",
                headers: [("Authorization", "bearer " + token)]
            )
            #expect(state.status == 200)
            #expect(try await Self.send(port: port, .GET, "/health", headers: []).status == 200)
            // The sender: refused without its token or with a wrong one, taken with the right one.
            let base = "http://127.0.0.1:\(port)"
            for sender in [try ReceiverClient(receiverURL: base), try ReceiverClient(receiverURL: base, token: wrong)] {
                await #expect(throws: ReceiverError.self) { _ = try await sender.state() }
            }
            let paired = try ReceiverClient(receiverURL: base, token: token)
            #expect(try await paired.state().url == nil)
        }
    }

    @Test func tokensAndHostNamesOutOfRangeAreRefused() throws {
        #expect(throws: ReceiverAccessError.self) { try ReceiverAccess(token: "short") }
        #expect(throws: ReceiverAccessError.self) { try ReceiverAccess(token: String(repeating: "a", count: 257)) }
        #expect(throws: ReceiverAccessError.self) { try ReceiverAccess(token: "sixteen chars with spaces") }
        #expect(throws: ReceiverAccessError.self) {
            try ReceiverAccess(token: ReceiverHandoffTests.token, allowedHosts: ["a b"])
        }
        #expect(throws: ReceiverAccessError.self) {
            try ReceiverAccess(token: ReceiverHandoffTests.token, allowedHosts: Array(repeating: "a", count: 65))
        }
        let random = ReceiverAccess.randomToken()
        #expect(random.utf8.count == 32 && random != ReceiverAccess.randomToken())
        #expect(throws: ReceiverError.self) { try ReceiverClient(receiverURL: "http://127.0.0.1:1", token: "a\nb") }
    }
}
