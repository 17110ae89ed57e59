#!/usr/bin/env bash
# Asset-list decisions on PostgreSQL (issue 11's PostgreSQL speed line), measured, not a test.
#
# Starts a PostgreSQL server of its own (scripts/postgres-scratch.sh; or uses POSTGRES_URL, a
# database whose user may create databases), a new database, and two `intermission serve --demo`
# instances on it. New viewers (`wrk --latency`, each request a viewer never seen) go first to
# instance A alone, then to A and B at once (one wrk per instance, run together); ROUNDS rounds,
# interleaved, median of each. Prints req/s, p99 and the two-instance ratio in one table (the targets:
# one instance >= 3000 new viewers/s with p99 < 20 ms; two together >= 1.6x one), the rows stored
# (every acknowledged decision is a row) and the load average before and after.
#
# Usage: scripts/bench-postgres.sh [DURATION per wrk run (default 5s)]
#        (also `ONLY=postgres scripts/bench-serve.sh`)
# Env: BINARY (an `intermission` binary built already; otherwise the CONFIGURATION build, default
#      release, is made), PORT (A's; B's is PORT+1; default 18191), THREADS (wrk threads per run,
#      default 2), CONNECTIONS (per wrk run, default 64), ROUNDS (default 3), POOL (connections per
#      instance, default 20), POSTGRES_URL (see above).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-5s}
port=${PORT:-18191}
threads=${THREADS:-2}
connections=${CONNECTIONS:-64}
rounds=${ROUNDS:-3}
pool=${POOL:-20}
configuration=${CONFIGURATION:-release}

command -v wrk >/dev/null || apt-get install -y wrk >&2 || { apt-get update >&2 && apt-get install -y wrk >&2; }
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    swift build -c "$configuration" --product intermission >&2
    binary=".build/$configuration/intermission"
fi

postgres_stop=true
if [ -n "${POSTGRES_URL:-}" ]; then
    server_url=$POSTGRES_URL
else
    # shellcheck source=scripts/postgres-scratch.sh
    . scripts/postgres-scratch.sh
    start_postgres >&2
    server_url=$INTERMISSION_TEST_POSTGRES_URL
fi
database="bench_$(date +%s)_$$"
psql -q "$server_url" -c "CREATE DATABASE $database" >&2
url="${server_url%/*}/$database?pool=$pool"

work=$(mktemp -d)
pids=()
# shellcheck disable=SC2064 # expand now: the values are fixed for this run
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done; rm -rf "$work"; '"$postgres_stop" EXIT
for instance in 0 1; do
    cat > "$work/$instance.yaml" <<YAML
server:
  port: $((port + instance))
  database: "$url"
  logLevel: warning
YAML
    "$binary" serve --demo --config "$work/$instance.yaml" > "$work/$instance.log" 2>&1 &
    pids+=($!)
    # One at a time: the first migrates, the second finds the schema current.
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$((port + instance))/health" >/dev/null && break
        sleep 0.1
    done
    curl -sf "http://127.0.0.1:$((port + instance))/health" >/dev/null || { cat "$work/$instance.log" >&2; exit 2; }
done

cat > "$work/new.lua" <<'LUA'
local counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local prefix = tostring(math.random(1, 1000000000))
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=p" .. prefix .. "-" .. counter)
end
LUA

# Runs wrk against instance $1 (0 or 1) into $2: "req/s p99-ms non-2xx".
run_wrk() {
    wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/new.lua" "http://127.0.0.1:$((port + $1))" |
        awk '
        /Requests\/sec/ { rps = $2 }
        /Non-2xx/ { bad = $NF }
        $1 == "99%" {
            value = $2; unit = value; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", value)
            p99 = unit == "us" ? value / 1000 : unit == "s" ? value * 1000 : unit == "m" ? value * 60000 : value
        }
        END { printf "%s %.3f %d\n", rps, p99, bad }' > "$2"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# Warm-up: both instances open their pools.
wrk -t1 -c"$connections" -d1s -s "$work/new.lua" "http://127.0.0.1:$port" > /dev/null
wrk -t1 -c"$connections" -d1s -s "$work/new.lua" "http://127.0.0.1:$((port + 1))" > /dev/null

echo "asset-list decisions on PostgreSQL $(psql -tA "$server_url" -c 'SHOW server_version' | cut -d' ' -f1), new viewers, wrk -t$threads -c$connections -d$duration per instance, pool=$pool, median of $rounds interleaved rounds; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
one=() one_p99=() two=() two_p99=() bad=0
for _ in $(seq 1 "$rounds"); do
    run_wrk 0 "$work/one"
    read -r r p b < "$work/one"
    one+=("$r") one_p99+=("$p") bad=$((bad + b))
    run_wrk 0 "$work/a" &
    first=$!
    run_wrk 1 "$work/b"
    wait "$first"
    read -r ra pa ba < "$work/a"
    read -r rb pb bb < "$work/b"
    two+=("$(awk -v a="$ra" -v b="$rb" 'BEGIN {print a + b}')")
    two_p99+=("$(awk -v a="$pa" -v b="$pb" 'BEGIN {print (a > b ? a : b)}')")
    bad=$((bad + ba + bb))
done
r1=$(median "${one[@]}") p1=$(median "${one_p99[@]}") r2=$(median "${two[@]}") p2=$(median "${two_p99[@]}")
ratio=$(awk -v a="$r2" -v b="$r1" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
stored=$(psql -tA "${server_url%/*}/$database" -c 'SELECT COUNT(*) FROM decision')
{
    printf 'one instance\t%.0f\treq/s\n' "$r1"
    printf 'one instance p99\t%.2f\tms\n' "$p1"
    printf 'two instances\t%.0f\treq/s\n' "$r2"
    printf 'two instances p99\t%.2f\tms\n' "$p2"
    printf 'two / one instance\t%s\tx\n' "$ratio"
    printf 'non-2xx answers\t%s\n' "$bad"
    printf 'decisions stored\t%s\n' "$stored"
} | python3 scripts/bench_table.py "PostgreSQL store (medians; the targets are in this script's header)"
echo "  rounds: one ${one[*]}; two ${two[*]}; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
