#!/usr/bin/env bash
# Decoration speed (issue 16): the whole pipeline the server runs per upstream change — parse the
# upstream media playlist, decorate it with the channel's breaks (LiveDecorator), serialize it — on
#   * a typical 6-segment live window with one break: target <= 6.4 us, the published per-playlist
#     figure of the Rust SSAI stitcher ritcher for its parse-decorate-serialize pipeline;
#   * the 24-hour DVR playlist (43,200 segments, 500 interstitials, 48 breaks added): target within
#     2x of `intermission format`'s work (parse, serialize) on the same file, timed in the same run.
# The break's EXT-X-DATERANGE line is rendered once per version of the break (the decorator keeps
# it), so the live figure is the steady state between break changes; the figure with the break
# changed before every run is printed too. Figures are thread CPU time (not wall clock: the machine
# is shared), best and median. With
# CALLGRIND=1 (default when valgrind is installed) it also prints instructions per live-window
# pipeline from `valgrind --tool=callgrind`: (instructions of N runs - of 0 runs) / N, a figure the
# load of the machine does not move. Prints JSON lines, then the figures in one table.
#
# Usage: scripts/bench-decorate.sh        Env: BENCH_CPU (default 1), CALLGRIND (1/0).
# The same cases in package-benchmark: cd Benchmarks && swift package benchmark --target DecorationBenchmarks
# (DecorateLiveWindow there is gated in CI by its malloc count: scripts/ci/benchmarks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
python3 scripts/gen-dvr-playlist.py .build-bench/dvr-24h.m3u8 >/dev/null
(cd Benchmarks && swift build -c release --product DecorateSpeed >&2)
binary=Benchmarks/.build/release/DecorateSpeed
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"

figures=$($pin "$binary")
echo "$figures"

callgrind=${CALLGRIND:-}
if [ -z "$callgrind" ]; then command -v valgrind >/dev/null && callgrind=1 || callgrind=0; fi
instructions=""
if [ "$callgrind" = 1 ]; then
    # Instructions collected by callgrind for `DecorateSpeed --only live N`.
    collected() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" --only live "$1" 2>&1 >/dev/null \
            | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    runs=2000
    base=$(collected 0)
    full=$(collected "$runs")
    instructions=$(( (full - base) / runs ))
    echo "{\"tool\":\"intermission-decorate-callgrind\",\"live_pipeline_instructions\":$instructions,\"runs\":$runs}"
fi

python3 - "$figures" "$instructions" <<'PY' | python3 scripts/bench_table.py "decoration (median thread CPU time unless said; targets in this script's header)"
import json, sys
f = json.loads(sys.argv[1])
print(f"live window pipeline, median\t{f['live_pipeline_median_us']:.2f}\tus")
print(f"live window pipeline, best\t{f['live_pipeline_us']:.2f}\tus")
print(f"live window pipeline, break changed every run\t{f['live_changed_break_pipeline_median_us']:.2f}\tus")
if sys.argv[2]:
    print(f"live window pipeline (callgrind)\t{int(sys.argv[2]):,}\tinstructions")
print(f"24h DVR decorated\t{f['dvr_decorate_median_ms']:.1f}\tms")
print(f"24h DVR format (parse, serialize)\t{f['dvr_format_median_ms']:.1f}\tms")
print(f"24h DVR decorated / format\t{f['dvr_decorate_over_format']:.2f}\tx")
PY
