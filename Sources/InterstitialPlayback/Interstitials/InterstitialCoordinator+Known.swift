import HLSInterstitials
import HLSPlaylist

// The inputs that change what the coordinator knows of the events, their asset lists and the
// schedule (its `EventBook`), and the settings it is given once. The player reports through these
// and never writes the coordinator's fields itself.
extension InterstitialCoordinator {
    // MARK: Settings and what is known

    /// The player's settings, given once before it runs: how a live break resumes, the beacon
    /// policy, the preloads' random seed and whether the client fires beacons.
    mutating func configure(
        liveResumption: LiveResumption,
        beaconPolicy: BeaconQueue.Policy,
        preloadSeed: UInt64?,
        firesBeacons: Bool
    ) {
        self.liveResumption = liveResumption
        self.beaconPolicy = beaconPolicy
        self.seedPreloads(preloadSeed)
        self.firesBeacons = firesBeacons
    }

    /// The asset list of `eventID` could not be had (its request or its decoding failed): it is
    /// kept as failed and the event takes the failure's steps
    /// (``assetListDidFail(_:event:error:playing:)``), then the transitions are checked.
    mutating func assetListFailed(
        _ eventID: String,
        event: InterstitialEvent?,
        error: PlaybackError,
        playing: Bool
    ) -> [Action] {
        self.known.listFailed(error, for: eventID)
        return self.assetListDidFail(eventID, event: event, error: error, playing: playing) + [.checkTransitions]
    }

    /// Asset `index` of `eventID` failed to load: it is marked failed and takes the failure's steps
    /// (``assetDidFail(_:index:event:error:playing:)``).
    ///
    /// - Returns: `nil` when the event's list has no such asset (it was cleared meanwhile).
    mutating func assetFailedToLoad(
        _ eventID: String,
        index: Int,
        event: InterstitialEvent?,
        error: PlaybackError,
        playing: Bool
    ) -> [Action]? {
        guard self.known.assetFailed(index, of: eventID) else { return nil }
        return self.assetDidFail(eventID, index: index, event: event, error: error, playing: playing)
    }

    /// The asset list of `eventID` is forgotten (its status: cleared).
    mutating func listCleared(_ eventID: String) {
        self.known.listCleared(eventID)
    }

    /// `eventID` began playing (the ``Action/markPlayed(_:)`` its beginning asked for): the schedule
    /// marks it played (`CUE=ONCE`).
    mutating func markPlayed(_ eventID: String) {
        self.known.markPlayed(eventID)
    }

    /// The primary's playlist starts at `offset` on the stable timeline.
    mutating func primaryOffsetMoved(to offset: MediaTime) {
        self.known.offsetMoved(to: offset)
    }

    /// The events are placed again on `primary` (``schedule(after:rebuilding:primary:events:startTime:)``):
    /// the schedule is updated in place, not copied while it changes.
    mutating func placeEvents(
        rebuilding: Bool,
        primary: [MediaPlaylist],
        events: [InterstitialEvent],
        startTime: MediaTime?
    ) {
        let previous = self.known.takeSchedule()
        let schedule = self.schedule(
            after: previous,
            rebuilding: rebuilding,
            primary: primary,
            events: events,
            startTime: startTime
        )
        self.known.scheduleChanged(schedule)
    }

    /// The events are now `events`: those known before whose prepared assets no longer fit
    /// (``staleEvents(previous:events:playing:prepared:passed:)``) are returned for the player to
    /// drop.
    mutating func eventsReplaced(by events: [InterstitialEvent], playing: String?) -> StaleEvents {
        let stale = self.staleEvents(
            previous: self.known.events,
            events: events,
            playing: playing,
            prepared: Set(self.known.lists.keys),
            passed: self.passed
        )
        self.known.eventsChanged(events)
        return stale
    }
}
