#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws devplug-bench's growth curves: GB/s of copy, add and sum against the element count,
one panel per plugin and dtype, so the crossover from launch-bound to bandwidth-bound shows.

    build/bin/devplug-bench --json bench.json
    scripts/plot-bench.py bench.json docs/performance.png

Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(source, target):
    with open(source) as f:
        table = json.load(f)
    rows = [r for r in table["rows"] if r["figure"] in ("copy", "add", "sum") and r["seconds"] > 0]
    panels = sorted({(r["plugin"], r["dtype"]) for r in rows})
    if not panels:
        sys.exit("plot-bench: no copy/add/sum rows in " + source)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), squeeze=False)
    for ax, (plugin, dtype) in zip(axes[0], panels):
        for figure in ("copy", "add", "sum"):
            points = sorted((r["size"], r["value"]) for r in rows
                            if r["plugin"] == plugin and r["dtype"] == dtype and r["figure"] == figure)
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=figure)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s")
        ax.set_title(f"{plugin}, {dtype}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("devplug-bench: " + table.get("machine", ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(target, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot-bench.py BENCH.json OUT.png")
    main(sys.argv[1], sys.argv[2])
