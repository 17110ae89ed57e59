import Foundation
import HLSPlaylist
import Synchronization

/// A source of wall-clock dates.
///
/// Everything in `AdInsertion` takes dates as arguments; the server
/// reads them from one of these so tests can drive time.
public protocol WallClock: Sendable {
    /// The current date.
    func now() -> DateTime
}

/// The system's wall clock.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// The current date, read from the system with millisecond precision.
    public func now() -> DateTime {
        DateTime(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}

/// A clock that only moves when told to: for tests and simulations.
///
/// A final class with a `Mutex` because tests hand the same clock to the server and keep advancing
/// it from the test body; the lock makes that sharing safe without an actor hop on every read.
public final class ManualWallClock: WallClock {
    private let current: Mutex<DateTime>

    /// Creates a clock showing `date`.
    public init(_ date: DateTime) {
        self.current = Mutex(date)
    }

    /// The date the clock shows.
    public func now() -> DateTime {
        self.current.withLock { $0 }
    }

    /// Moves the clock forward (or back, with a negative amount).
    public func advance(by amount: MediaTime) {
        self.current.withLock { $0 = $0 + amount }
    }

    /// Sets the date the clock shows.
    public func set(_ date: DateTime) {
        self.current.withLock { $0 = date }
    }
}
