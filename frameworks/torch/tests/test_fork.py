# SPDX-License-Identifier: Apache-2.0
"""Fork and multiprocessing on each devplug plugin.

A child forked after the parent used devplug must get a clear error on its first device use
(never the hang that the OpenCL, Level Zero and emulated GPU drivers give) and exit cleanly,
freeing nothing it inherited; a child forked before that uses devices normally; DataLoader
workers forked from a process that uses a device work as long as they do not touch it; a
devplug tensor sent to a spawned process is a clear error. Each scenario runs as a script in
its own Python with a timeout, so a hang fails the test instead of hanging the suite; the
script runs on the plugin under test alone (TORCH_DEVPLUG_PLUGINS), as devplug:0.
"""

import os
import signal
import subprocess
import sys
import textwrap

import torch_devplug

TIMEOUT_S = 180  # the script's whole run: imports, plugin loads and kernel builds included
FORK_ERROR = "cannot use devplug devices in a forked subprocess"


def run_script(tmp_path, device, body):
    """Runs `body` (after a prologue that imports torch and sets DEV) as a file in a fresh
    Python on `device`'s plugin only; returns the CompletedProcess. A file, not -c: the spawn
    start method imports the main module again in the child."""
    plugin = torch_devplug.devices()[int(device.split(":")[1])]["plugin"]
    script = tmp_path / "scenario.py"
    script.write_text("import gc, os, sys\nimport torch\nimport torch_devplug\nDEV = 'devplug:0'\n" +
                      textwrap.dedent(body))
    env = dict(os.environ, TORCH_DEVPLUG_PLUGINS=plugin)
    # Its own process group, so that a hung forked child, which holds the output pipes open,
    # is killed with it (subprocess.run's timeout would then wait for those pipes forever).
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=tmp_path, start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise AssertionError(f"the scenario hung (no exit in {TIMEOUT_S} s); its output:\n"
                                 f"{stdout}\n{stderr}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def assert_ok(result):
    assert result.returncode == 0 and result.stdout.rstrip().endswith("DONE"), (
        f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")


# The child reports on stdout and leaves with a normal interpreter exit (not os._exit), so
# that the inherited tensor, model and event are freed by the garbage collector and at
# finalization, as in a real program; the parent reports the child's exit status.
FORK_AFTER_USE = """
x = torch.arange(1000.0, device=DEV)
model = torch.nn.Linear(8, 4).to(DEV)
out = model(torch.randn(3, 8, device=DEV))
event = torch.Event(device=DEV)
event.record()
torch.devplug.synchronize()
count = torch.devplug.device_count()
pid = os.fork()
if pid == 0:
    print("child bad_fork", torch.devplug._is_in_bad_fork(), "initialized", torch.devplug.is_initialized(),
          "count as parent's", torch.devplug.device_count() == count, flush=True)
    for what, use in [("new tensor", lambda: torch.ones(4, device=DEV)),
                      ("inherited tensor", lambda: x.cpu()),
                      ("synchronize", lambda: torch.devplug.synchronize()),
                      ("generator", lambda: torch.devplug.default_generator(0).initial_seed())]:
        try:
            use()
            print("child", what, "worked", flush=True)
        except RuntimeError as e:
            print("child", what, "error:", e, flush=True)
    del x, model, out, event
    gc.collect()
    a = torch.randn(4, requires_grad=True)      # the CPU still works in the child
    (a * a).sum().backward()
    torch.manual_seed(1)                          # skips devplug's generators in a bad fork
    print("child cpu ok", flush=True)
    sys.exit(0)
_, status = os.waitpid(pid, 0)
print("child exit", os.waitstatus_to_exitcode(status))
assert not torch.devplug._is_in_bad_fork() and torch.devplug.is_initialized()
assert (x + 1).sum().item() == 500500.0          # the parent's device still works
print("DONE")
"""


def test_fork_after_use_is_a_clear_error(tmp_path, device):
    result = run_script(tmp_path, device, FORK_AFTER_USE)
    assert_ok(result)
    out = result.stdout
    assert "child bad_fork True initialized False count as parent's True" in out, out
    for what in ["new tensor", "inherited tensor", "synchronize", "generator"]:
        assert f"child {what} error: devplug: {FORK_ERROR}" in out, out
    assert "set_start_method('spawn')" in out, out
    assert "child cpu ok" in out and "child exit 0" in out, out


def test_fork_before_use_works(tmp_path, device):
    result = run_script(tmp_path, device, """
    pid = os.fork()
    if pid == 0:
        assert not torch.devplug._is_in_bad_fork() and not torch.devplug.is_initialized()
        y = (torch.arange(4.0, device=DEV) * 2).sum().item()
        print("child", y, torch.devplug.is_initialized(), flush=True)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    print("child exit", os.waitstatus_to_exitcode(status))
    print("parent", (torch.arange(4.0, device=DEV) + 1).sum().item())
    print("DONE")
    """)
    assert_ok(result)
    assert "child 12.0 True" in result.stdout and "child exit 0" in result.stdout, result.stdout
    assert "parent 10.0" in result.stdout, result.stdout


DATALOADER = """
class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 24

    def __getitem__(self, i):
        if TOUCH_DEVICE:
            torch.ones(1, device=DEV)
        return torch.full((3,), float(i)) ** 2, torch.devplug._is_in_bad_fork()

model = torch.nn.Linear(3, 1).to(DEV)            # the parent initializes devplug first
loader = torch.utils.data.DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context="fork")
total = torch.zeros((), device=DEV)
flags = set()
for batch, bad_fork in loader:
    total += batch.to(DEV).sum()
    flags.update(bad_fork.tolist())
    model(batch.to(DEV))
print("total", total.item(), "workers in bad fork", flags)
print("DONE")
"""


def test_dataloader_fork_workers_with_device_in_parent(tmp_path, device):
    result = run_script(tmp_path, device, "TOUCH_DEVICE = False\n" + DATALOADER)
    assert_ok(result)
    assert f"total {3 * sum(i * i for i in range(24))}.0 workers in bad fork {{True}}" in result.stdout, \
        result.stdout


def test_dataloader_fork_worker_touching_the_device_is_a_clear_error(tmp_path, device):
    result = run_script(tmp_path, device, "TOUCH_DEVICE = True\n" + DATALOADER)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DataLoader worker process" in result.stderr and FORK_ERROR in result.stderr, result.stderr


# Plugins whose devices lend host memory to the device (the host_memory_import extension), so
# torch.multiprocessing shares their tensors; on the others sending one is a clear error.
SHARES_HOST_MEMORY = {"reference", "level_zero"}


def test_spawn_shares_a_devplug_tensor_or_refuses_it_clearly(tmp_path, device):
    plugin = torch_devplug.devices()[int(device.split(":")[1])]["plugin"]
    if plugin not in SHARES_HOST_MEMORY:
        return spawn_with_a_devplug_tensor_is_a_clear_error(tmp_path, device)
    result = run_script(tmp_path, device, """
    import torch.multiprocessing as mp

    def child(x, view, results, back, received):
        print("child storages shared:", view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
              flush=True)
        x.add_(10)     # device work in the shared memory
        view.mul_(2)   # elements 2..5 of x
        y = torch.full((3,), 7.0, device=DEV)
        back.put(y)    # made here, sent from the Queue's feeder thread
        received.wait(120)  # the sender of shared memory outlives its receipt
        y.add_(1)      # seen by the parent too
        results.put((x.device.type, x.sum().item()))

    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        x = torch.arange(6.0, device=DEV)
        view = x[2:]
        results, back, received = ctx.SimpleQueue(), ctx.Queue(), ctx.Event()
        p = ctx.Process(target=child, args=(x, view, results, back, received))
        p.start()
        y = back.get(timeout=120)
        received.set()
        print("child result", results.get())
        p.join(120)
        print("exit", p.exitcode)
        print("x", x.device.type, x.tolist())
        print("y", y.device, y.tolist())
        # The parent's tensor stays a device tensor that computes as before.
        print("x+1", (x + 1).sum().item())
        del x, view, y
        gc.collect()
        print("DONE")
    """)
    assert_ok(result)
    out = result.stdout
    assert "child storages shared: True" in out, out
    assert "child result ('devplug', 129.0)" in out, out
    assert "exit 0" in out, out
    assert "x devplug [10.0, 11.0, 24.0, 26.0, 28.0, 30.0]" in out, out
    assert "y devplug:0 [8.0, 8.0, 8.0]" in out, out
    assert "x+1 135.0" in out, out


def spawn_with_a_devplug_tensor_is_a_clear_error(tmp_path, device):
    result = run_script(tmp_path, device, """
    import torch.multiprocessing as mp

    def double_on_device(t, results):
        results.put((t.to(DEV) * 2).sum().item())

    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        x = torch.arange(4.0, device=DEV)
        results = ctx.SimpleQueue()
        try:
            ctx.Process(target=double_on_device, args=(x, results)).start()
            print("sent")
        except RuntimeError as e:
            print("error:", e)
        try:
            results.put(x)
            print("put")
        except RuntimeError as e:
            print("put error:", e)
        # What to do instead: send it through the CPU; the spawned child uses its device.
        p = ctx.Process(target=double_on_device, args=(x.cpu(), results))
        p.start()
        p.join(120)
        print("spawned child", p.exitcode, results.get())
        print("DONE")
    """)
    assert_ok(result)
    lines = result.stdout.splitlines()
    for prefix in ["error:", "put error:"]:
        line = next((text for text in lines if text.startswith(prefix)), "")
        assert "cannot be sent to another process" in line and "Move it to the CPU first" in line, result.stdout
    assert "spawned child 0 12.0" in result.stdout, result.stdout
