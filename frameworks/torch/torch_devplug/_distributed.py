# SPDX-License-Identifier: Apache-2.0
"""torch.distributed on devplug devices: the c10d backend ``devplug``.

``import torch_devplug`` registers it for the ``devplug`` and ``cpu`` devices, so that::

    dist.init_process_group("devplug")                    # devplug and CPU tensors
    dist.init_process_group("cpu:gloo,devplug:devplug")   # CPU tensors on torch's Gloo
    dist.init_process_group()                             # on a machine with devplug devices

all work, and DDP wraps devplug models. The transport is torch's own Gloo (TCP): devplug
tensors are staged through pinned host memory (device to host on the caller's stream,
Gloo, host to device on the backend's stream), and a collective's Work completes once the
result is on the device. Where the device's plugin offers its own collectives (the ABI's
collectives extension), single-tensor all_reduce, broadcast, all_gather, reduce_scatter and
all_to_all go to it instead (docs/distributed.md). CPU tensors go to Gloo as they are. The backend is C++
(csrc/distributed.cpp); this module only makes it and its Gloo.
"""

import torch.distributed as dist

_NAME = "devplug"


def _create(options, backend_options):
    """The c10d creator (extended API): a Gloo backend over the same store, rank and size,
    wrapped by devplug's backend."""
    from . import _C

    gloo = dist.ProcessGroupGloo(options.store, options.group_rank, options.group_size, timeout=options.timeout)
    gloo.options.global_ranks_in_group = options.global_ranks_in_group
    gloo.options.group_name = options.group_id
    return _C._DistributedBackend(options.group_rank, options.group_size, gloo)


def register():
    """Registers the ``devplug`` c10d backend (also the ``torch.distributed.backends`` entry
    point, so that ``init_process_group("devplug")`` finds it before torch_devplug is
    imported). Does nothing where torch has no distributed package or it is registered."""
    if not dist.is_available() or not dist.is_gloo_available():
        return
    if _NAME.upper() in dist.Backend._plugins:
        return
    dist.Backend.register_backend(_NAME, _create, extended_api=True, devices=[_NAME, "cpu"])
