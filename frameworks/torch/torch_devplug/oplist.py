# SPDX-License-Identifier: Apache-2.0
"""Writes the op list of docs/torch_ops.md: ``python -m torch_devplug.oplist > docs/torch_ops.md``.

It lists the aten ops devplug runs itself (from the bridge's registration table: views,
ops that are devplug prims, ops that are devplug composites, and ops composed from prims in
the bridge) and the aten ops
whose only kernels in torch are per-backend, which therefore run on torch's CPU through the
fallback (from torch's own native_functions.yaml, shipped with torch as torchgen). Ops that
torch itself decomposes for every backend (CompositeImplicitAutograd, such as linear,
cross_entropy or dropout) are in neither list: they run as the ops they decompose into.
"""

import collections
import os
import sys

import torch

import torch_devplug

HEADER = """<!-- GENERATED FILE: do not edit. Source: the registration table in frameworks/torch/csrc (registry.cpp and
the register_* functions of csrc/ops/), and torch's native_functions.yaml; generator:
`python -m torch_devplug.oplist > docs/torch_ops.md`. The torch.tensors test fails while they differ. -->
# aten ops on devplug devices (torch {torch_version})

How each aten op runs on a `devplug` tensor. See [torch.md](torch.md) for the PyTorch guide.

- **view**: metadata only, torch's own view function on a devplug storage; the result aliases.
- **prim**: devplug prims that are the op itself, with devplug's broadcasting, type promotion
  and casts around them.
- **composite**: devplug's composite op (op set 2: softmax, layer_norm, conv2d, attention, ...,
  [composites.md](composites.md)): the plugin's native kernel where it has one, else devplug's
  decomposition into prims on the device. Text after `;` is what the bridge adds around it, or
  runs instead in the cases the composite does not cover.
- **bridge**: composed from devplug prims in the bridge (`frameworks/torch/csrc/ops/`), for ops
  devplug has no composite for.
- **CPU fallback**: no devplug kernel; torch's boxed CPU fallback copies the tensors to the
  CPU, runs torch's CPU kernel and copies the results back, counted by
  `torch_devplug.fallback_report()` and refused in strict mode.

Ops torch decomposes for every backend (CompositeImplicitAutograd: `linear`, `matmul`,
`cross_entropy`, `dropout`, `scaled_dot_product_attention`, most views, ...) are not listed:
they run as the ops they decompose into (`scaled_dot_product_attention` as
`_scaled_dot_product_fused_attention_overrideable`, `dropout` as `native_dropout`).
"""


def backend_ops(yaml_path: str) -> list:
    """The aten ops whose kernels torch registers per backend (dispatch keys with CPU and no
    Composite* key, or structured_delegate), read line by line from native_functions.yaml."""
    ops, name, keys, delegate = [], None, [], False

    def flush():
        if name and (delegate or ("CPU" in keys and not any(k.startswith("Composite") for k in keys))):
            ops.append(name)

    in_dispatch = False
    for line in open(yaml_path):
        if line.startswith("- func:"):
            flush()
            name = line[len("- func:"):].strip().split("(")[0]
            keys, delegate, in_dispatch = [], False, False
        elif line.startswith("  structured_delegate:"):
            delegate = True
        elif line.startswith("  dispatch:"):
            in_dispatch = True
        elif in_dispatch and line.startswith("    ") and ":" in line:
            keys += [k.strip() for k in line.split(":")[0].split(",")]
        elif not line.startswith("    "):
            in_dispatch = False
    flush()
    return ops


def yaml_path() -> str:
    import torchgen
    return os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")


def render() -> str:
    rows = torch_devplug.native_ops()
    out = [HEADER.format(torch_version=torch.__version__.split("+")[0])]
    counts = collections.Counter(how for _, how, _ in rows)
    out.append(f"## Ops devplug runs ({len(rows)}: {counts['view']} view, {counts['prim']} prim, "
               f"{counts['composite']} composite, {counts['bridge']} bridge)\n")
    out.append("| aten op | how | devplug ops |")
    out.append("| --- | --- | --- |")
    for aten, how, via in sorted(rows):
        out.append(f"| `{aten}` | {how} | {via} |")
    native = {aten for aten, _, _ in rows}
    fallback = sorted(op for op in backend_ops(yaml_path()) if op not in native)
    out.append("")
    out.append(f"## Ops that run on torch's CPU fallback ({len(fallback)})\n")
    out.append("aten ops with per-backend kernels in torch and none for devplug (sparse, quantized, "
               "complex-only and CUDA-only ops among them). Every call is counted.\n")
    for op in fallback:
        out.append(f"- `{op}`")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
