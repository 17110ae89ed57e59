import HLSInterstitials
import HLSPlaylist

/// A live window of the DVR playlist and its next reload (one more segment and one more
/// interstitial tag): the input of the schedule's live update.
public struct LiveReload: Sendable {
    /// The schedule of the live window.
    public var base: Schedule
    /// The live window.
    public var live: MediaPlaylist
    /// The live window's interstitial events.
    public var liveEvents: [InterstitialEvent]
    /// The reload.
    public var reload: MediaPlaylist
    /// The reload's interstitial events.
    public var reloadEvents: [InterstitialEvent]

    /// The live window of ``DVRPlaylist/liveText()``, scheduled, and its reload.
    public static func make() throws -> LiveReload {
        let live = try MediaPlaylist(parsing: try DVRPlaylist.liveText())
        let reload = try MediaPlaylist(parsing: try DVRPlaylist.liveReloadText())
        let liveEvents = InterstitialEvent.events(in: live)
        return LiveReload(
            base: Schedule(primary: live, events: liveEvents, configuration: .init(start: .beginning)),
            live: live,
            liveEvents: liveEvents,
            reload: reload,
            reloadEvents: InterstitialEvent.events(in: reload)
        )
    }
}
