import Foundation
import IntermissionTestSupport
import NIOCore
import NIOPosix

/// An answer read off a raw TCP connection.
struct RawResponse: Sendable {
    /// The status code of the status line (0 when there was none).
    var status: Int
    /// Header fields, names lower-cased.
    var headers: [(name: String, value: String)]
    /// Every byte after the blank line that ends the head.
    var body: [UInt8]
    /// Every byte received, head included (several answers, when requests were pipelined).
    var raw: [UInt8]

    /// The first value of a header field.
    func header(_ name: String) -> String? {
        self.headers.first { $0.name == name.lowercased() }?.value
    }

    /// The body as JSON, when it is.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(self.body))) as? [String: Any]
    }

    /// `error.status`, `error.code` and `error.field` of a JSON error body.
    var error: (status: Int?, code: String?, field: String?) {
        let error = self.json?["error"] as? [String: Any]
        return (error?["status"] as? Int, error?["code"] as? String, error?["field"] as? String)
    }

    init(_ bytes: [UInt8]) {
        self.raw = bytes
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var end = bytes.count
        if bytes.count >= 4 {
            for k in 0...(bytes.count - 4) where Array(bytes[k..<k + 4]) == separator {
                end = k
                break
            }
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        self.body = end + 4 <= bytes.count ? Array(bytes[(end + 4)...]) : []
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let fields = statusLine.split(separator: " ")
        self.status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
        self.headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }
}

/// A transport failure of ``rawExchange(port:_:timeout:)``.
struct RawExchangeTimeout: Error {}

/// Sends `request` as it is to `127.0.0.1:port` and reads until the server closes the connection.
///
/// Requests should carry `Connection: close`.
func rawExchange(port: Int, _ request: [UInt8], timeout: Duration = .seconds(20)) async throws -> RawResponse {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    let answer = try await withDeadline(timeout, onTimeout: { try? await channel.channel.close() }) {
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var received: [UInt8] = []
            do {
                for try await chunk in inbound { received += chunk.readableBytesView }
            } catch  where !received.isEmpty {
                // A reset after the answer arrived: the answer is what counts.
            }
            return RawResponse(received)
        }
    }
    guard let response = answer else { throw RawExchangeTimeout() }
    return response
}

/// `rawExchange` with a request written as text.
func rawExchange(port: Int, _ request: String, timeout: Duration = .seconds(20)) async throws -> RawResponse {
    try await rawExchange(port: port, Array(request.utf8), timeout: timeout)
}
