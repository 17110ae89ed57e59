extension MediaTime {
    /// The media time of a `Duration`, to the nanosecond, saturating at ``MediaTime/minimum`` and
    /// ``MediaTime/maximum`` (a `Duration` reaches far beyond Int64 nanoseconds).
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / 1_000_000_000
        guard seconds < limit else {
            self = .maximum
            return
        }
        guard seconds > -limit else {
            self = .minimum
            return
        }
        self = MediaTime(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The `Duration` of this media time, to the nanosecond.
    public var duration: Duration {
        .nanoseconds(self.nanoseconds)
    }
}
