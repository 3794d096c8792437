# SPDX-License-Identifier: Apache-2.0
"""devplug tensors and torch.multiprocessing: shared where the device's memory is host memory,
a clear refusal elsewhere.

torch.multiprocessing sends a tensor to another process by sharing its storage: CPU storages
as shared memory (a file descriptor or a file name), CUDA storages as CUDA IPC handles. A
devplug storage is a device buffer behind a plugin's handle. Where the device's memory is host
memory and its plugin lends host memory to the device (the host_memory_import extension:
the reference device), the storage is moved into a CPU storage in shared memory, as
share_memory_() moves a CPU storage, and the receiver makes a devplug storage over the same
shared memory on its device of the same index: both processes' device work reads and writes
the same bytes. Elsewhere devplug memory has no host pointer and no handle that another process
could open, and the reducer says what to do instead. The storage reducer sees every tensor too:
torch sends a tensor as its storage, so views keep sharing one storage. Pickling for files
(torch.save, pickle) is unaffected: it copies to the CPU.
"""

from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing.reductions as _torch_reductions

from . import _C

_NO_SHARING = (
    "devplug: a devplug tensor or storage (on {device}) cannot be sent to another process: "
    "torch.multiprocessing shares CPU memory or CUDA IPC handles, and this device's memory can be "
    "neither ({why}). Move it to the CPU first (tensor.cpu()), send that, and move it to the "
    "device in the receiving process (a process started with the 'spawn' method can use devplug "
    "devices)"
)


def _rebuild_storage(host, device_index):
    """In the receiver: a devplug storage on devplug:`device_index` over the shared CPU storage
    `host` (None for an empty storage)."""
    if host is None:
        return torch.UntypedStorage(0, device=torch.device(torch._C._get_privateuse1_backend_name(),
                                                           device_index))
    return _C._storage_over_host_memory(host, device_index)


def _reduce_storage(storage):
    if storage.device.type != torch._C._get_privateuse1_backend_name():
        return _torch_reductions.reduce_storage(storage)
    if storage.nbytes() == 0:
        return (_rebuild_storage, (None, storage.device.index))
    host = _C._host_memory_of(storage)
    if host is None:
        host = torch.UntypedStorage(storage.nbytes()).share_memory_()
        try:
            _C._move_to_host_memory(storage, host)
        except RuntimeError as e:
            raise RuntimeError(_NO_SHARING.format(device=storage.device, why=str(e).split("\n")[0])) from None
    return (_rebuild_storage, (host, storage.device.index))


def register_reductions() -> None:
    """Puts `_reduce_storage` in front of torch's reducer of untyped storages (typed storages
    and tensors reduce to those). torch registers its reducers when torch.multiprocessing is
    imported, which `import torch` does before device backends load."""
    ForkingPickler.register(torch.UntypedStorage, _reduce_storage)
