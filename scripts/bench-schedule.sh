#!/usr/bin/env bash
# Schedule speed on the 24-hour DVR playlist (43,200 segments, 500 interstitials): a full build and
# the incremental update after a live reload that adds one segment and one tag, or one segment and
# one changed date range (target <= 20 us, issue 16), with events parsed afresh and with the events
# a DateRangeTracker hands the player (it keeps the event of each unchanged range). Prints one JSON
# line (builds by the wall clock, updates by thread CPU time), then, with valgrind installed
# (CALLGRIND=0 to skip), the instructions per update from `valgrind --tool=callgrind`, a figure the
# machine's load does not move; then all the figures in one table. The live update is gated in CI by
# its malloc count as ScheduleLiveUpdate (package-benchmark; scripts/ci/benchmarks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
python3 scripts/gen-dvr-playlist.py .build-bench/dvr-24h.m3u8 >/dev/null
(cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift build -c release --product ScheduleSpeed >/dev/null)
# Pinned to one core, as bench-parse.sh does.
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
result=$($pin Benchmarks/.build/release/ScheduleSpeed)
echo "$result"
instructions=""
if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
    # Only inside forwardUpdate (mangled with its length, 13): the 600 timed updates from freshly
    # parsed events (300 of each kind); then only inside trackedForwardUpdate: the 300 updates
    # with the events of a DateRangeTracker, as the player makes them.
    count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$1" \
            Benchmarks/.build/release/ScheduleSpeed --updates-only 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    fresh=$(count '*13forwardUpdate*')
    tracked=$(count '*20trackedForwardUpdate*')
    instructions="$((fresh / 600)) $((tracked / 300))"
    echo "{\"tool\":\"intermission-schedule-callgrind\",\"live_update_instructions\":$((fresh / 600)),\"live_update_tracked_events_instructions\":$((tracked / 300))}"
fi
python3 - "$result" "$instructions" <<'PY' | python3 scripts/bench_table.py "schedule on the 24h DVR playlist (best / median; the target is in this script's header)"
import json, sys
r = json.loads(sys.argv[1])
print(f"full build from the playlist\t{r['build_from_playlist_ms']:.1f} / {r['build_from_playlist_median_ms']:.1f}\tms")
print(f"full build from the events\t{r['build_from_events_ms']:.1f} / {r['build_from_events_median_ms']:.1f}\tms")
print(f"live update, tracked events (as the player)\t{r['live_update_tracked_events_us']:.1f} / "
      f"{r['live_update_tracked_events_median_us']:.1f}\tus CPU")
print(f"live update, parsed events, one new tag\t{r['live_update_us']:.1f} / {r['live_update_median_us']:.1f}\tus CPU")
print(f"live update, parsed events, one changed range\t{r['live_update_changed_range_us']:.1f} / "
      f"{r['live_update_changed_range_median_us']:.1f}\tus CPU")
if sys.argv[2]:
    fresh, tracked = sys.argv[2].split()
    print(f"live update, parsed events (callgrind)\t{int(fresh):,}\tinstructions")
    print(f"live update, tracked events (callgrind)\t{int(tracked):,}\tinstructions")
PY
