# SPDX-License-Identifier: Apache-2.0
"""torch.distributed on a devplug device against its yardstick, in one run on this machine.

    .venv/bin/python frameworks/torch/benchmarks/distributed.py [--plugin opencl] [--mb 64]

(with the build's package on PYTHONPATH: <build>/python). Prints, for 2 ranks on
127.0.0.1:

- all_reduce (SUM) of float32 tensors: bus bandwidth (2 (n-1)/n bytes / time, as NCCL's tests
  count it) of devplug tensors through the devplug backend, against torch's Gloo on CPU tensors
  of the same size, measured in the same run: the ratio is what the staging costs, or what the
  plugin's own collectives give where it offers them (gpu_emulated; "native" in the line;
  TORCH_DEVPLUG_DIST_NATIVE=0 stages them too);
- all_reduce of 1 KB: latency, with and without the ranks' agreement check
  (TORCH_DEVPLUG_DIST_CHECK), against Gloo on CPU tensors;
- DDP training steps (the MLP and the transformer of test_distributed.py): median step time of
  2 ranks on the global batch against one process on half of it, the overhead of DDP.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import dist_scenarios  # noqa: E402

DEV = "devplug:0"


def bus_bandwidth(device, backend_tensor_mb, repeats):
    n = backend_tensor_mb * (1 << 20) // 4
    t = torch.ones(n, device=device)
    for _ in range(2):
        dist.all_reduce(t)
    if device != "cpu":
        torch.devplug.synchronize()
    times = []
    for _ in range(repeats):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        if device != "cpu":
            torch.devplug.synchronize()
        times.append(time.perf_counter() - start)
    world = dist.get_world_size()
    return 2 * (world - 1) / world * n * 4 / statistics.median(times) / 1e9


def latency_us(device, repeats=300):
    t = torch.ones(256, device=device)  # 1 KB
    for _ in range(20):
        dist.all_reduce(t)
    if device != "cpu":
        torch.devplug.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        dist.all_reduce(t)
    if device != "cpu":
        torch.devplug.synchronize()
    return (time.perf_counter() - start) / repeats * 1e6


def small(rank, world):
    return {"devplug_us": latency_us(DEV), "gloo_cpu_us": latency_us("cpu")}


def allreduce(rank, world, mb=64, repeats=10):
    # The devplug backend serves devplug tensors; CPU tensors go to torch's Gloo ("cpu:gloo").
    result = {"devplug_GBps": bus_bandwidth(DEV, mb, repeats), "gloo_cpu_GBps": bus_bandwidth("cpu", mb, repeats)}
    # The plugin's own collectives (its collectives extension) or Gloo through pinned memory.
    native = dist.group.WORLD._get_backend(torch.device(DEV)).native_devices
    result["path"] = "native" if native else "staged"
    return result


def single_step_ms(model, steps=8):
    """One process, half the global batch (what each of 2 ranks computes): median step."""
    features = 64 if model == "transformer" else 16
    make = dist_scenarios.transformer if model == "transformer" else dist_scenarios.mlp
    torch.manual_seed(0)
    net = make().to(DEV)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for x, y in dist_scenarios.data(steps, 8, features):
        start = time.perf_counter()
        opt.zero_grad()
        loss_fn(net(x.to(DEV)), y.to(DEV)).backward()
        opt.step()
        torch.devplug.synchronize()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times[2:])


dist_scenarios.SCENARIOS["allreduce"] = allreduce
dist_scenarios.SCENARIOS["small"] = small


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", default="reference")
    parser.add_argument("--mb", type=int, default=64)
    args = parser.parse_args()
    os.environ["TORCH_DEVPLUG_PLUGINS"] = args.plugin  # this process's own device too
    import torch_devplug

    with tempfile.TemporaryDirectory() as out:
        (code, report), _ = dist_scenarios.launch("allreduce", 2, args.plugin, out,
                                                  backend="cpu:gloo,devplug:devplug", deadline_s=600, mb=args.mb)
        assert code == 0, report
        r = report["result"]
        print(f"all_reduce {args.mb} MB float32, 2 ranks, {args.plugin}: devplug {r['devplug_GBps']:.2f} GB/s, "
              f"Gloo on CPU tensors {r['gloo_cpu_GBps']:.2f} GB/s, ratio {r['devplug_GBps'] / r['gloo_cpu_GBps']:.2f} "
              f"(bus bandwidth; devplug tensors {r['path']})")
        for check in ("1", "0"):
            os.environ["TORCH_DEVPLUG_DIST_CHECK"] = check
            (code, report), _ = dist_scenarios.launch("small", 2, args.plugin, out, backend="cpu:gloo,devplug:devplug",
                                                      deadline_s=600)
            assert code == 0, report
            r = report["result"]
            print(f"all_reduce 1 KB, 2 ranks, {args.plugin}, TORCH_DEVPLUG_DIST_CHECK={check}: devplug "
                  f"{r['devplug_us']:.0f} us, Gloo on CPU tensors {r['gloo_cpu_us']:.0f} us")
        del os.environ["TORCH_DEVPLUG_DIST_CHECK"]
        for model in ("mlp", "transformer"):
            results = dist_scenarios.launch("ddp", 2, args.plugin, out, model=model, mode="plain", steps=10,
                                            deadline_s=600)
            assert all(code == 0 for code, _ in results), results
            ddp_ms = max(rep["result"]["step_ms"] for _, rep in results)
            one_ms = single_step_ms(model)
            print(f"DDP {model}, 2 ranks on {args.plugin}: {ddp_ms:.2f} ms per step against {one_ms:.2f} ms for one "
                  f"process on half the batch: overhead {ddp_ms - one_ms:.2f} ms ({ddp_ms / one_ms:.2f}x)")
    del torch_devplug


if __name__ == "__main__":
    main()
