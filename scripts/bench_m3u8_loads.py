#!/usr/bin/env python3
"""Time Python's `m3u8.loads()` on one playlist file: the peer baseline for our parser benchmarks.

Usage:
    python3 scripts/bench_m3u8_loads.py PLAYLIST [--runs N]

Reads the file once, parses it once to warm up, then times N runs (default 7)
with time.perf_counter() and reports the best one, as one JSON line:

    {"tool": "m3u8", "version": "6.0.0", "bytes": 3912345,
     "parse_seconds": 1.234567, "mb_per_s": 3.17}

"bytes" is the file size; mb_per_s uses 10^6 bytes. Exit status 2 if m3u8 is
not installed or the file can't be read.
"""

import argparse
import json
import sys
import time

try:
    import m3u8
except ImportError:
    sys.stderr.write("bench_m3u8_loads: the Python package 'm3u8' is not installed; run: pip install 'm3u8>=6,<7'\n")
    sys.exit(2)


def m3u8_version():
    try:
        from importlib.metadata import version

        return version("m3u8")
    except Exception:
        return getattr(m3u8, "__version__", "unknown")


def main():
    parser = argparse.ArgumentParser(description="Time m3u8.loads() on a playlist (best of N after one warm-up).")
    parser.add_argument("playlist")
    parser.add_argument("--runs", type=int, default=7, help="timed runs (default 7)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    try:
        with open(args.playlist, "rb") as handle:
            raw = handle.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        sys.stderr.write(f"bench_m3u8_loads: cannot read {args.playlist}: {error}\n")
        return 2

    m3u8.loads(text)  # warm-up
    best = float("inf")
    for _ in range(args.runs):
        start = time.perf_counter()
        m3u8.loads(text)
        best = min(best, time.perf_counter() - start)

    print(json.dumps({
        "tool": "m3u8",
        "version": m3u8_version(),
        "bytes": len(raw),
        "parse_seconds": round(best, 6),
        "mb_per_s": round(len(raw) / 1e6 / best, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
