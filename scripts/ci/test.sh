#!/usr/bin/env bash
# CI step: every test suite, with the referee suites (m3u8, ffmpeg, hls.js) required rather than
# skipped. Alone: scripts/ci/test.sh (after .ci/run has installed the referees once).
# INTERMISSION_STRICT=1 as in scripts/ci/build-strict.sh, so its build is reused.
set -uo pipefail
cd "$(dirname "$0")/../.."
export INTERMISSION_STRICT=1 INTERMISSION_REQUIRE_REFEREES=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    failed=$(grep -E '✘ Test .* (failed|recorded an issue)' "$log" | grep -v '✘ Test run with' | sed -E 's/^.*✘ Test ([^ ]+).*$/\1/' | sort -u | tr '\n' ' ')
    echo "FAILED test: swift test exited $status${failed:+; failing tests: $failed}"
    exit 1
fi
echo "ok test: every suite passed"
