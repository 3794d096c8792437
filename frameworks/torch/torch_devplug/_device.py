# SPDX-License-Identifier: Apache-2.0
"""``torch.devplug``: the device module of the devplug device type.

Device management (count, current device, synchronize), random seeds for the devplug
generators, and the bridge's reports (which ops fell back to the CPU, which aten ops are
native). Devices are numbered in devplug's order with the reference backend's device last;
``TORCH_DEVPLUG_PLUGINS=opencl,reference`` keeps and orders devices by plugin.
"""

import contextlib

import torch

from . import _C


def is_available() -> bool:
    """Whether there is at least one devplug device."""
    try:
        return _C._device_count() > 0
    except Exception:
        return False


def is_initialized() -> bool:
    return True


def _is_in_bad_fork() -> bool:
    return False


def _lazy_init() -> None:
    _C._device_count()


def device_count() -> int:
    """The number of devplug devices (0 when no plugin has a device)."""
    return _C._device_count()


def current_device() -> int:
    return _C._current_device()


def set_device(device) -> None:
    """Makes ``device`` (an index, "devplug:1" or a torch.device) current for this thread."""
    index = _index(device)
    if index >= 0:
        _C._set_device(index)


class device:
    """Context manager that makes ``device`` current and restores the previous one."""

    def __init__(self, device):
        self.index = _index(device)
        self.previous = -1

    def __enter__(self):
        self.previous = current_device()
        if self.index >= 0:
            set_device(self.index)

    def __exit__(self, *exc):
        set_device(self.previous)
        return False


def synchronize(device=None) -> None:
    """Waits for all work on every stream of ``device`` (default: the current device)."""
    index = _index(device) if device is not None else current_device()
    _C._synchronize(index if index >= 0 else current_device())


def devices() -> list:
    """Every devplug device torch sees: index, plugin, name, vendor and memory."""
    return _C._devices()


def get_device_name(device=None) -> str:
    index = _index(device) if device is not None else current_device()
    return devices()[index]["name"]


def current_stream(device=None) -> torch.Stream:
    index = _index(device) if device is not None else current_device()
    return torch.accelerator.current_stream(torch.device(torch._C._get_privateuse1_backend_name(), index))


def get_amp_supported_dtype() -> list:
    return [torch.float16, torch.bfloat16]


# ---- random numbers: one Philox generator per device -------------------------------------

def manual_seed(seed: int) -> None:
    """Seeds the current device's generator."""
    _C._default_generator(current_device()).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seeds every device's generator (torch.manual_seed calls this). Before the first use
    of a devplug device the seed is kept and given to the generators when they are made,
    so seeding loads no plugin."""
    _C._manual_seed_all(int(seed))


def seed() -> None:
    _C._default_generator(current_device()).seed()


def seed_all() -> None:
    for i in range(device_count()):
        _C._default_generator(i).seed()


def initial_seed() -> int:
    return _C._default_generator(current_device()).initial_seed()


def get_rng_state(device="devplug") -> torch.Tensor:
    return _C._default_generator(_index(device, current_device())).get_state()


def set_rng_state(new_state: torch.Tensor, device="devplug") -> None:
    _C._default_generator(_index(device, current_device())).set_state(new_state)


def default_generator(device=None) -> torch.Generator:
    index = _index(device) if device is not None else current_device()
    return _C._default_generator(index)


# ---- reports -------------------------------------------------------------------------------

def fallback_report() -> dict:
    """What ran on the CPU instead of a devplug device since the last reset:

    ``{"torch": {"aten::op.overload": calls, ...}, "devplug": {"prim": calls, ...}}``.
    "torch" counts aten ops that have no devplug kernel (torch's boxed CPU fallback);
    "devplug" counts prims a plugin lacked, which devplug's dispatcher ran on its reference
    backend. A model with both empty ran on the device entirely."""
    return {"torch": dict(_C._fallback_counts()), "devplug": dict(_C._devplug_fallback_counts())}


def reset_fallback_report() -> None:
    """Clears the torch-level counts (devplug's own counts are per process and only grow)."""
    _C._reset_fallback_counts()


def strict() -> bool:
    return _C._strict()


def set_strict(on: bool = True) -> None:
    """In strict mode an op that would fall back to the CPU raises NotImplementedError."""
    _C._set_strict(bool(on))


@contextlib.contextmanager
def strict_mode(on: bool = True):
    previous = strict()
    set_strict(on)
    try:
        yield
    finally:
        set_strict(previous)


def native_ops() -> list:
    """The aten ops devplug runs itself, as (op, how, devplug ops) tuples; how is "view"
    (metadata only), "prim" (devplug prims that are the op) or "bridge" (composed from
    devplug prims in the bridge)."""
    return [tuple(row) for row in _C._native_ops()]


def _index(device, default=-1) -> int:
    if device is None:
        return default
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != torch._C._get_privateuse1_backend_name() and device.type != "privateuseone":
            raise ValueError(f"expected a devplug device, got {device}")
        return device.index if device.index is not None else default
    raise TypeError(f"expected a device index, a device string or a torch.device, got {type(device).__name__}")
