import Foundation
import IntermissionHTTP
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27: the server never lets its connections take the descriptor table.
///
/// Connections above
/// `server.maxConnections` are closed at accept; a request head must arrive within
/// `server.requestHeadTimeout`; an answer the client does not read is given up after the idle
/// timeout. With the group hub's WebSocket upgrade channel (the default) and without it.
@Suite(.realTime) struct ConnectionLimitTests {
    /// Five connections: four are held, one is closed at accept; once one of the four closes, a new
    /// connection is answered; `/metrics` counts the refusal.
    @Test(.timeLimit(.minutes(2)), arguments: [true, false])
    func connectionsAboveTheCapAreClosedAtAccept(groupHub: Bool) async throws {
        let ended = try await ConnectionLifecycleTests.shutdownEnds(
            groupHub: groupHub,
            configure: {
                $0.maximumConnections = 4
                // The held connections stay silent until asked: on a busy machine, longer than the
                // default request-head deadline.
                $0.requestHeadTimeout = .seconds(300)
            }
        ) { port in
            // Five connections: the server admits four and closes one at accept. Which one is not
            // fixed: connections are set up on several event loops, in whatever order they get to.
            var held: [RawConnection] = []
            do {
                var connections: [RawConnection] = []
                for _ in 0..<5 { connections.append(try await RawConnection.open(port: port)) }
                let all = connections
                let closed = await withTaskGroup(of: Int?.self) { group in
                    for (index, connection) in all.enumerated() {
                        group.addTask { await connection.closedByServer(within: 5) ? index : nil }
                    }
                    var closed: [Int] = []
                    for await index in group { if let index { closed.append(index) } }
                    return closed
                }
                #expect(closed.count == 1, "closed at accept: \(closed) (group hub \(groupHub))")
                // Only the held ones stay referenced: a connection let go is closed (see below).
                held = all.enumerated().filter { !closed.contains($0.offset) }.map(\.element)
            }
            try #require(held.count == 4)
            // The four are still served.
            let answer = try #require(
                await held[0].exchange("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", within: 30)
            )
            #expect(RawResponse(answer).status == 200)
            // held[0] is closed now (Connection: close); a new connection gets its place.
            held.removeFirst()
            let deadline = ContinuousClock.now + .seconds(10)
            var metrics: RawResponse?
            while metrics?.status != 200, ContinuousClock.now < deadline {
                metrics = try? await rawExchange(
                    port: port,
                    "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    timeout: .seconds(5)
                )
            }
            let text = String(decoding: try #require(metrics).body, as: UTF8.self)
            #expect(metrics?.status == 200)
            let refused = text.split(separator: "\n").first { $0.hasPrefix("intermission_connections_refused_total ") }
            #expect((refused?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 1, "\(refused ?? "none")")
            #expect(text.contains("intermission_connections_open "))
            _ = held
        }
        #expect(ended)
    }

    /// Half a request head and then nothing (Slowloris): closed after the request-head timeout, long
    /// before the idle timeout; on a kept-alive connection, the second request's half head too.
    @Test(.timeLimit(.minutes(2)), arguments: [true, false])
    func aRequestHeadThatDoesNotArriveInTimeClosesTheConnection(groupHub: Bool) async throws {
        let ended = try await ConnectionLifecycleTests.shutdownEnds(
            groupHub: groupHub,
            idleTimeout: .seconds(120),
            configure: { $0.requestHeadTimeout = .milliseconds(500) }
        ) { port in
            let first = try await RawConnection.open(port: port)
            await first.send("GET /health HTTP/1.1\r\nHost: x\r\n")
            #expect(await first.closedByServer(within: 30), "first head, group hub \(groupHub)")

            // Connected and written in one call: the head deadline counts from the connection's start.
            let second = try await RawConnection.open(port: port, sending: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let answered = await second.receive(within: 10, answers: 1)
            #expect(answered.map { RawResponse($0).status } == 200)
            await second.send("GET /health HTTP/1.1\r\nHo")
            #expect(await second.closedByServer(within: 30), "second head, group hub \(groupHub)")
        }
        #expect(ended)
    }

    /// A client that asks for many segments and reads none: once the connection stays unwritable
    /// for the idle timeout, it is closed (Hummingbird's idle timer waits while an answer is being
    /// written, so without the deadline such a connection is held for ever).
    @Test(.timeLimit(.minutes(2)), arguments: [true, false])
    func anAnswerTheClientDoesNotReadIsGivenUp(groupHub: Bool) async throws {
        // Three seconds: the request-head deadline is never longer than the idle timeout, and the
        // connection asking for the count shares its event loop with the one being given up.
        let ended = try await ConnectionLifecycleTests.shutdownEnds(
            groupHub: groupHub,
            idleTimeout: .seconds(3)
        ) { port in
            let connection = try await RawConnection.open(port: port)
            connection.shrinkReceiveBuffer()
            // 2,000 pipelined requests for a 16.5 KB segment: 33 MB, far more than the sockets buffer.
            let request = "GET /media/demo/primary/seg-000.ts HTTP/1.1\r\nHost: x\r\n\r\n"
            await connection.send(String(repeating: request, count: 2000))
            // Nothing is read: the server gives the connection up, and only the request asking
            // for the count is left open.
            // An asking connection may itself be closed by the 3 s request-head deadline when this
            // busy process is slow to write its request after connecting (seen once in a full run,
            // as "I/O on closed channel"): that answer is asked again.
            var open: Int?
            await waitUntil(within: .seconds(60), checkingEvery: .milliseconds(100)) {
                open = try? await Self.openConnections(port: port)
                return open == 1
            }
            #expect(open == 1, "the unread connection is still open (group hub \(groupHub))")
            _ = connection
        }
        #expect(ended)
    }

    /// `intermission_connections_open` from `/metrics` (the asking connection included), or `nil`.
    static func openConnections(port: Int) async throws -> Int? {
        let metrics = try await rawExchange(
            port: port,
            "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            timeout: .seconds(10)
        )
        let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("intermission_connections_open ") }
        return line?.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) }
    }
}

extension RawConnection {
    /// Sends `text`, then reads until the server closes the connection (or, with `answers`, until
    /// that many heads have arrived), for at most `seconds`; the bytes, or `nil` when none arrived.
    func exchange(_ text: String, within seconds: Int, answers: Int? = nil) async -> [UInt8]? {
        await self.send(text)
        return await self.receive(within: seconds, answers: answers)
    }

    /// Reads until the server closes the connection (or, with `answers`, until that many heads have
    /// arrived), for at most `seconds`; the bytes, or `nil` when none arrived.
    func receive(within seconds: Int, answers: Int? = nil) async -> [UInt8]? {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var timeout = timeval(tv_sec: seconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    received += buffer[..<count]
                    if let answers, Self.heads(in: received) >= answers, Self.bodiesComplete(received) { break }
                }
                continuation.resume(returning: received.isEmpty ? nil : received)
            }
        }
    }

    /// Heads (blank lines after a status line) in `bytes`.
    private static func heads(in bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n\r\n").count - 1
    }

    /// Whether the last answer's body (by its `Content-Length`) has arrived whole.
    private static func bodiesComplete(_ bytes: [UInt8]) -> Bool {
        let response = RawResponse(bytes)
        guard let length = response.header("content-length").flatMap({ Int($0) }) else { return true }
        return response.body.count >= length
    }

    /// Asks for the smallest receive buffer, so an unread answer fills the connection sooner.
    func shrinkReceiveBuffer() {
        var size: Int32 = 4096
        setsockopt(self.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

}
