#!/usr/bin/env bash
# CI step: the gated package-benchmark benchmarks (Benchmarks/; their tolerances are Gate's, in
# Benchmarks/Sources/BenchmarkGate) are built in release mode and run, and their counts are checked against the thresholds committed in
# Benchmarks/Thresholds/<toolchain>/ (package-benchmark's `thresholds check`): a regression past
# a benchmark's tolerance fails the step with a line naming the benchmark and the metric, and so
# does an improvement past it (the committed figure is then stale: update it on purpose).
#
#   scripts/ci/benchmarks.sh            check (alone, from the repository root)
#   scripts/ci/benchmarks.sh --update   rewrite the thresholds from a run on this machine
#
# Env: BENCHMARK_METRICS (default "mallocCountTotal"): the checked metrics, space-separated
# package-benchmark names. `instructions` needs hardware performance counters (perf events); the
# machines this project runs on refuse them (perf_event_open: ENOENT), so package-benchmark reads
# 0 instructions there and only the malloc count is gated.
set -uo pipefail
cd "$(dirname "$0")/../../Benchmarks"
# The decision and player benchmarks need the full package.
unset INTERMISSION_CORE_ONLY

# The gated benchmarks, by name (each has a Target.Name.p90.json file in the thresholds folder).
gated='^(ParseDVR24h|ScheduleLiveUpdate|DecorateLiveWindow|AssetListDecision|PlayerStep)$'
toolchain=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
thresholds="Thresholds/${toolchain:-unknown}"
metric_options=()
for metric in ${BENCHMARK_METRICS:-mallocCountTotal}; do metric_options+=(--metric "$metric"); done

if [ "${1:-}" = "--update" ]; then
    mkdir -p "$thresholds"
    swift package --allow-writing-to-package-directory benchmark thresholds update \
        --path "$thresholds" --filter "$gated" "${metric_options[@]}" --no-progress
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "FAILED benchmarks: thresholds update exited with $status (see above)"
        exit 1
    fi
    echo "ok benchmarks: thresholds written to Benchmarks/$thresholds (review and commit them)"
    exit 0
fi

if [ ! -d "$thresholds" ]; then
    echo "FAILED benchmarks: no thresholds for Swift ${toolchain:-unknown} in Benchmarks/$thresholds" \
        "(write them with scripts/ci/benchmarks.sh --update)"
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift package benchmark thresholds check --path "$thresholds" --filter "$gated" "${metric_options[@]}" \
    --no-progress 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then
    names=$(find "$thresholds" -name '*.p90.json' -printf '%f\n' | sed 's/^[^.]*\.//; s/\.p90\.json$//' | sort | paste -sd, -)
    echo "ok benchmarks: ${names//,/, } within their thresholds (Benchmarks/$thresholds;" \
        "metrics: ${BENCHMARK_METRICS:-mallocCountTotal})"
    exit 0
fi
# Each deviation table follows a header "Deviations worse|better than threshold for Target:Name",
# is titled with the metric ("Malloc (total) (#, Δ)") and has a p90 row: one line per benchmark
# and metric.
deviations=$(python3 - "$log" <<'PY'
import re, sys
benchmark = kind = metric = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines():
    header = re.match(r"Deviations (worse|better) than threshold for (\S+)", line)
    if header:
        kind = "regressed" if header[1] == "worse" else "improved"
        benchmark, metric = header[2], None
        continue
    if benchmark is None or not line.startswith("│"):
        continue
    cells = [cell.strip() for cell in line.strip().strip("│").split("│")]
    title = re.match(r"(.*) \(([^)]*), (Δ|%)\)$", cells[0])
    if title:
        metric, percent = title[1], title[3] == "%"
    elif metric and cells[0] == "p90" and len(cells) >= 5:
        unit = " %" if percent else ""
        print(f"{benchmark} {metric} {kind}: p90 {cells[2]} against the threshold {cells[1]}"
              f" (difference {cells[3]}{unit}, allowed {cells[4]}{unit})")
PY
)
if [ -n "$deviations" ]; then
    echo "$deviations" | sed 's/^/benchmark deviation: /'
    first=$(echo "$deviations" | head -1)
    echo "FAILED benchmarks: $(echo "$deviations" | wc -l) deviations past their thresholds (first: $first;" \
        "a change on purpose: scripts/ci/benchmarks.sh --update)"
else
    echo "FAILED benchmarks: swift package benchmark thresholds check exited with $status (see above)"
fi
exit 1
