import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection-at-a-time HTTP server on a loopback port that answers every request with the
/// bytes `answer` gives (written in parts, with pauses, so slow and lying servers can be played).
public final class RawServer: Sendable {
    /// The parts of one answer and the pause before each, in milliseconds.
    public typealias Answer = @Sendable (_ requestHead: String) -> [(pause: Int, bytes: [UInt8])]

    /// The loopback port it listens on.
    public let port: Int
    private let socket: CInt
    /// Whether ``stop()`` was called, and whether the serving thread has ended.
    ///
    /// The listening socket is closed exactly once, by whichever of the two comes second. Closed
    /// while the thread may still call `accept` on it, its descriptor's number could be given to
    /// the next server's socket, and the old thread would answer that server's requests with the
    /// old handler (a test once got another test's 404 that way).
    private let life = Life()

    /// ``stop()`` called, the serving thread ended: shared with the thread.
    private final class Life: Sendable {
        let state = Mutex<(stopped: Bool, served: Bool)>((false, false))
    }

    /// Writes bytes to the connection being answered; `false` once the peer has gone.
    public typealias Send = (_ bytes: [UInt8]) -> Bool

    /// Answers one request: given its head, writes what it likes through `send` (it runs on the
    /// server's own thread and may block there; the next connection waits until it returns).
    public typealias Handler = @Sendable (_ requestHead: String, _ send: Send) -> Void

    /// Starts listening on a free loopback port; `answer` makes the answer to each request head.
    public convenience init(answer: @escaping Answer) throws {
        try self.init { head, send in
            for (pause, bytes) in answer(head) {
                // The stimulus of a slow origin: a part written late, on the server's own thread.
                if pause > 0 { usleep(useconds_t(pause * 1000)) }
                if !send(bytes) { break }
            }
        }
    }

    /// Starts listening on a free loopback port; `handler` answers each request.
    public init(handler: @escaping Handler) throws {
        RealTime.expectHeld("a raw server on loopback")
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: CInt = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<CInt>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw CancellationError() }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.socket = fd
        let life = self.life
        let thread = Thread {
            RawServer.serve(fd, handler) { life.state.withLock { $0.stopped } }
            life.state.withLock { state in
                state.served = true
                if state.stopped { close(fd) }
            }
        }
        thread.start()
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(self.port)" }

    /// Stops listening (an answer being written goes on to its end); calling it again does nothing.
    public func stop() {
        self.life.state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // The thread's `accept` fails once the socket is shut down; the thread then closes it.
            if state.served { close(self.socket) } else { shutdown(self.socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Accepts and answers connections until `accept` fails after ``stop()`` (or for good).
    private static func serve(_ fd: CInt, _ handler: Handler, stopped: () -> Bool) {
        while true {
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                let error = errno
                if stopped() { return }
                // Passing failures (a signal, a connection reset before it was taken, descriptors
                // short for a moment) do not end the server.
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    usleep(10_000)
                    continue
                }
                return
            }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !head.ends(with: Array("\r\n\r\n".utf8)) {
                let n = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                head += buffer[0..<n]
            }
            handler(String(decoding: head, as: UTF8.self)) { bytes in
                bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } >= 0
            }
            close(connection)
        }
    }

    /// A complete answer with `Content-Length`.
    public static func response(_ status: String, _ body: [UInt8], headers: String = "") -> [UInt8] {
        Array("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\(headers)\r\n".utf8) + body
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        self.count >= suffix.count && Array(self[(self.count - suffix.count)...]) == suffix
    }
}

/// A TCP socket connected to `port` of loopback (blocking, the caller closes it), or `nil` when
/// the connection is refused.
public func connectLoopback(port: Int) -> Int32? {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else {
        close(fd)
        return nil
    }
    return fd
}

/// Whether something accepts a TCP connection on `port` of loopback now (the connection is closed
/// at once); `false` when it is refused.
public func loopbackAccepts(port: Int) -> Bool {
    guard let fd = connectLoopback(port: port) else { return false }
    close(fd)
    return true
}
