import HLSPlaylist
import InterstitialPlayback
import NIOCore

/// A real-time clock (InterstitialPlayback's `RealPlaybackClock`) that sleeps on a SwiftNIO event
/// loop.
///
/// A player waiting on a `RealPlaybackClock` wakes from a Dispatch timer, on another thread than
/// the one its requests' answers arrive on. With this clock, the timer fires on `eventLoop`: when
/// that loop also runs Swift Concurrency's jobs (`MultiThreadedEventLoopGroup.singleton` installed
/// as the global executor) and carries the player's connections (``KeepAliveLoader``), a player's
/// timers, requests and steps all happen on one thread with no switch between them, which is how
/// one core holds thousands of viewers (`scripts/bench-viewers.sh`).
public struct EventLoopPlaybackClock: PlaybackClock {
    private let base: RealPlaybackClock
    /// The loop the timers run on.
    public let eventLoop: any EventLoop

    /// Creates a clock that reads 0 now.
    ///
    /// - Parameters:
    ///   - eventLoop: The loop the timers run on.
    ///   - speed: Clock seconds per real second; must be positive.
    public init(eventLoop: any EventLoop, speed: Double = 1) {
        self.base = RealPlaybackClock(speed: speed)
        self.eventLoop = eventLoop
    }

    /// Seconds since the clock was created, scaled by its speed.
    public var now: MediaTime { self.base.now }

    /// `false`: this clock moves by itself.
    public var isVirtual: Bool { false }

    /// Does nothing: real time cannot be advanced.
    public func advance(to time: MediaTime) {}

    /// Sleeps until the clock reads `deadline`, on a timer of ``eventLoop``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled (the timer is cancelled with it).
    public func sleep(until deadline: MediaTime) async throws {
        guard let wait = self.base.realNanoseconds(until: deadline) else { return }
        let timer = self.eventLoop.scheduleTask(in: .nanoseconds(wait)) {}
        try await withTaskCancellationHandler {
            do {
                try await timer.futureResult.get()
            } catch EventLoopError.cancelled {
                throw CancellationError()
            }
        } onCancel: {
            timer.cancel()
        }
    }
}
