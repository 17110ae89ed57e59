# Sourced by .ci/run and scripts/bench-postgres.sh: a PostgreSQL server of their own.
#
# start_postgres [OPTIONS]
#   Starts the newest installed PostgreSQL (15 on Debian 12) on 127.0.0.1 and a free port, in a new
#   scratch folder (initdb + pg_ctl; as the postgres user when run as root), with the postgres
#   options OPTIONS (e.g. "-c max_connections=300"), and exports INTERMISSION_TEST_POSTGRES_URL
#   (user `intermission`, trusted, may create databases: each test makes its own). On exit it stops
#   the server and removes the folder (the EXIT trap; a later trap should run "$postgres_stop").
start_postgres() {
    local bin dir port
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed"; return 1; }
    dir=$(mktemp -d /tmp/intermission-postgres.XXXXXX)
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    local as=()
    if [ "$(id -u)" = 0 ]; then
        chown postgres "$dir"
        as=(runuser -u postgres --)
    fi
    "${as[@]}" "$bin/initdb" -D "$dir/data" -U intermission --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log"
        return 1
    }
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 ${1:-}" start >/dev/null || {
        cat "$dir/server.log"
        return 1
    }
    postgres_stop="${as[*]} $bin/pg_ctl -D $dir/data -m fast stop >/dev/null 2>&1; rm -rf $dir"
    # shellcheck disable=SC2064  # the folder is fixed now
    trap "$postgres_stop" EXIT
    export INTERMISSION_TEST_POSTGRES_URL="postgres://intermission@127.0.0.1:$port/postgres"
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($dir)"
}
