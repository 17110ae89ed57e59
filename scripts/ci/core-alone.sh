#!/usr/bin/env bash
# CI step: the core stands alone at the package level. A scratch package that depends on this
# repository with no trait (`traits: []`) builds and runs a program using HLSPlaylist,
# HLSInterstitials and GroupCoordination while SwiftPM resolves no package at all; with the
# `Playback` trait only, the server's dependencies (GRDB, postgres-nio, Yams, Prometheus) are not
# resolved either; with `Server` and not `PostgreSQL` (a SQLite deployment), postgres-nio is not
# resolved.
# Alone: scripts/ci/core-alone.sh (needs the package mirror for the second check only).
set -uo pipefail
cd "$(dirname "$0")/../.."
# The development switches would change what the manifest declares (Package.swift).
unset INTERMISSION_CORE_ONLY INTERMISSION_FUZZ
repo=$(pwd)
# A package's identity, for a dependency by path, is its folder's name (anything in a clone).
identity=$(basename "$repo")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# user NAME TRAITS: a package NAME under the scratch folder depending on this one with TRAITS.
user() {
    mkdir -p "$scratch/$1/Sources/$1"
    cat > "$scratch/$1/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "$1",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$repo", traits: [$2])],
    targets: [
        .executableTarget(
            name: "$1",
            dependencies: [
                .product(name: "HLSPlaylist", package: "$identity"),
                .product(name: "HLSInterstitials", package: "$identity"),
                .product(name: "GroupCoordination", package: "$identity"),
            ]
        )
    ]
)
SWIFT
    cat > "$scratch/$1/Sources/$1/main.swift" <<'SWIFT'
import GroupCoordination
import HLSInterstitials
import HLSPlaylist

let text = """
    #EXTM3U
    #EXT-X-TARGETDURATION:6
    #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
    #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:06.000Z",X-ASSET-URI="ad.m3u8"
    #EXTINF:6,
    a.ts
    #EXTINF:6,
    b.ts
    #EXT-X-ENDLIST

    """
let playlist = try MediaPlaylist(parsing: text)
let ranges = playlist.dateRanges.filter { $0.dateRange.isInterstitial }
print("segments \(playlist.segments.count), interstitials \(ranges.map(\.dateRange.id))")
// The group's coordination decides with no networking dependency either.
print("group instant \(ClockInstant(milliseconds: 1500))")
SWIFT
}

failures=()

user CoreUser ""
if ! out=$(cd "$scratch/CoreUser" && swift build 2>&1); then
    echo "$out" | tail -20
    failures+=("a package using HLSPlaylist with no trait does not build")
else
    ran=$(cd "$scratch/CoreUser" && .build/debug/CoreUser 2>&1)
    [ "$ran" = $'segments 2, interstitials ["ad"]\ngroup instant 1.500' ] || failures+=("the core program printed: $ran")
    checkouts=$(ls "$scratch/CoreUser/.build/checkouts" 2>/dev/null | tr '\n' ' ')
    [ -z "$checkouts" ] || failures+=("with no trait, SwiftPM fetched: $checkouts")
    if [ -f "$scratch/CoreUser/Package.resolved" ] && grep -q '"identity"' "$scratch/CoreUser/Package.resolved"; then
        failures+=("with no trait, Package.resolved pins packages")
    fi
    echo "core alone: built and ran with nothing resolved ($ran)"
fi

user PlayerUser '"Playback"'
if ! out=$(cd "$scratch/PlayerUser" && swift package resolve 2>&1); then
    echo "$out" | tail -20
    failures+=("a package with the Playback trait does not resolve")
else
    pinned=$(grep -o '"identity" : "[^"]*"' "$scratch/PlayerUser/Package.resolved" | sed 's/.*: "//; s/"$//' | sort | tr '\n' ' ')
    echo "Playback trait: resolves $pinned"
    # (compress-nio and swift-crypto come with the WebSocket client and AsyncHTTPClient.)
    for server in grdb.swift postgres-nio yams swift-prometheus; do
        case " $pinned " in *" $server "*) failures+=("the Playback trait resolves $server") ;; esac
    done
fi

user SQLiteServerUser '"Server"'
if ! out=$(cd "$scratch/SQLiteServerUser" && swift package resolve 2>&1); then
    echo "$out" | tail -20
    failures+=("a package with the Server trait alone does not resolve")
else
    pinned=$(grep -o '"identity" : "[^"]*"' "$scratch/SQLiteServerUser/Package.resolved" | sed 's/.*: "//; s/"$//' | sort | tr '\n' ' ')
    echo "Server trait without PostgreSQL: resolves $pinned"
    case " $pinned " in *" grdb.swift "*) ;; *) failures+=("the Server trait does not resolve grdb.swift") ;; esac
    case " $pinned " in *" postgres-nio "*) failures+=("the Server trait without PostgreSQL resolves postgres-nio") ;; esac
fi

if [ "${#failures[@]}" -ne 0 ]; then
    printf '%s\n' "${failures[@]}"
    echo "FAILED core-alone: ${failures[*]}"
    exit 1
fi
echo "ok core-alone: HLSPlaylist, HLSInterstitials and GroupCoordination build from another package with no dependency resolved"
