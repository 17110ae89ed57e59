#!/usr/bin/env bash
# Asset-list requests across one live break, with and without preload date ranges (spec Appendix F).
#
# Starts a release `intermission serve` with a looped live channel `bench` (the demo media, 2 s
# segments) whose one break starts BREAK_IN seconds after the viewers start joining, then runs
# Benchmarks' ViewerLoad: VIEWERS headless live players (real clocks, real HTTP over loopback)
# across that break. While they play, /metrics is sampled every 0.5 s; the per-second count of
# live asset-list decisions (intermission_decisions_total{scope="live"}, every result: each one
# is an asset-list request the server answered) comes from the deltas. Prints, for the preload
# window W (the channel's `preloadWindow`) and then for W=0 (no preload range: today's behaviour),
# one JSON line: the requests per second over the W seconds before the break (or the 10 s before
# it when W=0), the peak, the mean over that window, peak/mean, the total count, the largest
# single second anywhere, failed asset-list requests (non-2xx, from the route's request counter)
# and ViewerLoad's playback errors; then the same for the viewers' window (`viewersWindow*`): the
# W-second span holding the most requests, since players date the range on their playheads, which
# trail the server's clock by their live latency. The target (issue 16) is a peak within 2x the
# mean over the viewers' window. Seconds are counted from the cumulative counter interpolated at
# each whole second.
#
# Not a timed test: the ratio compares seconds of one run with each other.
#
# Usage: scripts/bench-preload.sh [VIEWERS (default 2000)] [WINDOW seconds (default 32)]
# Env: PORT (default 18383), BREAK_IN (default 70), RAMP (default 10), CONFIGURATION of ViewerLoad
#      (default release), SERVER_CONFIGURATION (default release), SERVER_CPU (default 0), VIEWER_CPU
#      (default 1), ONLY (window or zero: run one of the two).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-2000}
window=${2:-32}
port=${PORT:-18383}
break_in=${BREAK_IN:-70}
ramp=${RAMP:-10}
configuration=${CONFIGURATION:-release}
server_configuration=${SERVER_CONFIGURATION:-release}

# shellcheck source=scripts/demo-server.sh
. scripts/demo-server.sh
prepare_viewer_load "$server_configuration" "$configuration"

# The live decisions counted so far, and the non-2xx answers of the asset-list route.
scrape() {
    curl -sf "http://127.0.0.1:$port/metrics" | awk '
        /^intermission_decisions_total\{/ && /scope="live"/ { decided += $NF }
        /^intermission_http_requests_total\{/ && /asset-lists/ && !/status="2/ { failed += $NF }
        END { printf "%d %d\n", decided, failed }'
}

run_one() {
    local preload=$1
    local work
    work=$(mktemp -d)
    local now start_date
    now=$(date -u +%s)
    # Segment 0 a minute ago (a full window at once); the break BREAK_IN s from now.
    start_date=$(date -u -d "@$((now - 60))" +%Y-%m-%dT%H:%M:%SZ)
    local break_at=$((now + break_in))
    cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: $work/bench.sqlite
  logLevel: warning
channels:
  - id: bench
    loop: /media/demo/primary/
    playlist: main.m3u8
    window: 6
    startDate: $start_date
    breaks: {every: 3600, duration: 20, offset: $((60 + break_in))}
    lookahead: $((preload + 30))
    preloadWindow: $preload
YAML
    # shellcheck disable=SC2086 # the pin prefix is words or nothing
    start_demo_server "$server_binary" "$work/bench.yaml" "$work" "$port" $pin_server
    : > "$work/samples"
    (
        while :; do
            printf '%s %s\n' "$(date +%s.%N)" "$(scrape)" >> "$work/samples"
            sleep 0.5
        done
    ) &
    local sampler=$!
    local duration=$((break_in + 25 - ramp - 3))
    echo "== preloadWindow $preload s: $viewers viewers, break at +${break_in}s, measuring ${duration}s" >&2
    # shellcheck disable=SC2086
    local load
    load=$($pin_viewers "$viewer_binary" --url "http://127.0.0.1:$port/live/bench/main.m3u8" \
        --viewers "$viewers" --duration "$duration" --ramp "$ramp")
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    local from=$((break_at - (preload > 0 ? preload : 10)))
    python3 - "$work/samples" "$from" "$break_at" "$preload" "$load" <<'PY'
import json, sys
path, start, end, window, load = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
samples = [tuple(float(x) for x in line.split()) for line in open(path) if len(line.split()) == 3]
# The counter value at each whole second, interpolated between the samples around it (taking the
# last sample before it instead made neighbouring seconds alternate high and low whenever the 0.5 s
# sampler ran late on a busy machine).
def at(t):
    before = after = None
    for s in samples:
        if s[0] <= t: before = s
        elif after is None: after = s
    if before is None: return None
    if after is None or after[0] == before[0]: return before[1]
    return before[1] + (after[1] - before[1]) * (t - before[0]) / (after[0] - before[0])
per_second = {}
first, last = int(samples[0][0]) + 1, int(samples[-1][0])
for t in range(first, last + 1):
    a, b = at(t - 1), at(t)
    if a is not None and b is not None: per_second[t] = b - a
inside = [per_second.get(t, 0) for t in range(start + 1, end + 1)]
# The viewers' window: a player dates the range on its own playhead, which trails the server's
# clock by its live latency (about three target durations), so its requests fall in a window of
# the same length that starts later; the span of that length holding the most requests is it.
span = len(inside)
best_from, best_sum = start, -1
for s0 in range(first - 1, last - span + 1):
    total_here = sum(per_second.get(t, 0) for t in range(s0 + 1, s0 + span + 1))
    if total_here > best_sum: best_from, best_sum = s0, total_here
aligned = [per_second.get(t, 0) for t in range(best_from + 1, best_from + span + 1)]
total = sum(per_second.values())
failed = samples[-1][2] - samples[0][2]
mean = sum(inside) / len(inside) if inside else 0
result = {
    "preloadWindow": window,
    "assetListRequests": int(round(total)),
    "requestsInWindow": int(round(sum(inside))),
    "windowSeconds": len(inside),
    "peakPerSecond": round(max(inside), 1) if inside else 0,
    "meanPerSecond": round(mean, 2),
    "peakOverMean": round(max(inside) / mean, 2) if mean else None,
    "busiestSecondAnywhere": round(max(per_second.values()), 1) if per_second else 0,
    "failedAssetListRequests": int(failed),
    "perSecond": [round(x, 1) for x in inside],
    "viewersWindowStartsAfterServerWindow": best_from - start,
    "viewersWindowRequests": int(round(sum(aligned))),
    "viewersWindowPeakPerSecond": round(max(aligned), 1) if aligned else 0,
    "viewersWindowPeakOverMean": round(max(aligned) / (sum(aligned) / len(aligned)), 2) if aligned and sum(aligned) else None,
    "viewersWindowPerSecond": [round(x, 1) for x in aligned],
}
try:
    viewer = json.loads(load)
    result["playbackErrors"] = viewer.get("errors")
    result["breaksStarted"] = viewer.get("breaksStarted")
except ValueError:
    result["viewerLoad"] = load
print(json.dumps(result))
PY
    kill "$demo_server" 2>/dev/null || true
    wait "$demo_server" 2>/dev/null || true
    trap - EXIT
    rm -rf "$work"
}

[ "${ONLY:-}" != zero ] && run_one "$window"
[ "${ONLY:-}" != window ] && run_one 0
exit 0
