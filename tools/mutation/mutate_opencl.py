#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation check of the conformance suite against the OpenCL plugin's kernels.

Injects one operator bug at a time into plugins/opencl/kernels/*.cl (arithmetic, relational,
logical and bitwise operators, increments, integer and float constants, min/max, floor/ceil
and friends, deleted negations), runs the part of devplug-conform that executes the mutated
code, and tallies which mutants the suite kills. Needs no C++ rebuild: the plugin reads its
kernel source from DEVPLUG_OPENCL_KERNEL_DIR when that is set, and OpenCL programs are
compiled at run time, so each mutant is a folder of .cl files. Slow (each mutant recompiles
the programs it touches): run it by hand, not in CI. See tools/mutation/README.md.

  tools/mutation/mutate_opencl.py --build build --sample 260 --out build/mutation

Outcomes: killed (a case failed, crashed or hung), survived (every case passed), stillborn
(the mutant does not compile: not counted). A mutant in code shared by a whole kernel family
first runs a representative filter; if it survives, it runs again over the whole family
before it is called a survivor.
"""
import argparse
import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ---- which cases run the code of each kernel family ----------------------------------------

# Ops whose programs come from each family (kernels_*.cpp). copy_strided's program also
# serves cat, flip, constant_pad and the scatters (run_copy); fill's serves constant_pad and
# matmul with K = 0 (run_fill).
FAMILY_OPS = {
    "elementwise": None,  # every unary, binary, compare and ternary op, casts, copies
    "fill": ["fill", "iota", "constant_pad"],
    "index": ["index_select", "gather", "scatter", "scatter_add"],
    "reduce": ["sum", "prod", "amax", "amin", "argmax", "argmin", "var", "all", "any"],
    "scan": ["cumsum", "cumprod"],
    "matmul": ["matmul"],
    "philox": ["philox_bits", "philox_uniform", "philox_normal"],
    # The native composite kernels (plugins/opencl/kernels_composite.cpp).
    "composite": ["softmax", "log_softmax", "layer_norm", "rms_norm", "scaled_dot_product_attention"],
    "composite_pointwise": ["gelu", "silu", "sigmoid"],  # each glob takes its backward op too
}
# Tests of the ABI suite that run a family's kernels too: the index contract (a bad index
# value reported through the status block, conformance/suites/abi_index_values.cpp).
FAMILY_ABI_TESTS = {"index": ["Abi.index_values"]}
# Representative cases for code every op of a family shares (run first; a survivor is rerun
# over the whole family).
REPRESENTATIVE = {
    "elementwise": ["add_*", "sub_*", "neg_*", "abs_*", "exp_*", "maximum_*", "fmax_*", "lt_*", "eq_*",
                    "where_*", "copy_strided_*", "nextafter_*", "bitwise_not_*", "shift_left_*",
                    "convert_element_type_float64_to_*", "convert_element_type_*_to_bfloat16_*",
                    "convert_element_type_*_to_float16_*", "convert_element_type_*_to_int8_*"],
    "common": ["add_*", "neg_*", "exp_float16_*", "exp_bfloat16_*", "convert_element_type_float64_to_*",
               "convert_element_type_*_to_bfloat16_*", "convert_element_type_int64_to_*", "sum_*", "argmax_*",
               "cumsum_*", "gather_*", "matmul_*", "fill_*", "iota_*", "philox_uniform_*", "flip_*"],
}
# OP_<token> spellings that differ from the ops.def name.
OP_TOKENS = {"copy": ["copy_strided", "cat", "flip", "constant_pad", "scatter", "scatter_add"],
             "convert": ["convert_element_type"],
             # gelu's tanh form is the gelu op with its approximate attribute.
             "gelu_tanh": ["gelu"], "gelu_tanh_backward": ["gelu_backward"]}
# NEED_<X> switches of elementwise.cl and the ops that set them.
NEEDS = {"NEED_ERFINV": ["erfinv"], "NEED_LGAMMA": ["lgamma"], "NEED_DIGAMMA": ["digamma"],
         "NEED_EXP_NEAR_OVERFLOW": ["exp", "sinh", "cosh"]}

# ---- mutation operators ---------------------------------------------------------------------

OPERATOR_SWAPS = {
    "+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["*"],
    "<": ["<=", ">"], "<=": ["<", ">"], ">": [">=", "<"], ">=": [">", "<"],
    "==": ["!="], "!=": ["=="], "&&": ["||"], "||": ["&&"],
    "&": ["|"], "|": ["&"], "^": ["|"], "<<": [">>"], ">>": ["<<"],
    "++": ["--"], "--": ["++"], "+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="],
    "!": [""], "~": [""],
}
IDENTIFIER_SWAPS = {
    "min": ["max"], "max": ["min"], "fmin": ["fmax"], "fmax": ["fmin"], "floor": ["ceil"],
    "ceil": ["floor"], "rint": ["trunc"], "trunc": ["rint"], "isnan": ["isinf"], "signbit": ["isnan"],
    "get_global_id": ["get_local_id"], "barrier": ["(void)"],
}
TYPE_NAMES = {"float", "double", "half", "int", "uint", "long", "ulong", "short", "ushort", "char", "uchar",
              "void", "acc_t", "real_t", "geom_t", "dd_t", "R", "W"}
TOKEN = re.compile(
    r"(?P<float>0[xX][0-9a-fA-F.]+[pP][-+]?\d+[fF]?|(\d+\.\d*|\.\d+)([eE][-+]?\d+)?[fF]?|\d+[eE][-+]?\d+[fF]?)"
    r"|(?P<int>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)"
    r"|(?P<ident>[A-Za-z_]\w*)"
    r"|(?P<op><<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|->|[-+*/%<>&|^!~])"
    r"|(?P<other>\S)")


def strip_comments(text):
    """Blanks out comments, keeping every offset."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def is_type_like(token):
    return token in TYPE_NAMES or re.fullmatch(r"[A-Z_]*(_ST|_CT|_UT|_WUT|_T|_t)", token or "") is not None


def line_sites(line):
    """Mutation sites of one comment-free line: (column, original, replacement, kind)."""
    stripped = line.lstrip()
    if stripped.startswith(("#include", "#pragma", "#error", "#undef")):
        return []
    # Not operator sites: rows of numeric tables (digamma's roots and series, data that the
    # edges class checks at the roots; a 16th coefficient changed by 1e-4 is an equivalent
    # mutant), and WANT_WIDE, a precision choice (float32 built-ins meet the float32 rows
    # too, so flipping it is equivalent by design).
    if re.fullmatch(r"[\s{},0-9a-fA-FxXpP.+-]*", stripped) or stripped.startswith("#define WANT_WIDE"):
        return []
    if re.match(r"(__constant|GPU_TABLE)\b.*=\s*{", stripped):
        return []
    tokens = [(m.lastgroup, m.group(), m.start()) for m in TOKEN.finditer(line)]
    sites = []
    for k, (kind, text, col) in enumerate(tokens):
        prev = tokens[k - 1] if k > 0 else (None, None, 0)
        nxt = tokens[k + 1] if k + 1 < len(tokens) else (None, None, 0)
        if kind == "op" and text in OPERATOR_SWAPS:
            if text == "*" and is_type_like(prev[1]) and (nxt[0] == "ident" or nxt[1] == ")"):
                continue  # a pointer declarator, not a product
            if text == "&" and (prev[0] in (None, "op") or prev[1] in ("(", ",", "=")):
                continue  # address-of
            if text in ("-", "+", "*") and (prev[0] in (None, "op") or prev[1] in ("(", ",", "=", "?", ":", "return")):
                if text != "-":
                    continue  # unary plus, dereference
                sites.append((col, text, "", "delete unary minus"))
                continue
            if text == "!" and nxt[1] == "=":
                continue
            for repl in OPERATOR_SWAPS[text]:
                sites.append((col, text, repl, "operator"))
        elif kind == "int":
            digits = re.match(r"0[xX][0-9a-fA-F]+|\d+", text).group()
            suffix = text[len(digits):]
            value = int(digits, 0)
            if stripped.startswith("#define") and re.match(r"#define\s+\w+\s+\d+\s*$", stripped):
                pass  # a dtype code or table constant: still a fair mutant
            sites.append((col, text, str(value + 1) + suffix, "constant +1"))
            if value != 0:
                sites.append((col, text, "0" + suffix, "constant 0"))
        elif kind == "float":
            sites.append((col, text, "(" + text + " * 1.0001)" if not text.endswith(("f", "F"))
                          else "(" + text + " * 1.0001f)", "constant *1.0001"))
        elif kind == "ident" and text in IDENTIFIER_SWAPS and nxt[1] == "(":
            for repl in IDENTIFIER_SWAPS[text]:
                sites.append((col, text, repl, "function"))
    return sites


def regions(lines):
    """Per line: the ops whose programs compile it (None: every op of the family). A
    directive's own line belongs to the region around it: a mutant of its condition
    changes which ops compile the block (`defined(OP_scatter_add) && A_FLOAT` with `||`
    is compiled into every float index program), so it runs all the ops around it."""
    stack = []  # per #if nesting level: ops of the current branch (or None)
    result = []
    for line in lines:
        s = line.strip()
        m = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", s)
        around = stack
        if m:
            word, cond = m.group(1), m.group(2)
            if word in ("if", "ifdef", "ifndef"):
                stack.append(ops_of_condition(word, cond))
                around = stack[:-1]
            elif word == "elif":
                stack[-1] = ops_of_condition("if", cond)
                around = stack[:-1]
            elif word == "else":
                stack[-1] = None  # every op but those named: the family's ops, conservatively
            elif word == "endif" and stack:
                stack.pop()
        ops = None
        for level in around:
            if level is not None:
                ops = level if ops is None else [o for o in ops if o in level] or level
        result.append(ops)
    return result


def ops_of_condition(word, cond):
    if word == "ifndef":
        return None
    names = re.findall(r"defined\s*\(\s*OP_(\w+)\s*\)", cond)
    if word == "ifdef":
        m = re.match(r"\s*OP_(\w+)", cond)
        names = [m.group(1)] if m else []
        n = re.match(r"\s*(NEED_\w+)", cond)
        if n and n.group(1) in NEEDS:
            return list(NEEDS[n.group(1)])
    ops = []
    for name in names:
        ops += OP_TOKENS.get(name, [name])
    return ops or None


def enumerate_mutants(kernel_dir):
    mutants = []
    for path in sorted(Path(kernel_dir).glob("*.cl")):
        text = path.read_text()
        clean = strip_comments(text).split("\n")
        owners = regions(clean)
        for number, line in enumerate(clean):
            for col, original, replacement, kind in line_sites(line):
                mutants.append({"file": path.name, "line": number + 1, "col": col, "original": original,
                                "replacement": replacement, "kind": kind, "ops": owners[number],
                                "text": text.split("\n")[number].strip()})
    return mutants


def apply(kernel_dir, mutant, out_dir):
    for path in Path(kernel_dir).glob("*.cl"):
        shutil.copy(path, out_dir / path.name)
    target = out_dir / mutant["file"]
    lines = target.read_text().split("\n")
    line = lines[mutant["line"] - 1]
    col = mutant["col"]
    assert line[col:col + len(mutant["original"])] == mutant["original"], mutant
    lines[mutant["line"] - 1] = line[:col] + mutant["replacement"] + line[col + len(mutant["original"]):]
    target.write_text("\n".join(lines))


def filters(mutant):
    """The gtest filters to run: (first, confirmation) — confirmation None if first is complete."""
    family = mutant["file"][:-3]
    def globs(names):
        return ":".join(["*/OpTest.Matches/" + n + ("" if n.endswith("*") else "_*") for n in names] +
                        FAMILY_ABI_TESTS.get(family, []))
    if mutant["ops"]:
        return globs(mutant["ops"]), None
    if family == "common":
        return globs(REPRESENTATIVE["common"]), "*/OpTest.Matches/*"
    if family == "elementwise":
        return globs(REPRESENTATIVE["elementwise"]), elementwise_everything()
    return globs(FAMILY_OPS[family]), None


def elementwise_everything():
    # Every case except those of the families that never build an elementwise program.
    skip = FAMILY_OPS["reduce"] + FAMILY_OPS["scan"] + FAMILY_OPS["philox"] + ["matmul", "index_select", "gather",
                                                                                  "fill", "iota"]
    return "*/OpTest.Matches/*:-" + ":".join("*/OpTest.Matches/" + n + "_*" for n in skip)


class SharedLock:
    """The shared CPU lock (--lock), held across consecutive suite runs for at most
    --lock-slice seconds, then given up so that other jobs get their turn. Time spent
    waiting for it is not counted in any run's time."""

    def __init__(self):
        self.file = None
        self.since = 0.0

    def acquire(self, args):
        if not args.lock or self.file:
            return
        self.file = open(args.lock, "a")
        fcntl.flock(self.file, fcntl.LOCK_EX)
        self.since = time.time()

    def release_if_due(self, args, force=False):
        if self.file and (force or time.time() - self.since > args.lock_slice):
            fcntl.flock(self.file, fcntl.LOCK_UN)
            self.file.close()
            self.file = None


LOCK = SharedLock()


def run_suite(args, kernel_dir, gtest_filter, report, limit):
    """Runs devplug-conform on the mutated kernels; (outcome, seconds, detail)."""
    env = dict(os.environ)
    cache = tempfile.mkdtemp(prefix="mutant-cache-", dir=args.out)
    env.update({"DEVPLUG_OPENCL_KERNEL_DIR": str(kernel_dir), "POCL_CACHE_DIR": cache + "/pocl",
                "DEVPLUG_OPENCL_CACHE_DIR": cache + "/programs"})
    os.makedirs(cache + "/pocl", exist_ok=True)
    cmd = [str(args.build / "bin" / "devplug-conform"), "--plugin", "opencl", "--jobs", str(args.jobs),
           "--timeout", str(args.case_timeout), "--xfail", str(args.xfail), "--report-json", str(report),
           "--fail-fast", "--gtest_filter=" + gtest_filter]  # the first failure kills the mutant
    LOCK.acquire(args)
    start = time.time()
    # Its own session, so that a mutant that hangs a kernel is ended with every worker.
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=limit)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        timed_out = True
    seconds = time.time() - start
    LOCK.release_if_due(args)
    shutil.rmtree(cache, ignore_errors=True)
    if timed_out:
        return "killed", seconds, "the run hung past %d s (cases time out one by one)" % limit
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        return "killed", seconds, "no report (exit %d): %s" % (proc.returncode, output[-300:])
    if not data.get("cases"):
        # A filter that matches nothing would let every mutant survive: the tool is wrong.
        raise SystemExit("no case matches %s; fix the tool's op tables" % gtest_filter)
    bad = [c for c in data.get("cases", []) if c["status"] in ("fail", "crash", "timeout", "xpass")]
    if any("clBuildProgram" in c.get("message", "") for c in bad):
        return "stillborn", seconds, "does not compile"
    if bad:
        return "killed", seconds, "%d failed, first %s (%s)" % (len(bad), bad[0]["name"], bad[0]["status"])
    if proc.returncode != 0:
        return "killed", seconds, "exit %d" % proc.returncode
    return "survived", seconds, "%d cases passed" % len(data.get("cases", []))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path("build"), help="build folder (bin/devplug-conform)")
    parser.add_argument("--kernels", type=Path, default=Path("plugins/opencl/kernels"))
    parser.add_argument("--xfail", type=Path, default=Path("plugins/opencl/conformance.xfail"))
    parser.add_argument("--out", type=Path, default=Path("build/mutation"))
    parser.add_argument("--sample", type=int, default=260, help="mutants to run (0: list the sites only)")
    parser.add_argument("--min-per-file", type=int, default=12)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--case-timeout", type=int, default=10, help="seconds one case may take")
    parser.add_argument("--run-limit", type=int, default=600,
                        help="seconds one suite run may take before the mutant counts as hung (killed)")
    parser.add_argument("--lock", default=os.environ.get("DEVPLUG_CPU_LOCK", ""),
                        help="a file to flock around each suite run (a shared CPU lock), not counted in its time")
    parser.add_argument("--lock-slice", type=int, default=480,
                        help="seconds to keep the lock across consecutive mutants before giving it up")
    parser.add_argument("--only", default="", help="run only mutants whose id is in this comma list")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.out = args.out.resolve()

    mutants = enumerate_mutants(args.kernels)
    for i, m in enumerate(mutants):
        m["id"] = "%s:%d:%d:%s>%s" % (m["file"], m["line"], m["col"], m["original"], m["replacement"] or "''")
    by_file = {}
    for m in mutants:
        by_file.setdefault(m["file"], []).append(m)
    print("%d mutation sites: %s" % (len(mutants), ", ".join("%s %d" % (f, len(v)) for f, v in sorted(by_file.items()))))
    if args.sample == 0:
        return 0

    # A sample spread over every file: proportional to its sites, at least min-per-file each.
    rng = random.Random(args.seed)
    chosen = []
    for name, items in sorted(by_file.items()):
        share = max(args.min_per_file, round(args.sample * len(items) / len(mutants)))
        chosen += rng.sample(items, min(share, len(items)))
    # Run in a random order, so that a run cut short is still spread over every file.
    rng.shuffle(chosen)
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [m for m in mutants if m["id"] in wanted]

    results_path = args.out / "results.jsonl"
    done = {}
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            r = json.loads(line)
            done[r["id"]] = r
    with results_path.open("a") as results:
        for n, m in enumerate(chosen):
            if m["id"] in done:
                continue
            work = Path(tempfile.mkdtemp(prefix="mutant-", dir=args.out))
            apply(args.kernels, m, work)
            first, confirm = filters(m)
            outcome, seconds, detail = run_suite(args, work, first, work / "report.json", args.run_limit)
            if outcome == "survived" and confirm:
                outcome, more, detail = run_suite(args, work, confirm, work / "report-all.json", 4 * args.run_limit)
                seconds += more
            shutil.rmtree(work, ignore_errors=True)
            record = dict(m, outcome=outcome, seconds=round(seconds, 1), detail=detail, filter=first)
            results.write(json.dumps(record) + "\n")
            results.flush()
            done[m["id"]] = record
            print("[%d/%d] %-9s %5.1fs %s  %s" % (n + 1, len(chosen), outcome, seconds, m["id"], detail), flush=True)

    LOCK.release_if_due(args, force=True)
    tally(list(done.values()), args.out)
    return 0


def tally(records, out):
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    judged = counts.get("killed", 0) + counts.get("survived", 0)
    print("killed %d, survived %d, stillborn %d: kill rate %.1f%% of %d compiling mutants" %
          (counts.get("killed", 0), counts.get("survived", 0), counts.get("stillborn", 0),
           100.0 * counts.get("killed", 0) / max(judged, 1), judged))
    with (out / "survivors.md").open("w") as f:
        f.write("| mutant | line | filter |\n| --- | --- | --- |\n")
        for r in records:
            if r["outcome"] == "survived":
                f.write("| `%s` | `%s` | `%s` |\n" % (r["id"], r["text"].replace("|", "\\|"), r["filter"][:60]))


if __name__ == "__main__":
    sys.exit(main())
