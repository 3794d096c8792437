#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's figures for the measurements bench-cuda makes, printed as one JSON object.

Run on the GPU machine where PyTorch exists: copy bandwidth, add and exp over 256M float32
and bfloat16 elements, sum over 256M float32 elements, matmul 8192^3 (bfloat16, float16,
float32 without and with TF32) and the per-call time of torch.add on 1-element tensors.
Times are CUDA events around the op, best of several repetitions. Beside the measured copy,
the memory's nominal bandwidth (memory clock x 2 transfers x bus width, from the device's
properties) and the copy's share of it.
"""
import json
import sys

import torch


def best_seconds(fn, reps=10):
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
    mm = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    dev = torch.device("cuda")
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "elements": n}
    a = torch.rand(n, device=dev)
    c = torch.empty_like(a)
    t = best_seconds(lambda: c.copy_(a))
    copy_bw = 2 * n * 4 / t / 1e9
    out["copy_gbps"] = round(copy_bw, 1)
    props = torch.cuda.get_device_properties(0)
    clock_khz, bus_bits = getattr(props, "memory_clock_rate", 0), getattr(props, "memory_bus_width", 0)
    if clock_khz and bus_bits:
        nominal = clock_khz * 1e3 * 2 * bus_bits / 8 / 1e9
        out["nominal_gbps"] = round(nominal, 1)
        out["copy_share_of_nominal"] = round(copy_bw / nominal, 3)
    for dtype, name in ((torch.float32, "float32"), (torch.bfloat16, "bfloat16")):
        x = torch.rand(n, device=dev, dtype=dtype)
        y = torch.rand(n, device=dev, dtype=dtype)
        z = torch.empty_like(x)
        size = x.element_size()
        t = best_seconds(lambda: torch.add(x, y, out=z))
        out[f"add_{name}_gbps"] = round(3 * n * size / t / 1e9, 1)
        out[f"add_{name}_share_of_copy"] = round(3 * n * size / t / 1e9 / copy_bw, 3)
        t = best_seconds(lambda: torch.exp(x, out=z))
        out[f"exp_{name}_gbps"] = round(2 * n * size / t / 1e9, 1)
        out[f"exp_{name}_share_of_copy"] = round(2 * n * size / t / 1e9 / copy_bw, 3)
        del x, y, z
    s = torch.empty((), device=dev)
    t = best_seconds(lambda: torch.sum(a, dim=0, out=s))
    out["sum_float32_gbps"] = round(n * 4 / t / 1e9, 1)
    out["sum_float32_share_of_copy"] = round(n * 4 / t / 1e9 / copy_bw, 3)
    del a, c
    torch.cuda.empty_cache()
    for dtype, name, tf32 in ((torch.bfloat16, "bfloat16", False), (torch.float16, "float16", False),
                              (torch.float32, "float32", False), (torch.float32, "float32_tf32", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        x = torch.rand(mm, mm, device=dev, dtype=dtype)
        y = torch.rand(mm, mm, device=dev, dtype=dtype)
        z = torch.empty(mm, mm, device=dev, dtype=dtype)
        t = best_seconds(lambda: torch.matmul(x, y, out=z), reps=5)
        out[f"matmul_{name}_tflops"] = round(2 * mm ** 3 / t / 1e12, 1)
        del x, y, z
    torch.backends.cuda.matmul.allow_tf32 = False
    # Per-call time of torch.add on 1-element tensors (host-side overhead: no sync per call).
    import time
    x = torch.ones(1, device=dev)
    y = torch.ones(1, device=dev)
    z = torch.empty(1, device=dev)
    for _ in range(1000):
        torch.add(x, y, out=z)
    torch.cuda.synchronize()
    calls = 20000
    t0 = time.perf_counter()
    for _ in range(calls):
        torch.add(x, y, out=z)
    torch.cuda.synchronize()
    out["add_1elem_torch_us"] = round((time.perf_counter() - t0) / calls * 1e6, 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
