# SPDX-License-Identifier: Apache-2.0
"""Event timing on devplug devices: torch.Event(enable_timing=True).elapsed_time reads the
device's own timestamps (devplug's event_timestamps extension)."""

import time

import pytest
import torch


def timed(device, work):
    """The device time of `work`, between events recorded on `device`'s current stream."""
    stream = torch.devplug.current_stream(device)
    start = torch.Event(device=device, enable_timing=True)
    end = torch.Event(device=device, enable_timing=True)
    start.record(stream)
    work()
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end)


def test_elapsed_time_measures_the_work_between_the_events(device):
    a = torch.randn(256, 256, device=device)
    timed(device, lambda: a @ a)  # first use: kernel builds are not what is measured
    torch.devplug.synchronize(device)
    nothing = timed(device, lambda: None)
    host_start = time.perf_counter()
    work = timed(device, lambda: [a @ a for _ in range(20)])
    host_ms = (time.perf_counter() - host_start) * 1e3
    assert 0.0 <= nothing < work, (nothing, work)
    # The device cannot take longer than the host waited for it (plus clock slack).
    assert work <= host_ms * 1.05 + 1.0, (work, host_ms)


def test_events_on_two_streams_order_and_time(device):
    stream = torch.Stream(device=device)
    start = torch.Event(device=device, enable_timing=True)
    end = torch.Event(device=device, enable_timing=True)
    x = torch.ones(1000, device=device)
    start.record(torch.devplug.current_stream(device))
    with stream:
        stream.wait_event(start)
        y = x * 2
        end.record(stream)
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    assert y.sum().item() == 2000.0


def test_unrecorded_events_are_a_clear_error(device):
    start = torch.Event(device=device, enable_timing=True)
    end = torch.Event(device=device, enable_timing=True)
    start.record(torch.devplug.current_stream(device))
    with pytest.raises(ValueError, match="recorded"):
        start.elapsed_time(end)
