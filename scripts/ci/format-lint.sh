#!/usr/bin/env bash
# CI step: every Swift file the repository tracks passes `swift format lint --strict` with the
# repository's .swift-format. Alone: scripts/ci/format-lint.sh
# To fix findings: scripts/ci/format-lint.sh --fix formats in place, splits doc comments whose
# summary sentence runs on (scripts/ci/split-doc-summaries.py), then lints again; a missing doc
# comment is left for a person to write.
set -uo pipefail
cd "$(dirname "$0")/../.."
mapfile -t files < <(git ls-files '*.swift')
if [ "${1:-}" = "--fix" ]; then
    swift format format --in-place --parallel "${files[@]}"
    swift format lint --strict --parallel "${files[@]}" 2>&1 | python3 scripts/ci/split-doc-summaries.py
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift format lint --strict --parallel "${files[@]}" >"$log" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
    cat "$log"
    findings=$(grep -c ': error: \[\|: warning: \[' "$log" || true)
    fileCount=$(grep -o '^[^:]*\.swift' "$log" | sort -u | wc -l)
    echo "FAILED format: $findings swift-format findings in $fileCount files (scripts/ci/format-lint.sh --fix formats and splits doc summaries; missing doc comments need writing)"
    exit 1
fi
echo "ok format: ${#files[@]} files pass swift format lint --strict"
