#!/usr/bin/env bash
# CI step: every target imports only the modules it declares in Package.swift
# (--explicit-target-dependency-import-check error). Alone: scripts/ci/imports.sh
# After scripts/ci/build-strict.sh (with INTERMISSION_STRICT=1) our targets are not compiled
# again (SwiftPM redoes about 35 dependency steps when the check is switched on or off, 10-30 s).
# SwiftPM flags an import of a target outside the importing target's dependency closure; an
# import of a transitive dependency (AdInsertion importing HLSPlaylist through HLSInterstitials)
# passes.
set -uo pipefail
cd "$(dirname "$0")/../.."
export INTERMISSION_STRICT=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift build --build-tests --explicit-target-dependency-import-check error 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    undeclared=$(grep -c 'without declaring it a dependency' "$log" || true)
    first=$(grep -m1 'without declaring it a dependency' "$log" | sed 's/^error: //')
    echo "FAILED imports: $undeclared undeclared imports${first:+ (first: $first)}"
    exit 1
fi
echo "ok imports: every target declares what it imports"
