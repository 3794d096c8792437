# SPDX-License-Identifier: Apache-2.0
"""PyTorch on devplug devices.

``import torch_devplug`` (or only ``import torch``: torch autoloads device backends that
registered the ``torch.backends`` entry point, as this package does) makes the device type
``devplug`` usable everywhere torch takes a device::

    x = torch.randn(8, 8, device="devplug")        # devplug:0 is the first device
    model.to("devplug:1")
    torch.devplug.device_count(), torch.devplug.devices()

It is torch's PrivateUse1 backend, renamed, over devplug's public host C API, so every
devplug plugin (reference, OpenCL, CUDA, HIP, Level Zero, ...) runs torch the same way.
Ops without a devplug kernel run on the CPU through torch's boxed fallback, counted:
``fallback_report()`` says which; ``TORCH_DEVPLUG_STRICT=1`` (or ``set_strict(True)``)
makes a fallback an error. ``native_ops()`` lists the aten ops devplug runs itself.
"""

import atexit
import time

import torch

_BACKEND = "devplug"


def _let_autograd_threads_finish():
    """Gives the GIL away for a moment at exit, so that torch's autograd threads finish first.

    torch 2.15's backward() keeps a Python object (a contextvars context) in the thread-local
    state of its graph task. Backward on a device other than the CPU runs on that device's
    autograd thread, which drops the graph task, and so needs the GIL, just after backward()
    returns. When the script ends right then, that thread only gets the GIL once the
    interpreter is finalizing, which ends the thread inside a C++ destructor and aborts the
    process ("terminate called without an active exception"; 5 runs in 6 for a script whose
    last act is a backward on the reference plugin). atexit handlers run before finalizing.
    """
    from . import _C

    # 100 ms, in short sleeps: the thread needs only a moment, but on a loaded machine (CI
    # runs two tests at a time on two cores) that moment can be late.
    if _C._runtime_exists():
        for _ in range(20):
            time.sleep(0.005)


def _register():
    current = torch._C._get_privateuse1_backend_name()
    if current not in ("privateuseone", _BACKEND):
        raise ImportError(
            f"torch_devplug: the PrivateUse1 backend is already taken by {current!r}; "
            "torch has one such slot, so only one out-of-tree backend can be loaded per process")
    from . import _C  # noqa: F401  (registers the allocator, guard, hooks, kernels, fallback)
    from . import _device, _distributed, _dlpack, _multiprocessing

    if current != _BACKEND:
        torch.utils.rename_privateuse1_backend(_BACKEND)
        _C._register_graph_impl()  # keyed by the backend's name: after the rename
        torch._register_device_module(_BACKEND, _device)
        torch.utils.generate_methods_for_privateuse1_backend(
            for_tensor=True, for_module=True, for_packed_sequence=True, for_storage=True)
        _multiprocessing.register_reductions()
        _dlpack.install()
        _distributed.register()
        atexit.register(_let_autograd_threads_finish)


_register()

from ._device import (  # noqa: E402
    devices,
    fallback_report,
    native_ops,
    reset_fallback_report,
    set_strict,
    strict,
)
from ._profiler import merge_trace, write_trace  # noqa: E402

__all__ = [
    "devices", "fallback_report", "merge_trace", "native_ops", "reset_fallback_report",
    "set_strict", "strict", "write_trace",
]

