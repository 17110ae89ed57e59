import Foundation
import GroupCoordination
import HummingbirdWebSocket
import NIOCore

/// One group socket's way out: a bounded queue of messages, written in order by the socket's own
/// task (``drain(to:)``), each write within a deadline.
///
/// Queuing never waits, so a group's actor never waits for a participant's socket. A socket
/// whose queue is full when a message arrives, or that does not take a message within the write
/// deadline, is closed at once (its connection, without a close handshake: one that does not read
/// would not answer it); its reader then ends, and the participant leaves the group.
final class GroupConnection: Sendable {
    /// Identifies the connection in its group's hub (random).
    let id: UInt64
    /// The connection's network address, without the port (`nil` when unknown).
    let address: String?
    /// How long one message may take to be written.
    let writeTimeout: Duration
    /// The clock the write deadline is measured on.
    let clock: ElapsedClock
    /// The connection's channel, closed at once when the connection is dropped.
    let channel: any Channel
    /// The messages waiting to be written, in order.
    let queue: AsyncStream<GroupMessage>
    /// Where messages are queued (bounded: a message that does not fit is dropped, and the
    /// connection with it).
    let queued: AsyncStream<GroupMessage>.Continuation

    /// A connection on `channel`, from `address`, that queues at most `capacity` messages and
    /// measures its write deadline on `clock`.
    init(channel: any Channel, address: String?, capacity: Int, writeTimeout: Duration, clock: ElapsedClock) {
        self.id = UInt64.random(in: 1...UInt64.max)
        self.address = address
        self.writeTimeout = writeTimeout
        self.clock = clock
        self.channel = channel
        (self.queue, self.queued) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(max(1, capacity)))
    }

    /// Queues a message; a full queue closes the connection.
    func send(_ message: GroupMessage) {
        if case .dropped = self.queued.yield(message) { self.close() }
    }

    /// Ends the queue: ``drain(to:)`` returns once it has written what is queued.
    func finish() { self.queued.finish() }

    /// Closes the connection now (messages still queued are dropped).
    func close() {
        self.queued.finish()
        self.channel.close(promise: nil)
    }

    /// Writes the queued messages as JSON text until the queue ends; a write that fails or takes
    /// longer than ``writeTimeout`` closes the connection.
    func drain(to outbound: WebSocketOutboundWriter) async {
        let encoder = JSONEncoder()
        for await message in self.queue {
            guard let data = try? encoder.encode(message) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            let written = await withTaskGroup(of: Bool.self) { writes in
                writes.addTask { (try? await outbound.writeTextMessage(text)) != nil }
                writes.addTask {
                    try? await self.clock.sleep(for: self.writeTimeout)
                    return false
                }
                let first = await writes.next() ?? false
                // A write that missed its deadline ends when the connection closes.
                if !first { self.close() }
                writes.cancelAll()
                return first
            }
            if !written {
                self.close()
                return
            }
        }
    }
}
