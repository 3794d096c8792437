# SPDX-License-Identifier: Apache-2.0
"""torch's profilers on devplug devices (csrc/profiler.cpp), and devplug's own trace merged
into torch's (torch_devplug.merge_trace)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

import torch_devplug

BIG = 128  # a matmul every plugin times in well under a second, far above a 4-element add


def plugin_of(device):
    return torch_devplug.devices()[torch.device(device).index]["plugin"]


def rows(prof, device_type):
    """key_averages() rows of one device type, by name."""
    return {e.key: e for e in prof.key_averages() if e.device_type == device_type}


def warm_inputs(device):
    """A big and a tiny operand, with both ops run once (kernel builds are not what is timed)."""
    a = torch.randn(BIG, BIG, device=device)
    s = torch.ones(4, device=device)
    (a @ a, s + s)
    torch.devplug.synchronize(device)
    return a, s


def test_profile_shows_devplug_ops_with_device_time(device):
    a, s = warm_inputs(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        for _ in range(5):
            a @ a
        for _ in range(5):
            s + s
        torch.empty(16, device=device)
        torch.devplug.synchronize(device)
    cpu, dev = rows(prof, DeviceType.CPU), rows(prof, DeviceType.PrivateUse1)
    plugin = plugin_of(device)
    # The ops' device work, as device rows named after the op and the plugin ...
    assert f"aten::mm ({plugin})" in dev and f"aten::add ({plugin})" in dev, sorted(dev)
    assert dev[f"aten::mm ({plugin})"].self_device_time_total > 0
    # ... and as the device time of the ops that launched it.
    mm, add = cpu["aten::mm"], cpu["aten::add"]
    assert mm.count == 5 and add.count == 5
    assert mm.self_device_time_total > 0
    assert cpu["aten::matmul"].device_time_total >= mm.device_time_total  # children included
    assert cpu["aten::matmul"].self_device_time_total < mm.self_device_time_total  # none of its own
    assert mm.device_time_total / mm.count > add.device_time_total / add.count, (mm, add)
    # No device work is charged to ops that do none (an allocation).
    assert cpu["aten::empty"].self_device_time_total == 0


def test_profile_times_backward_on_the_device_thread(device):
    w = torch.randn(BIG, BIG, device=device, requires_grad=True)
    x = torch.randn(BIG, BIG, device=device)
    (x @ w).sum().backward()
    torch.devplug.synchronize(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        (x @ w).sum().backward()
        torch.devplug.synchronize(device)
    cpu = rows(prof, DeviceType.CPU)
    assert cpu["MmBackward0"].device_time_total > 0, sorted(cpu)
    assert w.grad is not None


def test_profile_without_privateuse1_activity(device):
    a, _ = warm_inputs(device)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        b = a @ a
    assert "aten::mm" in rows(prof, DeviceType.CPU)
    assert rows(prof, DeviceType.PrivateUse1) == {}  # a CPU-only profile times nothing
    torch.testing.assert_close(b.cpu(), a.cpu() @ a.cpu(), rtol=1e-4, atol=1e-4)


def test_autograd_profiler_use_device_runs_the_profiler_stubs(device):
    # use_kineto=False (the default) is torch's KINETO_PRIVATEUSE1_FALLBACK: an event before
    # and after every op (ProfilerStubs) on the current device's current stream (torch's
    # stubs say nothing of the op), each op's device time its children's included.
    a, _ = warm_inputs(device)
    with torch.devplug.device(device), torch.autograd.profiler.profile(use_device="devplug") as prof:
        for _ in range(3):
            a @ a
        torch.devplug.synchronize(device)
    assert str(prof.profiler_kind).endswith("KINETO_PRIVATEUSE1_FALLBACK")
    mm = [e for e in prof.function_events if e.name == "aten::mm"]
    assert len(mm) == 3 and sum(e.device_time_total for e in mm) > 0, [e.device_time_total for e in mm]


def test_chrome_trace_has_device_rows_linked_to_the_ops(device, tmp_path):
    a, _ = warm_inputs(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        for _ in range(3):
            a @ a
        torch.devplug.synchronize(device)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    window = next(e for e in events if e.get("cat") == "Trace")
    ops = {e["args"]["External id"]: e for e in events if e.get("cat") == "cpu_op" and e["name"] == "aten::mm"}
    kernels = [e for e in events if e.get("cat") == "kernel"]
    index = torch.device(device).index
    assert kernels and all(k["pid"] == index for k in kernels)
    for k in kernels:
        op = ops[k["args"]["External id"]]
        # A device stretch starts once its op asked for it and ends inside the profile, as far
        # as the device's clock is known on the host's (a loaded host wakes late from the
        # waits that place it): the row says how far that is.
        slack_us = k["args"]["clock uncertainty ns"] / 1000
        assert 0 <= slack_us < 50_000, k
        assert op["ts"] <= k["ts"], (op, k)
        assert k["ts"] + k["dur"] <= window["ts"] + window["dur"] + slack_us, (op, k, window)
    assert {"unix_ns", "steady_ns"} <= set(trace["devplugClock"])


# The profiled process for the merge test: a distinctive op before the profile ([33]), the
# profiled matmuls ([48,48]), torch's trace exported, then devplug's written while it runs.
PROFILED = textwrap.dedent("""
    import sys, torch, torch_devplug
    from torch.profiler import ProfilerActivity, profile
    device, torch_trace = sys.argv[1], sys.argv[2]
    before = torch.full((33,), 2.0, device=device) + 1
    a = torch.randn(48, 48, device=device)
    torch.devplug.synchronize(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        for _ in range(4):
            b = a @ a
        torch.devplug.synchronize(device)
    prof.export_chrome_trace(torch_trace)
    assert torch_devplug.write_trace()
""")


@pytest.fixture
def profiled_traces(device, tmp_path):
    """torch's and devplug's traces of PROFILED run in a subprocess on `device`."""
    torch_trace, devplug_trace = tmp_path / "torch.json", tmp_path / "devplug.json"
    env = dict(os.environ, DEVPLUG_TRACE=str(devplug_trace))
    run = subprocess.run([sys.executable, "-c", PROFILED, device, str(torch_trace)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    assert devplug_trace.exists(), "devplug wrote no trace:\n" + run.stderr[-4000:]
    return torch_trace, devplug_trace


@pytest.mark.parametrize("clock", ["recorded", "measured"])
def test_merge_trace_puts_devplug_ops_in_the_profiled_window(device, tmp_path, profiled_traces, clock):
    torch_trace, devplug_trace = profiled_traces
    if clock == "measured":  # a trace without the session's clock pair: read when merging
        stripped = json.loads(torch_trace.read_text())
        del stripped["devplugClock"]
        torch_trace = tmp_path / "torch_stripped.json"
        torch_trace.write_text(json.dumps(stripped))
    out = tmp_path / "merged.json"
    summary = torch_devplug.merge_trace(torch_trace, devplug_trace, out)
    assert summary["clock"] == ("recorded by the profiled process" if clock == "recorded" else "measured when merging")

    events = json.loads(out.read_text())["traceEvents"]  # valid JSON
    window = next(e for e in events if e.get("cat") == "Trace")
    start, end = window["ts"], window["ts"] + window["dur"]
    cpu_mm = [e for e in events if e.get("cat") == "cpu_op" and e["name"] == "aten::mm"]
    ours = [e for e in events if e.get("cat") == "devplug_op"]
    assert len(cpu_mm) == 4 and summary["events"] == len(ours) > 0
    assert all(e["pid"] == summary["pid"] for e in ours)
    assert any(e.get("name") == "process_name" and e["pid"] == summary["pid"] for e in events)

    matmuls = [e for e in ours if e["args"]["shapes"] == "[48,48] [48,48] -> [48,48]"]
    assert len(matmuls) == 4, [(e["name"], e["args"]["shapes"]) for e in ours]
    slack = 1000.0  # us: clock alignment, beyond what the profiled process's pair gives
    for m in matmuls:
        assert start <= m["ts"] and m["ts"] + m["dur"] <= end, (m, window)
        # Each devplug matmul runs inside the aten::mm that called it.
        assert any(op["ts"] - slack <= m["ts"] and m["ts"] + m["dur"] <= op["ts"] + op["dur"] + slack
                   for op in cpu_mm), (m, cpu_mm)
    before = [e for e in ours if e["args"]["shapes"].startswith("[33]")]
    assert before and all(e["ts"] + e["dur"] <= start for e in before), (before, window)
