# Sourced by the benchmark scripts: runs `intermission serve --demo` for the length of the script.
#
# start_demo_server BINARY CONFIG WORK PORT [PREFIX...]
#   Starts BINARY serve --demo --config CONFIG in the background (behind PREFIX, e.g. `taskset -c 0`),
#   logging to WORK/server.log; on exit stops it and removes WORK. Waits until /health answers on
#   PORT; if it never does, prints the log and returns 2.
start_demo_server() {
    local binary=$1 config=$2 work=$3 port=$4
    shift 4
    # A server left on the port (an earlier run's) would answer in this one's place, and the
    # figures would be its own: refuse to measure.
    if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/health"; then
        echo "port $port already answers (another server: stop it, or choose another PORT)" >&2
        return 2
    fi
    "$@" "$binary" serve --demo --config "$config" > "$work/server.log" 2>&1 &
    demo_server=$!
    # shellcheck disable=SC2064 # expand now: the values are fixed for this run
    trap "kill $demo_server 2>/dev/null; wait $demo_server 2>/dev/null; rm -rf '$work'" EXIT
    for _ in $(seq 1 100); do
        if curl -sf "http://127.0.0.1:$port/health" >/dev/null; then
            kill -0 "$demo_server" 2>/dev/null && return 0
            break
        fi
        sleep 0.1
    done
    echo "the server did not start:" >&2
    cat "$work/server.log" >&2
    return 2
}

# prepare_viewer_load SERVER_CONFIGURATION CONFIGURATION
#   Builds the server (unless SERVER_BINARY names one already built) and the ViewerLoad generator,
#   and sets server_binary, viewer_binary, and pin_server / pin_viewers (taskset on SERVER_CPU,
#   default 0, and VIEWER_CPU, default 1, when taskset exists; empty otherwise).
prepare_viewer_load() {
    local server_configuration=$1 configuration=$2
    server_binary=${SERVER_BINARY:-.build/$server_configuration/intermission}
    [ -n "${SERVER_BINARY:-}" ] || swift build -c "$server_configuration" --product intermission >&2
    (cd Benchmarks && swift build -c "$configuration" --product ViewerLoad >&2)
    viewer_binary="Benchmarks/.build/$configuration/ViewerLoad"
    pin_server=""
    pin_viewers=""
    if command -v taskset >/dev/null; then
        pin_server="taskset -c ${SERVER_CPU:-0}"
        pin_viewers="taskset -c ${VIEWER_CPU:-1}"
    fi
}
