#!/usr/bin/env bash
# Fuzzes the server's HTTP API from its own OpenAPI document with schemathesis (PyPI).
#
#   scripts/fuzz-api.sh [EXAMPLES]    (default 50 examples per operation)
#
# Builds `intermission` (unless SERVER_BINARY names one), starts `intermission serve --demo` on a
# free loopback port with its admin token (`demo`), checks `/openapi.yaml` with openapi-spec-validator, then
# runs schemathesis against every operation it documents, with the token, in positive and negative
# modes. Fails on any 5xx (the `not_a_server_error` check), on a server that stops answering, or on
# a server that died. Seeded (FUZZ_SEED, default 2026) so that a failure can be run again.
set -euo pipefail
cd "$(dirname "$0")/.."

examples=${1:-50}
seed=${FUZZ_SEED:-2026}
token=demo  # the token `--demo` sets when the configuration names none
python3 -m pip install -q --disable-pip-version-check 'schemathesis>=4,<5' 'openapi-spec-validator>=0.7,<1'

binary=${SERVER_BINARY:-}
if [ -z "$binary" ]; then
    swift build --product intermission >&2
    binary="$(swift build --show-bin-path)/intermission"
fi

work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" serve --demo --port "$port" --database "$work/fuzz.sqlite" >"$work/server.log" 2>&1 &
server=$!
# shellcheck disable=SC2064 # expand now: the values are fixed for this run
trap "kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf '$work'" EXIT
started=""
for _ in $(seq 1 200); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && started=yes && break
    sleep 0.1
done
if [ -z "$started" ]; then
    echo "FAILED fuzz-api: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 2
fi
base="http://127.0.0.1:$port"

curl -sf "$base/openapi.yaml" -o "$work/openapi.yaml"
python3 -c 'import sys, yaml; from openapi_spec_validator import validate; validate(yaml.safe_load(open(sys.argv[1])))' \
    "$work/openapi.yaml"
echo "openapi.yaml is a valid OpenAPI document"

status=0
# Run in the scratch folder: schemathesis keeps its state in ./.schemathesis.
(cd "$work" && schemathesis run "$base/openapi.yaml" --url "$base" \
    --header "Authorization: Bearer $token" \
    --checks not_a_server_error \
    --mode all --max-examples "$examples" --seed "$seed" \
    --request-timeout 10 --workers 2 --continue-on-failure \
    --suppress-health-check all --warnings off) || status=$?

if ! kill -0 "$server" 2>/dev/null; then
    echo "FAILED fuzz-api: the server died" >&2
    tail -n 40 "$work/server.log" >&2
    exit 1
fi
if ! curl -sf "$base/health" >/dev/null; then
    echo "FAILED fuzz-api: the server no longer answers /health" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "FAILED fuzz-api: schemathesis found failures (exit $status)" >&2
    exit 1
fi
echo "ok fuzz-api: no 5xx in $examples examples per operation (seed $seed)"
