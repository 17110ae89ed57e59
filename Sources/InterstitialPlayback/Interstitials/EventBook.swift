import HLSInterstitials
import HLSPlaylist

/// What the interstitial engine knows of the events: the events as the monitor shows them, the
/// integrated schedule, the offset between the schedule's time and the primary's stable time, and
/// each event's asset list as far as it is known.
///
/// The coordinator owns it (``InterstitialCoordinator/known``): its decisions read it, and it
/// changes only through these inputs, each named for what happened.
struct EventBook: Sendable {
    /// The events as the monitor shows them.
    private(set) var events: [InterstitialEvent] = []
    /// The integrated schedule, once the primary playlist arrived.
    private(set) var schedule: Schedule?
    /// Stable primary time = schedule time + offset (the schedule counts from the playlist's first
    /// segment, which moves with a live window).
    private(set) var offset: MediaTime = .zero
    /// Each event's asset list, as far as it is known.
    private(set) var lists: [String: AssetListState] = [:]

    // MARK: Events and the schedule

    /// The events shown changed.
    mutating func eventsChanged(_ events: [InterstitialEvent]) {
        self.events = events
    }

    /// The primary's playlist moved its first segment to `offset` on the stable timeline.
    mutating func offsetMoved(to offset: MediaTime) {
        self.offset = offset
    }

    /// Takes the schedule out, to be updated in place and put back with ``scheduleChanged(_:)``
    /// (not copied while it changes).
    mutating func takeSchedule() -> Schedule? {
        self.schedule.take()
    }

    /// The schedule was placed again.
    mutating func scheduleChanged(_ schedule: Schedule?) {
        self.schedule = schedule
    }

    /// `eventID` began playing: the schedule marks it played (`CUE=ONCE`).
    mutating func markPlayed(_ eventID: String) {
        _ = self.schedule?.markPlayed(eventID)
    }

    /// The preload ranges of the primary playlist, read again.
    mutating func preloadRangesChanged(_ ranges: [PreloadRange]) {
        self.schedule?.setPreloadRanges(ranges)
    }

    // MARK: Asset lists

    /// The assets of `eventID` are known without a request (its `X-ASSET-URI`).
    mutating func assetsKnown(_ list: AssetListState, for eventID: String) {
        self.lists[eventID] = list
    }

    /// The asset list of `eventID` is requested (or a preload's answer awaited).
    mutating func listRequested(_ eventID: String) {
        self.lists[eventID] = .loading
    }

    /// Whether the asset list of `eventID` is awaited.
    func isLoading(_ eventID: String) -> Bool {
        if case .loading? = self.lists[eventID] { return true }
        return false
    }

    /// The asset list of `eventID` arrived as `loaded`; its assets' durations (`durations`) replace
    /// the schedule's estimate.
    mutating func listLoaded(_ loaded: AssetListState, durations: [MediaTime], for eventID: String) {
        self.lists[eventID] = loaded
        _ = self.schedule?.setAssetDurations(durations, forEvent: eventID)
    }

    /// The asset list of `eventID` failed.
    mutating func listFailed(_ error: PlaybackError, for eventID: String) {
        self.lists[eventID] = .failed(error)
    }

    /// Asset `index` of `eventID` failed: it is marked so, and is not played.
    ///
    /// - Returns: Whether the event's list has that asset.
    mutating func assetFailed(_ index: Int, of eventID: String) -> Bool {
        guard case .loaded(var slots, let skip)? = self.lists[eventID], slots.indices.contains(index) else {
            return false
        }
        slots[index].failed = true
        self.lists[eventID] = .loaded(slots, skip)
        return true
    }

    /// The asset list of `eventID` is forgotten (the event was unscheduled or replaced).
    mutating func listCleared(_ eventID: String) {
        self.lists[eventID] = nil
    }
}
