#!/usr/bin/env bash
# Schedule speed on the 24-hour DVR playlist (43,200 segments, 500 interstitials): a full build and
# the incremental update after a live reload that adds one segment and one tag, or one segment and
# one changed date range (target <= 20 us, issue 16), with events parsed afresh and with the events
# a DateRangeTracker hands the player (it keeps the event of each unchanged range). Prints one JSON
# line (builds by the wall clock, updates by thread CPU time), then, with valgrind installed
# (CALLGRIND=0 to skip), the instructions per update from `valgrind --tool=callgrind`, a figure the
# machine's load does not move.
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
python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
tracked = r["live_update_tracked_events_us"]
print(f"live update as the player makes it (events from its DateRangeTracker; one new segment and one "
      f"changed date range): {tracked:.1f} us, median {r['live_update_tracked_events_median_us']:.1f} us; "
      f"target <= 20: {'MET' if tracked <= 20 else 'NOT MET'}")
print(f"live update with freshly parsed events (every event compared field by field): "
      f"{r['live_update_us']:.1f} us (one new tag), {r['live_update_changed_range_us']:.1f} us (one changed range)")
PY
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
    echo "{\"tool\":\"intermission-schedule-callgrind\",\"live_update_instructions\":$((fresh / 600)),\"live_update_tracked_events_instructions\":$((tracked / 300))}"
fi
