#!/usr/bin/env bash
# Asset-list decisions with a VAST ad server on loopback (issue 11's speed line: at least 1,000
# decisions/s with p99 under the budget plus 20 ms). Run alone or as `ONLY=vast scripts/bench-serve.sh`.
#
# scripts/vast-ad-server.py answers every request after 50 ms (asyncio) with a pod of three InLine
# ads; `intermission serve` asks it for every new viewer (a new `_HLS_primary_id` per request), so
# each decision is one ad-server round trip, the VAST decoding, the media choice and a SQLite
# write. wrk runs ROUNDS times; one table gives the median req/s and p99, the non-2xx count, and how
# many VAST requests the ad server answered against the decisions stored.
#
# Usage: scripts/bench-vast.sh [DURATION per wrk run (default 5s)]
# Env: BINARY (an `intermission` binary built already), CONFIGURATION (default release), PORT
#      (default 18181), VAST_PORT (default 18183), CONNECTIONS (default 128), THREADS (default 2),
#      ROUNDS (default 3), DELAY (the ad server's answer time in seconds, default 0.05), BUDGET
#      (the ad-server timeout in seconds, default 1.5).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-5s}
port=${PORT:-18181}
vast_port=${VAST_PORT:-18183}
connections=${CONNECTIONS:-128}
threads=${THREADS:-2}
rounds=${ROUNDS:-3}
delay=${DELAY:-0.05}
budget=${BUDGET:-1.5}
configuration=${CONFIGURATION:-release}
command -v wrk >/dev/null || apt-get install -y wrk >&2 || { apt-get update >&2 && apt-get install -y wrk >&2; }
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    swift build -c "$configuration" --product intermission >&2
    binary=".build/$configuration/intermission"
fi

work=$(mktemp -d)
python3 scripts/vast-ad-server.py "$vast_port" "$delay" &
vast_pid=$!
cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: $work/bench.sqlite
  logLevel: error
vod:
  - id: vast
    origin: /media/demo/primary/
    playlist: prog.m3u8
    breaks:
      - id: pre
        cue: [PRE]
        duration: 30
    adServer:
      url: "http://127.0.0.1:$vast_port/vast?dur=[BREAKDURATION]&pod=[PODSIZE]&uid=[VIEWERID]&cb=[CACHEBUSTING]"
      timeout: $budget
      bitrate: 2000
YAML
# shellcheck source=scripts/demo-server.sh
. scripts/demo-server.sh
start_demo_server "$binary" "$work/bench.yaml" "$work" "$port"
server_pid=$demo_server
# shellcheck disable=SC2064 # expand now: the values are fixed for this run
trap "kill -9 $vast_pid 2>/dev/null; kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null; rm -rf '$work'" EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$vast_port/count" && break; sleep 0.1; done

first=$(curl -sf "$base/v1/asset-lists/vod-vast/pre.json?_HLS_interstitial_id=pre&_HLS_primary_id=probe")
echo "$first" | grep -q -- '-1500.m3u8' || { echo "the probe decision is not the ad server's pod: $first" >&2; exit 1; }

cat > "$work/new.lua" <<'LUA'
local counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local prefix = tostring(math.random(1, 1000000000))
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/asset-lists/vod-vast/pre.json?_HLS_interstitial_id=pre&_HLS_primary_id=n" .. prefix .. "-" .. counter)
end
LUA
# Warm-up: connections to both servers opened.
wrk -t"$threads" -c"$connections" -d2s -s "$work/new.lua" "$base" > /dev/null
rps=() p99=() bad=0
for _ in $(seq 1 "$rounds"); do
    output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/new.lua" "$base")
    rps+=("$(echo "$output" | awk '/Requests\/sec/ {print $2}')")
    p99+=("$(echo "$output" | awk '$1 == "99%" {
        value = $2; unit = value; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", value)
        print (unit == "us" ? value / 1000 : unit == "s" ? value * 1000 : value) }')")
    bad=$((bad + $(echo "$output" | awk '/Non-2xx/ {print $NF} END {print 0}' | head -1)))
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
r=$(median "${rps[@]}")
p=$(median "${p99[@]}")
limit=$(awk -v b="$budget" 'BEGIN {print b * 1000 + 20}')
answered=$(curl -sf "http://127.0.0.1:$vast_port/count")
# Decisions stored: rows of the decision table (read-only, while the server still runs; WAL readers
# do not block it).
stored=$(sqlite3 -readonly "$work/bench.sqlite" 'SELECT COUNT(*) FROM decision' 2>/dev/null || echo "?")
echo "asset-list decisions with a VAST ad server on loopback answering in $(awk -v d="$delay" 'BEGIN {print d * 1000}') ms" \
    "(intermission $configuration, wrk -t$threads -c$connections -d$duration, median of $rounds runs; load average $(cut -d' ' -f1-3 /proc/loadavg)):"
{
    printf 'decisions\t%.0f\t/s\n' "$r"
    printf 'p99\t%.2f\tms\n' "$p"
    printf 'p99 limit (ad server budget + 20 ms)\t%s\tms\n' "$limit"
    printf 'non-2xx answers\t%s\n' "$bad"
    printf 'VAST requests answered\t%s\n' "$answered"
    printf 'decisions stored\t%s\n' "$stored"
} | python3 scripts/bench_table.py "VAST decisions (medians; the targets are in this script's header)"
