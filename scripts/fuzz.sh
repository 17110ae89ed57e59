#!/usr/bin/env bash
# Builds the libFuzzer target for the playlist parser and runs it for N seconds (default 60) on the
# seed corpus (every fixture playlist). New interesting inputs go to fuzz-corpus/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
INTERMISSION_FUZZ=1 INTERMISSION_CORE_ONLY=1 swift build -c release --scratch-path .build-fuzz \
    --product intermission-fuzz -Xswiftc -sanitize=fuzzer,address
mkdir -p fuzz-corpus
cp -n Tests/Fixtures/playlists/*.m3u8 Tests/Fixtures/invalid/*.m3u8 Examples/*.m3u8 fuzz-corpus/ 2>/dev/null || true
exec .build-fuzz/release/intermission-fuzz -max_total_time="$seconds" -max_len=65536 fuzz-corpus
