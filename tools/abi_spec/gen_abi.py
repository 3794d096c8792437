#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates what comes from the plugin ABI's spec, sdk/include/devplug/plugin_api.def.

  tools/abi_spec/gen_abi.py            rewrite every output in place
  tools/abi_spec/gen_abi.py --check    exit 1 (and say which) when an output is not current

Outputs (see the top of plugin_api.def):
  sdk/include/devplug/plugin_api.h          the regions between GENERATED BEGIN/END markers
  sdk/include/devplug/sdk/plugin_checks.inc the argument checks of every entry
  docs/abi.md                               the entry table between its GENERATED markers
  conformance/suites/abi_rows.inc           a negative test for every check row

C and C++ outputs go through clang-format-14 with the tree's .clang-format, so they pass the
format check as written.
"""
import argparse
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "sdk/include/devplug/plugin_api.def"
HEADER = ROOT / "sdk/include/devplug/plugin_api.h"
CHECKS = ROOT / "sdk/include/devplug/sdk/plugin_checks.inc"
DOC = ROOT / "docs/abi.md"
ROWS = ROOT / "conformance/suites/abi_rows.inc"

# Check kinds the SDK runs before a plugin's own code (sdk/checks.hpp), and those a plugin's
# body answers (documented and tested, not checked by the SDK).
SDK_RULES = {
    "null", "struct_size", "abi_major", "device_index", "zero", "same_device", "range", "no_bytes",
    "overlap", "known_op", "arity", "tensors", "known_dtype", "rank", "attrs_size", "allowed_dtype", "on_device",
    "claimed", "below", "reduce_op", "dense", "fused_program", "aligned",
}
BODY_RULES = {"device_memory", "recorded"}
CODES = {
    "OK", "INVALID_ARGUMENT", "OUT_OF_RANGE", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED",
    "UNIMPLEMENTED", "UNAVAILABLE", "INTERNAL", "NOT_FOUND",
}
ROLES = {"in", "opt", "out", "out_opt"}


@dataclass
class Arg:
    role: str
    type: str
    name: str


@dataclass
class Check:
    code: str
    rule: str
    args: list


@dataclass
class Entry:
    table: str
    name: str
    minor: int
    ret: str
    doc: str
    args: list = field(default_factory=list)
    checks: list = field(default_factory=list)


@dataclass
class Field:
    table: str
    name: str
    minor: int
    type: str
    doc: str


@dataclass
class Group:
    table: str
    title: str


@dataclass
class Extension:
    name: str
    type_id: int
    minor: int
    doc: str


class SpecError(Exception):
    pass


def split_top(text):
    """Splits a macro's argument text at commas outside parentheses and strings."""
    parts, depth, cur, i, in_str = [], 0, [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur).strip())
    return parts


def string_value(text):
    """The value of adjacent C string literals."""
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    if not pieces:
        raise SpecError(f"expected a string literal, found {text!r}")
    return "".join(pieces).replace('\\"', '"').replace("\\\\", "\\")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse(path=SPEC):
    text = strip_comments(path.read_text())
    # Skip the default definitions and #undefs: only rows outside preprocessor lines count.
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    items, entries, exts = [], {}, {}
    pos = 0
    pattern = re.compile(r"DEVPLUG_API_(GROUP|FIELD|ENTRY|ARG|CHECK|EXTENSION)\s*\(")
    while True:
        m = pattern.search(body, pos)
        if not m:
            break
        depth, i, in_str = 1, m.end(), False
        while depth:
            c = body[i]
            if in_str:
                if c == "\\":
                    i += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        kind, args = m.group(1), split_top(body[m.end():i - 1])
        pos = i
        if kind == "GROUP":
            items.append(Group(args[0], string_value(args[1])))
        elif kind == "FIELD":
            items.append(Field(args[0], args[1], int(args[2]), args[3], string_value(args[4])))
        elif kind == "ENTRY":
            if args[1] in entries:
                raise SpecError(f"entry {args[1]} declared twice")
            e = Entry(args[0], args[1], int(args[2]), args[3], string_value(args[4]))
            entries[e.name] = e
            items.append(e)
        elif kind == "ARG":
            e = entries.get(args[0])
            if e is None:
                raise SpecError(f"DEVPLUG_API_ARG for unknown entry {args[0]}")
            if args[1] not in ROLES:
                raise SpecError(f"{args[0]}: unknown role {args[1]}")
            e.args.append(Arg(args[1], args[2], args[3]))
        elif kind == "CHECK":
            e = entries.get(args[0])
            if e is None:
                raise SpecError(f"DEVPLUG_API_CHECK for unknown entry {args[0]}")
            code, rule = args[1], args[2]
            if code not in CODES:
                raise SpecError(f"{e.name}: unknown code {code}")
            if rule not in SDK_RULES | BODY_RULES:
                raise SpecError(f"{e.name}: unknown check rule {rule}")
            rargs = [a.strip() for a in args[3].strip()[1:-1].split(",")]
            names = {a.name for a in e.args}
            for a in rargs:
                if not (a in names or a.startswith("DEVPLUG_")):
                    raise SpecError(f"{e.name}: check {rule} reads {a}, which is not a parameter")
            e.checks.append(Check(code, rule, rargs))
        elif kind == "EXTENSION":
            x = Extension(args[0], int(args[1]), int(args[2]), string_value(args[3]))
            if x.type_id in {y.type_id for y in exts.values()}:
                raise SpecError(f"extension type id {x.type_id} used twice")
            exts[x.name] = x
    for e in entries.values():
        if e.table not in {"api", "kernel"} and e.table not in exts:
            raise SpecError(f"entry {e.name} is in unknown table {e.table}")
    return items, entries, exts


# ---- the words of a check row ----------------------------------------------------------------


def tick(name):
    return f"`{name}`"


# The words of each check kind, from the parameters it reads.
RULE_TEXT = {
    "null": lambda a: f"NULL {tick(a[0])}",
    "struct_size": lambda a: f"{tick(a[0])} with a struct_size below {a[1]}",
    "abi_major": lambda a: f"{tick(a[0] + '->host_abi_major')} other than the plugin's DEVPLUG_ABI_MAJOR",
    "device_index": lambda a: f"{tick(a[0])} outside [0, device count)",
    "zero": lambda a: f"{tick(a[0])} 0",
    "same_device": lambda a: f"{tick(a[0])} of another device than {tick(a[1])}",
    "range": lambda a: f"[{a[1]}, {a[1]} + {a[2]}) not inside {tick(a[0])}",
    "no_bytes": lambda a: f"{tick(a[0])} 0: success, and the checks after it are skipped",
    "overlap": lambda a: f"{tick(a[0])} and {tick(a[2])} one buffer with overlapping ranges",
    "device_memory": lambda a: f"more than the device can hold ({tick(a[0])}; the message gives the sizes)",
    "recorded": lambda a: f"{tick(a[0])} never recorded",
    "aligned": lambda a: f"{tick(a[0])} not aligned to 64 bytes",
    "below": lambda a: f"{tick(a[0])} not below {tick(a[1])}",
    "reduce_op": lambda a: f"{tick(a[0])} not a devplug_reduce_op_t",
    "dense": lambda a: f"{tick(a[0])} short, of an unknown dtype or rank, without a buffer or not contiguous",
    "fused_program": lambda a: (f"{tick(a[0])} not a well-formed program (counts, ops, arity, dtypes, attributes, "
                                "operands defined before use, the reduction tail, outputs)"),
    "known_op": lambda a: "an op id outside the op set",
    "arity": lambda a: "an arity other than ops.def's",
    "tensors": lambda a: "a NULL (not optional) or short tensor",
    "known_dtype": lambda a: "an unknown dtype",
    "rank": lambda a: "a rank outside [0, 8]",
    "attrs_size": lambda a: "short attributes",
    "allowed_dtype": lambda a: "a dispatch dtype ops.def does not allow for the op",
    "on_device": lambda a: "a tensor on another device than `stream`",
    "claimed": lambda a: "a tensor of a dtype the device does not claim (device_get_claims)",
}


def rule_text(entry, c):
    if c.rule not in RULE_TEXT:
        raise SpecError(f"{entry.name}: no words for check rule {c.rule}")
    return RULE_TEXT[c.rule](c.args)


def errors_line(entry):
    """'Errors, in this order: CODE for x, y; CODE2 for z.' from the check rows."""
    if not entry.checks:
        return ""
    groups = []  # (code, [texts]) of consecutive rows with one code
    for c in entry.checks:
        text = rule_text(entry, c)
        if c.code == "OK":
            groups.append(("OK", [text]))
            continue
        if groups and groups[-1][0] == c.code:
            groups[-1][1].append(text)
        else:
            groups.append((c.code, [text]))
    parts = []
    for code, texts in groups:
        if code == "OK":
            parts.append(texts[0])
        else:
            joined = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
            parts.append(f"{code} for {joined}")
    lead = "Errors, in this order: " if len(entry.checks) > 1 else "Errors: "
    return lead + "; ".join(parts) + "."


def c_comment(text, indent, width=100):
    lines = []
    for paragraph in text.split("\n"):
        lines += textwrap.wrap(paragraph, width=width - indent - 3, break_on_hyphens=False, break_long_words=False)
    pad = " " * indent
    if len(lines) == 1:
        return f"{pad}/* {lines[0]} */"
    out = [f"{pad}/* {lines[0]}"] + [f"{pad} * {line}" for line in lines[1:]]
    out[-1] += " */"
    return "\n".join(out)


def params(entry):
    if not entry.args:
        return "void"
    return ", ".join(f"{a.type} {a.name}" for a in entry.args)


def entry_doc(entry):
    since = f" (ABI 1.{entry.minor})" if entry.minor > 0 else ""
    doc = entry.doc + since
    err = errors_line(entry)
    return doc + ("\n" + err if err else "")


# ---- plugin_api.h ----------------------------------------------------------------------------


def header_table(items, table, indent):
    out = []
    for it in items:
        if getattr(it, "table", None) != table:
            continue
        if isinstance(it, Group):
            out.append("")
            out.append(f"{' ' * indent}/* ---- {it.title} ---- */")
        elif isinstance(it, Field):
            since = f" (ABI 1.{it.minor})" if it.minor > 0 else ""
            out.append(c_comment(it.doc + since, indent))
            out.append(f"{' ' * indent}{it.type} {it.name};")
        elif isinstance(it, Entry):
            out.append(c_comment(entry_doc(it), indent))
            out.append(f"{' ' * indent}{it.ret} (*{it.name})({params(it)});")
    return "\n".join(out).lstrip("\n")


def header_regions(items, entries, exts):
    kernel = entries["kernel"]
    regions = {
        "kernel_fn": c_comment(entry_doc(kernel), 0)
        + f"\ntypedef {kernel.ret} (*devplug_kernel_fn)({params(kernel)});",
        "api": header_table(items, "api", 2),
    }
    ext_out = []
    for x in sorted(exts.values(), key=lambda x: x.type_id):
        ext_out.append(f"#define DEVPLUG_EXTENSION_{x.name.upper()} {x.type_id}u")
    for x in sorted(exts.values(), key=lambda x: x.type_id):
        ext_out.append("")
        ext_out.append(c_comment(f"{x.doc} Extension type DEVPLUG_EXTENSION_{x.name.upper()} (ABI 1.{x.minor}).", 0))
        ext_out.append(f"typedef struct devplug_ext_{x.name}_t {{")
        ext_out.append("  devplug_extension_t base; /* type DEVPLUG_EXTENSION_" + x.name.upper() + " */")
        ext_out.append(header_table(items, x.name, 2))
        ext_out.append(f"}} devplug_ext_{x.name}_t;")
    ext_out.append("")
    ext_out.append(c_comment("The name of extension type `type` as plugin_api.def spells it, or NULL for a type this "
                             "header does not know.", 0))
    ext_out.append("static inline const char* devplug_extension_name(uint32_t type) {")
    ext_out.append("  switch (type) {")
    for x in sorted(exts.values(), key=lambda x: x.type_id):
        ext_out.append(f"    case DEVPLUG_EXTENSION_{x.name.upper()}:")
        ext_out.append(f'      return "{x.name}";')
    ext_out.append("    default:")
    ext_out.append("      return NULL;")
    ext_out.append("  }")
    ext_out.append("}")
    regions["extensions"] = "\n".join(ext_out)
    return regions


def replace_regions(text, regions, path, comment=("/* ", " */")):
    for name, body in regions.items():
        begin = f"{comment[0]}GENERATED BEGIN {name}: tools/abi_spec/gen_abi.py from plugin_api.def{comment[1]}"
        end = f"{comment[0]}GENERATED END {name}{comment[1]}"
        pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if not pat.search(text):
            raise SpecError(f"{path}: no region {name} (markers '{begin}' ... '{end}')")
        text = pat.sub(lambda _: f"{begin}\n{body}\n{end}", text)
    return text


# ---- the SDK's checks ------------------------------------------------------------------------


def cpp_check(entry, c):
    code = f"DEVPLUG_CODE_{c.code}"
    what = f'"{entry.name}"'
    a = c.args
    r = c.rule
    if r == "null":
        return f'checks::null({code}, {what}, "{a[0]}", {a[0]});'
    if r == "struct_size":
        return f'checks::struct_size({code}, {what}, "{a[0]}", {a[0]}, {a[1]});'
    if r == "abi_major":
        return f"checks::abi_major<Impl>({code}, {what}, {a[0]});"
    if r == "device_index":
        return f"checks::device_index<Impl>({code}, {what}, {a[0]});"
    if r == "zero":
        return f'checks::nonzero({code}, {what}, "{a[0]}", {a[0]});'
    if r == "below":
        return f'checks::below({code}, {what}, "{a[0]}", {a[0]}, "{a[1]}", {a[1]});'
    if r in ("reduce_op", "dense"):
        return f'checks::{r}({code}, {what}, "{a[0]}", {a[0]});'
    if r == "fused_program":
        return f"checks::fused_program({code}, {what}, {a[0]});"
    if r == "aligned":
        return f'checks::aligned({code}, {what}, "{a[0]}", {a[0]}, 64);'
    if r == "same_device":
        return f'checks::same_device<Impl>({code}, {what}, "{a[0]}", {a[0]}, "{a[1]}", {a[1]});'
    if r == "range":
        return f'checks::range<Impl>({code}, {what}, "{a[0]}", {a[0]}, {a[1]}, {a[2]});'
    if r == "no_bytes":
        return f"if ({a[0]} == 0) return true;"
    if r == "overlap":
        return f"checks::disjoint({code}, {what}, {a[0]}, {a[1]}, {a[2]}, {a[3]}, {a[4]});"
    if r in ("known_op", "arity", "tensors", "known_dtype", "rank", "attrs_size", "allowed_dtype"):
        return f"checks::call_{r}({code}, {a[0]});"
    if r in ("on_device", "claimed"):
        return f"checks::call_{r}<Impl>({code}, {a[0]}, {a[1]});"
    if r in BODY_RULES:
        return f"// {c.code} for {c.rule}({', '.join(a)}): the plugin's body answers it."
    raise SpecError(r)


def checks_inc(entries):
    out = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// Generated by tools/abi_spec/gen_abi.py from plugin_api.def: do not edit.",
        "// The argument checks of every entry, in the order plugin_api.def lists them. Each clears",
        "// the entry's out-parameters, then throws sdk::Error with the row's code for the first",
        "// row that applies; it returns true when a row with code OK ends the call with success.",
        "// Included by sdk/plugin.hpp inside namespace devplug::sdk::detail.",
        "",
        "template <typename Impl>",
        "struct EntryChecks {",
    ]
    for e in entries.values():
        if e.table == "api" and not e.checks:
            continue
        unused = {a.name for a in e.args} - {x for c in e.checks for x in c.args}
        outs = [a for a in e.args if a.role in ("out", "out_opt")]
        ps = ", ".join(f"{a.type} {'/*' + a.name + '*/' if a.name in unused and a.role not in ('out', 'out_opt') else a.name}" for a in e.args)
        out.append(f"  static bool {e.name}({ps}) {{")
        for a in outs:
            out.append(f"    clear_out({a.name});")
        for c in e.checks:
            out.append("    " + cpp_check(e, c))
        out.append("    return false;")
        out.append("  }")
    out.append("};")
    return "\n".join(out) + "\n"


# ---- docs/abi.md -----------------------------------------------------------------------------


def doc_table(items, entries, exts):
    def table_of(name):
        rows = ["| entry | since | parameters | errors, in the order checked |", "| --- | --- | --- | --- |"]
        for it in items:
            if not isinstance(it, Entry) or it.table != name:
                continue
            ps = "<br>".join(f"`{a.type} {a.name}` ({a.role})" for a in it.args) or "—"
            errs = []
            for c in it.checks:
                who = "" if c.rule in SDK_RULES else " (plugin)"
                errs.append(f"{c.code}: {rule_text(it, c)}{who}")
            rows.append(f"| `{it.name}` | 1.{it.minor} | {ps} | {'<br>'.join(errs) or '—'} |")
        return "\n".join(rows)

    out = ["### devplug_plugin_api_t", "", table_of("api"), "", "### devplug_kernel_fn (every kernel row's `fn`)", "",
           table_of("kernel")]
    for x in sorted(exts.values(), key=lambda x: x.type_id):
        out += ["", f"### Extension `{x.name}` (type {x.type_id}, `devplug_ext_{x.name}_t`, ABI 1.{x.minor})", "", x.doc,
                "", table_of(x.name)]
    out += ["", "Rows marked (plugin) are answered by the plugin's own code; the SDK's checks "
            "(`sdk/include/devplug/sdk/plugin_checks.inc`) run every other row before it."]
    return "\n".join(out)


# ---- conformance ----------------------------------------------------------------------------


# Handles the fixture makes through the extension on first use (RowFixture in abi_test.cpp).
MADE_ON_FIRST_USE = {"devplug_fused_program_handle_t*", "devplug_comm_handle_t*"}


def valid_value(entry, a):
    """A C++ expression of a valid argument, from the fixture `f` (abi_test.cpp's RowFixture)."""
    t = a.type.replace(" ", "")
    if a.role in ("out", "out_opt"):
        return f"f.out<{a.type[:-1].strip()}>()"
    if t == "devplug_stream_handle_t*":
        return "f.stream"
    if t == "devplug_device_handle_t*":
        return "f.device"
    if t == "devplug_buffer_handle_t*":
        return "f.buffer"
    if t == "devplug_event_handle_t*":
        return "f.event"
    if t == "constvoid*":
        return "f.host"
    if t == "void*":
        return "f.host"
    if t == "constdevplug_plugin_init_args_t*":
        return "&f.init"
    if t == "devplug_device_properties_t*":
        return "&f.properties"
    if t == "devplug_device_claims_t*":
        return "&f.claims"
    if t == "constdevplug_op_call_t*":
        return "&f.call"
    if t == "int32_t" and a.name == "index":
        return "0"
    if t == "constdevplug_fused_program_desc_t*":
        return "&f.fused_desc"
    if t == "devplug_fused_program_handle_t*":
        return "f.fused_program(ext)"
    if t == "constdevplug_comm_unique_id_t*":
        return "&f.comm_id"
    if t == "devplug_comm_handle_t*":
        return "f.comm(ext)"
    if t == "constdevplug_tensor_desc_t*":
        return "f.dense_tensor()"
    if t == "constdevplug_tensor_desc_t*const*":
        return "f.dense_tensors()"
    if t == "uint32_t":
        return {"world_size": "1", "op": "DEVPLUG_REDUCE_SUM"}.get(a.name, "0")
    if t == "size_t":
        return "1"
    if t == "uint64_t":
        return {"size_bytes": "8", "src_offset": "0", "dst_offset": "8"}.get(a.name, "0")
    raise SpecError(f"{entry.name}: no valid value for argument {a.type} {a.name}")


def provoke(entry, c, local):
    """Statements that break the row's condition on the locals; '' when none is needed."""
    a = c.args
    r = c.rule
    if r == "null":
        return f"{a[0]} = nullptr;"
    if r == "struct_size":
        return f"auto copy = *{a[0]}; copy.struct_size = {a[1]} - 1; {a[0]} = &copy;"
    if r == "abi_major":
        return f"auto copy = *{a[0]}; copy.host_abi_major = DEVPLUG_ABI_MAJOR + 1; {a[0]} = &copy;"
    if r == "device_index":
        return f"{a[0]} = f.device_count;"
    if r == "zero":
        return f"{a[0]} = 0;"
    if r == "device_memory":
        return f"{a[0]} = uint64_t{{1}} << 62;"
    if r == "same_device":
        kind = {"devplug_buffer_handle_t*": "buffer", "devplug_event_handle_t*": "event"}[local[a[0]].type.replace(" ", "")]
        return f"if (f.far_{kind} == nullptr) return f.not_exercised(row, \"needs a second device\"); {a[0]} = f.far_{kind};"
    if r == "range":
        return f"{a[1]} = f.buffer_size - {a[2]} + 1;"
    if r == "no_bytes":
        return f"{a[0]} = 0;"
    if r == "overlap":
        return f"{a[2]} = {a[0]}; {a[3]} = {a[1]} + {a[4]} / 2;"
    if r == "recorded":
        return f"{a[0]} = f.unrecorded_event;"
    if r == "aligned":
        return f"{a[0]} = static_cast<unsigned char*>({a[0]}) + 1;"
    if r == "below":
        return f"{a[0]} = {a[1]};"
    if r == "reduce_op":
        return f"{a[0]} = DEVPLUG_REDUCE_OP_END;"
    if r == "dense":
        return f"auto copy = *{a[0]}; copy.strides[0] = 2; {a[0]} = &copy;"
    if r == "fused_program":
        return f"{a[0]} = &f.bad_fused_desc;"
    raise SpecError(r)


def kernel_provoke(c):
    r = c.rule
    if r == "null" and c.args[0] == "stream":
        return "stream = nullptr;"
    if r == "null":
        return "call = nullptr;"
    if r == "struct_size":
        return f"f.kcall.struct_size = {c.args[1]} - 1;"
    if r == "known_op":
        return "f.kcall.op = 9999;"
    if r == "arity":
        return "f.kcall.n_outputs += 1;"
    if r == "tensors":
        return "if (!f.null_tensor_call()) return f.not_exercised(row, \"every tensor of this op is optional\");"
    if r == "known_dtype":
        return "f.tensor.dtype = 77;"
    if r == "rank":
        return "f.tensor.rank = DEVPLUG_MAX_RANK + 1;"
    if r == "attrs_size":
        return "if (!f.short_attrs_call()) return f.not_exercised(row, \"the op has no attributes\");"
    if r == "allowed_dtype":
        return "if (!f.disallowed_dtype_call()) return f.not_exercised(row, \"the op allows every dtype\");"
    if r == "on_device":
        return "if (f.far_buffer == nullptr) return f.not_exercised(row, \"needs a second device\"); f.tensor.buffer = f.far_buffer;"
    if r == "claimed":
        return "if (!f.unclaimed_dtype_call()) return f.not_exercised(row, \"the device claims every dtype the op allows\");"
    raise SpecError(r)


def rows_inc(entries, exts):
    out = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// Generated by tools/abi_spec/gen_abi.py from plugin_api.def: do not edit.",
        "// One function per check row of plugin_api.def: valid arguments from the fixture, the one",
        "// change that breaks the row's condition, the call, and the row's exact code. Included by",
        "// abi_test.cpp, which defines RowFixture and Row.",
        "",
    ]
    names = []
    for e in entries.values():
        local = {a.name: a for a in e.args}
        for i, c in enumerate(e.checks):
            fn = f"row_{e.name}_{i + 1}"
            label = f"{e.name} #{i + 1}: {c.code}: {rule_text(e, c)}"
            names.append((fn, e, c, label))
            out.append(f"// {label}")
            out.append(f"inline void {fn}(RowFixture& f, const Row& row) {{")
            if e.table == "kernel":
                out.append("  f.reset_kernel_call();")
                out.append("  devplug_stream_handle_t* stream = f.stream;")
                out.append("  const devplug_op_call_t* call = &f.kcall;")
                out.append(f"  {kernel_provoke(c)}")
                out.append(f"  f.expect(row, DEVPLUG_CODE_{c.code}, f.kernel->fn(stream, call));")
                out.append("}")
                continue
            if e.table != "api":
                out.append(f"  const auto* ext = f.extension<devplug_ext_{e.table}_t>(DEVPLUG_EXTENSION_{e.table.upper()});")
                out.append("  if (ext == nullptr) return f.not_offered(row);")
                target = "ext"
            else:
                target = "f.api"
            for a in e.args:
                out.append(f"  {a.type} {a.name} = {valid_value(e, a)};")
                if a.type.replace(" ", "") in MADE_ON_FIRST_USE:
                    out.append(f'  if ({a.name} == nullptr) return f.not_exercised(row, "no {a.name} could be made");')
            out.append(f"  {provoke(e, c, local)}")
            call = f"{target}->{e.name}({', '.join(a.name for a in e.args)})"
            out.append(f"  f.expect(row, DEVPLUG_CODE_{c.code}, {call});")
            out.append("}")
            out.append("")
    out.append("// Every row, in plugin_api.def's order.")
    out.append("inline const std::vector<Row>& all_rows() {")
    out.append("  static const std::vector<Row> rows = {")
    for fn, e, c, label in names:
        needs = "Needs::kernel" if e.table == "kernel" else (
            "Needs::device" if any(a.type.replace(" ", "") in ("devplug_stream_handle_t*", "devplug_device_handle_t*",
                                                                 "devplug_buffer_handle_t*", "devplug_event_handle_t*")
                                   or a.name == "index" for a in e.args) else "Needs::nothing")
        out.append(f'      {{"{label}", {needs}, &{fn}}},')
    out.append("  };")
    out.append("  return rows;")
    out.append("}")
    return "\n".join(out) + "\n"


# ---- driver ----------------------------------------------------------------------------------


def clang_format(text, name):
    exe = shutil.which("clang-format-14") or shutil.which("clang-format")
    if exe is None:
        raise SpecError("clang-format-14 not found (scripts/install-deps installs it)")
    return subprocess.run([exe, f"--assume-filename={name}", f"--style=file:{ROOT / '.clang-format'}"],
                          input=text, capture_output=True, text=True, check=True).stdout


def outputs():
    items, entries, exts = parse()
    header = replace_regions(HEADER.read_text(), header_regions(items, entries, exts), HEADER)
    doc = replace_regions(DOC.read_text(), {"entries": doc_table(items, entries, exts)}, DOC, ("<!-- ", " -->"))
    return {
        HEADER: clang_format(header, str(HEADER)),
        CHECKS: clang_format(checks_inc(entries), "plugin_checks.hpp"),
        DOC: doc,
        ROWS: clang_format(rows_inc(entries, exts), "abi_rows.hpp"),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="only check that every output is current")
    args = p.parse_args()
    try:
        wanted = outputs()
    except (SpecError, subprocess.CalledProcessError) as e:
        print(f"gen_abi: {e}", file=sys.stderr)
        return 2
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"gen_abi: {path.relative_to(ROOT)} is not current; run tools/abi_spec/gen_abi.py")
        if not stale:
            print(f"gen_abi: {len(wanted)} outputs of plugin_api.def are current")
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path])
        print(f"gen_abi: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
