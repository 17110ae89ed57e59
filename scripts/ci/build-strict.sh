#!/usr/bin/env bash
# CI step: builds every target and test target with warnings as errors for the project's own
# targets only (INTERMISSION_STRICT=1 adds -warnings-as-errors to their swiftSettings in
# Package.swift; package dependencies keep their warnings). Alone: scripts/ci/build-strict.sh
# The later steps (imports, docs, tests) reuse this build when INTERMISSION_STRICT=1 is set for
# them too (it changes our targets' compiler flags, so without it they would be compiled again).
set -uo pipefail
cd "$(dirname "$0")/../.."
export INTERMISSION_STRICT=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --build-tests "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    # Our own diagnostics: paths under Sources/ and Tests/ of this checkout, and diagnostics in
    # macro expansions (#expect) located by the "expanded code originates here" note.
    here=$(pwd)
    ours=$(grep -oE "(^|- )$here/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: (error: .*|note: expanded code originates here)" "$log" \
        | sed -E "s|^(- )?$here/||; s|note: expanded code originates here|error in a macro expansion|" | sort -u)
    count=$(printf '%s' "$ours" | grep -c . || true)
    first=$(printf '%s\n' "$ours" | head -1)
    echo "FAILED build: $count errors or warnings-as-errors in Sources/ and Tests/${first:+ (first: $first)}"
    exit 1
fi
echo "ok build: no warnings in the project's targets"
