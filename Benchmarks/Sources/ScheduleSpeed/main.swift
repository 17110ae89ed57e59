// Times the interstitial schedule on the 24-hour DVR playlist (43,200 segments, 500 interstitials):
// a full build, and the incremental update after a live reload that adds one segment and one tag.
// Prints one JSON line; the playlists are parsed beforehand (parse speed is ParseSpeed's job).
import BenchmarkSupport
import Foundation
import HLSInterstitials
import HLSPlaylist

func measure(_ runs: Int, _ body: () -> Void) -> (best: Double, median: Double) {
    body()
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    samples.sort()
    return (samples[0], samples[samples.count / 2])
}

let vod = try MediaPlaylist(bytes: try DVRPlaylist.bytes())
var schedule = Schedule(primary: vod)
precondition(schedule.events.count == 500)

// Full build from the playlist: event extraction (with same-ID merging) and the schedule.
let fromPlaylist = measure(50) { schedule = Schedule(primary: vod) }
let events = InterstitialEvent.events(in: vod)
let fromEvents = measure(50) { schedule = Schedule(primary: vod, events: events) }

// Live: build on the current window, then apply a reload with one more segment and tag.
let live = try MediaPlaylist(parsing: try DVRPlaylist.liveText())
let reload = try MediaPlaylist(parsing: try DVRPlaylist.liveReloadText())
let liveEvents = InterstitialEvent.events(in: live)
let reloadEvents = InterstitialEvent.events(in: reload)
let base = Schedule(primary: live, events: liveEvents, configuration: .init(start: .beginning))
var updated = base
// In place, as a player does: apply the reload (timed), then go back to the previous window (not
// timed) so every timed update adds one segment and one tag to the same schedule value.
var samples: [Double] = []
for _ in 0..<300 {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = updated.update(primary: reload, events: reloadEvents)
    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    _ = updated.update(primary: live, events: liveEvents)
}
samples.sort()
let update = (best: samples[0], median: samples[samples.count / 2])
// The same with the events tracked across the reload (same-ID merging of 501 ranges).
let tracker = DateRangeTracker(playlist: live)
let trackedUpdate = measure(100) {
    var t = tracker
    t.update(with: reload)
    _ = updated.update(primary: reload, events: t.interstitialEvents)
    _ = updated.update(primary: live, events: liveEvents)
}
_ = updated.update(primary: reload, events: reloadEvents)
precondition(updated.events.count == 501)
let fresh = Schedule(primary: reload, events: reloadEvents, configuration: .init(start: .beginning))
precondition(updated.items == fresh.items, "the incremental update must equal a fresh build")

print(
    """
    {"tool":"intermission-schedule","segments":\(vod.segments.count),"events":\(events.count),\
    "build_from_playlist_ms":\(fromPlaylist.best * 1e3),"build_from_playlist_median_ms":\(fromPlaylist.median * 1e3),\
    "build_from_events_ms":\(fromEvents.best * 1e3),"build_from_events_median_ms":\(fromEvents.median * 1e3),\
    "live_update_us":\(update.best * 1e6),"live_update_median_us":\(update.median * 1e6),\
    "live_update_with_tracker_us":\(trackedUpdate.best * 1e6),"live_update_with_tracker_median_us":\(trackedUpdate.median * 1e6)}
    """
)
