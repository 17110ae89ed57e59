#!/usr/bin/env bash
# 1,000 concurrent live viewers in one process at real-time speed, on one core.
#
# Starts `intermission serve --demo` in its own process (pinned to another core, so its CPU is not
# counted), then runs Benchmarks' ViewerLoad pinned to one core: N `Player`s on real clocks, each
# loading every playlist, asset list and segment of the demo live channel over loopback. The players,
# their `KeepAliveLoader` connections and their clocks' timers all run on one SwiftNIO event loop,
# which is also Swift Concurrency's executor (VIEWER_ARGS="--loader asynchttpclient --executor
# default" measures AsyncHTTPClient on Swift Concurrency's own pool instead). After a
# ramp-up (joins spread over RAMP seconds) it measures for DURATION seconds and prints one JSON
# line: viewers per core (viewer-seconds simulated per CPU-second used by the viewers' process,
# getrusage), CPU seconds per viewer-hour, resident memory per
# viewer (RSS growth / N), primary stalls while measuring and in all, playback errors, breaks
# started, the cores used, and the worst lateness of a 100 ms timer (a starved core shows there);
# then its figures in one table. The target (issue 16): >= 5,000 viewers per core.
#
# Usage: scripts/bench-viewers.sh [VIEWERS (default 1000)] [DURATION seconds (default 60)]
# Env: PORT (default 18282), CONFIGURATION of ViewerLoad (default release), SERVER_CONFIGURATION
#      (default release), VIEWER_CPU (default 1), SERVER_CPU (default 0), RAMP (default 10),
#      SERVER_BINARY (a prebuilt `intermission` to serve with; then the server is not built),
#      VIEWER_ARGS (more ViewerLoad options).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-1000}
duration=${2:-60}
port=${PORT:-18282}
configuration=${CONFIGURATION:-release}
server_configuration=${SERVER_CONFIGURATION:-release}
ramp=${RAMP:-10}

# shellcheck source=scripts/demo-server.sh
. scripts/demo-server.sh
prepare_viewer_load "$server_configuration" "$configuration"

work=$(mktemp -d)
cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: $work/bench.sqlite
  logLevel: warning
YAML
# shellcheck disable=SC2086 # the pin prefix is words or nothing
start_demo_server "$server_binary" "$work/bench.yaml" "$work" "$port" $pin_server

echo "== $viewers viewers of /live/demo/main.m3u8 for ${duration}s (ramp ${ramp}s), viewers pinned: ${pin_viewers:-no}" >&2
# shellcheck disable=SC2086 # the pin prefix and VIEWER_ARGS are words or nothing
result=$($pin_viewers "$viewer_binary" --url "http://127.0.0.1:$port/live/demo/main.m3u8" \
    --viewers "$viewers" --duration "$duration" --ramp "$ramp" ${VIEWER_ARGS:-})
echo "$result"
python3 - "$result" <<'PY' | python3 scripts/bench_table.py "live viewers in one process (the target is in this script's header)"
import json, sys
r = json.loads(sys.argv[1])
print(f"viewers per core\t{r['viewersPerCore']:,.0f}")
print(f"viewers' CPU\t{r['cpuSeconds']:.1f}\tCPU-s")
print(f"viewer time simulated\t{r['viewerSeconds']:,.0f}\tviewer-s")
print(f"viewers\t{r['viewers']:,}")
print(f"stalls while measuring\t{r['stallsWhileMeasuring']}")
print(f"playback errors\t{r['errors']}")
PY
