/// How a live break without `X-RESUME-OFFSET` resumes the primary.
public struct LiveResumption: Sendable, Hashable, CustomStringConvertible {
    private let code: UInt8
    private init(_ code: UInt8) {
        self.code = code
    }
    /// The spec's default (Appendix D.2): the interstitial's duration, or its playout limit when
    /// shorter, counted from its start, whatever time the asset list and the loads took.
    public static let eventDuration = LiveResumption(0)
    /// AVFoundation's `resumptionOffset = .indefinite`: the time spent in the break, so the
    /// primary keeps pace with the wall clock (answer and load times included).
    public static let followsWallClock = LiveResumption(1)
    /// `eventDuration` or `followsWallClock`.
    public var description: String { self.code == 0 ? "eventDuration" : "followsWallClock" }
}
