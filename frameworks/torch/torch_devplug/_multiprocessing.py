# SPDX-License-Identifier: Apache-2.0
"""devplug tensors and torch.multiprocessing: a clear refusal to share them.

torch.multiprocessing sends a tensor to another process by sharing its storage: CPU storages
as shared memory (a file descriptor or a file name), CUDA storages as CUDA IPC handles.
devplug memory is a device buffer behind a plugin's handle, with no host pointer and no
handle that another process could open, so it cannot be shared. torch's own reducer fails
on a devplug storage with "_share_fd_: only available on CPU"; the reducer registered here
says what to do instead (the storage reducer sees every tensor too: a tensor is sent as its
storage). Pickling for files (torch.save, pickle) is unaffected: it copies to the CPU.
"""

from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing.reductions as _torch_reductions

_NO_SHARING = (
    "devplug: a devplug tensor or storage (on {device}) cannot be sent to another process: "
    "torch.multiprocessing shares CPU memory or CUDA IPC handles, and devplug device memory has "
    "neither. Move it to the CPU first (tensor.cpu()), send that, and move it to the device in "
    "the receiving process (a process started with the 'spawn' method can use devplug devices)"
)


def _reduce_storage(storage):
    if storage.device.type == torch._C._get_privateuse1_backend_name():
        raise RuntimeError(_NO_SHARING.format(device=storage.device))
    return _torch_reductions.reduce_storage(storage)


def register_reductions() -> None:
    """Puts `_reduce_storage` in front of torch's reducer of untyped storages (typed storages
    and tensors reduce to those). torch registers its reducers when torch.multiprocessing is
    imported, which `import torch` does before device backends load."""
    ForkingPickler.register(torch.UntypedStorage, _reduce_storage)
