import HLSInterstitials
import HLSPlaylist

/// What the coordinator remembers of the item playing: how it starts, whether its post-rolls
/// began, and the events the app set through the controller.
struct ItemProgress: Sendable {
    /// Whether the item's ``PlayerItem/interstitialStart`` has been used (it applies once).
    var usedInterstitialStart = false
    /// An interstitial to enter partway when it next begins (``Player/seek(to:enteringInterstitial:at:)``).
    var pendingInterstitialStart: InterstitialStart?
    /// Whether the post-rolls began (the primary reached its end).
    var postrollsStarted = false
    /// Whether the start position was worked out (at the first primary playlist).
    var startResolved = false
    /// The app's events (``InterstitialEventController/setEvents(_:)``), `nil` when it set none.
    var controllerEvents: [InterstitialEvent]?
    /// The playlist's events known when the app set its own: left out while the app's stand.
    var suppressedPlaylistIDs: Set<String> = []
    /// Playlist events left out as unusable, by identifier, with the defects already logged
    /// (logged again only when they change).
    var ignored: [String: [InterstitialEvent.Defect]] = [:]
}

extension InterstitialCoordinator {
    // MARK: The item: its start, its post-rolls, the app's events

    /// The app set `events` (``InterstitialEventController/setEvents(_:)``) while the playlist had
    /// the events `playlistIDs`: they replace the playlist's (an empty list gives them back), and
    /// every event is placed again.
    mutating func setControllerEvents(_ events: [InterstitialEvent], playlistIDs: Set<String>) -> [Action] {
        let set = self.controllerEvents(events, playlistIDs: playlistIDs)
        self.item.controllerEvents = set.events
        self.item.suppressedPlaylistIDs = set.suppressed
        return [.placeEventsAgain]
    }

    /// The events the schedule uses, from the playlist's usable `playlist` events and the app's
    /// (``effectiveEvents(playlist:controller:suppressed:automatic:)``).
    func effectiveEvents(playlist: [InterstitialEvent], automatic: Bool) -> [InterstitialEvent] {
        self.effectiveEvents(
            playlist: playlist,
            controller: self.item.controllerEvents,
            suppressed: self.item.suppressedPlaylistIDs,
            automatic: automatic
        )
    }

    /// The playlist's `events` as read now: those that can play, and one `eventIgnored` per defect
    /// not logged before for the same event (``usableEvents(_:ignored:)``).
    mutating func readPlaylistEvents(_ events: [InterstitialEvent]) -> (usable: [InterstitialEvent], actions: [Action])
    {
        let split = self.usableEvents(events, ignored: self.item.ignored)
        self.item.ignored = split.ignored
        return (split.usable, split.actions)
    }

    /// A primary playlist arrived: the first one decides where playback starts.
    mutating func primaryPlaylistArrived() -> [Action] {
        guard !self.item.startResolved else { return [] }
        self.item.startResolved = true
        return [.resolveStart]
    }

    /// The primary reached its end at `position` (clock time `now`): its post-rolls begin, once.
    ///
    /// - Returns: `nil` when none start (they began already, there are none, or there is no
    ///   schedule yet).
    mutating func primaryReachedEnd(in context: BreakContext?, at position: MediaTime, now: MediaTime) -> [Action]? {
        guard !self.item.postrollsStarted, let context else { return nil }
        self.item.postrollsStarted = true
        guard let plan = self.postrollBreak(in: context, at: position, now: now) else { return nil }
        return [.beginBreak(plan)]
    }

    /// A seek asks to enter `start`'s interstitial partway when it next begins; `nil` withdraws it
    /// (the seek was refused).
    mutating func enterOnNextBegin(_ start: InterstitialStart?) {
        self.item.pendingInterstitialStart = start
    }

    /// The event `eventID` began: a seek's pending start, else the item's `itemStart` (used once),
    /// enters it partway when it names it (``enter(_:beginning:)``).
    mutating func enterUnderWay(_ eventID: String, itemStart: InterstitialStart?) {
        let start: InterstitialStart
        if let pending = self.item.pendingInterstitialStart {
            self.item.pendingInterstitialStart = nil
            start = pending
        } else if !self.item.usedInterstitialStart, let itemStart {
            self.item.usedInterstitialStart = true
            start = itemStart
        } else {
            return
        }
        self.enter(start, beginning: eventID)
    }
}
