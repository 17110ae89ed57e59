import HLSInterstitials
import HLSPlaylist

extension InterstitialCoordinator {
    /// What the player must do.
    enum Action: Sendable, Equatable {
        /// Write the log line and post the notification of an event.
        case emit(PlayerEvent)
        /// Set the playback rate.
        case setRate(Double)
        /// End the current event (a granted skip), not played entire.
        case finishCurrentEvent
        /// A request is refused, with why.
        case refuse(String)
        /// Cancel an event that cannot play (D.5): resume offset 0, the schedule placed without it.
        case cancelEvent(String)
        /// Request an event's asset list from this URL; the answer comes back as
        /// `assetListDidLoad` or `assetListDidFail`.
        case loadAssetList(eventID: String, url: String)
        /// Wake at this clock time at the latest, for these purposes (the earliest of the
        /// interstitial deadlines, ``TimerBook``); the player sleeps until then, or until something
        /// else happens, and feeds back `timerFired(at:)`.
        case armTimer(TimerPurposes, at: MediaTime)
        /// Send the head of the beacon queue to this URL; the answer comes back as
        /// `beaconAnswered(_:now:)`.
        case sendBeacon(url: String)

        // Follow-up inputs: the player performs its part of each, then feeds the coordinator
        // the next input, depth first, until none is left (no call goes back through the actor).

        /// Place every event again (the app's events changed): the schedule is rebuilt.
        case placeEventsAgain
        /// The first primary playlist arrived: work out where playback starts (and the pre-rolls
        /// or the break a live join lands in).
        case resolveStart
        /// Begin a break the schedule placed: mark its events handled, put the primary playhead at
        /// its start, then `beginBreak(_:)`.
        case beginBreak(BreakPlan)
        /// The primary stops waiting: a break begins.
        case primaryPlays
        /// Begin this event of the break playing (`eventBegins(_:events:schedule:rate:now:)`).
        case beginEvent(String)
        /// Mark the event played in the schedule.
        case markPlayed(String)
        /// Work out the player's status again (playing, waiting, the reason).
        case updateStatus
        /// Make sure the event's assets are known: its `X-ASSET-URI`, or its asset list requested.
        case prepareAssets(String)
        /// Enter the event beginning partway when the item's or a seek's interstitial start names it.
        case enterUnderWay(String)
        /// A break a live join entered partway: start the first event's assets partway.
        case applyJoin
        /// End the current event (`entire`: played to its end) with an `emit(_:)` of its end
        /// first, then `closeEvent`.
        case finishEvent(entire: Bool)
        /// The end of the current event was announced: `closeEvent(now:)`.
        case closeEvent
        /// The event ended: its skip state goes back to not skippable.
        case clearSkipState(InterstitialEvent)
        /// Drop the presentations of an event's assets.
        case dropAssets(String)
        /// The break's last event ended: `endBreak(in:primary:rate:now:)`.
        case endBreak
        /// A seek leaves the break: `abandonBreak(rate:)`.
        case abandonBreak
        /// Forget that the primary buffered from a break's resume point: `forgetReposition()`.
        case forgetReposition
        /// Primary content resumes at this time (stable primary timeline).
        case resumePrimary(MediaTime)
        /// The break was the post-rolls at the primary's end: the primary ended.
        case primaryEnded
        /// React to where the playhead is: the primary's boundary, its end, or the event playing.
        case checkTransitions
        /// React to where the event playing is: its list, its assets, their ends, stalls.
        case checkEvent
        /// A break just began: react to its first event now, not at the next wake.
        case checkBreakJustStarted
    }
}
