# SPDX-License-Identifier: Apache-2.0
"""Fixtures of torch_devplug's tests.

The plugins under test are decided in one place, here: every plugin that has a device in
this process (devplug's own discovery: the build tree's plugin folder, DEVPLUG_PLUGIN_PATH),
optionally narrowed by TORCH_DEVPLUG_TEST_PLUGINS=opencl,reference. A test that takes the
`device` fixture runs once per such plugin, on that plugin's first device; `devices` gives
them all (for cross-plugin tests).

A test marked `@pytest.mark.on_plugins("reference", ...)` is one whose device-specific part
the others cover (the same ops in other arrangements), and runs only on those plugins; on
the first plugin under test when none of them is. TORCH_DEVPLUG_TEST_EVERY_PLUGIN=1 runs it
on every plugin. pytest reports the rest as deselected.
"""

import os

import pytest
import torch

import torch_devplug


def plugin_devices() -> dict:
    """{plugin name: "devplug:<index>"} of the first device of every plugin under test."""
    wanted = [p for p in os.environ.get("TORCH_DEVPLUG_TEST_PLUGINS", "").split(",") if p]
    found = {}
    for d in torch_devplug.devices():
        if d["plugin"] not in found and (not wanted or d["plugin"] in wanted):
            found[d["plugin"]] = f"devplug:{d['index']}"
    return found


PLUGIN_DEVICES = plugin_devices()


EVERY_PLUGIN = os.environ.get("TORCH_DEVPLUG_TEST_EVERY_PLUGIN") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "on_plugins(*plugins): run the test only on these plugins "
                            "(conftest.py; TORCH_DEVPLUG_TEST_EVERY_PLUGIN=1 runs it on all)")


def pytest_collection_modifyitems(config, items):
    if EVERY_PLUGIN or not PLUGIN_DEVICES:
        return
    plugin_of = {d: p for p, d in PLUGIN_DEVICES.items()}
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("on_plugins")
        device = getattr(item, "callspec", None) and item.callspec.params.get("device")
        if marker is None or device is None:
            kept.append(item)
            continue
        chosen = [p for p in marker.args if p in PLUGIN_DEVICES] or [next(iter(PLUGIN_DEVICES))]
        (kept if plugin_of[device] in chosen else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_report_header(config):
    if not PLUGIN_DEVICES:
        return "torch_devplug: no devplug device (every device test is skipped)"
    return "torch_devplug: " + ", ".join(f"{p} on {d}" for p, d in PLUGIN_DEVICES.items())


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        if PLUGIN_DEVICES:
            metafunc.parametrize("device", list(PLUGIN_DEVICES.values()), ids=list(PLUGIN_DEVICES.keys()))
        else:
            metafunc.parametrize("device", [pytest.param(None, marks=pytest.mark.skip("no devplug device"))])


@pytest.fixture
def devices():
    """Every plugin's first device, {plugin: device}; skips with fewer than two plugins."""
    if len(PLUGIN_DEVICES) < 2:
        pytest.skip("needs devices of two plugins")
    return dict(PLUGIN_DEVICES)


@pytest.fixture
def no_fallback():
    """Asserts the test ran entirely on devplug devices: no aten op on torch's CPU fallback
    and no devplug prim on devplug's own CPU fallback."""
    torch_devplug.reset_fallback_report()
    before = torch_devplug.fallback_report()["devplug"]
    yield
    report = torch_devplug.fallback_report()
    assert report["torch"] == {}, f"aten ops ran on the CPU fallback: {report['torch']}"
    grown = {op: n - before.get(op, 0) for op, n in report["devplug"].items() if n != before.get(op, 0)}
    assert grown == {}, f"devplug prims ran on devplug's CPU fallback: {grown}"
