#!/usr/bin/env bash
# Benchmarks the coordinated-playback hub of `intermission serve` (issue 12's scale target):
# 1,000 groups of 4 participants over real WebSockets on loopback, one command per group, the time
# until every participant of the group has the new state (p99 target < 20 ms), and the server's
# memory per participant. The load generator is Python (asyncio + the `websockets` package from
# PyPI, installed if missing), so the latency includes its own scheduling.
# Usage: scripts/bench-groups.sh [GROUPS (1000)] [SIZE (4)] [COMMANDS_PER_SECOND (500)]
# Env: PORT (default 18282), CONFIGURATION (default release), INSTANCES (default 1; 2 or more start
#      that many instances on one scratch PostgreSQL database, and the participants of each group
#      are spread over them, so every command crosses instances through the group relay).
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
instances=${INSTANCES:-1}
if ! [[ "$instances" =~ ^[0-9]+$ ]] || (( instances < 1 || instances > 8 )); then
    echo "INSTANCES must be a whole number from 1 to 8, not '$instances'" >&2
    exit 2
fi
database=memory:
if (( instances > 1 )); then
    # shellcheck source=scripts/postgres-scratch.sh
    . scripts/postgres-scratch.sh
    start_postgres "-c fsync=off -c synchronous_commit=off" >&2
    createdb=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/createdb
    "$createdb" -h 127.0.0.1 -p "${INTERMISSION_TEST_POSTGRES_URL##*:}" -U intermission groups 2>/dev/null ||
        psql -q "$INTERMISSION_TEST_POSTGRES_URL" -c "CREATE DATABASE groups" >&2
    database="${INTERMISSION_TEST_POSTGRES_URL%/postgres}/groups"
fi
servers=() bases=() pids=()
for ((k = 0; k < instances; k++)); do
    ".build/$configuration/intermission" serve --demo --port $((port + k)) --database "$database" >/dev/null 2>&1 &
    servers+=($!)
    pids+=("$!")
    bases+=("ws://127.0.0.1:$((port + k))")
done
trap 'kill ${servers[*]} 2>/dev/null || true; eval "${postgres_stop:-true}"' EXIT
for ((k = 0; k < instances; k++)); do
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$((port + k))/health" >/dev/null && break; sleep 0.1; done
done
python3 scripts/bench_groups.py "$(IFS=,; echo "${bases[*]}")" "$(IFS=,; echo "${pids[*]}")" "$groups" "$size" "$rate"
