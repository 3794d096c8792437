# SPDX-License-Identifier: Apache-2.0
"""`pip install --no-build-isolation frameworks/torch` against an installed devplug, the way
docs/torch.md tells users to install the package outside a devplug checkout.

devplug's build (DEVPLUG_BUILD_DIR) is installed with `cmake --install` into a temporary
prefix; the build backend (scikit-build-core, from setup-venv's wheel cache, offline) and then
torch_devplug are installed with the checkout's pip into temporary target folders, so the
checkout's .venv is never modified; a fresh Python whose path holds only that target folder
then imports torch (which autoloads the installed package), finds the installed plugins with no
environment, and trains a step on the device. It proves the package's CMake build against
find_package(devplug), its rpath, its entry point and the install's plugin discovery.
"""

import glob
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

SOURCE = pathlib.Path(__file__).resolve().parents[1]
BUILD_REQUIREMENTS = SOURCE / "build-requirements.txt"

# Run in the fresh Python: everything must come from the temporary prefix and target.
CHECK = textwrap.dedent("""
    import sys, torch
    import torch_devplug
    target, prefix = sys.argv[1], sys.argv[2]
    assert torch_devplug.__file__.startswith(target), torch_devplug.__file__
    assert torch.devplug.device_count() > 0, "no devplug device"
    libs = {line.split()[-1] for line in open("/proc/self/maps") if "/libdevplug" in line}
    assert libs and all(lib.startswith(prefix) for lib in libs), f"devplug libraries not from the install: {libs}"
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3)).to("devplug")
    x, y = torch.randn(4, 8, device="devplug"), torch.tensor([0, 1, 2, 1], device="devplug")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    assert torch.isfinite(loss).item() and model[0].weight.grad is not None
    plugins = sorted({d["plugin"] for d in torch.devplug.devices()})
    print("installed torch_devplug runs on", plugins, "loss", round(loss.item(), 4))
    """)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, (f"{' '.join(map(str, command))} failed ({result.returncode}):\n"
                                    f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def requirement(name):
    for line in BUILD_REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith(name + "=="):
            return line.split("==")[1]
    raise AssertionError(f"{BUILD_REQUIREMENTS} pins no {name}")


def test_pip_install_against_installed_devplug(tmp_path):
    build = os.environ.get("DEVPLUG_BUILD_DIR")
    assert build, "DEVPLUG_BUILD_DIR (devplug's build tree) is not set; ctest sets it"
    wheels = os.environ.get("TORCH_DEVPLUG_WHEELS", os.path.expanduser("~/.cache/torch_devplug/wheels"))
    version = requirement("scikit-build-core")
    assert glob.glob(os.path.join(wheels, f"scikit_build_core-{version}-*.whl")), (
        f"no scikit-build-core {version} wheel in {wheels}: frameworks/torch/setup-venv fetches it")

    prefix, backend, target = tmp_path / "prefix", tmp_path / "backend", tmp_path / "target"
    try:
        run(["cmake", "--install", build, "--prefix", prefix])
        clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DEVPLUG_PLUGIN_PATH")}
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "--quiet", "--no-cache-dir"]
        run(pip + ["--no-index", "--find-links", wheels, "--target", backend, "-r", BUILD_REQUIREMENTS], env=clean)
        # Built without optimization: this test proves the package's build, install and
        # discovery, not its code generation (the in-tree build's tests run the optimized
        # extension), and -O0 takes the test from 228 s to 186 s on an idle 2-core machine.
        unoptimized = ["--config-settings=cmake.build-type=Debug",
                       "--config-settings=cmake.define.CMAKE_CXX_FLAGS_DEBUG=-O0"]
        run(pip + ["--no-build-isolation", "--no-deps", *unoptimized, "--target", target, SOURCE],
            env={**clean, "PYTHONPATH": str(backend), "CMAKE_PREFIX_PATH": str(prefix)})
        result = run([sys.executable, "-c", CHECK, str(target), str(prefix)],
                     env={**clean, "PYTHONPATH": str(target)}, cwd=tmp_path)
        print("\n" + result.stdout.strip())
    finally:  # the install is about 160 MB; pytest would keep three runs of it
        for folder in (prefix, backend, target):
            shutil.rmtree(folder, ignore_errors=True)
