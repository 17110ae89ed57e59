import Foundation
import GroupCoordination
import HLSPlaylist
import HTTPTypes
import HummingbirdTesting
import HummingbirdWSClient
import IntermissionServer
import IntermissionTestSupport
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization
import Testing

/// The hub's sockets against clients that misbehave, over loopback.
///
/// A socket that never says `hello`, one that answers no ping, one that never reads, an impostor,
/// one address filling a group, a flood and oversized fields. Limits are small so that each test
/// takes about a second; every wait has a deadline.
@Suite(.serialized, .realTime) struct GroupSocketLimitTests {
    /// A server with the hub, its group sockets held to `limits`.
    static func withServer(
        _ limits: GroupLimits,
        _ body: @escaping @Sendable (_ base: String, _ port: Int) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration(hostname: "127.0.0.1", port: 0, database: "memory:", logLevel: .error)
        configuration.groupLimits = limits
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body("ws://127.0.0.1:\(port)/v1/groups", port)
        }
    }

    /// Limits that close nothing on their own during a test.
    static var lenient: GroupLimits {
        var limits = GroupLimits()
        limits.helloTimeout = .seconds(60)
        limits.pingInterval = .seconds(60)
        return limits
    }

    /// A `hello` for a 30 s VOD, as JSON text.
    static func hello(_ id: String, secret: String? = nil, policy: GroupPolicy = GroupPolicy()) -> String {
        Self.text(
            .hello(
                participantID: id,
                description: ParticipantDescription(isLive: false, itemDuration: MediaTime(seconds: 30)),
                policy: policy,
                secret: secret
            )
        )
    }

    /// A message as JSON text.
    static func text(_ message: GroupMessage) -> String {
        String(decoding: (try? JSONEncoder().encode(message)) ?? Data(), as: UTF8.self)
    }

    /// The messages among `texts`, decoded.
    static func decoded(_ texts: [String]) -> [GroupMessage] {
        texts.compactMap { try? JSONDecoder().decode(GroupMessage.self, from: Data($0.utf8)) }
    }

    /// The participants of the last state (or welcome) among `texts`.
    static func participants(_ texts: [String]) -> [String]? {
        for message in Self.decoded(texts).reversed() {
            switch message {
            case .state(let state), .welcome(_, _, let state, _): return state.participants
            default: continue
            }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(1)))
    func aSocketThatNeverSaysHelloIsClosed() async throws {
        var limits = Self.lenient
        limits.helloTimeout = .milliseconds(300)
        try await Self.withServer(limits) { _, port in
            let started = ContinuousClock.now
            // Three sockets: one silent, one that only probes the clock, one that says hello.
            async let silent = RawGroupSocket.readUntilClosed(port: port, group: "g", sending: [], within: .seconds(5))
            async let probing = RawGroupSocket.readUntilClosed(
                port: port,
                group: "g",
                sending: [#"{"type":"ping","sent":1}"#],
                within: .seconds(5)
            )
            let joined = ClientSocket("ws://127.0.0.1:\(port)/v1/groups/g")
            joined.send(Self.hello("alice"))
            let (silentEnd, probingEnd) = try await (silent, probing)
            #expect(silentEnd.closed)
            #expect(probingEnd.closed)
            #expect(probingEnd.received.contains(#""type":"pong""#))
            #expect(ContinuousClock.now - started < .seconds(4))
            // The one that joined stays.
            #expect(
                await joined.waitFor(within: .seconds(5)) { $0.contains { $0.contains(#""type":"welcome""#) } } != nil
            )
            #expect(await !joined.received.finished)
            joined.close()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSocketThatAnswersNoPingIsClosed() async throws {
        var limits = Self.lenient
        // Long enough for a client on a loaded machine to answer a ping within two intervals.
        limits.pingInterval = .seconds(2)
        try await Self.withServer(limits) { base, port in
            // A participant whose client answers pings stays; one that reads but never answers
            // a ping is closed after two intervals.
            let answering = ClientSocket(base + "/g")
            answering.send(Self.hello("bob"))
            let silent = try await RawGroupSocket.readUntilClosed(
                port: port,
                group: "g",
                sending: [Self.hello("alice")],
                within: .seconds(30)
            )
            #expect(silent.closed)
            #expect(silent.received.contains(#""type":"welcome""#))
            let alone = await answering.waitFor(within: .seconds(20)) { Self.participants($0) == ["bob"] }
            #expect(alone != nil)
            #expect(await !answering.received.finished)
            answering.close()
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aParticipantThatNeverReadsIsDroppedAndTheGroupGoesOn() async throws {
        var limits = Self.lenient
        limits.sendQueue = 2_000
        limits.writeTimeout = .milliseconds(500)
        limits.messagesPerSecond = 10_000
        limits.messageBurst = 10_000
        try await Self.withServer(limits) { base, port in
            // Long IDs and suspensions the group waits for make every state long, so that the
            // slow socket's buffers fill quickly.
            let slowID = "slow-" + String(repeating: "s", count: 120)
            let goodID = "good-" + String(repeating: "g", count: 120)
            let reasons = ["s", "g"].map { SuspensionReason(rawValue: String(repeating: $0, count: 128)) }
            let suspend = reasons.map { Self.text(.suspend(reason: $0, time: .zero, expectedDuration: nil)) }
            let policy = GroupPolicy(suspensionReasonsThatTriggerWaiting: Set(reasons))
            let slow = try await RawGroupSocket.neverReading(
                port: port,
                group: "g",
                sending: [Self.hello(slowID, policy: policy), suspend[0]]
            )
            defer { slow.close(promise: nil) }
            let good = ClientSocket(base + "/g")
            good.send(Self.hello(goodID))
            good.send(suspend[1])
            let both = await good.waitFor(within: .seconds(5)) { Self.participants($0)?.count == 2 }
            try #require(both != nil, "the slow participant did not join")
            // The good participant gives commands in batches; each batch's states come back
            // quickly while the slow one is still in the group, until it is dropped.
            var dropped = false
            var sent = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while !dropped, ContinuousClock.now < deadline {
                let before = await good.received.texts.count
                for k in 0..<400 {
                    good.send(
                        k % 2 == 0 ? #"{"type":"command","command":"play"}"# : #"{"type":"command","command":"pause"}"#
                    )
                }
                sent += 400
                // 20 s per batch: a group that stopped never answers; beside every other suite and
                // two builds, 400 answers have taken more than 5 s to arrive.
                let states = await good.waitFor(within: .seconds(20)) { $0.count >= before + 400 }
                try #require(states != nil, "the group stopped after \(sent) commands")
                dropped = Self.participants(await good.received.texts) == [goodID]
            }
            #expect(dropped, "the slow participant was not dropped after \(sent) commands")
            #expect(await !good.received.finished)
            good.close()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anImpostorIsRefusedAndTheParticipantComesBackWithItsSecret() async throws {
        try await Self.withServer(Self.lenient) { base, _ in
            let alice = ClientSocket(base + "/g")
            alice.send(Self.hello("alice"))
            let welcome = try #require(
                await alice.waitFor(within: .seconds(5)) { $0.contains { $0.contains("welcome") } }
            )
            guard case .welcome(_, _, _, let secret?) = Self.decoded(welcome).first(where: { $0.type == "welcome" })
            else {
                Issue.record("no secret in \(welcome)")
                return
            }
            #expect(secret.utf8.count == 32)
            // Without the secret, or with another, the ID is refused.
            for attempt in [nil, (secret.hasPrefix("0") ? "1" : "0") + secret.dropFirst()] as [String?] {
                let impostor = ClientSocket(base + "/g")
                impostor.send(Self.hello("alice", secret: attempt))
                let answer = await impostor.waitFor(within: .seconds(5)) { !$0.isEmpty }
                #expect(answer?.first?.contains(#""type":"refused""#) == true, "\(answer ?? [])")
                #expect(answer?.first?.contains("in use") == true)
                impostor.close()
            }
            // Alice comes back on a new connection with her secret: welcomed, same secret; her old
            // connection is closed, and its closing does not take her out of the group.
            let back = ClientSocket(base + "/g")
            back.send(Self.hello("alice", secret: secret))
            let again = try #require(await back.waitFor(within: .seconds(5)) { $0.contains { $0.contains("welcome") } })
            #expect(again.contains { $0.contains(secret) })
            #expect(await alice.waitUntilFinished(within: .seconds(5)))
            let bob = ClientSocket(base + "/g")
            bob.send(Self.hello("bob"))
            #expect(await bob.waitFor(within: .seconds(5)) { Self.participants($0) == ["alice", "bob"] } != nil)
            bob.close()
            back.close()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func oneAddressCannotFillAGroup() async throws {
        var limits = Self.lenient
        limits.joinsPerAddress = 2
        try await Self.withServer(limits) { base, _ in
            var sockets: [ClientSocket] = []
            for name in ["a", "b", "c"] {
                let socket = ClientSocket(base + "/g")
                socket.send(Self.hello(name))
                sockets.append(socket)
                _ = await socket.waitFor(within: .seconds(5)) { !$0.isEmpty }
            }
            let answers = await sockets.asyncMap { await $0.received.texts.first ?? "" }
            #expect(answers[0].contains("welcome") && answers[1].contains("welcome"))
            #expect(
                answers[2].contains("refused") && answers[2].contains("2 participants from this address"),
                "\(answers[2])"
            )
            // Another group takes the address's participants as usual.
            let other = ClientSocket(base + "/h")
            other.send(Self.hello("c"))
            #expect(await other.waitFor(within: .seconds(5)) { $0.first?.contains("welcome") == true } != nil)
            for socket in sockets + [other] { socket.close() }
        }
    }

    /// Behind a proxy, the address is the one the proxy names in the configured header (the last
    /// entry of `X-Forwarded-For`), not the proxy's own.
    @Test(.timeLimit(.minutes(1)))
    func behindAProxyTheAddressComesFromItsHeader() async throws {
        var limits = Self.lenient
        limits.joinsPerAddress = 1
        limits.addressHeader = "X-Forwarded-For"
        try await Self.withServer(limits) { base, _ in
            var sockets: [ClientSocket] = []
            let forwarded = ["10.0.0.1", "10.0.0.2", "10.0.0.2, 10.0.0.1", "10.0.0.1, 10.0.0.3"]
            for (k, address) in forwarded.enumerated() {
                let socket = ClientSocket(base + "/g", headers: [HTTPField.Name("X-Forwarded-For")!: address])
                socket.send(Self.hello("p\(k)"))
                sockets.append(socket)
                _ = await socket.waitFor(within: .seconds(5)) { !$0.isEmpty }
            }
            let answers = await sockets.asyncMap { await $0.received.texts.first ?? "" }
            #expect(answers.map { $0.contains("welcome") } == [true, true, false, true], "\(answers)")
            for socket in sockets { socket.close() }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFloodIsRefusedThenClosedAndLongFieldsAreRefused() async throws {
        var limits = Self.lenient
        limits.messagesPerSecond = 1
        limits.messageBurst = 10
        try await Self.withServer(limits) { base, _ in
            // A long reason is refused with the field named.
            let long = ClientSocket(base + "/g")
            long.send(Self.hello("long"))
            let reason = String(repeating: "r", count: 200)
            long.send(#"{"type":"suspend","reason":"\#(reason)","time":{"nanoseconds":0}}"#)
            let refusal = await long.waitFor(within: .seconds(5)) { $0.contains { $0.contains("field-too-long") } }
            #expect(refusal?.contains { $0.contains("reason is longer than 128 bytes") } == true)
            #expect(refusal?.contains { $0.contains(reason) } == false)
            long.close()
            // 40 commands at once: the burst is taken, the rest refused, then the socket closed.
            let flood = ClientSocket(base + "/g")
            flood.send(Self.hello("flood"))
            for _ in 0..<40 { flood.send(#"{"type":"command","command":"pause"}"#) }
            #expect(await flood.waitUntilFinished(within: .seconds(5)))
            let texts = await flood.received.texts
            let states = texts.filter { $0.contains(#""type":"state""#) }.count
            #expect(texts.contains { $0.contains("rate-limited") })
            #expect(states <= 12, "\(states) states")
            #expect(texts.last?.contains(#""code":"closing""#) == true, "\(texts.last ?? "")")
        }
    }
}

extension Array where Element: Sendable {
    /// The elements mapped one after the other by an async function.
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var result: [T] = []
        for element in self { result.append(await transform(element)) }
        return result
    }
}

/// A group socket of HummingbirdWSClient (it answers pings) in a task of its own: texts to send
/// go in with ``send(_:)``, every text received is kept in ``received``.
final class ClientSocket: Sendable {
    /// The texts to send.
    let outgoing: AsyncStream<String>.Continuation
    /// Every text received, and whether the socket has closed.
    let received = GroupOverLoopbackTests.Received()
    /// The task that holds the socket.
    let task: Task<Void, Never>

    /// Opens a socket to `url`, its upgrade request with `headers`.
    init(_ url: String, headers: HTTPFields = [:]) {
        let (stream, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let received = self.received
        self.task = Task {
            _ = try? await WebSocketClient.connect(
                url: url,
                configuration: .init(additionalHeaders: headers),
                logger: Logger(label: "test")
            ) { inbound, outbound, _ in
                let writer = Task {
                    for await text in stream { try? await outbound.writeTextMessage(text) }
                    try? await outbound.close(.normalClosure, reason: nil)
                }
                defer { writer.cancel() }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { _ = await received.add(text) }
                }
            }
            await received.finish()
        }
    }

    /// Sends a text (in order with the others).
    func send(_ text: String) { self.outgoing.yield(text) }

    /// Closes the socket once what was sent is written.
    func close() { self.outgoing.finish() }

    /// The texts received once `condition` holds of them, or `nil` when it does not within
    /// `limit`.
    func waitFor(within limit: Duration, _ condition: ([String]) -> Bool) async -> [String]? {
        var texts: [String] = []
        let held = await waitUntil(within: limit) {
            texts = await self.received.texts
            return condition(texts)
        }
        return held ? texts : nil
    }

    /// Whether the socket closed within `limit`.
    func waitUntilFinished(within limit: Duration) async -> Bool {
        await waitUntil(within: limit) { await self.received.finished }
    }
}

/// A WebSocket client made by hand on NIO, for what real clients do not do: it answers no ping,
/// and it can stop reading altogether.
///
/// It sends the upgrade request and its first messages at once (the server reads them after its
/// `101`).
enum RawGroupSocket {
    /// The upgrade request for group `group`.
    static func request(group: String, port: Int) -> [UInt8] {
        let lines = [
            "GET /v1/groups/\(group) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// A masked text frame, as clients send them.
    static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var bytes: [UInt8] = [0x81]
        if payload.count < 126 {
            bytes.append(0x80 | UInt8(payload.count))
        } else {
            bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    /// The upgrade request and `messages` as one buffer.
    static func opening(group: String, port: Int, messages: [String]) -> ByteBuffer {
        ByteBuffer(bytes: Self.request(group: group, port: port) + messages.flatMap(Self.frame))
    }

    /// Opens a socket that reads everything and answers nothing: whether the server closed it
    /// within `limit`, and what it sent (the `101` answer and the frames, as text).
    static func readUntilClosed(
        port: Int,
        group: String,
        sending messages: [String],
        within limit: Duration
    ) async throws -> (closed: Bool, received: String) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let received = Mutex<[UInt8]>([])
        // At the deadline the socket is closed: an end before it is the server's.
        let ended: Void? = try await withDeadline(limit, onTimeout: { try? await channel.channel.close() }) {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(Self.opening(group: group, port: port, messages: messages))
                do {
                    for try await chunk in inbound { received.withLock { $0 += chunk.readableBytesView } }
                } catch {
                    // A reset is a close too.
                }
            }
        }
        return (ended != nil, String(decoding: received.withLock { $0 }, as: UTF8.self))
    }

    /// Opens a socket that sends `messages` and never reads a byte (its receive buffer is 4 KiB):
    /// the caller closes it.
    static func neverReading(port: Int, group: String, sending messages: [String]) async throws -> any Channel {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 4096)
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port)
            .get()
        try await channel.writeAndFlush(Self.opening(group: group, port: port, messages: messages))
        return channel
    }
}
