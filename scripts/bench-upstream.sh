#!/usr/bin/env bash
# Benchmarks upstream live channels of `intermission serve` on loopback with wrk (Debian's `wrk`):
#   1. a 24-hour DVR upstream (43,200 segments of 2 s; its window moves one segment on every read),
#      served by a Python origin: the DVR channel's req/s at CONNECTIONS connections and, beside it,
#      the p99 of a small looped channel (wrk --latency, 8 connections); the upstream reads per
#      second while both are loaded (the server reads it in the background every half target
#      duration, whatever the request rate: expect about 1/s);
#   2. the small channel's p99 alone, for comparison; then both loads paced (wrk's delay hook):
#      the small channel's p99 beside a DVR channel requested 150-200 times a second, gzip and not;
#   3. the decoration of the 24-hour DVR playlist made by scripts/gen-dvr-playlist.py: an upstream
#      channel's first answer (read over loopback, parsed, decorated, serialized, gzipped) against
#      `intermission format` on the same file (both wall clock, median of 5).
# Usage: scripts/bench-upstream.sh [DURATION (default 10s)] [CONNECTIONS (default 64)]
# Env: PORT (default 18191), CONFIGURATION (default release), THREADS (wrk threads, default 2),
#      BINARY (a prebuilt `intermission`; then nothing is built).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10s}
connections=${2:-64}
port=${PORT:-18191}
configuration=${CONFIGURATION:-release}
threads=${THREADS:-2}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }
if [ -n "${BINARY:-}" ]; then
  binary=$BINARY
else
  swift build -c "$configuration" --product intermission >&2
  binary=".build/$configuration/intermission"
fi
work=$(mktemp -d)
python3 scripts/gen-dvr-playlist.py "$work/dvr.m3u8" >&2

# The origin: /dvr/live.m3u8 moves on each read; /file/dvr.m3u8 is the generated file; /count
# says how many times /dvr/live.m3u8 was read.
cat > "$work/origin.py" <<'PY'
import http.server, sys
work = sys.argv[1]
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    reads = 0
    def do_GET(self):
        if self.path == "/count":
            body = str(Handler.reads).encode()
        elif self.path.startswith("/dvr/"):
            Handler.reads += 1
            n = Handler.reads
            head = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:%d\n" % n
            head += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:%02d.000Z\n" % (2 * n % 60)
            body = (head + "".join("#EXTINF:2.000,\n1080p/seg-%d.ts\n" % k for k in range(n, n + 43200))).encode()
        else:
            body = open(work + "/dvr.m3u8", "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/origin.py" "$work" > "$work/origin.port" &
origin=$!
for _ in $(seq 1 50); do [ -s "$work/origin.port" ] && break; sleep 0.1; done
origin_port=$(cat "$work/origin.port")
cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: "memory:"
  logLevel: warning
  maxUpstreamBytes: 16777216
media:
  demo: $PWD/Sources/IntermissionServer/Demo
channels:
  - id: small
    loop: /media/demo/primary/
    playlist: prog.m3u8
  - id: dvr
    upstream: http://127.0.0.1:$origin_port/dvr/live.m3u8
YAML
for k in 1 2 3 4 5; do
  printf '  - id: file%s\n    upstream: http://127.0.0.1:%s/file/dvr.m3u8\n' "$k" "$origin_port" >> "$work/bench.yaml"
done
"$binary" serve --config "$work/bench.yaml" > "$work/server.log" 2>&1 &
server=$!
# shellcheck disable=SC2064 # expand now: the values are fixed for this run
trap "kill $server $origin 2>/dev/null; wait $server 2>/dev/null; kill -9 $origin 2>/dev/null; rm -rf '$work'" EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
count() { curl -sf "http://127.0.0.1:$origin_port/count"; }

echo "== small channel alone (8 connections, $duration)"
wrk -t1 -c8 -d2s "$base/live/small/prog.m3u8" >/dev/null
alone=$(wrk -t1 -c8 -d"$duration" --latency "$base/live/small/prog.m3u8")
echo "$alone" | grep -E "Requests/sec|99%"

echo "== DVR upstream channel ($connections connections, $duration) beside the small channel (8 connections)"
curl -sf -o /dev/null "$base/live/dvr/live.m3u8"
before=$(count)
started=$(date +%s.%N)
wrk -t"$threads" -c"$connections" -d"$duration" "$base/live/dvr/live.m3u8" > "$work/dvr.txt" &
dvr=$!
beside=$(wrk -t1 -c8 -d"$duration" --latency "$base/live/small/prog.m3u8")
wait $dvr
ended=$(date +%s.%N)
after=$(count)
echo "DVR channel: $(awk '/Requests\/sec/ {print $2}' "$work/dvr.txt") req/s, $(awk '/Transfer\/sec/ {print $2}' "$work/dvr.txt")/s"
echo "small channel beside it: $(echo "$beside" | awk '/Requests\/sec/ {print $2}') req/s, p99 $(echo "$beside" | awk '$1 == "99%" {print $2}') (alone: $(echo "$alone" | awk '$1 == "99%" {print $2}'))"
echo "upstream reads: $((after - before)) in $(awk -v a="$started" -v b="$ended" 'BEGIN {printf "%.1f", b - a}') s = $(awk -v n="$((after - before))" -v a="$started" -v b="$ended" 'BEGIN {printf "%.2f", n / (b - a)}')/s"

# Paced: each wrk connection waits between its requests (wrk's `delay()` hook), so neither load
# takes all the CPU, and the small channel's p99 shows what the DVR channel's work costs it: the
# upstream read, parsed and decorated again about every second, and the DVR playlist requested 150-200
# times a second, with `Accept-Encoding: gzip` as CDNs ask for it (the precompressed 174 KB copy).
# The same load uncompressed (3.7 MB answers, about 450 MB/s through loopback) is printed too: on a
# 2-core machine that copying alone takes most of a core from the small channel, server or no server.
cat > "$work/paced.lua" <<'LUA'
local pause = tonumber(os.getenv("PACE_MS") or "0")
function delay() return pause end
LUA
paced() { PACE_MS=$1 wrk -t1 -c"$2" -d"$duration" --latency -s "$work/paced.lua" "${@:3}"; }
p99() { echo "$1" | awk '$1 == "99%" {print $2}'; }
ms() { awk -v t="$1" 'BEGIN { if (t ~ /us$/) { sub(/us$/, "", t); print t / 1000 } else if (t ~ /ms$/) { sub(/ms$/, "", t); print t } else { sub(/s$/, "", t); print t * 1000 } }'; }
echo "== paced: small channel alone (8 connections, 2 ms between requests)"
paced_alone=$(paced 2 8 "$base/live/small/prog.m3u8")
echo "$paced_alone" | grep -E "Requests/sec|99%"
for encoding in gzip identity; do
  echo "== paced: the same beside the DVR channel (4 connections, 20 ms between requests, Accept-Encoding: $encoding)"
  paced 20 4 -H "Accept-Encoding: $encoding" "$base/live/dvr/live.m3u8" > "$work/paced-dvr.txt" &
  dvr=$!
  paced_beside=$(paced 2 8 "$base/live/small/prog.m3u8")
  wait $dvr
  echo "DVR channel: $(awk '/Requests\/sec/ {print $2}' "$work/paced-dvr.txt") req/s, $(awk '/Transfer\/sec/ {print $2}' "$work/paced-dvr.txt")/s"
  echo "small channel beside it: $(echo "$paced_beside" | awk '/Requests\/sec/ {print $2}') req/s, p99 $(p99 "$paced_beside") (alone: $(p99 "$paced_alone"))"
  ratio=$(awk -v a="$(ms "$(p99 "$paced_beside")")" -v b="$(ms "$(p99 "$paced_alone")")" 'BEGIN {printf "%.2f", a / b}')
  if [ "$encoding" = gzip ]; then
    echo "paced small-channel p99 beside / alone = $ratio (target <= 2)"
  else
    echo "paced small-channel p99 beside / alone, DVR uncompressed = $ratio (for the record)"
  fi
done

echo "== 24-hour DVR playlist ($(wc -c < "$work/dvr.m3u8") bytes): decorated first answer against intermission format"
decorate=()
format=()
for k in 1 2 3 4 5; do
  # Another channel of the same upstream each time: nothing of it is cached yet.
  decorate+=("$(curl -sf -o /dev/null -w '%{time_total}' "$base/live/file$k/dvr.m3u8")")
  start=$(date +%s.%N)
  "$binary" format "$work/dvr.m3u8" > /dev/null
  format+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.6f", b - a}')")
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
d=$(median "${decorate[@]}")
f=$(median "${format[@]}")
echo "decorated first answer: ${d} s (runs: ${decorate[*]})"
echo "intermission format:    ${f} s (runs: ${format[*]})"
echo "decorated / format = $(awk -v a="$d" -v b="$f" 'BEGIN {printf "%.2f", a / b}') (target <= 2)"
