# SPDX-License-Identifier: Apache-2.0
"""Trains one model on a devplug device and on torch's CPU side by side, step by step.

Both copies start from the same weights and see the same batches; each step's loss is
recorded on both, with the time the step took (forward, backward, optimizer step and the
loss read back, so the device's work is finished). The tests compare the losses; the times
are printed for the record, never asserted.
"""

import contextlib
import copy
import dataclasses
import time

import pytest
import torch


@dataclasses.dataclass
class SideBySide:
    cpu_losses: list
    devplug_losses: list
    cpu_seconds: list
    devplug_seconds: list
    fallbacks: dict  # torch_devplug.fallback_report() of the devplug run alone

    def worst_relative_difference(self) -> float:
        return max(abs(c - d) / max(abs(c), 1e-30) for c, d in zip(self.cpu_losses, self.devplug_losses))

    def summary(self, name: str, device: str) -> str:
        import torch_devplug

        # The first step includes one-time work (kernel compilation, allocator warm-up).
        steady = slice(1, None) if len(self.cpu_seconds) > 1 else slice(None)
        cpu = sum(self.cpu_seconds[steady]) / len(self.cpu_seconds[steady])
        dev = sum(self.devplug_seconds[steady]) / len(self.devplug_seconds[steady])
        return (f"{name} on {device} ({torch_devplug.devices()[torch.device(device).index]['plugin']}): "
                f"{len(self.cpu_losses)} steps, loss {self.cpu_losses[0]:.4f} -> {self.cpu_losses[-1]:.4f}, "
                f"worst relative loss difference {self.worst_relative_difference():.2e}, "
                f"time per step: devplug {dev * 1e3:.1f} ms, torch CPU {cpu * 1e3:.1f} ms "
                f"(first step: devplug {self.devplug_seconds[0] * 1e3:.0f} ms)")


def train_side_by_side(model, make_optimizer, batches, loss_fn, device, amp_dtype=None,
                       grad_scaler=None) -> SideBySide:
    """`model` (on the CPU) and a copy moved to `device` train on `batches` of (input, target)
    CPU tensors with optimizers from `make_optimizer(parameters)`. With `amp_dtype` both run
    forward and loss under torch.autocast of their device type with that dtype; with
    `grad_scaler` (GradScaler's keyword arguments) both scale the loss with a
    torch.amp.GradScaler of their device type (the losses recorded are unscaled)."""
    import torch_devplug  # here, not at import: benchmarks/models.py uses the models on torch's CUDA

    cpu_model = model
    dev_model = copy.deepcopy(model).to(device)
    cpu_opt = make_optimizer(cpu_model.parameters())
    dev_opt = make_optimizer(dev_model.parameters())
    scalers = {kind: torch.amp.GradScaler(kind, **grad_scaler) if grad_scaler is not None else None
               for kind in ("cpu", "devplug")}
    result = SideBySide([], [], [], [], {})
    torch_devplug.reset_fallback_report()
    devplug_before = torch_devplug.fallback_report()["devplug"]
    for x, y in batches:
        for net, opt, losses, seconds, inputs in (
                (cpu_model, cpu_opt, result.cpu_losses, result.cpu_seconds, (x, y)),
                (dev_model, dev_opt, result.devplug_losses, result.devplug_seconds, None)):
            start = time.perf_counter()
            if inputs is None:
                inputs = (x.to(device), y.to(device))
            kind = inputs[0].device.type
            opt.zero_grad()
            with torch.autocast(kind, dtype=amp_dtype) if amp_dtype else contextlib.nullcontext():
                loss = loss_fn(net(inputs[0]), inputs[1])
            if scalers[kind] is None:
                loss.backward()
                opt.step()
            else:
                scalers[kind].scale(loss).backward()
                scalers[kind].step(opt)
                scalers[kind].update()
            losses.append(loss.item())
            seconds.append(time.perf_counter() - start)
    report = torch_devplug.fallback_report()
    grown = {op: n - devplug_before.get(op, 0) for op, n in report["devplug"].items()
             if n != devplug_before.get(op, 0)}
    result.fallbacks = {"torch": report["torch"], "devplug": grown}
    result.models = (cpu_model, dev_model)
    result.scales = tuple(s.get_scale() if s else None for s in scalers.values())
    return result


def assert_losses_match(run: SideBySide, rtol: float = 1e-4):
    for step, (c, d) in enumerate(zip(run.cpu_losses, run.devplug_losses)):
        assert abs(c - d) <= rtol * abs(c), f"step {step}: CPU loss {c!r}, devplug loss {d!r} differ by more than {rtol} relative"


@dataclasses.dataclass
class CompiledAndEager:
    eager_losses: list
    compiled_losses: list
    eager_seconds: list
    compiled_seconds: list
    fallbacks: dict  # as SideBySide.fallbacks, over both runs
    graphs_after_first_step: int  # graphs dynamo had compiled after the first step
    graphs: int  # and at the end

    def summary(self, name: str, device: str) -> str:
        steady = slice(1, None) if len(self.eager_seconds) > 1 else slice(None)
        eager = sum(self.eager_seconds[steady]) / len(self.eager_seconds[steady])
        compiled = sum(self.compiled_seconds[steady]) / len(self.compiled_seconds[steady])
        worst = max(abs(e - c) / max(abs(e), 1e-30) for e, c in zip(self.eager_losses, self.compiled_losses))
        return (f"{name} on {device}, compiled (backend=\"devplug\") and eager: {len(self.eager_losses)} steps, "
                f"worst relative loss difference {worst:.2e}, {self.graphs} graphs, time per step: compiled "
                f"{compiled * 1e3:.1f} ms, eager {eager * 1e3:.1f} ms (first compiled step "
                f"{self.compiled_seconds[0] * 1e3:.0f} ms)")


def train_compiled_and_eager(model, make_optimizer, batches, loss_fn, device) -> CompiledAndEager:
    """Two copies of `model` (on the CPU) moved to `device`, one run eagerly and one under
    torch.compile(backend="devplug"), train on the same `batches` of CPU tensors with
    optimizers from `make_optimizer(parameters)` (the optimizers run eagerly in both)."""
    import torch_devplug

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    eager = copy.deepcopy(model).to(device)
    compiled = copy.deepcopy(model).to(device)
    forward = torch.compile(compiled, backend="devplug")
    result = CompiledAndEager([], [], [], [], {}, 0, 0)
    torch_devplug.reset_fallback_report()
    runs = ((eager, eager, make_optimizer(eager.parameters()), result.eager_losses, result.eager_seconds),
            (compiled, forward, make_optimizer(compiled.parameters()), result.compiled_losses,
             result.compiled_seconds))
    for step, (x, y) in enumerate(batches):
        for _, net, opt, losses, seconds in runs:
            start = time.perf_counter()
            x_dev, y_dev = x.to(device), y.to(device)
            opt.zero_grad()
            loss = loss_fn(net(x_dev), y_dev)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            seconds.append(time.perf_counter() - start)
        if step == 0:
            result.graphs_after_first_step = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    result.graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    report = torch_devplug.fallback_report()
    result.fallbacks = {"torch": report["torch"], "devplug": report["devplug"]}
    torch._dynamo.reset()
    return result


def assert_compiled_matches_eager(run: CompiledAndEager, rtol: float = 1e-5):
    """Every step's loss within `rtol` of eager's, nothing on a fallback, and no graph compiled
    after the first step (the batches have one shape)."""
    assert run.fallbacks == {"torch": {}, "devplug": {}}
    assert run.graphs_after_first_step >= 1, "dynamo captured no graph"
    assert run.graphs == run.graphs_after_first_step, (
        f"{run.graphs - run.graphs_after_first_step} graphs compiled after the first step")
    for step, (e, c) in enumerate(zip(run.eager_losses, run.compiled_losses)):
        assert abs(e - c) <= rtol * abs(e), f"step {step}: eager loss {e!r}, compiled loss {c!r} differ by more than {rtol} relative"


# Compiled and autocast training repeat on the slower plugins (emulated GPU, Level Zero) what
# eager training and the OpInfo suite check there; the model tests mark them to run on the
# reference and OpenCL plugins (conftest.py's on_plugins; TORCH_DEVPLUG_TEST_EVERY_PLUGIN=1
# runs them on all).
BESIDE_EAGER = pytest.mark.on_plugins("reference", "opencl")
