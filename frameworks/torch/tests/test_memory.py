# SPDX-License-Identifier: Apache-2.0
"""Memory statistics of devplug devices: torch.devplug.memory_* and torch.accelerator's
memory functions, read from devplug's caching allocator (devplug_device_memory_stats).

Exact numbers: a storage of N bytes takes N bytes on the reference plugin (no caching) and
its size class on the others (multiples of 512 bytes below 1 MiB, powers of two from 1 MiB
on); freed memory stays reserved on the caching plugins until empty_cache.
"""

import pytest
import torch

import torch_devplug

# Plugins whose buffers devplug's caching allocator keeps (DEVPLUG_PLUGIN_CACHING_ALLOCATOR).
CACHING = {"opencl": True, "level_zero": True, "gpu_emulated": True, "cuda": True, "hip": True,
           "reference": False}


def plugin_of(device):
    return torch_devplug.devices()[torch.device(device).index]["plugin"]


def size_class(n, caching):
    if not caching:
        return max(n, 1)
    if n == 0:
        return 512
    if n < 1 << 20:
        return (n + 511) // 512 * 512
    size = 1 << 20
    while size < n:
        size <<= 1
    return size


@pytest.mark.parametrize("nbytes", [1000, 4096, 3 << 20])
def test_allocated_grows_by_the_rounded_size_and_empty_cache_returns_it(device, nbytes):
    caching = CACHING[plugin_of(device)]
    dm = torch.devplug
    dm.synchronize(device)
    dm.empty_cache()
    allocated, reserved = dm.memory_allocated(device), dm.memory_reserved(device)
    requested = dm.memory_stats(device)["requested_bytes.all.current"]
    x = torch.empty(nbytes, dtype=torch.uint8, device=device)
    taken = size_class(nbytes, caching)
    assert dm.memory_allocated(device) - allocated == taken
    assert dm.memory_stats(device)["requested_bytes.all.current"] - requested == nbytes
    assert dm.memory_reserved(device) - reserved == taken  # the cache was empty
    assert dm.max_memory_allocated(device) >= allocated + taken
    view = x[10:20]  # a view takes nothing
    assert dm.memory_allocated(device) - allocated == taken
    del x, view
    assert dm.memory_allocated(device) == allocated
    assert dm.memory_reserved(device) - reserved == (taken if caching else 0)
    dm.empty_cache()
    assert dm.memory_reserved(device) == reserved


def test_peaks_reset_and_accumulated_totals(device):
    dm = torch.devplug
    x = torch.empty(1 << 16, dtype=torch.uint8, device=device)
    del x
    assert dm.max_memory_allocated(device) >= dm.memory_allocated(device) + (1 << 16)
    dm.reset_peak_memory_stats(device)
    assert dm.max_memory_allocated(device) == dm.memory_allocated(device)
    assert dm.max_memory_reserved(device) == dm.memory_reserved(device)
    dm.reset_accumulated_memory_stats(device)
    stats = dm.memory_stats(device)
    assert stats["allocated_bytes.all.allocated"] == 0 and stats["allocated_bytes.all.freed"] == 0
    assert stats["num_device_alloc"] == 0
    y = torch.ones(100, device=device)  # float32: 400 bytes asked
    stats = dm.memory_stats(device)
    assert stats["requested_bytes.all.allocated"] == 400
    assert stats["allocation.all.allocated"] == 1
    del y


def test_torch_accelerator_reads_the_same_numbers(device):
    index = torch.device(device).index
    keep = torch.zeros(777, device=device)
    assert torch.accelerator.memory_allocated(index) == torch.devplug.memory_allocated(device)
    assert torch.accelerator.memory_reserved(index) == torch.devplug.memory_reserved(device)
    stats = torch.accelerator.memory_stats(index)
    assert stats["allocated_bytes.all.current"] == torch.devplug.memory_allocated(device)
    assert stats["segment.all.current"] == torch.devplug.memory_stats(device)["segment.all.current"]
    torch.accelerator.reset_peak_memory_stats(index)
    assert torch.accelerator.max_memory_allocated(index) == torch.accelerator.memory_allocated(index)
    torch.accelerator.empty_cache()
    del keep


def test_memory_summary_is_a_table(device):
    text = torch.devplug.memory_summary(device)
    assert "Allocated memory" in text and "Reserved memory" in text and "num_device_alloc" in text
    assert torch.devplug.memory_summary(device, abbreviated=True).count("\n") < text.count("\n")


def test_out_of_memory_is_torch_out_of_memory_and_counted(device):
    total = torch_devplug.devices()[torch.device(device).index]["memory_bytes"]
    before = torch.devplug.memory_stats(device)["num_ooms"]
    with pytest.raises(torch.OutOfMemoryError):
        torch.empty(total * 4, dtype=torch.uint8, device=device)
    assert torch.devplug.memory_stats(device)["num_ooms"] == before + 1


def test_a_bad_device_is_a_clear_error():
    with pytest.raises(IndexError, match="out of range"):
        torch.devplug.memory_allocated(torch.devplug.device_count() + 3)
