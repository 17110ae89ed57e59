import Foundation
import GroupCoordination
import HLSPlaylist
import HTTPTypes

/// What the group hub's sockets (`/v1/groups/{id}`) are held to: each is configurable in the
/// `server:` section of the configuration file, within the range of ``InputLimits`` named beside
/// it.
public struct GroupLimits: Sendable, Hashable {
    /// `server.groupHelloTimeout`: how long a socket may stay open without having joined with
    /// `hello`; it is closed then (default 5 s; 0.1 to 300 s).
    public var helloTimeout: Duration = .seconds(5)
    /// `server.groupPingInterval`: how often the server sends a WebSocket ping to each socket; a
    /// socket that has not answered one by the next is closed (default 15 s; 0.1 to 3600 s).
    public var pingInterval: Duration = .seconds(15)
    /// `server.groupJoinsPerAddress`: the most participants of one group connected from one
    /// network address (default 8; 1 to 64).
    public var joinsPerAddress = GroupHub.defaultJoinsPerAddress
    /// `server.groupAddressHeader`: the request header that gives a participant's address.
    ///
    /// For a server behind a proxy that sets it: `X-Real-IP`, or `X-Forwarded-For`, whose last
    /// entry (the one the proxy added) is taken. Only a header the proxy always sets may be named,
    /// as a client can send any other. `nil` (the default): the connection's own address. A name
    /// of 1 to 64 letters, digits and `-`.
    public var addressHeader: String?
    /// `server.groupMessagesPerSecond`: the messages one socket may send per second, sustained
    /// (default 20; 0.1 to 10000); more are refused with a `rate-limited` error.
    public var messagesPerSecond: Double = 20
    /// `server.groupMessageBurst`: the messages one socket may send at once above the rate
    /// (default 40; 1 to 10000); a socket that has this many refused in a row is closed.
    public var messageBurst = 40
    /// `server.groupSendQueue`: the messages waiting to be written to one socket; a socket whose
    /// queue is full when another arrives is closed (default 256; 1 to 100000).
    public var sendQueue = 256
    /// `server.groupWriteTimeout`: how long one message may take to be written to a socket; a
    /// socket that does not take it in time is closed (default 5 s; 0.1 to 300 s).
    public var writeTimeout: Duration = .seconds(5)

    /// The defaults.
    public init() {}

    /// A participant's address: from ``addressHeader`` when it is set and present in `request`
    /// (its last entry, at most 64 printable bytes), otherwise the connection's.
    func address(of request: HTTPRequest, connection: String?) -> String? {
        guard let header = self.addressHeader, let name = HTTPField.Name(header),
            let value = request.headerFields[name]
        else { return connection }
        let last = value.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) ?? ""
        guard (1...64).contains(last.utf8.count), last.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return connection
        }
        return last
    }

    /// The limits of `GroupSocketGuard` these give.
    var socketGuard: GroupSocketGuard.Limits {
        GroupSocketGuard.Limits(
            helloTimeout: MediaTime(self.helloTimeout),
            messagesPerSecond: self.messagesPerSecond,
            burst: self.messageBurst,
            refusalsBeforeClosing: self.messageBurst
        )
    }
}
