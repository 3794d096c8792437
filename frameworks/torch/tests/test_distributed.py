# SPDX-License-Identifier: Apache-2.0
"""torch.distributed on devplug devices: the `devplug` c10d backend (Gloo underneath, devplug
tensors staged through pinned host memory, or the plugin's own collectives where it offers
them: the emulated GPU), with 2 and 4 ranks started by
torch.multiprocessing's spawn context over a TCPStore on 127.0.0.1 (dist_scenarios.py holds
the ranks' side).

- every collective on every dtype the device claims, values checked against the CPU;
- the three ways to make a group on a machine with devplug devices;
- misuse raises on the ranks within the timeout (never a hang, never an abort, never a
  tensor half written);
- DDP (bucketing, no_sync, find_unused_parameters, static_graph) of an MLP and a transformer
  equals one process on the global batch within 1e-5 relative;
- the same DDP across two network namespaces joined by a veth pair (needs root and `ip`).

What depends on the device (its copies to and from pinned host memory, the dtypes it claims,
the ops DDP and FSDP run) is checked on every plugin: every collective on every dtype on 2
ranks, a mismatched recv, DDP of both models and FSDP2. The cases above the device (4 ranks,
group construction, misuse that c10d catches, the DDP modes, namespaces) run on the reference
plugin only (conftest.py's on_plugins; TORCH_DEVPLUG_TEST_EVERY_PLUGIN=1 runs them on all):
each case spawns its ranks afresh, and on all four plugins they took 606 s in scripts/run-tests
on a 2-core machine.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest
import torch
import torch_devplug

import dist_scenarios

EVERY_COLLECTIVE = sorted(
    ["all_reduce." + op for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR")] +
    ["strided", "all_reduce_coalesced", "async", "future", "broadcast", "reduce", "all_gather",
     "all_gather_into_tensor", "reduce_scatter_tensor", "reduce_scatter", "all_to_all_single", "all_to_all",
     "gather", "scatter", "send/recv", "isend/irecv", "batch_isend_irecv", "barrier", "monitored_barrier",
     "all_gather_object"])


def plugin_of(device):
    return torch_devplug.devices()[int(device.split(":")[1])]["plugin"]


def run(tmp_path, scenario, world, device, **kwargs):
    return dist_scenarios.launch(scenario, world, plugin_of(device), tmp_path, **kwargs)


def ok(results):
    for code, report in results:
        assert code == 0, f"rank {report.get('rank')} failed: {report.get('traceback') or report.get('error')}"
    return [report["result"] for _, report in results]


ABOVE_THE_DEVICE = pytest.mark.on_plugins("reference")


@pytest.mark.parametrize("world", [2, pytest.param(4, marks=ABOVE_THE_DEVICE)])
def test_every_collective_on_every_dtype(tmp_path, device, world):
    results = ok(run(tmp_path, "collectives", world, device))
    claimed = [str(d) for d in torch_devplug.devices()[int(device.split(":")[1])]["dtypes"]]
    # The emulated GPU offers the collectives extension: its tensors' collectives that the
    # native path takes go to its communicator; the other plugins stage everything.
    native = [0] if plugin_of(device) == "gpu_emulated" else []
    for result in results:
        assert result["checked"] == EVERY_COLLECTIVE
        assert result["dtypes"] == claimed and len(claimed) == 10
        assert result["backend"] == "devplug" and result["devplug_backend"] == "_DistributedBackend"
        assert result["native_devices"] == native


@ABOVE_THE_DEVICE
def test_group_without_a_backend_name_uses_devplug(tmp_path, device):
    # init_process_group() on a machine whose accelerator is devplug: the devplug backend,
    # for devplug tensors (as NCCL serves only CUDA tensors in that case).
    for result in ok(run(tmp_path, "collectives", 2, device, backend=None)):
        assert result["backend"] == "undefined" and result["devplug_backend"] == "_DistributedBackend"
        assert set(EVERY_COLLECTIVE) - set(result["checked"]) == {"monitored_barrier"}


@ABOVE_THE_DEVICE
def test_cpu_gloo_and_devplug_in_one_group(tmp_path, device):
    for result in ok(run(tmp_path, "cpu_and_device", 2, device, backend="cpu:gloo,devplug:devplug")):
        assert result == {"backend": "cpu:gloo,devplug:devplug", "cpu": "ProcessGroupGloo",
                          "devplug": "_DistributedBackend"}


@ABOVE_THE_DEVICE
@pytest.mark.parametrize("scenario,what", [("shape_mismatch", "4 elements"), ("dtype_mismatch", "of Int")])
def test_mismatched_collective_raises_on_every_rank(tmp_path, device, scenario, what):
    for code, report in run(tmp_path, scenario, 2, device, timeout_s=20):
        assert code == 1, report
        assert report["error"].startswith("ValueError: devplug: the ranks called different collectives"), report
        assert what in report["error"]


def test_mismatched_recv_raises_and_leaves_the_tensor(tmp_path, device):
    sender, receiver = ok(run(tmp_path, "recv_mismatch", 2, device))
    assert sender == {"raised": None, "after": [2.0, 2.0]}
    assert receiver["raised"].startswith("ValueError: devplug: recv from rank 0 got 4 elements of Float into a "
                                         "tensor of 3 elements"), receiver
    assert receiver["after"] == [2.0, 2.0]


@ABOVE_THE_DEVICE
def test_dead_peer_raises_on_the_survivor(tmp_path, device):
    (code0, survivor), (code1, dead) = run(tmp_path, "dead_peer", 2, device, timeout_s=20)
    assert code1 == 3 and code0 == 0, (survivor, dead)
    result = survivor["result"]
    assert result["raised"] and result["after_s"] < 20 and result["tensor_intact"], result


@pytest.mark.on_plugins("gpu_emulated")
def test_dead_peer_fails_the_collective_on_the_survivor(tmp_path, device, monkeypatch):
    # Without the agreement's Gloo round trip, the collective itself meets the dead peer: the
    # emulated GPU's collectives library (native path) or Gloo (staged) raises within seconds.
    monkeypatch.setenv("TORCH_DEVPLUG_DIST_CHECK", "0")
    (code0, survivor), (code1, dead) = run(tmp_path, "dead_peer_after_first", 2, device, timeout_s=20)
    assert code1 == 3 and code0 == 0, (survivor, dead)
    result = survivor["result"]
    assert result["raised"] and result["after_s"] < 20, result
    if plugin_of(device) == "gpu_emulated":
        assert result["native_devices"] == [0]
        assert "rank 1" in result["raised"] and "exited" in result["raised"], result


@ABOVE_THE_DEVICE
def test_wrong_reduce_op_is_a_clear_error(tmp_path, device):
    for result in ok(run(tmp_path, "bad_reduce_op", 2, device)):
        assert result["errors"] == {
            "BAND": "ValueError: devplug: cannot use ReduceOp.BAND with the non-integral dtype Float",
            "AVG": "ValueError: devplug: ReduceOp.AVG of bool tensors has no meaning; use MAX (any) or MIN (all)"}
        assert result["after"] == [2.0, 2.0]


DDP_CASES = [("mlp", "plain", 2), ("mlp", "no_sync", 2), ("mlp", "find_unused", 2), ("mlp", "static_graph", 2),
             ("mlp", "plain", 4), ("transformer", "plain", 2), ("transformer", "plain", 4)]
DDP_ON_EVERY_PLUGIN = {("mlp", "plain", 2), ("transformer", "plain", 2)}


@pytest.mark.parametrize("model,mode,world", [
    pytest.param(*case, id="-".join(map(str, case)), marks=() if case in DDP_ON_EVERY_PLUGIN else ABOVE_THE_DEVICE)
    for case in DDP_CASES])
def test_ddp_equals_one_process_on_the_global_batch(tmp_path, device, model, mode, world):
    results = ok(run(tmp_path, "ddp", world, device, model=model, mode=mode))
    for result in results:
        assert result["worst_relative"] <= 1e-5
        # DDP's runtime statistics, from devplug's c10d timer.
        assert all(ns > 0 for ns in result["timing"].values()), result["timing"]
    print(f"\nDDP {model} {mode} x{world} on {plugin_of(device)}: median step "
          f"{max(r['step_ms'] for r in results):.1f} ms, worst relative difference "
          f"{max(r['worst_relative'] for r in results):.2g}")


class Namespaces:
    """Two network namespaces joined by a veth pair, end i in namespace i with address
    addrs[i], ends and loopback up. Each namespace is held by a process (`unshare --net sleep`):
    no /run/netns mount is made, and closing kills the holders, which takes the namespaces and
    the veth pair with them. `error` is None, or the step that failed and its message."""

    def __init__(self, veth, addrs):
        self.holders, self.error = [], None
        for _ in range(2):
            self.holders.append(subprocess.Popen(["unshare", "--net", "sleep", "600"]))
        own = os.readlink("/proc/self/ns/net")
        deadline = time.monotonic() + 10
        for h in self.holders:  # until the holder has unshared (its namespace differs from ours)
            while True:
                try:
                    if os.readlink(f"/proc/{h.pid}/ns/net") != own:
                        break
                except OSError:
                    pass
                if h.poll() is not None or time.monotonic() > deadline:
                    self.error = f"unshare --net: exited {h.poll()}" if h.poll() is not None else "unshare --net: no namespace"
                    return
                time.sleep(0.01)
        steps = [["ip", "link", "add", veth[0], "type", "veth", "peer", "name", veth[1]]]
        for h, v, a in zip(self.holders, veth, addrs):
            steps += [["ip", "link", "set", v, "netns", str(h.pid)], self.run_in(h, "ip", "addr", "add", f"{a}/24", "dev", v),
                      self.run_in(h, "ip", "link", "set", v, "up"), self.run_in(h, "ip", "link", "set", "lo", "up")]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                self.error = f"{' '.join(step)}: {(done.stderr or done.stdout).strip()}"
                subprocess.run(["ip", "link", "del", veth[0]], capture_output=True)  # if it is still here
                return

    @staticmethod
    def run_in(holder, *cmd):
        """`cmd` run in `holder`'s network namespace (nsenter switches only that)."""
        return ["nsenter", f"--net=/proc/{holder.pid}/ns/net", *cmd]

    def close(self):
        for h in self.holders:
            h.kill()
            h.wait()


def netns_unavailable():
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "nsenter", "unshare"):
        if shutil.which(tool) is None:
            return f"needs `{tool}` (iproute2, util-linux)"
    # The test's own setup, with names of its own.
    tag = uuid.uuid4().hex[:6]
    probe = Namespaces([f"vqa{tag}", f"vqb{tag}"], ["10.78.0.1", "10.78.0.2"])
    probe.close()
    return f"cannot link two network namespaces here ({probe.error})" if probe.error else None


@ABOVE_THE_DEVICE
def test_ddp_across_two_network_namespaces(tmp_path, device):
    """Two 'machines' on one: namespaces A (10.77.0.1) and B (10.77.0.2) joined by a veth pair;
    the store on A. Each rank runs in its own namespace and reaches the other only through
    the veth link."""
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    tag = uuid.uuid4().hex[:6]
    veth = [f"va{tag}", f"vb{tag}"]
    addrs = ["10.77.0.1", "10.77.0.2"]
    spaces = Namespaces(veth, addrs)
    try:
        assert spaces.error is None, spaces.error
        # Gloo binds to the veth end of its namespace.
        envs = [dict(os.environ, TORCH_DEVPLUG_PLUGINS=plugin_of(device), GLOO_SOCKET_IFNAME=v) for v in veth]
        options = json.dumps({"model": "mlp", "mode": "plain"})
        init = f"tcp://{addrs[0]}:29400"
        procs = [subprocess.Popen(Namespaces.run_in(h, sys.executable, dist_scenarios.__file__, "ddp", str(r), "2",
                                                    init, str(tmp_path), options),
                                  env=envs[r], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for r, h in enumerate(spaces.holders)]
        outputs = []
        for p in procs:
            try:
                outputs.append(p.communicate(timeout=240)[0])
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise AssertionError("DDP across namespaces hung") from None
        for r, p in enumerate(procs):
            report = json.load(open(tmp_path / f"rank{r}.json"))
            assert p.returncode == 0, f"rank {r}: {report.get('traceback')}\n{outputs[r]}"
            assert report["result"]["worst_relative"] <= 1e-5
    finally:
        spaces.close()


def test_fsdp2_and_distributed_checkpoint(tmp_path, device):
    """FSDP2 (fully_shard per layer and whole) of the transformer on 2 ranks equals one process
    on the global batch; torch.distributed.checkpoint saves the sharded state and loads it
    into a fresh sharded model, equal."""
    for result in ok(run(tmp_path, "fsdp", 2, device, checkpoint_dir=str(tmp_path / "checkpoint"))):
        assert result["sharded_as"] == "DTensor" and result["checkpoint"] == "loaded equal"
        assert result["worst_relative"] <= 1e-5
