# SPDX-License-Identifier: Apache-2.0
"""DLPack for devplug tensors: ``Tensor.__dlpack__``, ``Tensor.__dlpack_device__``,
``torch.utils.dlpack.to_dlpack`` and ``torch.from_dlpack`` (also ``torch.utils.dlpack.from_dlpack``).

torch has no DLPack hook for a PrivateUse1 backend, so ``install()`` wraps these four entry
points: a devplug tensor or a capsule of one goes to the bridge (csrc/dlpack.cpp); everything
else goes, unchanged, to torch's own function, which each wrapper keeps in ``_TORCH``.

A devplug tensor is exported in one of two forms:

- on a device whose memory is host memory (the reference plugin; Level Zero on a CPU or an
  integrated GPU), as ``kDLCPU`` with the real address, after its current stream is
  synchronized: ``numpy.from_dlpack`` and ``torch.from_dlpack`` read it without a copy
  (``torch.from_dlpack`` of such a capsule gives a CPU tensor on the same memory);
- otherwise, or when ``dl_device=(kDLExtDev, index)`` asks for it, as ``kDLExtDev`` with the
  devplug index: an address only devplug understands, imported by ``torch.from_dlpack`` as a
  devplug tensor on the same storage.

``torch.from_dlpack(devplug_tensor)`` gives a devplug tensor on the same memory on every device
(as torch does for its own devices). The ``stream`` argument is checked as torch checks it and
otherwise unused: a ``kDLCPU`` export synchronizes the tensor's current stream, and a
``kDLExtDev`` capsule is read by devplug itself, in its streams' order.
"""

import functools

import torch
import torch.utils.dlpack
from torch.overrides import handle_torch_function, has_torch_function_unary
from torch.utils.dlpack import DLDeviceType

from . import _C

_BACKEND = "devplug"
# torch's own functions, by name, as install() found them.
_TORCH = {}


def _is_devplug_tensor(obj) -> bool:
    """Whether `obj` is a tensor on a devplug device (without a subclass's __torch_function__)."""
    if not isinstance(obj, torch.Tensor):
        return False
    with torch._C.DisableTorchFunctionSubclass():
        return obj.device.type == _BACKEND


def _export(tensor, max_version=None, dl_device=None, copy=None, read_only=False):
    """A capsule of devplug tensor `tensor` (see the module's docstring)."""
    _C._dlpack_check(tensor)
    versioned = max_version is not None and max_version[0] >= 1
    if read_only and not versioned:
        raise BufferError("read_only export requires the versioned DLPack protocol; "
                          "pass max_version=(1, 0) or higher")
    index = tensor.device.index
    host = _C._dlpack_host_memory(index)
    if dl_device is None:
        target = (DLDeviceType.kDLCPU, 0) if host else (DLDeviceType.kDLExtDev, index)
    else:
        target = (int(dl_device[0]), int(dl_device[1]))
    copied = False
    if target == (DLDeviceType.kDLCPU, 0) and not host:
        if copy is False:
            raise BufferError(
                f"devplug: the memory of {tensor.device} is not host memory, so exporting it to the CPU "
                "(dl_device=(kDLCPU, 0)) needs a copy, and copy=False forbids one")
        tensor, copied = tensor.to("cpu"), True
    elif target[0] == DLDeviceType.kDLExtDev and 0 <= target[1] < _C._device_count() and target[1] != index:
        if copy is False:
            raise BufferError(f"devplug: exporting a tensor of {tensor.device} to devplug:{target[1]} needs a "
                              "copy, and copy=False forbids one")
        tensor, copied = tensor.to(torch.device(_BACKEND, target[1])), True
    elif target != (DLDeviceType.kDLCPU, 0) and target != (DLDeviceType.kDLExtDev, index):
        raise BufferError(f"devplug: cannot export a tensor of {tensor.device} to DLPack device {tuple(dl_device)}: "
                          "devplug exports to (kDLCPU, 0) and (kDLExtDev, <devplug index>)")
    elif copy is True:
        tensor, copied = tensor.clone(), True
    host = host and target[0] == DLDeviceType.kDLCPU
    return _C._to_dlpack(tensor, versioned, read_only, host, copied)


def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None, read_only=False):
    if has_torch_function_unary(self):
        return handle_torch_function(__dlpack__, (self,), self, stream=stream, max_version=max_version,
                                     dl_device=dl_device, copy=copy, read_only=read_only)
    if self.device.type != _BACKEND:
        return _TORCH["__dlpack__"](self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy,
                                    read_only=read_only)
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    return _export(self, max_version=max_version, dl_device=dl_device, copy=copy, read_only=read_only)


def __dlpack_device__(self):
    if has_torch_function_unary(self):
        return handle_torch_function(__dlpack_device__, (self,), self)
    if self.device.type != _BACKEND:
        return _TORCH["__dlpack_device__"](self)
    index = self.device.index
    if _C._dlpack_host_memory(index):
        return (DLDeviceType.kDLCPU, 0)
    return (DLDeviceType.kDLExtDev, index)


def to_dlpack(tensor):
    if _is_devplug_tensor(tensor):
        with torch._C.DisableTorchFunctionSubclass():
            return _export(tensor)
    return _TORCH["to_dlpack"](tensor)


def _devplug_capsule(obj) -> bool:
    """Whether `obj` is an unconsumed kDLExtDev capsule (devplug's, or a foreign one that only
    devplug's importer can turn down with a clear error)."""
    found = _C._dlpack_capsule_device(obj)
    return found is not None and found[0] == DLDeviceType.kDLExtDev


def _capsule_of(ext_tensor, **kwargs):
    """ext_tensor.__dlpack__(**kwargs), with max_version dropped for an older producer."""
    try:
        return ext_tensor.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        return ext_tensor.__dlpack__(**kwargs)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    if _is_devplug_tensor(ext_tensor):
        with torch._C.DisableTorchFunctionSubclass():
            index = ext_tensor.device.index
        target = torch.device(device) if device is not None else torch.device(_BACKEND, index)
        if target.type == _BACKEND and target.index is None:
            target = torch.device(_BACKEND, _C._current_device())
        if target.type == "cpu":
            dl_device = (DLDeviceType.kDLCPU, 0)
            return _TORCH["from_dlpack"](_capsule_of(ext_tensor, dl_device=dl_device, copy=copy))
        if target.index == index and target.type == _BACKEND:
            dl_device = (DLDeviceType.kDLExtDev, index)
            return _C._from_dlpack(_capsule_of(ext_tensor, dl_device=dl_device, copy=copy))
        if copy is False:
            raise ValueError(f"cannot move DLPack tensor from device devplug:{index} to {target} without copying. "
                             "Set copy=None or copy=True.")
        return from_dlpack(ext_tensor).to(target)
    if _devplug_capsule(ext_tensor):
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is already a DLPack capsule.")
        return _C._from_dlpack(ext_tensor)
    if (not isinstance(ext_tensor, torch.Tensor) and hasattr(ext_tensor, "__dlpack_device__")
            and ext_tensor.__dlpack_device__()[0] == DLDeviceType.kDLExtDev):
        # Another producer's kDLExtDev object: devplug's importer takes the capsule (or says why
        # not); torch's would treat its address as a devplug one.
        tensor = _C._from_dlpack(_capsule_of(ext_tensor, copy=copy))
        if device is not None and torch.device(device) != tensor.device:
            if copy is False:
                raise ValueError(f"cannot move DLPack tensor from device {tensor.device} to {device} without "
                                 "copying. Set copy=None or copy=True.")
            return tensor.to(device)
        return tensor
    return _TORCH["from_dlpack"](ext_tensor, device=device, copy=copy)


def install() -> None:
    """Wraps torch's DLPack entry points (once); other devices keep torch's own behaviour."""
    if _TORCH:
        return
    _TORCH["__dlpack__"] = torch.Tensor.__dlpack__
    _TORCH["__dlpack_device__"] = torch.Tensor.__dlpack_device__
    _TORCH["to_dlpack"] = torch.utils.dlpack.to_dlpack
    _TORCH["from_dlpack"] = torch.utils.dlpack.from_dlpack
    for name, wrapper in (("__dlpack__", __dlpack__), ("__dlpack_device__", __dlpack_device__),
                          ("to_dlpack", to_dlpack), ("from_dlpack", from_dlpack)):
        functools.update_wrapper(wrapper, _TORCH[name], assigned=("__doc__",))
    torch.Tensor.__dlpack__ = __dlpack__
    torch.Tensor.__dlpack_device__ = __dlpack_device__
    torch.utils.dlpack.to_dlpack = torch.to_dlpack = to_dlpack
    torch.utils.dlpack.from_dlpack = torch.from_dlpack = from_dlpack
    # The read-only wrapper lets through only the DLPack methods it knew at import: add ours.
    wrapper_class = getattr(torch.utils.dlpack, "ReadOnlyTensorWrapper", None)
    if wrapper_class is not None:
        wrapper_class._DLPACK_ALLOWED = wrapper_class._DLPACK_ALLOWED | {__dlpack__, __dlpack_device__}
