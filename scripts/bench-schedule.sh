#!/usr/bin/env bash
# Schedule speed on the 24-hour DVR playlist (43,200 segments, 500 interstitials): a full build and
# the incremental update after a live reload that adds one segment and one tag, or one segment and
# one changed date range (target <= 20 us, issue 16). Prints one JSON line (builds by the wall
# clock, updates by thread CPU time), then, with valgrind installed (CALLGRIND=0 to skip), the
# instructions per update from `valgrind --tool=callgrind`, a figure the machine's load does not move.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
python3 scripts/gen-dvr-playlist.py .build-bench/dvr-24h.m3u8 >/dev/null
(cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift build -c release --product ScheduleSpeed >/dev/null)
# Pinned to one core, as bench-parse.sh does.
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
$pin Benchmarks/.build/release/ScheduleSpeed
if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
    # Only inside forwardUpdate: the 600 timed updates (300 of each kind) and their warm-up.
    collected=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*forwardUpdate*' \
        Benchmarks/.build/release/ScheduleSpeed --updates-only 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "{\"tool\":\"intermission-schedule-callgrind\",\"live_update_instructions\":$((collected / 600))}"
fi
