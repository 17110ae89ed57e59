import HLSInterstitials
import HLSPlaylist

/// The asset list of one event, as far as it is known.
enum AssetListState: Sendable {
    case loading
    case loaded([AssetSlot], SkipControl?)
    case failed(PlaybackError)
}

/// One asset of an interstitial: its URL (with `_HLS_primary_id`), its duration when the list
/// gives one, and whether it failed.
struct AssetSlot: Sendable {
    var url: String
    var duration: MediaTime?
    var failed = false
    /// Why its URI was refused when its list loaded (``InterstitialCoordinator/assetURIRefusal(_:)``),
    /// decided once with its slot; `nil` for a URI that resolved.
    var refusal: PlaybackError? = nil
}

/// One event of a break once it finished, as it was when it played: a copy of its attributes
/// and of what the schedule said of it, so replacing the events while it plays
/// (``InterstitialEventController/setEvents(_:)``) cannot change how it ends.
struct FinishedEvent: Sendable, Hashable {
    /// The event's attributes as it played.
    var event: InterstitialEvent
    /// The schedule's resume offset for it, and where that came from.
    var scheduledOffset: MediaTime?
    /// Where ``scheduledOffset`` came from.
    var offsetSource: ScheduledEvent.ResumeOffsetSource?
    /// The interstitial's duration as the schedule knew it (the asset list's durations once loaded).
    var duration: MediaTime?
    /// The event's playhead when it ended (from the event's start, a live join's skipped part included).
    var playout: MediaTime
    /// Playback-clock time spent in it.
    var elapsed: MediaTime
    /// Whether any of it played.
    var playedSomething: Bool
    /// Whether it was cancelled before it played (a failed asset list or asset URI): resume offset 0.
    var cancelled: Bool
}

/// A break being played: events at one point of the primary, played in order, then the primary
/// resumes.
struct BreakRun: Sendable, Equatable {
    /// The events still to play after the current one.
    var queue: [String]
    /// Where the primary paused (stable primary timeline).
    var start: MediaTime
    /// The clock time the break began.
    var startedAt: MediaTime
    /// Events of this break already finished, with how long they played and whether anything did.
    var finished: [FinishedEvent] = []
    /// A fixed resumption (a seek plan's target, or `cancelCurrentEvent(resumptionOffset:)`).
    var fixedResume: MediaTime?
    /// `cancelCurrentEvent(resumptionOffset: nil)`: resume by the time spent.
    var resumeByElapsed = false
    /// How far into the first event a live join starts.
    var joinOffset: MediaTime = .zero
    /// The resume offsets of the pod's events that a live join landed after (they do not play).
    var skippedSpan: MediaTime = .zero
}

/// The event playing.
struct EventRun: Sendable {
    var event: InterstitialEvent
    var assetIndex = 0
    /// The playhead inside the current asset presentation.
    var assetPosition: MediaTime = .zero
    /// Playout of the assets before the current one.
    var playedBefore: MediaTime = .zero
    var startedAt: MediaTime
    var assetStarted = false
    var stalled = true
    /// Where in the event playback began: 0, or how far into it a live join landed.
    var joinedAt: MediaTime = .zero
    /// What the schedule said of the event when it began (or when its list loaded): kept, so that
    /// replacing the events while it plays does not change how it ends.
    var scheduledOffset: MediaTime?
    /// Where ``scheduledOffset`` came from.
    var offsetSource: ScheduledEvent.ResumeOffsetSource?
    /// The interstitial's duration as the schedule knew it.
    var duration: MediaTime?
    var eventID: String { self.event.identifier }
    /// The playhead inside the event (from the event's start, across its assets): what playout
    /// limits and skip control count.
    var eventTime: MediaTime { self.playedBefore + self.assetPosition }
    /// How much of the event this player actually played (a live join's skipped part excluded):
    /// what `eventDidFinish` reports as the playout time.
    var playedTime: MediaTime { MediaTime.max(.zero, self.eventTime - self.joinedAt) }
}

/// What the coordinator reads of the primary when a break ends.
struct PrimaryAtBreakEnd: Sendable {
    /// The primary playhead (the break's start).
    var position: MediaTime
    /// The primary's duration, when it has one (VOD, or a live stream that ended).
    var duration: MediaTime?
    /// Whether the post-rolls began (the primary reached its end).
    var postrollsStarted: Bool
    /// The primary's tracks, whose segment boundaries `X-SNAP=IN` counts.
    var tracks: [Track]
}

/// Everything the player keeps about interstitials.
///
/// The decision state is the coordinator's (``coordinator``): the break and the event playing,
/// the events, the schedule and its offset, the asset lists and the URLs they were requested
/// from, the skip state, the timers, the beacon plans and queue, the preloads, the item's start
/// and post-rolls, and the app's events; the properties of the same names here only read it.
/// What stays here is what the loads brought in: ``tracker`` and ``schedules``, what the
/// playlists' date ranges and the Appendix H documents said.
struct InterstitialState: Sendable {
    var tracker = DateRangeTracker()
    /// The integrated schedule (the coordinator owns it).
    var schedule: Schedule? { self.coordinator.known.schedule }
    /// Stable primary time = schedule time + offset (the coordinator owns it).
    var offset: MediaTime { self.coordinator.known.offset }
    /// The app's events (the coordinator owns them).
    var controllerEvents: [InterstitialEvent]? { self.coordinator.item.controllerEvents }
    /// The events as the monitor shows them (the coordinator owns them).
    var events: [InterstitialEvent] { self.coordinator.known.events }
    /// Each event's asset list as far as it is known (the coordinator owns them).
    var lists: [String: AssetListState] { self.coordinator.known.lists }
    /// Events cancelled before they played (failed asset list or asset URI): resume offset 0
    /// (the coordinator owns them).
    var cancelled: Set<String> { self.coordinator.cancelled }
    /// Events handled at their point in this pass (the coordinator owns them).
    var passed: Set<String> { self.coordinator.passed }
    /// The event playing (the coordinator owns it).
    var current: EventRun? { self.coordinator.current }
    /// The break playing (the coordinator owns it).
    var currentBreak: BreakRun? { self.coordinator.currentBreak }
    /// Whether the post-rolls began (the coordinator owns it).
    var postrollsStarted: Bool { self.coordinator.item.postrollsStarted }
    /// The skip state of the event playing (the coordinator owns it).
    var skipState: SkippableEventState { self.coordinator.skipState }
    /// The pure decisions: breaks, assets, loading ahead, skipping, the rate, resumption.
    var coordinator = InterstitialCoordinator()
    /// The preload ranges (Appendix F) followed (the coordinator owns them).
    var preloads: PreloadBook { self.coordinator.preloads }
    /// The scheduled date ranges (Appendix H): documents requested, answered and resolved.
    var schedules = ScheduleBook()
    /// Client-side beacons (SVTA2053-2): what fires when (the coordinator owns them).
    var beacons: BeaconTracker { self.coordinator.beacons }
}
