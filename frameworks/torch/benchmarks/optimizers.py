# SPDX-License-Identifier: Apache-2.0
"""The optimizer step over the causal transformer's parameters (test_model_transformer's
CharTransformer), on the first device of each devplug plugin: AdamW with foreach=True (a
dozen devplug ops per parameter) against fused=True (one fused program per parameter: one
kernel where the plugin offers fused_programs, op by op in the dispatcher elsewhere), and
torch's own CPU with both:

    PYTHONPATH=build/python .venv/bin/python frameworks/torch/benchmarks/optimizers.py \
        [--plugins opencl,reference] [--steps 20]

Each figure is the median of `--steps` steps after 3 untimed ones (the first builds the
programs), a step being opt.step() and a synchronization; gradients are set once, so only the
step is timed. The last column says whether the fused parameters equal the foreach ones bit
for bit after the same steps (they should, on every plugin). Figures are printed, never
asserted.
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import test_model_transformer  # noqa: E402  (the model of the tests, not a copy)


def make_model(device):
    torch.manual_seed(0)
    _, vocab = test_model_transformer.corpus()
    model = test_model_transformer.CharTransformer(vocab).to(device)
    gen = torch.Generator().manual_seed(1)
    for p in model.parameters():
        p.grad = (torch.randn(p.shape, generator=gen) * 1e-2).to(device)
    return model


def time_steps(device, how, steps):
    model = make_model(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05, **{how: True})
    sync = (lambda: torch.devplug.synchronize(device)) if device.startswith("devplug") else (lambda: None)
    times = []
    for k in range(steps + 3):
        start = time.perf_counter()
        opt.step()
        sync()
        if k >= 3:
            times.append(time.perf_counter() - start)
    params = [p.detach().cpu() for p in model.parameters()]
    return statistics.median(times), params, sum(p.numel() for p in params)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugins", default="", help="plugin names (default: every plugin with a device)")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    import torch_devplug

    wanted = [p for p in args.plugins.split(",") if p]
    devices, seen = [], set()
    for d in torch_devplug.devices():
        if d["plugin"] in seen or (wanted and d["plugin"] not in wanted):
            continue
        seen.add(d["plugin"])
        devices.append((d["plugin"], f"devplug:{d['index']}"))
    devices.append(("torch cpu", "cpu"))
    print(f"AdamW step over the causal transformer's parameters, median of {args.steps} steps")
    print(f"{'device':<14} {'params':>8} {'foreach':>10} {'fused':>10} {'speed-up':>9}  fused == foreach")
    for name, device in devices:
        t_foreach, p_foreach, n = time_steps(device, "foreach", args.steps)
        t_fused, p_fused, _ = time_steps(device, "fused", args.steps)
        same = all(torch.equal(a, b) for a, b in zip(p_foreach, p_fused))
        print(f"{name:<14} {n:>8} {t_foreach * 1e3:>8.2f}ms {t_fused * 1e3:>8.2f}ms {t_foreach / t_fused:>8.2f}x  "
              f"{'bit for bit' if same else 'differs'}")


if __name__ == "__main__":
    main()
