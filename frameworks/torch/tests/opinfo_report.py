# SPDX-License-Identifier: Apache-2.0
"""The expected failures and the report of torch's OpInfo suite on devplug (test_opinfo.py).

The suite writes one results file per ctest entry (build/opinfo-results/<entry>.json: every
test's outcome per kind, its error, what fell back to the CPU). From those files:

    opinfo_report.py xfail [RESULTS...]           rewrites opinfo_xfail.txt
    opinfo_report.py docs [--check] [RESULTS...]  writes (checks) docs/torch_opinfo.md

RESULTS are results files or folders of them; by default build/opinfo-results/. Both want the
results of every plugin (`ctest -R '^torch\\.opinfo\\.'`); what the results do not cover is kept
as it was: the expected failures of a plugin or OpInfo that did not run, and the page's
section of a plugin that did not run.

opinfo_xfail.txt has one expected failure a line: `plugin op dtype kind reason`, where plugin
is a plugin's name or `*` (every plugin), op is the OpInfo's name with its variant after a dot
(`nn.functional.max_pool2d`, `round.decimals_3`), dtype is torch's name (`float32`), kind is
forward, backward, inplace or out, and the reason is the rest of the line. The first four may
be fnmatch patterns; `xfail` writes exact names, with `*` for a failure that every plugin
known for the test shares (write_xfail). A failure that was expected keeps its reason (edit
reasons freely); a new one gets the class of its error message (REASONS below, else the
message's first line with its numbers made N).
"""

import argparse
import collections
import fnmatch
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
XFAIL_PATH = os.path.join(HERE, "opinfo_xfail.txt")
DOCS_PATH = os.path.join(ROOT, "docs", "torch_opinfo.md")
RESULTS_DIR = os.path.join(ROOT, "build", "opinfo-results")

KINDS = ("forward", "backward", "inplace", "out")
DEVPLUG_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
OTHER_DTYPES = ("complex32", "complex64", "complex128", "uint16", "uint32", "uint64")
PLUGIN_ORDER = ("reference", "opencl", "level_zero", "gpu_emulated")

# ---------------------------------------------------------------------------------------------
# The expected failures.

Entry = collections.namedtuple("Entry", "plugin op dtype kind reason line")

# A reason that starts so marks a failure that depends on the machine: torch's CPU kernels take
# another vector path on another CPU (AVX-512 or AVX2), and the CPU's result then matches the
# device's or not. Such a kind that passes is recorded as the listed failure it is elsewhere
# (test_opinfo.py), so that the counts and this file are the same on every machine.
HOST_DEPENDENT = "on some CPUs: "


class XFail:
    """The entries of opinfo_xfail.txt; `match` finds the first that names a test's kind."""

    def __init__(self, entries):
        self.entries = entries
        self._exact = {}
        self._patterns = []
        for e in entries:
            if _is_pattern(e):
                self._patterns.append(e)
            else:
                self._exact.setdefault((e.op, e.dtype, e.kind), []).append(e)

    def match(self, plugin, op, dtype, kind):
        candidates = self._exact.get((op, dtype, kind), []) + self._patterns
        found = [e for e in candidates
                 if fnmatch.fnmatchcase(plugin, e.plugin) and fnmatch.fnmatchcase(op, e.op)
                 and fnmatch.fnmatchcase(dtype, e.dtype) and fnmatch.fnmatchcase(kind, e.kind)]
        return min(found, key=lambda e: e.line) if found else None


def read_xfail(path=XFAIL_PATH):
    entries = []
    if os.path.exists(path):
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if line and not line.startswith("#"):
                    fields = line.split(None, 4)
                    if len(fields) != 5 or fields[3] not in KINDS + ("*",):
                        raise ValueError(f"{path}:{number}: expected `plugin op dtype kind reason`, got {line!r}")
                    entries.append(Entry(*fields, number))
    return XFail(entries)


# Classes of error messages, first match wins: (pattern, reason).
REASONS = (
    (r"dtype Complex|complex", "complex dtypes are not supported on devplug devices"),
    (r"has dtype UInt(16|32|64)", "uint16, uint32 and uint64 are not supported on devplug devices"),
    (r"strides differ from the CPU's", "strides differ from the CPU's"),
    (r"attribute 'dtype' do not match", "the result's dtype differs from the CPU's"),
    (r"attribute 'shape' do not match|[Ss]hapes? .*do not match", "the result's shape differs from the CPU's"),
    (r"(difference|got): nan|but got nan", "NaN where the CPU gives a number"),
    (r"are not equal!", "values differ from the CPU's (exact dtype)"),
    (r"are not close!", "values differ from the CPU's beyond torch's tolerance"),
)


def normalize(message: str) -> str:
    """The first line of an error message, its numbers made N, at most 140 characters."""
    first = message.strip().split("\n")[0]
    first = re.sub(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)?(?![\w.])", "N", first)
    return first if len(first) <= 140 else first[:137] + "..."


def classify(error: str) -> str:
    """The reason of a new failure: its class in REASONS, else its normalized message."""
    for pattern, reason in REASONS:
        if re.search(pattern, error):
            return reason
    return normalize(error)


# ---------------------------------------------------------------------------------------------
# Results.


def results_files(paths):
    files = []
    for path in paths or [RESULTS_DIR]:
        files += sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    return files


def read_results(paths):
    """(tests, runs): every test record of the results files (one per plugin, op, dtype), and
    the files' headers."""
    tests, runs = {}, []
    for path in results_files(paths):
        with open(path) as f:
            data = json.load(f)
        runs.append({k: v for k, v in data.items() if k != "tests"})
        for t in data["tests"]:
            tests[(t["plugin"], t["op"], t["dtype"])] = t
    return tests, runs


def _is_pattern(entry):
    return any(c in field for field in entry[1:4] for c in "*?[")


def write_xfail(tests, path=XFAIL_PATH):
    """Rewrites the expected failures from `tests` (the results), keeping what they do not cover.

    For each test (op, dtype) and kind, each plugin is in one state: its result where it ran the
    test (pass, or the failure's reason), else what the old file said of it (its own line, or a
    `*` line), else unknown. A failure that every known plugin shares, known on at least two,
    is one `*` line; otherwise each failing plugin gets its line. Lines with patterns (written
    by hand) are kept as they are."""
    old = read_xfail(path)
    plugins = set(PLUGIN_ORDER) | {p for p, _, _ in tests} | {e.plugin for e in old.entries if e.plugin != "*"}
    ran = collections.defaultdict(set)
    states = collections.defaultdict(dict)  # (op, dtype, kind) -> {plugin: reason or None (pass)}
    for (plugin, op, dtype), t in tests.items():
        ran[(op, dtype)].add(plugin)
        for kind, record in t["kinds"].items():
            if record["outcome"] == "fail":
                states[(op, dtype, kind)][plugin] = record.get("expected") or classify(record["error"])
            elif record["outcome"] == "pass":
                states[(op, dtype, kind)][plugin] = None
    lines = [e[:5] for e in old.entries if _is_pattern(e)]
    for e in old.entries:
        if _is_pattern(e):
            continue
        for plugin in (plugins if e.plugin == "*" else {e.plugin}):
            if plugin not in ran[(e.op, e.dtype)]:
                states[(e.op, e.dtype, e.kind)].setdefault(plugin, e.reason)
    for (op, dtype, kind), by_plugin in states.items():
        reasons = set(by_plugin.values())
        if len(reasons) == 1 and None not in reasons and len(by_plugin) >= 2:
            lines.append(("*", op, dtype, kind, reasons.pop()))
        else:
            lines += [(plugin, op, dtype, kind, reason) for plugin, reason in by_plugin.items() if reason]
    groups = collections.defaultdict(list)
    order = lambda x: (x[1], DTYPE_ORDER.get(x[2], 99), KINDS.index(x[3]) if x[3] in KINDS else 9, x[0])  # noqa: E731
    for line in sorted(set(lines), key=order):
        groups[line[4]].append(line)
    widths = [max([len(x[i]) for x in lines] + [len(p) for p in PLUGIN_ORDER if i == 0]) for i in range(4)]
    with open(path, "w") as f:
        f.write(XFAIL_HEADER)
        for reason, group in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            f.write(f"\n# {reason} ({len(group)})\n")
            for line in group:
                f.write("  ".join(x.ljust(w) for x, w in zip(line[:4], widths)) + "  " + line[4] + "\n")


DTYPE_ORDER = {d: i for i, d in enumerate(DEVPLUG_DTYPES + OTHER_DTYPES)}

XFAIL_HEADER = """\
# SPDX-License-Identifier: Apache-2.0
# Expected failures of torch's OpInfo suite on devplug devices (test_opinfo.py), one a line:
#   plugin-or-*  op[.variant]  dtype  kind  reason
# kind is forward, backward, inplace or out. A listed failure that passes fails the test, as does
# a failure not listed, unless its reason starts with "on some CPUs: " (torch's CPU result
# depends on the machine's vector instructions). Regenerate from the results of every plugin:
#   ctest --preset default -R '^torch\\.opinfo\\.'
#   .venv/bin/python frameworks/torch/tests/opinfo_report.py xfail
# (see that script for what it keeps); lines are grouped by reason, largest group first.
"""

# ---------------------------------------------------------------------------------------------
# The page.


def status(test):
    """native, fallback, xfail or excluded:<rule> for one test record."""
    kinds = test["kinds"]
    outcomes = [r["outcome"] for r in kinds.values()]
    if "fail" in outcomes:
        return "xfail"
    if "pass" not in outcomes:
        return outcomes[0] if outcomes else "excluded:none"
    if any(r["fallback"] for r in kinds.values() if r["outcome"] == "pass"):
        return "fallback"
    return "native"


def _percent(n, d):
    return f"{100 * n / d:.1f}%" if d else "-"


def _counted(c):
    return c["native"] + c["fallback"] + c["xfail"]


def _fraction(n, d):
    return f"{_percent(n, d)} ({n}/{d})"


def summary_row(plugin, tests, sample):
    ts = [t for t in tests if not t["linalg"]]
    ops = len({t["op"] for t in tests})
    what = f"{ops} (1 in {sample}, a fixed sample)" if sample else f"{ops} (all)"
    f32 = collections.Counter(status(t) for t in ts if t["dtype"] == "float32")
    other = collections.Counter(status(t) for t in ts if t["dtype"] in DEVPLUG_DTYPES and t["dtype"] != "float32")
    every = collections.Counter(status(t).split(":")[0] for t in ts if t["dtype"] in DEVPLUG_DTYPES)
    return (f"| {plugin} | {what} | {_fraction(f32['native'], _counted(f32))} | "
            f"{_fraction(other['native'], _counted(other))} | "
            f"{every['native']} / {every['fallback']} / {every['xfail']} / {every['excluded']} |")


SUMMARY_HEADER = """\
## Summary

The target: at least 90% of float32 OpInfo variants native outside dense linear algebra, and at
least 80% in devplug's other nine dtypes together. The last column counts devplug's ten dtypes.

| plugin | OpInfos run | float32 native | devplug's other dtypes native | native / fallback / xfail / excluded |
| --- | --- | --- | --- | --- |"""


def render(tests, runs, kept=None):
    """The page: the plugins of `tests`, and the (summary row, section) of each plugin in `kept`
    (those without results, from the page as it was)."""
    by_plugin = collections.defaultdict(list)
    for (plugin, _, _), t in tests.items():
        by_plugin[plugin].append(t)
    sampled = {}
    for run in runs:
        if not run.get("full"):
            sampled.update(run.get("sampled", {}))
    parts = dict(kept or {})
    for plugin, ts in by_plugin.items():
        parts[plugin] = (summary_row(plugin, ts, sampled.get(plugin)),
                         "\n".join(render_plugin(plugin, ts, sampled.get(plugin))))
    plugins = sorted(parts, key=lambda p: (PLUGIN_ORDER.index(p) if p in PLUGIN_ORDER else 99, p))
    out = [PAGE_HEADER, SUMMARY_HEADER] + [parts[p][0] for p in plugins] + [""]
    out += [parts[p][1].rstrip() + "\n" for p in plugins]
    return "\n".join(out).rstrip() + "\n"


def page_parts(text):
    """{plugin: (summary row, section)} of a page render() wrote."""
    parts = {}
    sections = re.split(r"^(?=## )", text, flags=re.M)
    for section in sections:
        name = re.match(r"## (\S+)", section)
        if name and name.group(1) != "Summary":
            row = re.search(rf"^\| {re.escape(name.group(1))} \|.*$", text, re.M)
            parts[name.group(1)] = (row.group(0) if row else "", section)
    return parts


def render_plugin(plugin, tests, sample):
    out = [f"## {plugin}\n"]
    if sample:
        out.append(f"A fixed sample: the OpInfos whose name's CRC-32 is divisible by {sample} "
                   "(`SAMPLED_PLUGINS` in test_opinfo.py).\n")
    out.append("| dtype | native | fallback | xfail | excluded | native % | dense linear algebra: native / fallback / xfail / excluded |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for dtype in DEVPLUG_DTYPES + OTHER_DTYPES:
        main = collections.Counter(status(t).split(":")[0] for t in tests if t["dtype"] == dtype and not t["linalg"])
        la = collections.Counter(status(t).split(":")[0] for t in tests if t["dtype"] == dtype and t["linalg"])
        if not main and not la:
            continue
        counted = main["native"] + main["fallback"] + main["xfail"]
        out.append(f"| {dtype} | {main['native']} | {main['fallback']} | {main['xfail']} | {main['excluded']} | "
                   f"{_percent(main['native'], counted)} | {la['native']} / {la['fallback']} / {la['xfail']} / {la['excluded']} |")
    out.append("")
    classes = collections.Counter()
    for t in tests:
        for kind, record in t["kinds"].items():
            if record["outcome"] == "fail":
                classes[record.get("expected") or classify(record["error"])] += 1
    if classes:
        out.append(f"Failures of {plugin} by reason (kinds of OpInfo variants x dtypes; the reasons of "
                   "opinfo_xfail.txt):\n")
        out.append("| reason | failures |")
        out.append("| --- | --- |")
        for reason, n in sorted(classes.items(), key=lambda x: (-x[1], x[0])):
            out.append(f"| {reason.replace('|', '/')} | {n} |")
        out.append("")
    fell_back = collections.Counter()
    for t in tests:
        if status(t) == "fallback":
            for op in {op for r in t["kinds"].values() if r["outcome"] == "pass" for op in r["fallback"]}:
                fell_back[op] += 1
    if fell_back:
        top = sorted(fell_back.items(), key=lambda x: (-x[1], x[0]))[:25]
        out.append(f"What fell back to the CPU on {plugin}, by OpInfo variants x dtypes that passed through "
                   f"it ({len(fell_back)} ops; the first 25): " +
                   ", ".join(f"`{op}` {n}" for op, n in top) + ".\n")
    excluded = collections.Counter(status(t).split(":", 1)[1] for t in tests if status(t).startswith("excluded"))
    if excluded:
        out.append(f"Excluded on {plugin}, by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(excluded.items())) + ".\n")
    return out


PAGE_HEADER = """\
<!-- GENERATED FILE: do not edit. Source: the results of the torch.opinfo.* ctest entries
(build/opinfo-results/*.json); generator: `.venv/bin/python frameworks/torch/tests/opinfo_report.py docs`.
The torch.opinfo.docs test fails while they differ. -->
# torch's OpInfo suite on devplug devices

[torch.md](torch.md#torchs-opinfo-suite) says how the suite runs.

Each row counts OpInfo variants of torch's `op_db` in one dtype. **native**: every kind that
ran (forward, backward of the first sample, in-place, `out=`) matched torch's CPU and nothing
fell back to the CPU; **fallback**: matched, but an aten op ran on torch's CPU fallback, or a
devplug prim on devplug's reference fallback; **xfail**: a kind fails (listed with its reason
in `frameworks/torch/tests/opinfo_xfail.txt`); **excluded**: by rule (random, output torch
calls undefined, sparse, samples the CPU refuses). Native % is native over native, fallback
and xfail. Dense linear algebra (`linalg.*` and the LAPACK-backed helpers: svd, lu, qr, ...)
is counted apart. complex and uint16/32/64 are dtypes devplug tensors hold and whose ops run on
torch's CPU (they count as fallback).
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("xfail", "docs"))
    parser.add_argument("--check", action="store_true", help="docs: fail when the page is stale")
    parser.add_argument("results", nargs="*")
    args = parser.parse_intermixed_args(argv)
    tests, runs = read_results(args.results)
    if not tests:
        print(f"opinfo_report: no results in {' '.join(args.results) or RESULTS_DIR}", file=sys.stderr)
        return 1
    if args.what == "xfail":
        write_xfail(tests)
        print(f"opinfo_report: wrote {XFAIL_PATH}")
        return 0
    plugins = {p for p, _, _ in tests}
    old = open(DOCS_PATH).read() if os.path.exists(DOCS_PATH) else ""
    # Plugins without results keep their summary row and section as they were.
    kept = {p: part for p, part in page_parts(old).items() if p not in plugins}
    new = render(tests, runs, kept)
    if args.check:
        if new != old:
            print(f"opinfo_report: {DOCS_PATH} is stale for {', '.join(sorted(plugins))}: run "
                  "`.venv/bin/python frameworks/torch/tests/opinfo_report.py docs` after "
                  "`ctest --preset default -R '^torch\\.opinfo\\.'`", file=sys.stderr)
            return 1
        print(f"opinfo_report: {DOCS_PATH} is current for {', '.join(sorted(plugins))}")
        return 0
    with open(DOCS_PATH, "w") as f:
        f.write(new)
    print(f"opinfo_report: wrote {DOCS_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
