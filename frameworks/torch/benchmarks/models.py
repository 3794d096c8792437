# SPDX-License-Identifier: Apache-2.0
"""Training-step times of the three models of torch_devplug's tests (the MLP, the CNN and the
causal transformer), on devplug devices and on torch's own devices, eager and compiled:

    PYTHONPATH=build/python .venv/bin/python frameworks/torch/benchmarks/models.py \
        --devices devplug,cpu [--modes eager,compiled] [--steps 20] [--json models.json]

Each row is one model on one device in one mode: the median and the fastest of `--steps`
timed steps after `--warmup` untimed ones (the first includes compilation), where a step is
zero_grad, forward, loss, backward, the optimizer's step and the loss read back (so the
device's work is done); the aten ops torch.profiler records in one step (nested calls
counted); and for CUDA devices the kernels it launches. Compiled means
torch.compile(model) with the device's backend: inductor on torch's devices, devplug's own
backend (torch_devplug._compile.devplug_backend) on devplug devices. A last table gives the
host's cost of one small op (an out= add of one element, 2000 calls and one synchronization)
on each device, eagerly and replayed from a graph (100 captured, 20 replays). Figures are printed, never asserted.

Each device runs in a process of its own: torch takes a registered PrivateUse1 backend as the
process's one accelerator (at::getAccelerator), and its autograd engine then finds no stream
for CUDA tensors' backward (an internal assert), so devplug and torch's CUDA cannot train in
one process. The children of torch's devices run without torch_devplug
(TORCH_DEVICE_BACKEND_AUTOLOAD=0).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import test_model_cnn  # noqa: E402  (the models and data of the tests, not copies)
import test_model_mlp  # noqa: E402
import test_model_transformer  # noqa: E402


def mlp_case():
    x = torch.rand(test_model_mlp.BATCH, 64)
    y = torch.randint(0, 10, (test_model_mlp.BATCH,))
    return test_model_mlp.mlp(), test_model_mlp.OPTIMIZERS["adam_foreach"], (x, y), nn.CrossEntropyLoss()


def cnn_case():
    x = torch.rand(test_model_cnn.BATCH, 1, 8, 8)
    y = torch.randint(0, 10, (test_model_cnn.BATCH,))
    return test_model_cnn.cnn(), lambda p: torch.optim.Adam(p, lr=1e-2), (x, y), nn.CrossEntropyLoss()


def transformer_case():
    ids, vocab = test_model_transformer.corpus()
    x, y = test_model_transformer.char_batches(ids, 1)[0]

    def loss_fn(logits, targets):
        return nn.functional.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))

    model = test_model_transformer.CharTransformer(vocab)
    return model, lambda p: torch.optim.AdamW(p, lr=3e-3), (x, y), loss_fn


MODELS = {"mlp": mlp_case, "cnn": cnn_case, "transformer": transformer_case}


def device_name(device: torch.device) -> str:
    if device.type == "devplug":
        import torch_devplug
        return f"{device} ({torch_devplug.devices()[device.index or 0]['plugin']})"
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def compiled(model: nn.Module, device: torch.device) -> nn.Module:
    if device.type == "devplug":
        from torch_devplug._compile import devplug_backend
        return torch.compile(model, backend=devplug_backend)
    return torch.compile(model)


def profile_step(step, device: torch.device):
    """(aten ops, kernel launches or None) of one call of `step` under torch.profiler."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        step()
    events = prof.events()
    aten = sum(1 for e in events if e.name.startswith("aten::"))
    kernels = None
    if device.type == "cuda":
        kernels = sum(1 for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
    return aten, kernels


def measure(name: str, device: torch.device, mode: str, steps: int, warmup: int) -> dict:
    torch.manual_seed(0)
    model, make_optimizer, (x, y), loss_fn = MODELS[name]()
    model = model.to(device)
    optimizer = make_optimizer(model.parameters())
    net = compiled(model, device) if mode == "compiled" else model
    x, y = x.to(device), y.to(device)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    start = time.perf_counter()
    step()
    first = time.perf_counter() - start
    for _ in range(max(warmup - 1, 0)):
        step()
    seconds = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    aten, kernels = profile_step(step, device)
    return {"model": name, "device": device_name(device), "mode": mode,
            "median_ms": statistics.median(seconds) * 1e3, "min_ms": min(seconds) * 1e3,
            "first_ms": first * 1e3, "aten_ops": aten, "kernels": kernels}


def op_cost_us(device: torch.device, calls: int = 2000) -> float:
    a = torch.ones(1, device=device)
    b = torch.ones(1, device=device)
    out = torch.empty(1, device=device)
    for _ in range(100):
        torch.add(a, b, out=out)
    out.cpu()
    start = time.perf_counter()
    for _ in range(calls):
        torch.add(a, b, out=out)
    out.cpu()
    return (time.perf_counter() - start) / calls * 1e6


def replayed_op_cost_us(device: torch.device, ops: int = 100, replays: int = 20):
    """The same small op's host cost inside a graph: `ops` of them captured once
    (torch.devplug.Graph, torch.cuda.CUDAGraph), `replays` replays and one synchronization,
    per op. None on a device type without graphs (torch's CPU)."""
    if device.type == "cuda":
        graph, capture = torch.cuda.CUDAGraph(), torch.cuda.graph
    elif device.type == "devplug":
        graph, capture = torch.devplug.Graph(), torch.devplug.graph
    else:
        return None
    a = torch.ones(1, device=device)
    b = torch.ones(1, device=device)
    out = torch.empty(1, device=device)
    torch.add(a, b, out=out)
    with torch.accelerator.device_index(device.index or 0), capture(graph):
        for _ in range(ops):
            torch.add(a, b, out=out)
    graph.replay()
    out.cpu()
    start = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    out.cpu()
    return (time.perf_counter() - start) / (ops * replays) * 1e6


def run_device(spec: str, args) -> dict:
    """This process's rows of the device `spec` ("devplug:0", "cuda:0", ...): {"rows",
    "failures", "op_cost_us"}."""
    if spec.startswith("devplug"):
        import torch_devplug  # noqa: F401  (registers the device)
    elif "torch_devplug" in sys.modules:
        raise RuntimeError("torch_devplug is loaded in the process of a torch device (see the module's docstring)")
    device = torch.device(spec)
    result = {"rows": [], "failures": [], "op_cost_us": None}
    for name in args.models.split(","):
        for mode in args.modes.split(","):
            try:
                row = measure(name, device, mode, args.steps, args.warmup)
            except Exception as e:  # a row that fails is reported, the rest still run
                message = str(e).splitlines()[0] if str(e) else ""
                result["failures"].append({"model": name, "device": str(device), "mode": mode,
                                           "error": f"{type(e).__name__}: {message}"})
                print(f"{name:<12} {str(device):<34} {mode:<9} FAILED: {result['failures'][-1]['error']}", flush=True)
                continue
            result["rows"].append(row)
            kernels = "-" if row["kernels"] is None else str(row["kernels"])
            print(f"{name:<12} {row['device']:<34} {mode:<9} {row['median_ms']:>10.2f} {row['min_ms']:>9.2f} "
                  f"{row['first_ms']:>10.0f} {row['aten_ops']:>9} {kernels:>8}", flush=True)
    result["op_cost_us"] = {"device": device_name(device), "us": op_cost_us(device),
                            "replayed_us": replayed_op_cost_us(device)}
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", default="devplug,cpu",
                        help="comma-separated torch devices (devplug means devplug:0; cuda means cuda:0)")
    parser.add_argument("--modes", default="eager,compiled", help="eager, compiled or both")
    parser.add_argument("--models", default=",".join(MODELS), help="some of " + ", ".join(MODELS))
    parser.add_argument("--steps", type=int, default=20, help="timed steps per row")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (compilation included)")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # one device in this process; its result here
    args = parser.parse_args()

    # Strings until a child has imported what makes them devices (torch_devplug for devplug).
    devices = [d if ":" in d or d == "cpu" else d + ":0" for d in args.devices.split(",")]
    for m in args.models.split(","):
        if m not in MODELS:
            parser.error(f"unknown model {m!r}: the models are {', '.join(MODELS)}")
    for m in args.modes.split(","):
        if m not in ("eager", "compiled"):
            parser.error(f"unknown mode {m!r}: the modes are eager and compiled")

    if args.child:
        with open(args.child, "w") as f:
            json.dump(run_device(devices[0], args), f)
        return 0

    print(f"torch {torch.__version__}, {os.cpu_count()} cores, torch threads {torch.get_num_threads()}")
    print(f"{'model':<12} {'device':<34} {'mode':<9} {'median ms':>10} {'min ms':>9} {'first ms':>10} "
          f"{'aten ops':>9} {'kernels':>8}", flush=True)
    rows, failures, op_costs = [], [], {}
    for device in devices:
        env = dict(os.environ)
        if not device.startswith("devplug"):
            env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            command = [sys.executable, os.path.abspath(__file__), "--devices", device, "--modes", args.modes,
                       "--models", args.models, "--steps", str(args.steps), "--warmup", str(args.warmup),
                       "--child", out.name]
            rc = subprocess.run(command, env=env).returncode
            result = json.load(open(out.name)) if rc == 0 and os.path.getsize(out.name) else None
        if result is None:
            failures.append({"device": device, "error": f"the process of {device} exited with {rc}"})
            print(f"{'':<12} {device:<34} FAILED: the process exited with {rc}", flush=True)
            continue
        rows += result["rows"]
        failures += result["failures"]
        op_costs[result["op_cost_us"]["device"]] = {k: result["op_cost_us"][k] for k in ("us", "replayed_us")}

    print("\nhost cost of one small op (out= add of one element: 2000 calls, one synchronization; replayed:")
    print("100 of them captured in a graph, 20 replays, one synchronization)")
    for name, cost in op_costs.items():
        replayed = cost["replayed_us"]
        text = "" if replayed is None else f", replayed {replayed:8.2f} us ({replayed / cost['us']:.2f} of eager)"
        print(f"  {name:<34} {cost['us']:8.2f} us per op{text}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "rows": rows, "failures": failures, "op_cost_us": op_costs}, f,
                      indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
