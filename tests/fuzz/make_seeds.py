#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the hand-made seeds of each harness's corpus (tests/fuzz/corpus/<harness>/seed_*).

Each seed is a well-formed input in the harness's byte layout (README.md), so fuzzing starts
from calls that get past validation; inputs a campaign found (named by their SHA-1, as
libFuzzer writes them) are committed beside them. Run from the repository root, with a
built plugin for the ELF seeds: tests/fuzz/make_seeds.py build/lib/devplug/plugins/libdevplug_reference.so
"""
import pathlib
import re
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"
FLOAT32, INT32, INT64, BOOL, FLOAT16 = 8, 4, 5, 0, 6


def value(v, lo):
    """The byte FuzzInput::value(lo, hi) reads as v (lo <= v, v - lo < 0xf0)."""
    assert 0 <= v - lo < 0xF0
    return bytes([v - lo])


def write(harness, name, data):
    folder = ROOT / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed_{name}").write_bytes(data)


def views():
    def create(dtype, dims):
        return value(dtype, -1) + bytes([len(dims)]) + b"".join(value(d, 0) for d in dims)

    # step: tensor index byte, op byte (0 reshape .. 9 as_strided_dtype), arguments.
    transpose = b"\x00\x02" + value(0, -3) + value(1, -3)
    slice_step = b"\x00\x04" + value(1, -3) + value(-1, -12) + value(-12, -12) + value(-2, -4)
    expand = b"\x00\x03\x03" + value(2, -2) + value(3, -2) + value(4, -2)
    diagonal = b"\x00\x07" + value(1, -6) + value(0, -3) + value(1, -3)
    as_strided = b"\x00\x08" + value(2, -1) + b"\x02" + value(2, -1) + value(-1, -7) + value(3, -1) + value(2, -7) + value(5, -2)
    retype = b"\x00\x09" + value(FLOAT16, -1) + b"\x01" + value(6, -1) + value(2, -7) + value(0, -2)
    reshape = b"\x00\x00\x02" + value(6, -2) + value(-1, -2)
    squeeze = b"\x00\x06" + value(0, -3) + b"\x01\x05" + value(0, -3)
    permute = b"\x00\x01" + value(1, -2) + value(0, -2) + b"\x00" * 6
    write("fuzz_views", "transpose_slice", create(FLOAT32, [3, 4]) + transpose + b"\x01\x04" + slice_step[2:])
    write("fuzz_views", "expand", create(INT64, [1, 4]) + expand)
    write("fuzz_views", "diagonal", create(FLOAT32, [4, 5]) + diagonal)
    write("fuzz_views", "as_strided", create(FLOAT32, [4, 4]) + as_strided + retype)
    write("fuzz_views", "reshape_permute", create(BOOL, [2, 3]) + reshape + permute + squeeze)
    write("fuzz_views", "scalar", create(FLOAT32, []) + b"\x00\x06" + value(0, -3) + b"\x01\x05" + value(0, -3))
    write("fuzz_views", "empty", create(FLOAT32, [0, 3]) + transpose)


def ops():
    """(n_in, n_out, category, result, dtypes, signature) of each op of ops.def, by id."""
    rows = {}
    for line in (ROOT.parent.parent.parent / "sdk/include/devplug/ops.def").read_text().splitlines():
        m = re.match(r"(DEVPLUG_OP|C_)\((.*)\)\s*$", line)
        if not m:
            continue
        f = [x.strip() for x in m.group(2).split(",")]
        if m.group(1) == "DEVPLUG_OP":
            rows[int(f[0])] = (int(f[3]), int(f[4]), f[2], f[6], f[7], "")
        else:
            signature = re.search(r'"([^"]*->[^"]*)"', line).group(1)
            rows[int(f[0])] = (int(f[2]), int(f[3]), "composite", f[7], f[8], signature)
    return [rows[i] for i in sorted(rows)]


def op_call():
    def tensor(dtype, values):
        return b"\x00" + bytes([dtype, 2]) + value(2, 0) + value(3, 0) + values

    floats = struct.pack("<4f", 1.5, -2.0, 0.25, 3.0)
    ints = {BOOL: bytes([1, 0] * 8), INT32: struct.pack("<4i", 1, -2, 0, 3), INT64: struct.pack("<2q", 0, 1)}
    for pick, (n_in, n_out, category, result, dtypes, signature) in enumerate(ops()):
        dtype = INT32 if dtypes in ("I_", "B_", "DEVPLUG_DTYPES_INDEX_BITS") else FLOAT32
        names = [t.strip() for t in signature.replace("->", ",").split(",")] if signature else []
        def kind(k):  # the dtype of tensor k of the call (inputs, then outputs)
            if k < len(names) and ":int64" in names[k]:
                return INT64
            if k < len(names) and ":bool" in names[k]:
                return BOOL
            if category == "index" and k == 1:
                return INT64
            if k >= max(n_in, 1):
                return {"bool": BOOL, "int64": INT64}.get(result, dtype)
            return dtype
        n = n_in if n_in >= 0 else 2
        seed = bytes([pick]) + (b"\x01" if n_in < 0 else b"\x00")  # arity: declared, or 2 for cat
        seed += b"".join(tensor(kind(k), ints.get(kind(k), floats)) for k in range(n))
        seed += b"\x00" + b"".join(tensor(kind(n + k), ints.get(kind(n + k), floats)) for k in range(n_out))
        seed += b"\x10" + b"\x00" * 8 + b"\x01" + b"\x00" * 47  # attrs: first field 1, the rest 0
        write("fuzz_op_call", f"op{pick}", seed)
    # gather with int64 indices out of range (2^40, -1), the input also passed as the output.
    dense = tensor(FLOAT32, floats)
    index = b"\x00" + bytes([INT64, 2]) + value(2, 0) + value(3, 0) + struct.pack("<qq", 1 << 40, -1)
    write("fuzz_op_call", "alias_and_bad_index", b"\xff" + struct.pack("<i", 86) + b"\x00" + dense + index +
          b"\x00\xc0" + b"\x10" + b"\x00" * 8 + struct.pack("<i", 1))


def xfail():
    repo = ROOT.parent.parent.parent
    for i, path in enumerate(["tests/conformance/broken_nan.xfail", "tests/conformance/stale.xfail"]):
        write("fuzz_xfail", f"file{i}", (repo / path).read_bytes() + b"\0maximum_float32_contiguous_20x20_special")
    write("fuzz_xfail", "crlf", b"add_*  a reason\r\n# comment\r\nexp_float16_*\tanother # tail\r\n\0add_int32")
    write("fuzz_xfail", "no_reason", b"pattern_only\n\0pattern_only")
    write("fuzz_xfail", "globs", b"[a-c]*_?_x  sets\n*  all\n\0b_1_x")


def plugin_path():
    for name, text in {"folder": "@/plugins", "file_and_folder": "@/libdevplug_top.so:@/plugins",
                       "empties": "::@/empty::", "relative": "plugins:./x.so:@/plugins/libdevplug_a.so",
                       "missing": "/nonexistent/folder:@/nope.so"}.items():
        write("fuzz_plugin_path", name, text.encode())


def plugin_file(elf):
    data = pathlib.Path(elf).read_bytes()
    write("fuzz_plugin_file", "header", data[:64])
    write("fuzz_plugin_file", "headers", data[:4096])
    write("fuzz_plugin_file", "text", b"not a plugin\n")
    wrong_machine = bytearray(data[:4096])
    wrong_machine[18:20] = struct.pack("<H", 183)
    write("fuzz_plugin_file", "aarch64", bytes(wrong_machine))


def plugin_table():
    """Steps of fuzz_plugin_table: a byte picks the entry (0 allocate, 3 copy from host, 4 copy
    to host, 5 copy, 6 stream, 8 event, 10 record, 13 elapsed time, 18 communicator, 20
    collective, ...), then its arguments:
    one byte per handle (a multiple of 8 is NULL, else the pool's entry), FuzzInput::value
    bytes for numbers, one byte per optional pointer (a multiple of 8 is NULL)."""
    allocate = b"\x00" + value(64, 0) + b"\x01"
    stream = b"\x06\x01"
    event = b"\x08\x01"
    upload = b"\x03\x01\x01" + value(0, 0) + value(64, 0) + b"\x01"
    download = b"\x04\x01\x01" + value(8, 0) + value(32, 0) + b"\x01"
    record = b"\x0a\x01\x01"
    elapsed = b"\x0d\x01\x02\x01"
    write("fuzz_plugin_table", "round_trip", allocate + stream + upload + download)
    write("fuzz_plugin_table", "events", stream + event + event + record + b"\x0a\x02\x01" + elapsed)
    write("fuzz_plugin_table", "nulls", b"\x00" + value(0, 0) + b"\x00" + b"\x03\x00\x00" + value(0, 0) +
          value(0, 0) + b"\x00" + b"\x0d\x00\x00\x00")
    write("fuzz_plugin_table", "ranges", allocate + stream + b"\x05\x01\x01\x01" + value(0, 0) + value(32, 0) +
          value(64, 0) + b"\x04\x01\x01\xf1" + value(1, 0) + b"\x01")
    # The emulated GPU's collectives: a one-rank communicator, then an all_reduce (SUM) and a
    # broadcast of two dense 4-element float32 tensors on it.
    comm = b"\x12\x00" + value(1, 0) + value(0, 0)
    dims = b"\x04" + value(1, -2) + b"\x00\x00" * 7
    tensors = value(2, 0) + (b"\x01\x01" + value(0, 0) + b"\x01" + value(1, 0) + dims) * 2 + b"\x01\x01"
    all_reduce = b"\x14\x00\x01\x01" + tensors + value(1, 0)
    broadcast = b"\x14\x03\x01\x01" + tensors + value(0, 0)
    write("fuzz_plugin_table", "collectives", comm + all_reduce + broadcast)
    write("fuzz_plugin_table", "properties", b"\x0e" + value(100, 0) + value(2, -2) + b"\x01" + b"\x0f" +
          value(5, -2) + b"\x01\x01")


if __name__ == "__main__":
    plugin_table()
    views()
    op_call()
    xfail()
    plugin_path()
    if len(sys.argv) > 1:
        plugin_file(sys.argv[1])
