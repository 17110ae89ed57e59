#!/usr/bin/env bash
# Benchmarks the coordinated-playback hub of `intermission serve` (issue 12's scale target):
# 1,000 groups of 4 participants over real WebSockets on loopback, one command per group, the time
# until every participant of the group has the new state (p99 target < 20 ms), and the server's
# memory per participant. The load generator is Python (asyncio + the `websockets` package from
# PyPI, installed if missing), so the latency includes its own scheduling.
# Usage: scripts/bench-groups.sh [GROUPS (1000)] [SIZE (4)] [COMMANDS_PER_SECOND (500)]
# Env: PORT (default 18282), CONFIGURATION (default release).
set -euo pipefail
cd "$(dirname "$0")/.."
groups=${1:-1000}
size=${2:-4}
rate=${3:-500}
port=${PORT:-18282}
configuration=${CONFIGURATION:-release}
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check websockets
swift build -c "$configuration" --product intermission >&2
# Each participant is a socket on both sides: room for 2 x groups x size descriptors.
ulimit -n 65536 2>/dev/null || true
".build/$configuration/intermission" serve --demo --port "$port" --database memory: >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
python3 scripts/bench_groups.py "ws://127.0.0.1:$port" "$server" "$groups" "$size" "$rate"
