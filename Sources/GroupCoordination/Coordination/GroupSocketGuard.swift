import HLSPlaylist

/// What one participant's socket is held to, decided without I/O: how long it may take to say
/// `hello`, how many messages it may send (a token bucket: a sustained rate and a burst), and
/// when a socket that keeps sending too much is closed.
///
/// The server's socket task feeds it the instant of each message and performs its verdicts.
public struct GroupSocketGuard: Sendable {
    /// The limits, each configurable by the server's operator.
    public struct Limits: Sendable, Hashable {
        /// How long a socket may stay open without having joined (default 5 s).
        public var helloTimeout: MediaTime
        /// Messages a socket may send per second, sustained (default 20).
        public var messagesPerSecond: Double
        /// Messages a socket may send at once above the sustained rate (default 40).
        public var burst: Int
        /// Messages refused in a row for the rate after which the socket is closed (default 40).
        public var refusalsBeforeClosing: Int

        /// Limits; the defaults suit a participant that probes the clock every 2 s and sends a
        /// command or a suspension now and then.
        public init(
            helloTimeout: MediaTime = MediaTime(seconds: 5),
            messagesPerSecond: Double = 20,
            burst: Int = 40,
            refusalsBeforeClosing: Int = 40
        ) {
            self.helloTimeout = helloTimeout
            self.messagesPerSecond = messagesPerSecond
            self.burst = burst
            self.refusalsBeforeClosing = refusalsBeforeClosing
        }
    }

    /// What to do with a message.
    public enum Verdict: Sendable, Hashable {
        /// Handle it.
        case take
        /// Do not handle it; send this to the socket instead.
        case refuse(GroupMessage)
        /// Close the socket, for this reason.
        case close(reason: String)
    }

    /// The limits held to.
    public let limits: Limits
    /// When the socket opened.
    public let opened: ClockInstant
    /// Messages the socket may send now.
    var tokens: Double
    /// When ``tokens`` was last brought up to date.
    var refilled: ClockInstant
    /// Messages refused in a row.
    var refusals = 0

    /// A guard for a socket that opened at `opened`, with a full burst.
    public init(limits: Limits, opened: ClockInstant) {
        self.limits = limits
        self.opened = opened
        self.tokens = Double(max(1, limits.burst))
        self.refilled = opened
    }

    /// The instant by which the socket must have joined, or be closed.
    public var helloDeadline: ClockInstant { self.opened + self.limits.helloTimeout }

    /// A message arrived at `now`: taken while the bucket has a token; refused with an error
    /// otherwise; the socket is closed once ``Limits/refusalsBeforeClosing`` were refused in a row.
    public mutating func message(at now: ClockInstant) -> Verdict {
        let capacity = Double(max(1, self.limits.burst))
        if now > self.refilled {
            let elapsed = self.refilled.duration(to: now).seconds
            self.tokens = min(capacity, self.tokens + elapsed * max(0, self.limits.messagesPerSecond))
            self.refilled = now
        }
        if self.tokens >= 1 {
            self.tokens -= 1
            self.refusals = 0
            return .take
        }
        self.refusals += 1
        guard self.refusals < max(1, self.limits.refusalsBeforeClosing) else {
            return .close(reason: "too many messages")
        }
        return .refuse(
            .error(
                code: "rate-limited",
                message:
                    "more than \(self.limits.messagesPerSecond) messages a second (bursts of \(self.limits.burst)): this one was dropped"
            )
        )
    }
}
