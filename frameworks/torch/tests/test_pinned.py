# SPDX-License-Identifier: Apache-2.0
"""Pinned host memory on devplug devices: pin_memory(), is_pinned(), DataLoader(pin_memory=True),
and non_blocking copies that return before the copy completes, ordered on the stream, where
the plugin offers pinned memory (devplug's pinned_host_memory extension). On the reference
plugin, which does not, the dispatcher's page-locked memory is used and copies complete before
they return."""

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

import torch_devplug

# Plugins whose pinned memory is their own (pinned_host_memory extension): copies with it run
# while the host goes on.
ASYNC_PLUGINS = {"opencl", "level_zero", "gpu_emulated", "cuda", "hip"}


def plugin_of(device):
    return torch_devplug.devices()[torch.device(device).index]["plugin"]


@pytest.fixture
def on_device(device):
    """Makes `device` current, so pinned memory is made for it."""
    with torch.devplug.device(device):
        yield device


def test_pin_memory_and_is_pinned(on_device):
    x = torch.arange(1000, dtype=torch.float32)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    assert p.device.type == "cpu" and torch.equal(p, x)
    assert p[10:20].is_pinned()  # a view of pinned memory is pinned
    assert torch.empty(0).pin_memory().numel() == 0
    assert not torch.ones(3, device=on_device).cpu().is_pinned()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.bool])
def test_non_blocking_round_trips_are_exact(on_device, dtype):
    x = (torch.arange(-5000, 5000) % 7).to(dtype)
    y = x.pin_memory().to(on_device, non_blocking=True)
    back = torch.empty_like(x).pin_memory()
    back.copy_(y, non_blocking=True)
    torch.devplug.synchronize(on_device)
    assert torch.equal(back, x)


def test_copies_return_before_completion_and_the_stream_orders_them(on_device):
    """A device-to-host copy enqueued behind a long computation: right after non_blocking
    returns the destination still holds its old values (asynchronous plugins), and after
    synchronize it holds the result; a host-to-device copy is seen by the next op on the
    stream."""
    a = torch.randn(384, 384, device=on_device)
    torch.devplug.synchronize(on_device)
    out = torch.full((384, 384), -7.0).pin_memory()
    b = a
    for _ in range(4):
        b = b @ a
    out.copy_(b, non_blocking=True)
    returned_early = out[-1, -1].item() == -7.0
    torch.devplug.synchronize(on_device)
    torch.testing.assert_close(out, b.cpu())
    assert returned_early == (plugin_of(on_device) in ASYNC_PLUGINS)
    # Host to device, then an op on the same stream: it sees the copied values.
    src = torch.arange(1 << 18, dtype=torch.float32).pin_memory()
    y = torch.empty(1 << 18, device=on_device)
    y.copy_(src, non_blocking=True)
    assert (y * 2).sum().item() == float(src.sum().item() * 2)


def test_freeing_pinned_memory_waits_for_its_copies(on_device):
    """The pinned block is freed while its copy may still read it: the allocator waits for the
    event the copy recorded, so the device gets the right bytes."""
    y = torch.empty(1 << 20, device=on_device)
    p = torch.arange(1 << 20, dtype=torch.float32).pin_memory()
    y.copy_(p, non_blocking=True)
    del p
    torch.devplug.synchronize(on_device)
    assert y[-1].item() == float((1 << 20) - 1)


def test_pageable_non_blocking_is_synchronous_and_exact(on_device):
    x = torch.randn(1000)
    y = x.to(on_device, non_blocking=True)
    x.zero_()  # pageable memory: the copy already happened
    assert not torch.equal(y.cpu(), x)


def test_dataloader_pins_batches(on_device):
    data = TensorDataset(torch.randn(64, 5), torch.arange(64))
    seen = 0
    for xb, yb in DataLoader(data, batch_size=16, pin_memory=True):
        assert xb.is_pinned() and yb.is_pinned()
        moved = xb.to(on_device, non_blocking=True)
        torch.testing.assert_close(moved.cpu(), xb, rtol=0, atol=0)
        seen += len(yb)
    assert seen == 64


def test_host_memory_statistics_count_pinned_bytes(on_device):
    before = torch.devplug.host_memory_stats()
    p = torch.empty(4096, dtype=torch.uint8).pin_memory()
    now = torch.devplug.host_memory_stats()
    assert now["allocated_bytes.current"] - before["allocated_bytes.current"] == 4096
    assert now["allocations.current"] - before["allocations.current"] == 1
    assert now["allocated_bytes.peak"] >= before["allocated_bytes.current"] + 4096
    del p
    after = torch.devplug.host_memory_stats()
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["allocated_bytes.freed"] - before["allocated_bytes.freed"] == 4096
