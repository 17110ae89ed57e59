#!/usr/bin/env bash
# Benchmarks `intermission serve` on loopback with wrk (Debian's `wrk` package):
#   1. a decorated live media playlist (/live/demo/prog.m3u8) against the same bytes served as a
#      static file by the same server (/media/static/prog.m3u8), at 64 connections;
#   2. asset-list decisions with SQLite persistence: every request is a new viewer, so each one
#      decides a pod and writes it before answering (p99 from wrk --latency).
# Usage: scripts/bench-serve.sh [DURATION (default 10s)] [CONNECTIONS (default 64)]
# Env: PORT (default 18181), CONFIGURATION (default release), THREADS (wrk threads, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10s}
connections=${2:-64}
port=${PORT:-18181}
configuration=${CONFIGURATION:-release}
threads=${THREADS:-2}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }
swift build -c "$configuration" --product intermission >&2
binary=".build/$configuration/intermission"

work=$(mktemp -d)
mkdir -p "$work/static"
cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: $work/bench.sqlite
  logLevel: warning
media:
  static: $work/static
YAML
cat > "$work/decisions.lua" <<'LUA'
local counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  counter = counter + 1
  local viewer = tostring(math.random(1, 1000000000)) .. "-" .. counter
  return wrk.format("GET", "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=" .. viewer)
end
LUA

# shellcheck source=scripts/demo-server.sh
. scripts/demo-server.sh
start_demo_server "$binary" "$work/bench.yaml" "$work" "$port"

base="http://127.0.0.1:$port"
curl -sf "$base/live/demo/prog.m3u8" > "$work/static/prog.m3u8"
echo "== warm-up" >&2
wrk -t"$threads" -c"$connections" -d2s "$base/live/demo/prog.m3u8" >/dev/null

echo "== decorated live media playlist ($connections connections, $duration)"
live=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$base/live/demo/prog.m3u8")
echo "$live" | grep -E "Requests/sec|Latency|99%"
echo "== the same bytes as a static file"
static=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$base/media/static/prog.m3u8")
echo "$static" | grep -E "Requests/sec|Latency|99%"
live_rps=$(echo "$live" | awk '/Requests\/sec/ {print $2}')
static_rps=$(echo "$static" | awk '/Requests\/sec/ {print $2}')
echo "live / static = $(awk -v a="$live_rps" -v b="$static_rps" 'BEGIN {printf "%.2f", a / b}') (target >= 0.50)"

echo "== asset-list decisions with SQLite ($connections connections, $duration, a new viewer per request)"
decisions=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/decisions.lua" "$base")
echo "$decisions" | grep -E "Requests/sec|Latency|99%|Non-2xx"
stored=$(curl -sf "$base/health" | awk -F: '/"decisions"/ {gsub(/[ ,]/, "", $2); print $2}')
echo "decisions stored: $stored"
