#!/usr/bin/env bash
# Schedule speed on the 24-hour DVR playlist (43,200 segments, 500 interstitials): a full build and
# the incremental update after a live reload that adds one segment and one tag. Prints one JSON line.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
python3 scripts/gen-dvr-playlist.py .build-bench/dvr-24h.m3u8 >/dev/null
(cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift build -c release --product ScheduleSpeed >/dev/null)
# Pinned to one core, as bench-parse.sh does.
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
$pin Benchmarks/.build/release/ScheduleSpeed
