# SPDX-License-Identifier: Apache-2.0
"""Times the choices between devplug's composites and torch's own decompositions on every
devplug device, forward and backward, and prints the figures (never asserted):

- scaled_dot_product_attention: the composite (torch's `overrideable` attention route, which
  the bridge registers) against torch's math decomposition
  (`aten::_scaled_dot_product_attention_math`), forward alone and with backward: the numbers
  behind the bridge's choice between them (ops/attention.cpp);
- linear and cross_entropy, which torch decomposes before a backend sees them
  (CompositeImplicitAutograd): their time through torch's decomposition, next to the cost of
  one aten call on the device, which bounds what registering the composite could save.

    PYTHONPATH=build/python .venv/bin/python frameworks/torch/benchmarks/composites.py
"""

import time

import torch
import torch.nn.functional as F

import torch_devplug


def timed(fn, device):
    t0 = time.perf_counter()
    fn()
    torch.devplug.synchronize(device)
    return time.perf_counter() - t0


def per_call(fns, device, seconds=2.0, least=7):
    """Median seconds of each of `fns` (synchronized), called in turn so that all see the same
    load: this machine is shared, and alternating keeps the comparison fair."""
    for fn in fns:
        timed(fn, device)
    times = [[] for _ in fns]
    start = time.perf_counter()
    while len(times[0]) < least or time.perf_counter() - start < seconds:
        for fn, t in zip(fns, times):
            t.append(timed(fn, device))
    return [sorted(t)[len(t) // 2] for t in times]


def attention_case(device, batch, heads, length, width):
    torch.manual_seed(0)
    q, k, v = (torch.randn(batch, heads, length, width, device=device, requires_grad=True) for _ in range(3))
    grad = torch.randn(batch, heads, length, width, device=device)

    def composite(backward):  # the route the bridge offers torch, called directly
        out = torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, k, v, None, 0.0, True)[0]
        if backward:
            out.backward(grad)

    def decomposed(backward):
        out, _ = torch.ops.aten._scaled_dot_product_attention_math(q, k, v, is_causal=True)
        if backward:
            out.backward(grad)

    with torch.no_grad():
        forward = per_call([lambda: composite(False), lambda: decomposed(False)], device)
    return forward, per_call([lambda: composite(True), lambda: decomposed(True)], device)


def main():
    seen = set()
    for d in torch_devplug.devices():
        if d["plugin"] in seen:
            continue  # one device per plugin
        seen.add(d["plugin"])
        device = f"devplug:{d['index']}"
        print(f"{d['plugin']} ({d['name']}), median per call:")
        for shape in ((16, 4, 32, 8), (4, 8, 128, 64)):
            for what, (comp, decomp) in zip(("forward", "forward + backward"), attention_case(device, *shape)):
                print(f"  causal attention {list(shape)}, {what}: composite {comp * 1e3:.2f} ms, torch's math "
                      f"route {decomp * 1e3:.2f} ms (composite {decomp / comp:.2f}x as fast)")
        x = torch.randn(64, 128, device=device, requires_grad=True)
        layer = torch.nn.Linear(128, 64).to(device)
        logits = torch.randn(512, 60, device=device, requires_grad=True)
        target = torch.randint(0, 60, (512,), device=device)
        tiny = torch.ones(1, device=device)
        lin, ce, call, view = per_call([lambda: layer(x).sum().backward(),
                                        lambda: F.cross_entropy(logits, target).backward(),
                                        lambda: torch.add(tiny, tiny),
                                        lambda: [tiny.view(-1) for _ in range(100)]], device)
        print(f"  forward + backward: linear 64x128 -> 64 with .sum(): {lin * 1e3:.2f} ms; cross_entropy 512x60: "
              f"{ce * 1e3:.2f} ms; one aten call: {call * 1e3:.3f} ms (add of 1 element), "
              f"{view * 1e1:.3f} ms (a view: torch and the bridge without device work)")


if __name__ == "__main__":
    main()
