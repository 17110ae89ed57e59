// Times the interstitial schedule on the 24-hour DVR playlist (43,200 segments, 500 interstitials):
// a full build, and the incremental update after a live reload that adds one segment and one tag,
// or one segment and changes one date range (the ≤ 20 µs target of issue 16: thread CPU time, best
// and median of 300; the builds are wall clock).
// Prints one JSON line; the playlists are parsed beforehand (parse speed is ParseSpeed's job).
import BenchmarkSupport
import Foundation
import HLSInterstitials
import HLSPlaylist

#if canImport(Glibc)
import Glibc
#endif

/// CPU time of the calling thread in nanoseconds: unlike the wall clock, not inflated when other
/// processes share the core (a clock_gettime call, well under a microsecond).
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

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
// `--updates-only`: only the live updates (for callgrind, where the builds would take minutes).
let updatesOnly = CommandLine.arguments.contains("--updates-only")
let fromPlaylist = updatesOnly ? (best: 0.0, median: 0.0) : measure(50) { schedule = Schedule(primary: vod) }
let events = InterstitialEvent.events(in: vod)
let fromEvents =
    updatesOnly ? (best: 0.0, median: 0.0) : measure(50) { schedule = Schedule(primary: vod, events: events) }

// Live: build on the current window, then apply a reload with one more segment and tag.
let live = try MediaPlaylist(parsing: try DVRPlaylist.liveText())
let reload = try MediaPlaylist(parsing: try DVRPlaylist.liveReloadText())
let liveEvents = InterstitialEvent.events(in: live)
let reloadEvents = InterstitialEvent.events(in: reload)
let base = Schedule(primary: live, events: liveEvents, configuration: .init(start: .beginning))
var updated = base
/// Best and median seconds of `schedule.update(primary: next, ...)`, in place as a player does:
/// apply the reload (timed), then go back to the window `back` (not timed) so every timed update
/// makes the same change to the same schedule value.
///
/// One update, apart so that `valgrind --tool=callgrind --toggle-collect='*forwardUpdate*'` counts
/// the instructions of the timed updates alone (scripts/bench-schedule.sh).
@inline(never)
func forwardUpdate(_ schedule: inout Schedule, to next: (MediaPlaylist, [InterstitialEvent])) {
    _ = schedule.update(primary: next.0, events: next.1)
}

func timedUpdates(
    _ schedule: inout Schedule,
    to next: (MediaPlaylist, [InterstitialEvent]),
    back: (MediaPlaylist, [InterstitialEvent])
) -> (best: Double, median: Double) {
    var samples: [Double] = []
    for _ in 0..<300 {
        let start = threadCPUNanoseconds()
        forwardUpdate(&schedule, to: next)
        samples.append(Double(threadCPUNanoseconds() - start) / 1e9)
        _ = schedule.update(primary: back.0, events: back.1)
    }
    samples.sort()
    return (samples[0], samples[samples.count / 2])
}
// One new segment and one new tag.
let update = timedUpdates(&updated, to: (reload, reloadEvents), back: (live, liveEvents))
// One new segment and one changed date range (the last break's DURATION shortened).
let changedReload = try MediaPlaylist(parsing: try DVRPlaylist.liveReloadChangedText())
let changedEvents = InterstitialEvent.events(in: changedReload)
precondition(changedEvents.count == 500 && changedEvents.last?.duration != liveEvents.last?.duration)
let changedUpdate = timedUpdates(&updated, to: (changedReload, changedEvents), back: (live, liveEvents))
_ = updated.update(primary: changedReload, events: changedEvents)
precondition(
    updated.items
        == Schedule(primary: changedReload, events: changedEvents, configuration: .init(start: .beginning)).items,
    "the incremental update must equal a fresh build"
)
_ = updated.update(primary: live, events: liveEvents)
// As the player updates: the events come from its DateRangeTracker, which keeps the event of each
// unchanged date range from one reload to the next, and the reload adds one segment and changes one
// date range (the last break gains X-PLAYOUT-LIMIT: an early return).
@inline(never)
func trackedForwardUpdate(_ schedule: inout Schedule, to next: (MediaPlaylist, [InterstitialEvent])) {
    // The array form (what the single-playlist form calls), so that this function's body differs
    // from forwardUpdate's and the linker does not fold the two: callgrind counts each apart.
    _ = schedule.update(primary: [next.0], events: next.1)
}
let earlyReturn = try MediaPlaylist(parsing: try DVRPlaylist.liveReloadEarlyReturnText())
let liveTracker = DateRangeTracker(playlist: live)
var earlyTracker = liveTracker
precondition(earlyTracker.update(with: earlyReturn).updated == ["dvr-break-500"])
let trackedBack = liveTracker.interstitialEvents
let trackedNext = earlyTracker.interstitialEvents
precondition(trackedNext.count == 500 && trackedNext.last?.playoutLimit != trackedBack.last?.playoutLimit)
var tracked = Schedule(primary: live, events: trackedBack, configuration: .init(start: .beginning))
var trackedSamples: [Double] = []
for _ in 0..<300 {
    let start = threadCPUNanoseconds()
    trackedForwardUpdate(&tracked, to: (earlyReturn, trackedNext))
    trackedSamples.append(Double(threadCPUNanoseconds() - start) / 1e9)
    _ = tracked.update(primary: live, events: trackedBack)
}
trackedSamples.sort()
_ = tracked.update(primary: earlyReturn, events: trackedNext)
precondition(
    tracked.items
        == Schedule(primary: earlyReturn, events: trackedNext, configuration: .init(start: .beginning)).items,
    "the incremental update must equal a fresh build"
)
// The same with the events tracked across the reload (same-ID merging of 501 ranges).
let tracker = DateRangeTracker(playlist: live)
let trackedUpdate =
    updatesOnly
    ? (best: 0.0, median: 0.0)
    : measure(100) {
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
    "live_update_changed_range_us":\(changedUpdate.best * 1e6),\
    "live_update_changed_range_median_us":\(changedUpdate.median * 1e6),"live_update_target_us":20,"live_update_clock":"thread CPU time",\
    "live_update_tracked_events_us":\(trackedSamples[0] * 1e6),\
    "live_update_tracked_events_median_us":\(trackedSamples[150] * 1e6),\
    "live_update_with_tracker_us":\(trackedUpdate.best * 1e6),"live_update_with_tracker_median_us":\(trackedUpdate.median * 1e6)}
    """
)
