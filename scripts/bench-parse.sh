#!/usr/bin/env bash
# Parse speed, same run, same file: Intermission's parser vs Python's m3u8 6.x `loads()`.
# Generates the 24-hour DVR playlist (43,200 segments, PDT on each, 500 interstitials), builds the
# ParseSpeed benchmark in release, runs both, and prints both figures and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-bench
playlist=.build-bench/dvr-24h.m3u8
python3 scripts/gen-dvr-playlist.py "$playlist"
(cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift build -c release --product ParseSpeed >/dev/null)
# Both run pinned to the same core (unpinned runs on this 2-core VM are bimodal: some processes
# measure 35% slower when the scheduler moves them between cores).
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
# Steady-state allocator, as in a long-running process: glibc keeps the parser's multi-megabyte
# buffers in its heap instead of mapping fresh pages for every parse. Without this, fresh processes
# on this VM measure bimodally (about 420 or about 260 MB/s with the same page-fault count);
# BENCH_COLD=1 measures that way.
if [ -z "${BENCH_COLD:-}" ]; then
    export MALLOC_MMAP_THRESHOLD_=268435456 MALLOC_TRIM_THRESHOLD_=536870912
fi
ours=$($pin Benchmarks/.build/release/ParseSpeed "$playlist" 20)
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_
theirs=$($pin python3 scripts/bench_m3u8_loads.py "$playlist" --runs 5)
echo "$ours"
echo "$theirs"
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("intermission parse: %.2f ms (%.0f MB/s)  serialize: %.3f ms (%.0f MB/s)  serialize after editing 500 tags: %.3f ms (%.0f MB/s)" % (
    ours["parse_seconds"] * 1e3, ours["parse_mb_per_s"], ours["serialize_seconds"] * 1e3, ours["serialize_mb_per_s"],
    ours["serialize_edited_seconds"] * 1e3, ours["serialize_edited_mb_per_s"]))
print("python m3u8 %s loads(): %.1f ms (%.1f MB/s)" % (theirs["version"], theirs["parse_seconds"] * 1e3, theirs["mb_per_s"]))
print("ratio (m3u8 / intermission parse time): %.1fx" % (theirs["parse_seconds"] / ours["parse_seconds"]))
PY
