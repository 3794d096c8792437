#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints devplug-bench's JSON as the Markdown table of docs/performance.md: every figure,
the bandwidth rows from 16M elements up (the plot, scripts/plot-bench.py, has every size).

    build/bin/devplug-bench --json bench.json
    scripts/bench-table.py bench.json > table.md
"""
import json
import sys

BANDWIDTH = ("copy", "add", "sum")
FROM_SIZE = 16 << 20


def size_text(n):
    if n == 0:
        return ""
    for shift, suffix in ((20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def number(x):
    return f"{x:.3g}"


def target_text(row):
    if not row["target"]:
        return ""
    return f"{row['target']} met" if row["met"] else f"{row['target']} **not met**"


def main(source):
    with open(source) as f:
        table = json.load(f)
    print("| plugin | figure | dtype | size | value | yardstick | its value | ratio | target |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in table["rows"]:
        if r["figure"] in BANDWIDTH and r["size"] < FROM_SIZE:
            continue
        if r["seconds"] <= 0:
            continue  # not run (a filter, or the plugin has no such path)
        cells = [r["plugin"], r["figure"], r["dtype"], size_text(r["size"]), f"{number(r['value'])} {r['unit']}",
                 r["yardstick"], number(r["yardstick_value"]) if r["yardstick"] else "",
                 number(r["ratio"]) if r["ratio"] is not None else "", target_text(r)]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
