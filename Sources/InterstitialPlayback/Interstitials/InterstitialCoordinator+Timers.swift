import HLSInterstitials
import HLSPlaylist

/// What a timer the coordinator arms is for: the interstitial side of the player's deadlines.
///
/// The primary's own deadlines (its buffer's end, a break's start, reloads, commands, the stall
/// timeout) stay with the presentations and the run loop; these are the ones the interstitial
/// engine decides.
struct TimerPurposes: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    /// The asset playing reaches its buffered end, its end, or the event's `X-PLAYOUT-LIMIT`.
    static let assetBoundary = TimerPurposes(rawValue: 1 << 0)
    /// The skip control of the event playing opens or closes.
    static let skipControl = TimerPurposes(rawValue: 1 << 1)
    /// The primary playhead reaches a preload range's moment (Appendix F).
    static let preload = TimerPurposes(rawValue: 1 << 2)
    /// The asset playing reaches the moment of its next timed beacon.
    static let beaconMoment = TimerPurposes(rawValue: 1 << 3)
    /// The head of the beacon queue may be sent again after a failed try.
    static let beaconRetry = TimerPurposes(rawValue: 1 << 4)
}

/// The instants the coordinator's timers are armed for, one per purpose.
///
/// The machine keeps one instant per purpose but arms one timer, the earliest
/// (``InterstitialCoordinator/Action/armTimer(_:at:)``): the actor sleeps on one clock, and one
/// pass of its run loop reacts to everything due at once (each check finds what is due from the
/// state, not from which timer fired), so one timer per purpose would only wake it more often.
/// The purposes say why it wakes, for tests and for the fired input.
struct TimerBook: Sendable, Equatable {
    /// See ``TimerPurposes/assetBoundary``.
    var assetBoundary: MediaTime?
    /// See ``TimerPurposes/skipControl``.
    var skipControl: MediaTime?
    /// See ``TimerPurposes/preload``.
    var preload: MediaTime?
    /// See ``TimerPurposes/beaconMoment``.
    var beaconMoment: MediaTime?
    /// See ``TimerPurposes/beaconRetry``.
    var beaconRetry: MediaTime?

    /// The instant armed for `purpose` (a single purpose).
    subscript(purpose: TimerPurposes) -> MediaTime? {
        switch purpose {
        case .assetBoundary: self.assetBoundary
        case .skipControl: self.skipControl
        case .preload: self.preload
        case .beaconMoment: self.beaconMoment
        case .beaconRetry: self.beaconRetry
        default: nil
        }
    }

    /// The earliest instant armed, and every purpose due then; `nil` when none is armed.
    var earliest: (purposes: TimerPurposes, instant: MediaTime)? {
        var result: (purposes: TimerPurposes, instant: MediaTime)?
        Self.consider(self.assetBoundary, .assetBoundary, in: &result)
        Self.consider(self.skipControl, .skipControl, in: &result)
        Self.consider(self.preload, .preload, in: &result)
        Self.consider(self.beaconMoment, .beaconMoment, in: &result)
        Self.consider(self.beaconRetry, .beaconRetry, in: &result)
        return result
    }

    /// Keeps the earlier of `result` and `instant` (for `purpose`), joining the purposes of equal
    /// instants.
    private static func consider(
        _ instant: MediaTime?,
        _ purpose: TimerPurposes,
        in result: inout (purposes: TimerPurposes, instant: MediaTime)?
    ) {
        guard let instant else { return }
        if let best = result, best.instant < instant { return }
        if let best = result, best.instant == instant {
            result = (best.purposes.union(purpose), instant)
        } else {
            result = (purpose, instant)
        }
    }

    /// The timer fired at `now`: the purposes due by then are cleared.
    ///
    /// - Returns: The purposes that fired.
    mutating func fire(at now: MediaTime) -> TimerPurposes {
        var fired: TimerPurposes = []
        if let time = self.assetBoundary, time <= now {
            (self.assetBoundary, fired) = (nil, fired.union(.assetBoundary))
        }
        if let time = self.skipControl, time <= now { (self.skipControl, fired) = (nil, fired.union(.skipControl)) }
        if let time = self.preload, time <= now { (self.preload, fired) = (nil, fired.union(.preload)) }
        if let time = self.beaconMoment, time <= now { (self.beaconMoment, fired) = (nil, fired.union(.beaconMoment)) }
        if let time = self.beaconRetry, time <= now { (self.beaconRetry, fired) = (nil, fired.union(.beaconRetry)) }
        return fired
    }
}

/// What the coordinator reads of the player to arm its timers: the state the actor keeps this
/// pass (part of it is the streaming side's, which the coordinator does not own).
struct TimerReadings: Sendable {
    /// The playback rate (0 while paused).
    var rate: Double
    /// Whether playback ended or failed.
    var finished: Bool
    /// Whether the primary waits for its buffer.
    var primaryStalled: Bool
    /// The primary playhead (stable time).
    var primaryPosition: MediaTime
    /// The asset list of the event playing, as far as it is known.
    var list: AssetListState?
    /// The integrated schedule.
    var schedule: Schedule?
    /// The playhead as the navigation policy sees it.
    var playhead: Playhead
    /// The preload ranges followed; `nil`: the coordinator's own (``InterstitialCoordinator/preloads``).
    var preloads: PreloadBook? = nil
    /// The beacons' tracker; `nil`: the coordinator's own when it fires beacons
    /// (``InterstitialCoordinator/beacons``), none otherwise.
    var beacons: BeaconTracker? = nil
}

/// What the coordinator reads of the asset playing's presentation (read only when a timer needs
/// it: working out the buffer's end costs a pass through its tracks).
struct AssetReading: Sendable {
    /// Whether its playlists are in.
    var isReady: Bool
    /// How far its buffer reaches from the asset's playhead.
    var bufferedEnd: MediaTime
    /// Its duration, once known.
    var duration: MediaTime?
}

extension InterstitialCoordinator {
    // MARK: Timers

    /// The instants of the interstitial deadlines at clock time `now`, from the event playing
    /// (`current`), the beacon queue's head (`beaconRetry`) and what the player reads (`readings`;
    /// `asset` reads the asset playing's presentation, `nil` when it has none).
    ///
    /// - The asset's boundary: while the event plays (not stalled, the rate above 0), when its
    ///   playhead reaches `assetLimit(_:bufferedEnd:duration:)` at the rate (now when already there).
    /// - The skip control: the next opening or closing of the skip window, at the rate.
    /// - A preload: while the primary plays, the next scheduled moment, 1 ms past it (now when passed).
    /// - A beacon's moment: while an asset that began plays, its next timed beacon.
    /// - A beacon's retry: the queue's head's due time, while nothing is being sent.
    func timerInstants(
        _ readings: TimerReadings,
        current: EventRun?,
        beaconRetry: MediaTime?,
        now: MediaTime,
        asset: () -> AssetReading?
    ) -> TimerBook {
        var book = TimerBook()
        let rate = readings.rate
        let beacons = readings.beacons ?? (self.firesBeacons ? self.beacons : nil)
        if let run = current, !run.stalled, rate > 0 {
            let reading = asset()
            if !readings.finished, let reading, reading.isReady {
                let limit = self.assetLimit(run, bufferedEnd: reading.bufferedEnd, duration: reading.duration)
                book.assetBoundary = limit > run.assetPosition ? Self.after(limit - run.assetPosition, rate, now) : now
            }
            if let report = self.skipReport(
                of: run,
                list: readings.list,
                schedule: readings.schedule,
                at: readings.playhead
            ),
                let next = self.nextSkipChange(report, after: run.eventTime)
            {
                book.skipControl = Self.after(next - run.eventTime, rate, now)
            }
            if run.assetStarted, let beacons,
                let next = beacons.nextMoment(
                    eventID: run.eventID,
                    asset: run.assetIndex,
                    after: run.assetPosition,
                    duration: reading?.duration
                )
            {
                book.beaconMoment = Self.after(next - run.assetPosition, rate, now)
            }
        }
        if rate > 0, !readings.primaryStalled, current == nil,
            let moment = self.nextPreloadMoment(readings.preloads ?? self.preloads)
        {
            book.preload =
                moment > readings.primaryPosition
                ? Self.after(moment - readings.primaryPosition, rate, now) + MediaTime(milliseconds: 1) : now
        }
        if beacons != nil { book.beaconRetry = beaconRetry }
        return book
    }

    /// Clock time `now` plus `distance` of media played at `rate`.
    private static func after(_ distance: MediaTime, _ rate: Double, _ now: MediaTime) -> MediaTime {
        now + MediaTime(seconds: distance.seconds / rate)
    }
}
