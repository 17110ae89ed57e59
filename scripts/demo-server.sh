# Sourced by the benchmark scripts: runs `intermission serve --demo` for the length of the script.
#
# start_demo_server BINARY CONFIG WORK PORT [PREFIX...]
#   Starts BINARY serve --demo --config CONFIG in the background (behind PREFIX, e.g. `taskset -c 0`),
#   logging to WORK/server.log; on exit stops it and removes WORK. Waits until /health answers on
#   PORT; if it never does, prints the log and returns 2.
start_demo_server() {
    local binary=$1 config=$2 work=$3 port=$4
    shift 4
    "$@" "$binary" serve --demo --config "$config" > "$work/server.log" 2>&1 &
    demo_server=$!
    # shellcheck disable=SC2064 # expand now: the values are fixed for this run
    trap "kill $demo_server 2>/dev/null; wait $demo_server 2>/dev/null; rm -rf '$work'" EXIT
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$port/health" >/dev/null && return 0
        sleep 0.1
    done
    echo "the server did not start:" >&2
    cat "$work/server.log" >&2
    return 2
}
