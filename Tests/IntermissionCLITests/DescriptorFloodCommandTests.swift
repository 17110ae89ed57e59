import Dispatch
import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Blocking TCP sockets to the server on loopback, for floods: each call blocks for at most its
/// socket's timeouts, and runs on a dispatch thread, never on the Swift concurrency pool.
enum FloodSocket {
    /// A socket connected to `127.0.0.1:port`, with send, receive and connect timeouts of
    /// `seconds`; `nil` when the connection failed or timed out.
    static func connect(port: Int, seconds: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `text`; whether it went.
    @discardableResult
    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads one HTTP/1.1 answer with a `Content-Length`; its status, or `nil` when the connection
    /// failed, closed or timed out first.
    static func readAnswer(_ fd: Int32) -> Int? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headEnd: Int?
        var length = 0
        while true {
            if let end = headEnd, received.count >= end + length {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                return status
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += buffer[..<count]
            if headEnd == nil, let range = Self.headRange(received) {
                headEnd = range
                let head = String(decoding: received[..<range], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
    }

    /// The index just past the blank line that ends a head, if it has arrived.
    private static func headRange(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    /// Whether the server has closed `fd` (end of stream or reset), looking without waiting.
    static func closedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }
}

/// Issue 27: a full descriptor table must not kill the server.
///
/// Under `ulimit -n 1200`, 1,300
/// connections that never send a byte (half of them WebSocket upgrades to `/v1/groups/*`) while five
/// keep-alive clients ask for asset lists killed `serve --demo` within seconds (libdispatch traps
/// with `SIGILL` when it cannot open `/proc/<tid>/stat`). Now the server caps its connections below
/// the limit, closes new ones at accept, stays alive, and answers `/health` within 2 s once the
/// flood stops.
@Suite(.timeLimit(.minutes(3)), .realTime)
struct DescriptorFloodCommandTests {
    static let midroll = "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id="

    @Test func aFloodOfSilentConnectionsUnderALowDescriptorLimitLeavesTheServerAlive() async throws {
        // This process holds the flood: it needs some 1,400 descriptors of its own.
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= 4096, "this test needs a descriptor limit of at least 4096")

        let server = try ServeProcess(
            ["serve", "--demo", "--port", "0", "--database", "memory:"],
            descriptorLimit: 1200
        )
        defer { server.kill() }
        let base = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })

        // Five keep-alive clients ask for asset lists, from before the flood until after it.
        let stop = Atomic<Bool>(false)
        let answered = Atomic<Int>(0)
        let clients = DispatchGroup()
        for client in 0..<5 {
            DispatchQueue.global().async(group: clients) {
                var request = 0
                while !stop.load(ordering: .relaxed) {
                    guard let fd = FloodSocket.connect(port: port, seconds: 2) else {
                        usleep(50_000)  // refused: try again, without spending every ephemeral port
                        continue
                    }
                    defer { close(fd) }
                    while !stop.load(ordering: .relaxed) {
                        request += 1
                        let path = Self.midroll + "flood-viewer-\(client)-\(request)"
                        guard FloodSocket.send(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
                            FloodSocket.readAnswer(fd) == 200
                        else {
                            usleep(50_000)  // closed at accept (the cap): connect again
                            break
                        }
                        answered.wrappingAdd(1, ordering: .relaxed)
                    }
                }
            }
        }
        defer {
            stop.store(true, ordering: .relaxed)
            clients.wait()
        }
        // The clients are answered before the flood starts.
        await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(20)) {
            answered.load(ordering: .relaxed) >= 20
        }
        try #require(answered.load(ordering: .relaxed) >= 20, "the keep-alive clients were not answered")

        // The flood: 1,300 connections that never send a byte, every second one a WebSocket upgrade
        // that then says nothing.
        let flood = await Self.offPool { () -> [Int32] in
            var sockets: [Int32] = []
            for index in 0..<1300 {
                guard let fd = FloodSocket.connect(port: port, seconds: 1) else { continue }
                if index % 2 == 1 {
                    FloodSocket.send(
                        fd,
                        "GET /v1/groups/flood-\(index % 16) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                            + "Sec-WebSocket-Version: 13\r\n\r\n"
                    )
                }
                sockets.append(fd)
            }
            return sockets
        }
        defer { for fd in flood { close(fd) } }
        #expect(flood.count >= 1000, "the flood could connect only \(flood.count) times")

        // Held while the clients go on (twenty more answers) and the server works through the
        // flood's backlog (300 closed at accept), or 30 s: the server must live through it.
        let answeredBefore = answered.load(ordering: .relaxed)
        await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(100)) {
            !server.process.isRunning
                || (answered.load(ordering: .relaxed) >= answeredBefore + 20
                    && flood.filter(FloodSocket.closedByPeer).count >= 300)
        }
        #expect(server.process.isRunning, "the server died under the flood:\n\(server.text.suffix(2000))")
        // Connections above the cap were closed at accept: the server held no more than its cap
        // (1,200 less its reserve of 300) of the flood's 1,300.
        let closed = flood.filter(FloodSocket.closedByPeer).count
        #expect(closed >= 300, "only \(closed) of \(flood.count) flood connections were closed")
        #expect(server.text.contains("connection limit reached"))

        // The flood stops: /health is answered within 2 s.
        for fd in flood { shutdown(fd, Int32(SHUT_RDWR)) }
        let stopped = ContinuousClock.now
        var healthy = false
        while !healthy, ContinuousClock.now < stopped + .seconds(2) {
            healthy = await Self.offPool { () -> Bool in
                guard let fd = FloodSocket.connect(port: port, seconds: 1) else { return false }
                defer { close(fd) }
                return FloodSocket.send(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    && FloodSocket.readAnswer(fd) == 200
            }
        }
        let waited = ContinuousClock.now - stopped
        #expect(healthy, "/health was not answered within 2 s of the flood's end")
        #expect(server.process.isRunning)
        stop.store(true, ordering: .relaxed)
        #expect(try await server.terminate(), "the server did not stop on SIGTERM after the flood")
        print("descriptor flood: \(closed) of \(flood.count) closed at accept; /health after \(waited)")
    }

    /// Runs blocking work on a dispatch thread.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
