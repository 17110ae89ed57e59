#!/usr/bin/env bash
# Builds the libFuzzer target and runs one of its fuzz targets for N seconds (default 60):
#   scripts/fuzz.sh [playlist|asset-list|attributes] [seconds]
#   playlist    (default) the playlist parser, on every fixture playlist
#   asset-list  asset-list JSON decoding and encoding, on Fuzz/corpus/asset-list
#   attributes  attribute lists, alone and as an interstitial EXT-X-DATERANGE, on Fuzz/corpus/attributes
# `scripts/fuzz.sh 30` (a number first) still runs the playlist target. New interesting inputs go to
# fuzz-corpus/<target>/ (git-ignored); crashes are written to the working folder as crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
target=playlist
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ ]]; then
    target=$1
    shift
fi
seconds=${1:-60}
case "$target" in
    playlist | asset-list | attributes) ;;
    *)
        echo "unknown fuzz target '$target' (playlist, asset-list or attributes)" >&2
        exit 2
        ;;
esac
INTERMISSION_FUZZ=1 INTERMISSION_CORE_ONLY=1 swift build -c release --scratch-path .build-fuzz \
    --product intermission-fuzz -Xswiftc -sanitize=fuzzer,address
corpus=fuzz-corpus/$target
mkdir -p "$corpus"
case "$target" in
    playlist)
        cp -n Tests/Fixtures/playlists/*.m3u8 Tests/Fixtures/invalid/*.m3u8 Examples/*.m3u8 "$corpus"/ 2>/dev/null || true
        max_len=65536
        ;;
    asset-list)
        cp -n Fuzz/corpus/asset-list/* "$corpus"/ 2>/dev/null || true
        max_len=16384
        ;;
    attributes)
        cp -n Fuzz/corpus/attributes/* "$corpus"/ 2>/dev/null || true
        # Every attribute list of the fixture playlists, one file each.
        grep -h -o '^#EXT[A-Z-]*:[A-Z].*=.*' Tests/Fixtures/playlists/*.m3u8 2>/dev/null | sed 's/^#[A-Z-]*://' \
            | head -200 | split -l 1 - "$corpus/fixture-" 2>/dev/null || true
        max_len=4096
        ;;
esac
INTERMISSION_FUZZ_TARGET=$target exec .build-fuzz/release/intermission-fuzz -max_total_time="$seconds" \
    -max_len="$max_len" "$corpus"
