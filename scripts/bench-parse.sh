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
# Both run pinned to the same core (unpinned runs on this 2-core VM also measure the scheduler).
pin=""
command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
# Our figure is taken in PROCESSES fresh processes (default 8; best of 20 parses each) and reported
# as the worst, median and best process: the worst process is the honest figure.
#
# Why processes differ: with 4 KiB pages the parse's working set (3.9 MB of input, ~4 MB of line
# records, ~3.5 MB of segment records) needs thousands of TLB entries, and the cost of a TLB miss
# depends on how the host backs the process's pages. Issue 2's notes saw a process either "fast"
# or "slow" for its whole life (about 600 vs 370 MB/s, same code, faults and addresses), and
# GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (transparent huge pages for malloc) made 9 of 10 fast.
# Since issue 15 the program asks for that itself, with no environment variable: the parser's
# record arrays and the file buffer (BenchmarkSupport.FileBytes, like the CLI's reader) come from
# HLSPlaylist's LargeBuffer, sized to whole 2 MiB pages and advised MADV_HUGEPAGE. Each process
# prints its minor page faults and its AnonHugePages (kB) so a run shows whether that worked
# (this VM's perf has no hardware counters: dTLB misses cannot be counted here), and its parse
# speed by thread CPU time next to the wall-clock figure: on a shared machine a process that
# shares its core with a build reads about half speed by the wall clock for its whole life, which
# looks like the slow mode but is not (its CPU-time figure stays normal).
# Measured 2026-11-25 (issue 15), other engineers building on the 2 cores (load 3-5): the slow
# mode did not appear in about 150 processes, with or without huge pages (the CPU-time worst
# stayed above 900 MB/s). 12 processes each, interleaved, by CPU time worst / median / best:
# before 995 / 1015 / 1035 MB/s, 12.4k page faults, no huge pages; with LargeBuffer 1014 / 1021 /
# 1044 MB/s, 5.6k-6.4k page faults, 12-16 MB in huge pages. Sizing the arrays to whole 2 MiB pages
# (so the kernel aligned them all alike) cost 8% (942 median): LargeBuffer does not do it.
processes=${PROCESSES:-8}
# BENCH_WARM=1: glibc keeps its buffers in the heap between parses (as a long-running process
# does) instead of mapping fresh pages for every parse (the default, what a plain process does).
if [ -n "${BENCH_WARM:-}" ]; then
    export MALLOC_MMAP_THRESHOLD_=268435456 MALLOC_TRIM_THRESHOLD_=536870912
fi
runs_file=$(mktemp)
trap 'rm -f "$runs_file"' EXIT
for _ in $(seq 1 "$processes"); do
    $pin Benchmarks/.build/release/ParseSpeed "$playlist" 20 >> "$runs_file"
done
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_
theirs=$($pin python3 scripts/bench_m3u8_loads.py "$playlist" --runs 5)
cat "$runs_file"
echo "$theirs"
python3 - "$runs_file" "$theirs" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
theirs = json.loads(sys.argv[2])
def spread(key, scale=1.0):
    values = sorted(run[key] * scale for run in runs)
    return values[0], statistics.median(values), values[-1]
p = spread("parse_mb_per_s"); s = spread("serialize_mb_per_s"); e = spread("serialize_edited_mb_per_s")
slowest = max(run["parse_seconds"] for run in runs)
print("intermission, %d processes (worst / median / best):" % len(runs))
print("  parse:     %.0f / %.0f / %.0f MB/s  (worst process: %.2f ms)" % (p[0], p[1], p[2], slowest * 1e3))
if all("parse_cpu_mb_per_s" in run for run in runs):
    # By the thread's CPU time: what the process did while it had the core (a shared machine's
    # other work shows in the wall-clock figure above, not here).
    c = spread("parse_cpu_mb_per_s")
    print("  parse by CPU time: %.0f / %.0f / %.0f MB/s" % c)
if all("minor_faults" in run for run in runs):
    for label, run in (("worst", min(runs, key=lambda r: r["parse_mb_per_s"])), ("best", max(runs, key=lambda r: r["parse_mb_per_s"]))):
        print("  %-5s process: %.0f MB/s (%.0f by CPU time), %d minor page faults, %d kB in huge pages" % (label, run["parse_mb_per_s"], run.get("parse_cpu_mb_per_s", 0), run["minor_faults"], run["anon_huge_kb"]))
print("  serialize: %.0f / %.0f / %.0f MB/s" % s)
print("  serialize after editing 500 tags: %.0f / %.0f / %.0f MB/s" % e)
print("python m3u8 %s loads(): %.1f ms (%.1f MB/s)" % (theirs["version"], theirs["parse_seconds"] * 1e3, theirs["mb_per_s"]))
print("ratio (m3u8 / intermission parse time, worst process): %.1fx" % (theirs["parse_seconds"] / slowest))
PY
