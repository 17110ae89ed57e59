#!/usr/bin/env bash
# CI step: the DocC documentation of every library module builds with warnings as errors
# (unresolved symbol links, bad topics, malformed doc comments). Alone: scripts/ci/docs.sh
# Internal symbols are included (DOCS_ACCESS_LEVEL=public to check the public surface only), so a
# stale link in an internal type's comment fails too. Symbol graphs come from the existing build
# (`swift package dump-symbol-graph` runs swift-symbolgraph-extract on the built modules; after
# scripts/ci/build-strict.sh only about 35 dependency steps are redone, 10-30 s); `docc` from the
# toolchain converts each module's catalog. Output: .build-docs/<Module>.doccarchive.
set -uo pipefail
cd "$(dirname "$0")/../.."
export INTERMISSION_STRICT=1
modules=(HLSPlaylist HLSInterstitials InterstitialPlayback ViewerLoadSupport GroupCoordination GroupPlayback AdInsertion IntermissionStore IntermissionSQLite IntermissionPostgres IntermissionHTTP IntermissionServer ReceiverServer)
out=.build-docs
rm -rf "$out"
mkdir -p "$out/graphs"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift package dump-symbol-graph --minimum-access-level ${DOCS_ACCESS_LEVEL:-internal} --skip-synthesized-members >"$log" 2>&1; then
    cat "$log"
    echo "FAILED docs: swift package dump-symbol-graph failed (see above)"
    exit 1
fi
graphs=$(sed -n 's/^.*Files written to //p' "$log" | tail -1)
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
    cat "$log"
    echo "FAILED docs: no symbol graph folder in the output of swift package dump-symbol-graph"
    exit 1
fi
docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
failed=()
for module in "${modules[@]}"; do
    mkdir -p "$out/graphs/$module"
    # The module's own graph and its extensions of other modules' types (Module@Other).
    find "$graphs" -maxdepth 1 \( -name "$module.symbols.json" -o -name "$module@*.symbols.json" \) \
        -exec cp {} "$out/graphs/$module/" \;
    if ! "$docc" convert "Sources/$module/Documentation.docc" \
        --additional-symbol-graph-dir "$out/graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.intermission.$module" \
        --output-path "$out/$module.doccarchive" --warnings-as-errors >"$log" 2>&1
    then
        cat "$log"
        failed+=("$module")
    fi
done
if [ "${#failed[@]}" -ne 0 ]; then
    echo "FAILED docs: DocC warnings or errors in ${failed[*]} (see above)"
    exit 1
fi
echo "ok docs: ${modules[*]} build with no DocC warnings"
