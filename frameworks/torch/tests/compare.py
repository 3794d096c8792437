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
