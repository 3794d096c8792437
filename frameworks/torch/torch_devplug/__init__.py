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

import torch

_BACKEND = "devplug"


def _register():
    current = torch._C._get_privateuse1_backend_name()
    if current not in ("privateuseone", _BACKEND):
        raise ImportError(
            f"torch_devplug: the PrivateUse1 backend is already taken by {current!r}; "
            "torch has one such slot, so only one out-of-tree backend can be loaded per process")
    from . import _C  # noqa: F401  (registers the allocator, guard, hooks, kernels, fallback)
    from . import _device

    if current != _BACKEND:
        torch.utils.rename_privateuse1_backend(_BACKEND)
        torch._register_device_module(_BACKEND, _device)
        torch.utils.generate_methods_for_privateuse1_backend(
            for_tensor=True, for_module=True, for_packed_sequence=True, for_storage=True)


_register()

from ._device import (  # noqa: E402
    devices,
    fallback_report,
    native_ops,
    reset_fallback_report,
    set_strict,
    strict,
)

__all__ = ["devices", "fallback_report", "native_ops", "reset_fallback_report", "set_strict", "strict"]

