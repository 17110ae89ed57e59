#!/usr/bin/env python3
"""Prints the figures of a benchmark script as one table.

Reads rows from standard input, one a line: ``figure<TAB>value<TAB>unit`` (the unit may be left
out), and prints them under the title given as the first argument, columns aligned. The scripts
print figures only: what a figure should be is said in their header comments, not judged here.

Usage: printf 'parse\t612\tMB/s\n' | python3 scripts/bench_table.py "title"
"""
import sys


def main() -> None:
    rows = [line.rstrip("\n").split("\t") for line in sys.stdin if line.strip()]
    rows = [(row + ["", ""])[:3] for row in rows]
    header = ("figure", "value", "unit")
    widths = [max(len(r[k]) for r in rows + [header]) for k in range(3)]
    if len(sys.argv) > 1:
        print(sys.argv[1])
    for row in [header] + rows:
        print(f"  {row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]}".rstrip())


if __name__ == "__main__":
    main()
