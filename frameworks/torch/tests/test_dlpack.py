# SPDX-License-Identifier: Apache-2.0
"""DLPack on devplug devices: Tensor.__dlpack__/__dlpack_device__, torch.utils.dlpack.to_dlpack
and torch.from_dlpack (torch_devplug/_dlpack.py, csrc/dlpack.cpp).

On host-memory devices (reference; Level Zero's CPU test driver) a tensor is exported as
kDLCPU with its real address, which numpy reads without a copy; elsewhere as kDLExtDev, which
devplug imports back onto the same storage. The capsules are read here through ctypes, with
the DLPack 1.x structs, to check what a foreign consumer would see."""

import ctypes
import gc
import types

import numpy as np
import pytest
import torch
import torch.utils.dlpack
from torch.utils.dlpack import DLDeviceType

import torch_devplug

CPU = (DLDeviceType.kDLCPU, 0)
EXT = DLDeviceType.kDLExtDev
READ_ONLY, IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_*
# Plugins whose devices' memory is host memory, with host addresses: their tensors export as
# kDLCPU. (Level Zero's devices here are its CPU test driver's; a discrete GPU's would not be.)
HOST_MEMORY_PLUGINS = {"reference", "level_zero"}
DTYPES = {  # devplug's dtypes and their DLPack (type code, bits)
    torch.bool: (6, 8), torch.uint8: (1, 8), torch.int8: (0, 8), torch.int16: (0, 16), torch.int32: (0, 32),
    torch.int64: (0, 64), torch.float16: (2, 16), torch.bfloat16: (4, 16), torch.float32: (2, 32),
    torch.float64: (2, 64)}
# Views of a 6x8 tensor; `writable`: the view may be written through (no overlapping elements).
VIEWS = {
    "contiguous": (lambda t: t, True),
    "transposed": (lambda t: t.t(), True),
    "step_slices": (lambda t: t[1::2, ::3], True),
    "storage_offset": (lambda t: t[2:, 3:], True),
    "row": (lambda t: t[3], True),
    "scalar": (lambda t: t[4, 5], True),
    "expanded": (lambda t: t[:, 2:3].expand(6, 5), False),
    "empty": (lambda t: t[:0], True),
}


# ---- the capsule as a C consumer sees it ----

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_api = ctypes.PyDLL(None)  # Python's C API, with prototypes of its own
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def capsule_name(capsule) -> str:
    return _api.PyCapsule_GetName(capsule).decode()


def read_capsule(capsule):
    """The fields of an unconsumed capsule's managed tensor."""
    name = capsule_name(capsule)
    address = _api.PyCapsule_GetPointer(capsule, name.encode())
    if name == "dltensor_versioned":
        m = _DLManagedTensorVersioned.from_address(address)
        version, flags = (m.major, m.minor), m.flags
    else:
        assert name == "dltensor"
        m = _DLManagedTensor.from_address(address)
        version, flags = None, None
    dl = m.dl_tensor
    return types.SimpleNamespace(
        name=name, version=version, flags=flags, device=(dl.device.device_type, dl.device.device_id),
        data=dl.data or 0, byte_offset=dl.byte_offset, dtype=(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes),
        shape=tuple(dl.shape[i] for i in range(dl.ndim)), strides=tuple(dl.strides[i] for i in range(dl.ndim)))


def plugin_of(device) -> str:
    return torch_devplug.devices()[torch.device(device).index]["plugin"]


def host_memory(device) -> bool:
    return plugin_of(device) in HOST_MEMORY_PLUGINS


def index_of(device) -> int:
    return torch.device(device).index


def grid(device, dtype=torch.float32):
    values = torch.arange(48).reshape(6, 8)
    return (values % 2 if dtype == torch.bool else values).to(dtype).to(device)


# ---- devplug -> capsule -> devplug ----

@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["unversioned", "versioned"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_round_trip_shares_memory(device, view, max_version):
    make, writable = VIEWS[view]
    base = grid(device)
    model = base.cpu()
    v = make(base)
    capsule = v.__dlpack__(max_version=max_version, dl_device=(EXT, index_of(device)))
    c = read_capsule(capsule)
    assert c.name == ("dltensor" if max_version is None else "dltensor_versioned")
    assert c.device == (EXT, index_of(device))
    assert c.data == v.untyped_storage().data_ptr()  # the storage's (fake) address
    assert c.byte_offset == v.storage_offset() * 4
    assert (c.shape, c.strides, c.dtype) == (tuple(v.shape), v.stride(), (2, 32, 1))

    u = torch.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_" + c.name
    assert u.device == v.device and u.dtype == v.dtype and not u.requires_grad
    assert (u.shape, u.stride(), u.storage_offset()) == (v.shape, v.stride(), v.storage_offset())
    assert u.data_ptr() == v.data_ptr()
    assert torch.equal(u.cpu(), make(model))
    base.add_(1000)  # written through the original: seen in the import
    model.add_(1000)
    assert torch.equal(u.cpu(), make(model))
    if writable:  # written through the import: seen in the original
        u.mul_(-1)
        make(model).mul_(-1)
        assert torch.equal(base.cpu(), model)


@pytest.mark.parametrize("dtype", list(DTYPES), ids=lambda d: str(d).removeprefix("torch."))
@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["unversioned", "versioned"])
def test_every_dtype_round_trips(device, dtype, max_version):
    t = grid(device, dtype)[1:, ::2]
    capsule = t.__dlpack__(max_version=max_version, dl_device=(EXT, index_of(device)))
    assert read_capsule(capsule).dtype == DTYPES[dtype] + (1,)
    u = torch.from_dlpack(capsule)
    assert u.dtype == dtype and u.device == t.device and torch.equal(u.cpu(), t.cpu())
    u[0, 1] = 1
    assert t[0, 1].item() == 1
    # The device's own form (kDLCPU on host memory: torch reads it as a CPU tensor).
    native = torch.from_dlpack(t.__dlpack__(max_version=max_version))
    assert native.dtype == dtype and torch.equal(native.cpu(), t.cpu())
    assert native.device == (torch.device("cpu") if host_memory(device) else t.device)


def test_from_dlpack_of_a_devplug_tensor_is_a_devplug_tensor_on_its_memory(device):
    t = grid(device)
    for u in (torch.from_dlpack(t), torch.utils.dlpack.from_dlpack(t.t()).t(), torch.from_dlpack(t, device=device)):
        assert u.device == t.device and u.data_ptr() == t.data_ptr()
    u = torch.from_dlpack(t)
    u[0, 0] = -1
    assert t[0, 0].item() == -1
    copied = torch.from_dlpack(t, copy=True)
    assert copied.device == t.device and copied.data_ptr() != t.data_ptr() and torch.equal(copied.cpu(), t.cpu())


def test_versioned_capsule_carries_version_and_flags(device):
    t = grid(device)
    plain = read_capsule(t.__dlpack__(max_version=(1, 0)))
    assert plain.version[0] == 1 and plain.flags == 0
    read_only = read_capsule(t.__dlpack__(max_version=(1, 2), read_only=True))
    assert read_only.flags == READ_ONLY
    assert read_only.data == plain.data
    copied = read_capsule(t.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.flags == IS_COPIED and copied.data != plain.data
    wrapped = read_capsule(torch.utils.dlpack.ReadOnlyTensorWrapper(t).__dlpack__())
    assert wrapped.flags & READ_ONLY and wrapped.data == plain.data
    assert torch.from_dlpack(torch.utils.dlpack.ReadOnlyTensorWrapper(t)).data_ptr() == t.data_ptr()


# ---- the device a capsule is on ----

def test_dlpack_device_per_plugin(device):
    t = grid(device)
    expected = CPU if host_memory(device) else (EXT, index_of(device))
    assert t.__dlpack_device__() == expected
    for capsule in (t.__dlpack__(), t.__dlpack__(max_version=(1, 0)), torch.utils.dlpack.to_dlpack(t),
                    torch.to_dlpack(t)):
        assert read_capsule(capsule).device == expected


def test_host_memory_exports_the_real_address_and_numpy_shares_it(device):
    if not host_memory(device):
        pytest.skip(f"{plugin_of(device)} is not host memory")
    t = grid(device)
    v = t.t()[1:, ::2]
    c = read_capsule(v.__dlpack__(max_version=(1, 0)))
    assert c.device == CPU and c.byte_offset == 0 and c.data != v.data_ptr()
    a = np.from_dlpack(t)
    b = np.from_dlpack(v)
    assert a.__array_interface__["data"][0] + v.storage_offset() * 4 == b.__array_interface__["data"][0] == c.data
    assert b.strides == tuple(4 * s for s in v.stride())
    np.testing.assert_array_equal(a, t.cpu().numpy())
    np.testing.assert_array_equal(b, v.cpu().numpy())
    t.add_(100)  # the device writes; after synchronize the host sees it
    torch.devplug.synchronize(device)
    assert a[0, 0] == 100 and b[0, 0] == v[0, 0].item()
    a[1, 1] = -5  # the host writes; the device sees it
    assert t[1, 1].item() == -5
    # torch's CPU import shares the same memory.
    cpu = torch.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert cpu.device.type == "cpu" and cpu.data_ptr() == a.__array_interface__["data"][0]
    assert torch.from_dlpack(t, device="cpu").data_ptr() == cpu.data_ptr()


def test_numpy_refuses_device_memory_and_copies_when_asked(device):
    if host_memory(device):
        pytest.skip(f"{plugin_of(device)} is host memory")
    t = grid(device)
    with pytest.raises(RuntimeError, match="Unsupported device"):  # numpy's error
        np.from_dlpack(t)
    a = np.from_dlpack(t, device="cpu")  # dl_device=(kDLCPU, 0): a copy
    np.testing.assert_array_equal(a, t.cpu().numpy())
    t.add_(1)
    assert a[0, 0] == 0
    with pytest.raises(BufferError, match="not host memory"):
        np.from_dlpack(t, device="cpu", copy=False)
    c = read_capsule(t.__dlpack__(max_version=(1, 0), dl_device=CPU))
    assert c.device == CPU and c.flags == IS_COPIED
    cpu = torch.from_dlpack(t, device="cpu")
    assert cpu.device.type == "cpu" and torch.equal(cpu, t.cpu())


def test_export_to_another_devplug_device_copies():
    if torch.devplug.device_count() < 2:
        pytest.skip("needs two devplug devices")
    t = grid("devplug:0")
    u = torch.from_dlpack(t.__dlpack__(max_version=(1, 0), dl_device=(EXT, 1)))
    assert u.device == torch.device("devplug:1") and torch.equal(u.cpu(), t.cpu())
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(EXT, 1), copy=False)
    moved = torch.from_dlpack(t, device="devplug:1")
    assert moved.device == torch.device("devplug:1") and torch.equal(moved.cpu(), t.cpu())
    with pytest.raises(ValueError, match="without copying"):
        torch.from_dlpack(t, device="devplug:1", copy=False)


# ---- lifetimes ----

def test_capsules_free_their_storage_when_deleted_unconsumed(device):
    torch.devplug.synchronize(device)
    before = torch.devplug.memory_allocated(device)
    t = torch.empty(1 << 20, dtype=torch.uint8, device=device)
    capsules = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0)), t.__dlpack__(dl_device=(EXT, index_of(device))),
                torch.utils.dlpack.to_dlpack(t[10:]), t[::2].__dlpack__(max_version=(1, 0), read_only=True)]
    del t
    gc.collect()
    assert torch.devplug.memory_allocated(device) >= before + (1 << 20)  # the capsules keep it
    del capsules
    gc.collect()
    assert torch.devplug.memory_allocated(device) == before


def test_imports_keep_the_storage_and_free_it(device):
    torch.devplug.synchronize(device)
    before = torch.devplug.memory_allocated(device)
    t = torch.empty(1 << 20, dtype=torch.uint8, device=device)
    capsule = t.__dlpack__(dl_device=(EXT, index_of(device)))
    imported = [torch.from_dlpack(capsule), torch.from_dlpack(torch.utils.dlpack.to_dlpack(t))]
    del t, capsule
    gc.collect()
    assert torch.devplug.memory_allocated(device) >= before + (1 << 20)
    del imported
    gc.collect()
    assert torch.devplug.memory_allocated(device) == before


def test_a_capsule_consumed_twice_raises(device):
    t = grid(device)
    for capsule in (t.__dlpack__(dl_device=(EXT, index_of(device))), t.__dlpack__(max_version=(1, 0)),
                    torch.utils.dlpack.to_dlpack(t)):
        torch.from_dlpack(capsule)
        with pytest.raises(RuntimeError, match="consumed only once"):
            torch.from_dlpack(capsule)


# ---- bad inputs ----

def test_what_dlpack_cannot_carry_is_a_buffer_error(device):
    g = torch.ones(3, device=device, requires_grad=True)
    with pytest.raises(BufferError, match="require gradient"):
        g.__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        torch.utils.dlpack.to_dlpack(g)
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(g)
    t = grid(device)
    with pytest.raises(BufferError, match="versioned DLPack protocol"):
        t.__dlpack__(read_only=True)
    with pytest.raises(BufferError, match="cannot export"):
        t.__dlpack__(dl_device=(DLDeviceType.kDLCUDA, 0))
    with pytest.raises(TypeError, match="stream"):
        t.__dlpack__(stream="default")
    assert t.__dlpack__(stream=None) is not None


class _ForeignExtDev:
    """A kDLExtDev producer that is not devplug: a DLManagedTensor made here, with no deleter."""

    def __init__(self):
        self.shape = (ctypes.c_int64 * 1)(4)
        self.managed = _DLManagedTensor()
        self.managed.dl_tensor = _DLTensor(0x1000, _DLDevice(EXT, 0), 1, _DLDataType(2, 32, 1), self.shape, None, 0)

    def __dlpack__(self, **kwargs):
        return _api.PyCapsule_New(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (EXT, 0)


def test_a_foreign_ext_dev_capsule_is_a_clear_error(device):
    foreign = _ForeignExtDev()
    with pytest.raises(RuntimeError, match="not made by torch_devplug"):
        torch.from_dlpack(foreign.__dlpack__())
    with pytest.raises(RuntimeError, match="not made by torch_devplug"):
        torch.from_dlpack(foreign)


# ---- other devices keep torch's behaviour ----

def test_cpu_tensors_and_numpy_keep_torchs_path():
    c = torch.arange(6.0)
    assert c.__dlpack_device__() == CPU
    assert torch.from_dlpack(c).data_ptr() == c.data_ptr()
    capsule = torch.utils.dlpack.to_dlpack(c)
    assert capsule_name(capsule) == "dltensor"
    assert torch.utils.dlpack.from_dlpack(capsule).data_ptr() == c.data_ptr()
    versioned = c.__dlpack__(max_version=(1, 0), read_only=True)
    assert read_capsule(versioned).flags == READ_ONLY
    assert torch.from_dlpack(versioned).data_ptr() == c.data_ptr()
    n = np.arange(3)
    assert torch.from_dlpack(n).data_ptr() == n.__array_interface__["data"][0]
    assert torch.utils.dlpack.ReadOnlyTensorWrapper(c).__dlpack__() is not None
    with pytest.raises(BufferError, match="require gradient"):
        torch.ones(2, requires_grad=True).__dlpack__()
    # The wrappers stand in for torch's functions, which they keep.
    assert torch.from_dlpack is torch.utils.dlpack.from_dlpack
    assert torch.to_dlpack is torch.utils.dlpack.to_dlpack
    assert torch.Tensor.__dlpack__.__wrapped__ is not torch.Tensor.__dlpack__
    assert torch.Tensor.__dlpack__.__doc__ == torch.Tensor.__dlpack__.__wrapped__.__doc__


def test_cpu_tensor_to_devplug_through_dlpack(device):
    c = torch.arange(6.0)
    d = torch.from_dlpack(c, device=device)
    assert d.device == torch.device(device) and torch.equal(d.cpu(), c)
