#!/usr/bin/env bash
# CI step: the instructions of the five gated workloads, counted by `valgrind --tool=callgrind`
# (a count the machine's load does not move, and one that needs no hardware counters), checked
# against Benchmarks/Thresholds/<toolchain>/instructions.json. package-benchmark gates their malloc
# counts (scripts/ci/benchmarks.sh); its own `instructions` metric reads hardware counters, which
# the machines this project runs on do not expose.
#
#   scripts/ci/instructions.sh            check (from the repository root)
#   scripts/ci/instructions.sh --update   rewrite the thresholds from a run on this machine
#
# Each workload runs in Benchmarks' InstructionProbe (release), once 0 times and once N times with
# the same set-up: (instructions of the N run - instructions of the 0 run) / N is its count per
# iteration. A count more than TOLERANCE % above its threshold fails the step, with a line naming
# the workload; one more than that below it is reported, so the threshold can be lowered on purpose.
set -uo pipefail
cd "$(dirname "$0")/../.."

# Workload and iterations: enough for a per-iteration figure, few enough for valgrind (about 50
# times slower than the machine). PlayerStep's 120 one-second steps cross two breaks.
workloads=(ParseDVR24h:2 DecorateLiveWindow:200 ScheduleLiveUpdate:20 AssetListDecision:200 PlayerStep:120)
tolerance=${INSTRUCTIONS_TOLERANCE:-3}

if ! command -v valgrind >/dev/null 2>&1; then
    echo "FAILED instructions: valgrind is not installed (apt-get install valgrind; .ci/run does)"
    exit 1
fi
toolchain=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
thresholds="Benchmarks/Thresholds/${toolchain:-unknown}/instructions.json"
# The DVR playlist is made before any count, so that no run counts its making.
mkdir -p .build-bench
python3 scripts/gen-dvr-playlist.py .build-bench/dvr-24h.m3u8 >/dev/null || {
    echo "FAILED instructions: scripts/gen-dvr-playlist.py failed"
    exit 1
}
unset INTERMISSION_CORE_ONLY
if ! (cd Benchmarks && swift build -c release --product InstructionProbe >/dev/null 2>&1); then
    (cd Benchmarks && swift build -c release --product InstructionProbe 2>&1 | grep -E 'error' | head -20)
    echo "FAILED instructions: InstructionProbe does not build"
    exit 1
fi
# valgrind 3.19 cannot read the debug information of the release build ("possibly corrupted
# debuginfo"), and counting needs none: it runs a stripped copy.
probe=$(mktemp)
trap 'rm -f "$probe"' EXIT
strip -s Benchmarks/.build/release/InstructionProbe -o "$probe" || {
    echo "FAILED instructions: cannot strip Benchmarks/.build/release/InstructionProbe"
    exit 1
}

# The instructions callgrind collected over a whole run of `probe $1 $2`; empty when it failed.
count() {
    local out
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$probe" "$1" "$2" 2>&1 >/dev/null) || return 1
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out" | tail -1
}

measured=$(mktemp)
trap 'rm -f "$probe" "$measured"' EXIT
for entry in "${workloads[@]}"; do
    name=${entry%%:*}
    times=${entry##*:}
    base=$(count "$name" 0)
    full=$(count "$name" "$times")
    if [ -z "$base" ] || [ -z "$full" ]; then
        echo "FAILED instructions: $name did not run under valgrind (InstructionProbe $name $times)"
        exit 1
    fi
    echo "$name $(((full - base) / times))" >>"$measured"
done

python3 - "$measured" "$thresholds" "$tolerance" "${1:-}" <<'PY'
import json, os, sys

measured_path, thresholds_path, tolerance, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
measured = {}
with open(measured_path) as f:
    for line in f:
        name, value = line.split()
        measured[name] = int(value)
if mode == "--update":
    os.makedirs(os.path.dirname(thresholds_path), exist_ok=True)
    with open(thresholds_path, "w") as f:
        json.dump(measured, f, indent=2, sort_keys=True)
        f.write("\n")
    for name, value in measured.items():
        print(f"{name}\t{value:,}\tinstructions per iteration")
    print(f"ok instructions: thresholds written to {thresholds_path} (review and commit them)")
    sys.exit(0)
if not os.path.exists(thresholds_path):
    print(f"FAILED instructions: no thresholds in {thresholds_path} (write them with scripts/ci/instructions.sh --update)")
    sys.exit(1)
with open(thresholds_path) as f:
    thresholds = json.load(f)
worse, better = [], []
print(f"{'workload':<22}{'threshold':>14}{'measured':>14}{'change':>9}")
for name, value in measured.items():
    limit = thresholds.get(name)
    if limit is None:
        worse.append(f"{name} has no threshold")
        continue
    change = (value - limit) * 100.0 / limit
    print(f"{name:<22}{limit:>14,}{value:>14,}{change:>+8.1f}%")
    if change > tolerance:
        worse.append(f"{name} {value:,} instructions, {change:+.1f}% over its threshold {limit:,} (tolerance {tolerance:g}%)")
    elif change < -tolerance:
        better.append(f"{name} {change:+.1f}%")
if worse:
    print("FAILED instructions: " + "; ".join(worse))
    sys.exit(1)
note = f"; better than the threshold, lower it on purpose: {', '.join(better)}" if better else ""
print(f"ok instructions: {', '.join(measured)} within {tolerance:g}% of their thresholds ({thresholds_path}){note}")
PY
