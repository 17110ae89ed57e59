import Synchronization

/// The streams of one kind of update (a coordinator's statuses, a receiver's events): each value
/// yielded goes to every stream open, and a stream that ends leaves at once, without a task.
///
/// A final class with a `Mutex`: streams end on whatever task stops reading them, and their
/// `onTermination` runs synchronously there; the lock is held only to change or copy the set of
/// streams, never while a value is handed over.
final class StreamFanOut<Element: Sendable>: Sendable {
    /// The open streams by key, and the next stream's key.
    private let streams = Mutex<(next: Int, all: [Int: AsyncStream<Element>.Continuation])>((0, [:]))
    /// How many values a stream keeps for a slow reader (the newest).
    let buffer: Int

    /// Streams that each keep the newest `buffer` values a slow reader has not taken.
    init(buffer: Int) {
        self.buffer = buffer
    }

    /// A new stream of the values yielded from now on.
    func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self,
            bufferingPolicy: .bufferingNewest(self.buffer)
        )
        let key = self.streams.withLock { streams in
            defer { streams.next += 1 }
            streams.all[streams.next] = continuation
            return streams.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.all.removeValue(forKey: key) }
        }
        return stream
    }

    /// Hands `value` to every open stream.
    func yield(_ value: Element) {
        for continuation in self.streams.withLock({ Array($0.all.values) }) { continuation.yield(value) }
    }
}
