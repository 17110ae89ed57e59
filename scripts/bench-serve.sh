#!/usr/bin/env bash
# Serving speed of `intermission serve` against nginx (issue 16's speed targets), in one run.
#
# nginx (1 worker, sendfile, gzip_static, access log off) serves the same bytes on another port:
# the decorated playlists as this server answered them at the start of the run (live media, live
# multivariant, VOD media, the 3.9 MB decorated DVR playlist and its gzip copy), and the /media
# files themselves (the demo's 983 B playlist and a 16.5 KB segment). Every route is run with
# `wrk --latency` against nginx and then against this server, route after route, ROUNDS times
# (interleaved, so both see the same machine); the table gives the median of the rounds:
#   req/s, its ratio to nginx on the same bytes, requests per server CPU-second (utime + stime of
#   the whole server process from /proc/PID/stat, before and after each run) and its ratio to
#   nginx's (master and worker), and the p99 latency.
# The framework floor is an `OPTIONS` of a playlist, answered by the CORS middleware (no handler).
# Then: the first byte of a cold 3.9 MB decorated VOD playlist (three assets on the same file, each
# asked once) against `intermission format` on the same file, and asset-list decisions with SQLite
# (new viewers, then returning viewers). Each line gives its figures and its target (no verdict).
# Last, scripts/bench-preload.sh and scripts/bench-upstream.sh run when they exist, then
# scripts/bench-decorate.sh, scripts/bench-schedule.sh and scripts/bench-viewers.sh (1,000 viewers
# for 30 s).
#
# Wall-clock figures on a shared machine move from run to run; the ratios against nginx measured
# beside them are what to compare (see MACHINE-NOTES for callgrind when they are too noisy).
#
# Usage: scripts/bench-serve.sh [DURATION per wrk run (default 5s)]
# Env: BINARY (an `intermission` binary to measure, built already: nothing is built then),
#      PORT (default 18181), NGINX_PORT (default 18180), CONFIGURATION (default release),
#      THREADS (wrk threads, default 2), ROUNDS (default 3), CONNECTIONS (default "64 256": the
#      playlist routes run at each; the other routes at the first), DECISIONS (default 1: 0 skips
#      the asset-list runs), NGINX (the nginx binary, default nginx), ONLY (`decisions`: only the
#      asset-list runs, no nginx routes; `postgres`: scripts/bench-postgres.sh instead; `vast`:
#      scripts/bench-vast.sh instead, decisions with a VAST ad server on loopback), SYNCHRONOUS
#      (`full`: the store flushes every commit to the disk, `?synchronous=full`; default the
#      store's own, `normal`).
set -euo pipefail
cd "$(dirname "$0")/.."
# ONLY=postgres: asset-list decisions on PostgreSQL, one and two instances (scripts/bench-postgres.sh).
[ "${ONLY:-}" = postgres ] && exec scripts/bench-postgres.sh "$@"
if [ "${ONLY:-}" = vast ]; then exec scripts/bench-vast.sh "$@"; fi
duration=${1:-5s}
port=${PORT:-18181}
nginx_port=${NGINX_PORT:-18180}
configuration=${CONFIGURATION:-release}
threads=${THREADS:-2}
rounds=${ROUNDS:-3}
read -r -a connection_counts <<< "${CONNECTIONS:-64 256}"
first_connections=${connection_counts[0]}
nginx_binary=${NGINX:-nginx}

if ! command -v wrk >/dev/null || ! command -v "$nginx_binary" >/dev/null; then
    echo "== installing nginx and wrk" >&2
    apt-get install -y nginx wrk >&2 || { apt-get update >&2 && apt-get install -y nginx wrk >&2; }
fi
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    swift build -c "$configuration" --product intermission >&2
    binary=".build/$configuration/intermission"
fi

work=$(mktemp -d)
root="$work/nginx"
mkdir -p "$work/media/dvr" "$root/media/demo/primary" "$root/live/demo" "$root/vod/demo" "$root/vod/dvr"
python3 scripts/gen-dvr-playlist.py "$work/media/dvr/prog.m3u8" >&2
demo_media=Sources/IntermissionServer/Demo/primary
cp "$demo_media/prog.m3u8" "$demo_media/seg-000.ts" "$root/media/demo/primary/"

cat > "$work/bench.yaml" <<YAML
server:
  port: $port
  database: $work/bench.sqlite${SYNCHRONOUS:+?synchronous=$SYNCHRONOUS}
  logLevel: warning
media:
  bench: $work/media
vod:
YAML
# dvr serves the measured runs; cold1..3 are each asked once, for the first byte of a cold render.
for id in dvr cold1 cold2 cold3; do
    cat >> "$work/bench.yaml" <<YAML
  - id: $id
    origin: /media/bench/dvr/
    playlist: prog.m3u8
    breaks:
      - id: pre
        cue: [PRE]
        duration: 10
YAML
done

cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    client_body_temp_path $work/nginx-tmp;
    proxy_temp_path $work/nginx-tmp;
    fastcgi_temp_path $work/nginx-tmp;
    uwsgi_temp_path $work/nginx-tmp;
    scgi_temp_path $work/nginx-tmp;
    types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $root;
        gzip_static on;
        gzip_vary on;
        add_header Access-Control-Allow-Origin *;
    }
}
NGINX
mkdir -p "$work/nginx-tmp"
# nginx's worker runs as an unprivileged user: it must be able to read the copies.
chmod -R a+rX "$work"

# shellcheck source=scripts/demo-server.sh
. scripts/demo-server.sh
start_demo_server "$binary" "$work/bench.yaml" "$work" "$port"
server_pid=$demo_server
"$nginx_binary" -c "$work/nginx.conf" -p "$work" 2> "$work/nginx-start.log" &
nginx_pid=$!
# shellcheck disable=SC2064 # expand now: the values are fixed for this run
trap "kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; kill $server_pid 2>/dev/null; wait $server_pid 2>/dev/null; rm -rf '$work'" EXIT
base="http://127.0.0.1:$port"
nginx_base="http://127.0.0.1:$nginx_port"
for _ in $(seq 1 50); do curl -s -o /dev/null "$nginx_base/" && break; sleep 0.1; done

# ONLY=decisions skips the nginx routes and the cold render (the two blocks kept unindented).
if [ "${ONLY:-}" != decisions ]; then
# The first byte of a cold decorated DVR playlist (each asset's first request renders it), and
# `intermission format` on the same file, three of each.
cold=()
for id in cold1 cold2 cold3; do
    cold+=("$(curl -s -o /dev/null -w '%{time_starttransfer}' "$base/vod/$id/prog.m3u8")")
done
format=()
for _ in 1 2 3; do
    start=$(date +%s%N)
    "$binary" format "$work/media/dvr/prog.m3u8" > /dev/null
    format+=("$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {printf "%.4f", (b - a) / 1e9}')")
done

# The same bytes for nginx: playlists as this server answers them now, and the DVR's gzip copy.
for path in live/demo/prog.m3u8 live/demo/main.m3u8 vod/demo/prog.m3u8 vod/dvr/prog.m3u8; do
    curl -sf "$base/$path" -o "$root/$path"
done
curl -sf -H 'Accept-Encoding: gzip' "$base/vod/dvr/prog.m3u8" -o "$root/vod/dvr/prog.m3u8.gz"
fi

cat > "$work/options.lua" <<'LUA'
wrk.method = "OPTIONS"
LUA
cat > "$work/gzip.lua" <<'LUA'
wrk.headers["Accept-Encoding"] = "gzip"
LUA

# Clock ticks of a process and its children (utime + stime, fields 14 and 15 of /proc/PID/stat).
ticks() {
    local total=0 pid
    for pid in "$@"; do
        # A process that is gone (nginx in ONLY=decisions runs, a worker that exited) counts nothing.
        [ -r "/proc/$pid/stat" ] || continue
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
nginx_pids() { echo "$nginx_pid" $(pgrep -P "$nginx_pid" || true); }

# Runs wrk once: prints "req/s requests-per-CPU-second p99-ms non-2xx".
measure() {
    local pids=$1 connections=$2 url=$3 script=${4:-}
    local before after output
    # shellcheck disable=SC2086 # a list of PIDs
    before=$(ticks $pids)
    if [ -n "$script" ]; then
        output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$script" "$url")
    else
        output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "$url")
    fi
    # shellcheck disable=SC2086
    after=$(ticks $pids)
    echo "$output" | awk -v cpu=$(( after - before )) -v hz="$hz" '
        /Requests\/sec/ { rps = $2 }
        /^ +[0-9]+ requests in/ { requests = $1 }
        /Non-2xx/ { bad = $NF }
        $1 == "99%" {
            value = $2; unit = value; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", value)
            p99 = unit == "us" ? value / 1000 : unit == "s" ? value * 1000 : unit == "m" ? value * 60000 : value
        }
        END {
            seconds = cpu / hz
            printf "%s %.0f %.3f %d\n", rps, (seconds > 0 ? requests / seconds : 0), p99, bad
        }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
field() { echo "$1" | awk -v f="$2" '{print $f}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

if [ "${ONLY:-}" != decisions ]; then
# route label | path | wrk script | connections
routes=()
for c in "${connection_counts[@]}"; do
    routes+=("floor: OPTIONS (CORS middleware)|/live/demo/prog.m3u8|$work/options.lua|$c")
    routes+=("live media playlist|/live/demo/prog.m3u8||$c")
    routes+=("live multivariant playlist|/live/demo/main.m3u8||$c")
    routes+=("VOD media playlist|/vod/demo/prog.m3u8||$c")
done
routes+=("/media 983 B playlist|/media/demo/primary/prog.m3u8||$first_connections")
routes+=("/media 16.5 KB segment|/media/demo/primary/seg-000.ts||$first_connections")
routes+=("3.9 MB DVR playlist, gzip|/vod/dvr/prog.m3u8|$work/gzip.lua|$first_connections")

echo "== warm-up" >&2
for route in "${routes[@]}"; do
    IFS='|' read -r _ path script c <<< "$route"
    wrk -t"$threads" -c"$first_connections" -d1s ${script:+-s "$script"} "$base$path" > /dev/null
    wrk -t"$threads" -c"$first_connections" -d1s ${script:+-s "$script"} "$nginx_base$path" > /dev/null
done

declare -A results
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds" >&2
    for index in "${!routes[@]}"; do
        IFS='|' read -r label path script c <<< "${routes[$index]}"
        nginx_script=$script
        # nginx answers no OPTIONS on static files: the floor is compared with its GET of the bytes.
        [ "$script" = "$work/options.lua" ] && nginx_script=""
        results[$index,nginx,$round]=$(measure "$(nginx_pids)" "$c" "$nginx_base$path" "$nginx_script")
        results[$index,ours,$round]=$(measure "$server_pid" "$c" "$base$path" "$script")
        echo "   $label ($c): nginx ${results[$index,nginx,$round]} / ours ${results[$index,ours,$round]}" >&2
    done
done

echo
echo "intermission serve ($configuration) against nginx $("$nginx_binary" -v 2>&1 | sed 's/.*\///') (1 worker), wrk -t$threads -d$duration --latency, median of $rounds interleaved rounds"
printf '%-36s %5s %9s %9s %6s %11s %11s %6s %8s %8s  %s\n' \
    route conns "nginx/s" "ours/s" ratio "nginx/CPU-s" "ours/CPU-s" ratio "p99 ms" "nginx99" targets
for index in "${!routes[@]}"; do
    IFS='|' read -r label path script c <<< "${routes[$index]}"
    n_rps=() n_cpu=() n_p99=() o_rps=() o_cpu=() o_p99=() bad=0
    for round in $(seq 1 "$rounds"); do
        n=${results[$index,nginx,$round]}
        o=${results[$index,ours,$round]}
        n_rps+=("$(field "$n" 1)"); n_cpu+=("$(field "$n" 2)"); n_p99+=("$(field "$n" 3)")
        o_rps+=("$(field "$o" 1)"); o_cpu+=("$(field "$o" 2)"); o_p99+=("$(field "$o" 3)")
        bad=$((bad + $(field "$o" 4)))
    done
    nr=$(median "${n_rps[@]}"); nc=$(median "${n_cpu[@]}"); np=$(median "${n_p99[@]}")
    orps=$(median "${o_rps[@]}"); oc=$(median "${o_cpu[@]}"); op=$(median "${o_p99[@]}")
    rr=$(ratio "$orps" "$nr"); cr=$(ratio "$oc" "$nc")
    case $label in
        floor*) target="(the floor)" ;;
        "live media"* | "live multi"* | "VOD media"*)
            want=0.75; [ "$c" -ge 256 ] && want=0.70
            target="req/s ratio >= $want; per CPU-s ratio >= 0.45" ;;
        /media* | 3.9*) target="req/s ratio >= 0.50" ;;
    esac
    [ "$bad" -gt 0 ] && target="$target; $bad non-2xx"
    printf '%-36s %5s %9.0f %9.0f %6s %11.0f %11.0f %6s %8.2f %8.2f  %s\n' \
        "$label" "$c" "$nr" "$orps" "$rr" "$nc" "$oc" "$cr" "$op" "$np" "$target"
done

cold_median=$(median "${cold[@]}")
format_median=$(median "${format[@]}")
echo
echo "3.9 MB decorated VOD playlist, first byte of a cold render: ${cold[*]} s (median $cold_median s);" \
    "intermission format on the same file: ${format[*]} s (median $format_median s);" \
    "ratio $(ratio "$cold_median" "$format_median") (target <= 2)"
fi

if [ "${DECISIONS:-1}" != 0 ]; then
    cat > "$work/new.lua" <<'LUA'
local counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local prefix = tostring(math.random(1, 1000000000))
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=n" .. prefix .. "-" .. counter)
end
LUA
    # 4,096 viewers asked again and again (the warm-up run decides them all first).
    cat > "$work/returning.lua" <<'LUA'
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=r" .. (counter % 4096))
end
LUA
    wrk -t"$threads" -c"$first_connections" -d2s -s "$work/returning.lua" "$base" > /dev/null
    echo
    echo "asset-list decisions with SQLite, synchronous=${SYNCHRONOUS:-normal} ($first_connections connections, median of $rounds runs; req/s, per CPU-s, p99 ms, non-2xx; load average before: $(cut -d' ' -f1-3 /proc/loadavg)):"
    for kind in new returning; do
        rps=() p99=() cpu=() bad=0
        for _ in $(seq 1 "$rounds"); do
            line=$(measure "$server_pid" "$first_connections" "$base" "$work/$kind.lua")
            rps+=("$(field "$line" 1)"); cpu+=("$(field "$line" 2)"); p99+=("$(field "$line" 3)")
            bad=$((bad + $(field "$line" 4)))
        done
        r=$(median "${rps[@]}"); p=$(median "${p99[@]}")
        if [ "$kind" = new ]; then
            target="target: >= 10000/s, p99 < 10 ms"
        else
            target="target: >= 30000/s"
        fi
        printf '  %-10s %9.0f %9.0f %8.2f %5d  %s\n' "$kind" "$r" "$(median "${cpu[@]}")" "$p" "$bad" "$target"
    done
    health=$(curl -sf -H 'Authorization: Bearer demo' "$base/health" || true)
    echo "  decisions stored: $(echo "$health" | sed -n 's/.*"decisions": *\([0-9]*\).*/\1/p'); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

[ "${ONLY:-}" = decisions ] && exit 0
for other in scripts/bench-preload.sh scripts/bench-upstream.sh; do
    if [ -x "$other" ]; then
        echo
        echo "== $other"
        "$other"
    fi
done
# The targets of issue 16 that are not about serving: the decoration pipeline, the schedule's live
# update (no callgrind here: it takes minutes) and the headless player as a load generator (1,000
# viewers for 30 s).
echo
echo "== scripts/bench-decorate.sh"
CALLGRIND=0 scripts/bench-decorate.sh
echo
echo "== scripts/bench-schedule.sh"
CALLGRIND=0 scripts/bench-schedule.sh
echo
echo "== scripts/bench-viewers.sh 1000 30"
SERVER_BINARY=${BINARY:-} scripts/bench-viewers.sh 1000 30
