# SPDX-License-Identifier: Apache-2.0
"""The ranks' side of test_distributed.py: each scenario is a function run by every rank of a
process group, in processes started with torch.multiprocessing's spawn context, over a
TCPStore on 127.0.0.1.

`launch()` starts the ranks, waits for them with a deadline (and kills them past it, so a hung
collective fails the test instead of hanging it) and returns each rank's exit code and report
(a JSON file the rank writes). A scenario returns its report (anything JSON) or raises.
"""

import json
import os
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

DEV = "devplug:0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank_main(scenario, rank, world, init_method, backend, timeout_s, out_dir, options):
    report = {"rank": rank}
    code = 0
    try:
        import torch_devplug  # noqa: F401  (torch also autoloads it)

        kwargs = {} if backend is None else {"backend": backend}
        dist.init_process_group(init_method=init_method, rank=rank, world_size=world,
                                timeout=__import__("datetime").timedelta(seconds=timeout_s), **kwargs)
        report["result"] = SCENARIOS[scenario](rank, world, **options)
    except BaseException as e:  # noqa: BLE001  (the report says what happened)
        report["error"] = f"{type(e).__name__}: {e}"
        report["traceback"] = traceback.format_exc()
        code = 1
    finally:
        with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
            json.dump(report, f)
    # Leave without tearing the group down: a rank whose peer died may not get a clean
    # shutdown, and the report is written.
    sys.stdout.flush()
    os._exit(code)


def launch(scenario, world, plugin, out_dir, backend="devplug", timeout_s=30, deadline_s=240, **options):
    """Runs `scenario` on `world` ranks on `plugin`'s first device; returns [(exit code,
    report)] per rank. Fails (AssertionError) when a rank is still running after deadline_s."""
    env_before = os.environ.get("TORCH_DEVPLUG_PLUGINS")
    os.environ["TORCH_DEVPLUG_PLUGINS"] = plugin
    try:
        ctx = mp.get_context("spawn")
        port = free_port()
        init = f"tcp://127.0.0.1:{port}"
        procs = [ctx.Process(target=_rank_main, args=(scenario, r, world, init, backend, timeout_s, str(out_dir),
                                                      options)) for r in range(world)]
        for p in procs:
            p.start()
    finally:
        if env_before is None:
            del os.environ["TORCH_DEVPLUG_PLUGINS"]
        else:
            os.environ["TORCH_DEVPLUG_PLUGINS"] = env_before
    end = time.monotonic() + deadline_s
    for p in procs:
        p.join(max(0.0, end - time.monotonic()))
    hung = [r for r, p in enumerate(procs) if p.is_alive()]
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join()
    assert not hung, f"{scenario}: ranks {hung} still running after {deadline_s} s (a hang)"
    results = []
    for r, p in enumerate(procs):
        path = os.path.join(out_dir, f"rank{r}.json")
        report = json.load(open(path)) if os.path.exists(path) else {"error": "no report"}
        results.append((p.exitcode, report))
    return results


# ---------------------------------------------------------------------------------------------
# Collectives: every collective on every dtype the device claims, against values computed on
# the CPU from what each rank contributed.

FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def device_dtypes():
    import torch_devplug

    return [d for d in torch_devplug.devices()[0]["dtypes"]]


def contribution(rank, n, dtype, offset=0):
    """Rank `rank`'s values: small integers (1..3), exact in every dtype, whose products over 4
    ranks fit int8; bool alternates."""
    base = (torch.arange(n) + rank + offset) % 3
    return (base == 0) if dtype == torch.bool else (base + 1).to(dtype)


def reduced(op, dtype, tensors, world):
    stack = torch.stack(tensors)
    if dtype == torch.bool:
        any_, all_ = stack.any(0), stack.all(0)
        table = {"SUM": any_, "MAX": any_, "BOR": any_, "PRODUCT": all_, "MIN": all_, "BAND": all_,
                 "BXOR": (stack.to(torch.int64).sum(0) % 2).bool()}
        return table[op]
    if op in ("BAND", "BOR", "BXOR"):
        fn = {"BAND": torch.bitwise_and, "BOR": torch.bitwise_or, "BXOR": torch.bitwise_xor}[op]
        out = tensors[0]
        for t in tensors[1:]:
            out = fn(out, t)
        return out
    wide = stack.to(torch.float64 if dtype in FLOATS else torch.int64)
    if op == "SUM":
        out = wide.sum(0)
    elif op == "PRODUCT":
        out = wide.prod(0)
    elif op == "MIN":
        out = wide.amin(0)
    elif op == "MAX":
        out = wide.amax(0)
    elif op == "AVG":
        out = wide.sum(0) / world if dtype in FLOATS else torch.div(wide.sum(0), world, rounding_mode="trunc")
    return out.to(dtype)


def ops_for(dtype):
    ops = ["SUM", "PRODUCT", "MIN", "MAX"]
    if dtype != torch.bool:
        ops.append("AVG")
    if dtype not in FLOATS:
        ops += ["BAND", "BOR", "BXOR"]
    return ops


def equal(name, got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape, f"{name}: {got.dtype}{list(got.shape)} != " \
                                                                f"{want.dtype}{list(want.shape)}"
    if want.dtype in FLOATS:
        torch.testing.assert_close(got, want, rtol=0, atol=0, msg=lambda m: f"{name}: {m}")
    else:
        assert torch.equal(got, want), f"{name}: {got.tolist()} != {want.tolist()}"


def collectives(rank, world):
    n = 7  # not a multiple of anything
    checked = []
    for dt in device_dtypes():
        tag = str(dt).removeprefix("torch.")
        mine = contribution(rank, n * world, dt)
        every = [contribution(r, n * world, dt) for r in range(world)]

        for op in ops_for(dt):
            t = mine.to(DEV)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            equal(f"all_reduce {op} {tag}", t, reduced(op, dt, every, world))
            checked.append(f"all_reduce.{op}")
        # In-place on a strided view: the view's elements change, the rest does not.
        base = torch.stack([mine, mine]).to(DEV)
        view = base[:, ::2]
        dist.all_reduce(view)
        want = torch.stack([mine, mine])
        want[:, ::2] = reduced("SUM", dt, [e[::2] for e in every], world)
        equal(f"all_reduce of a strided view {tag}", base, want)
        # Coalesced (DDP's buckets use it through their flattened tensors).
        pair = [mine[:5].to(DEV), mine[5:].to(DEV)]
        dist.all_reduce_coalesced(pair, op=dist.ReduceOp.MAX)
        equal(f"all_reduce_coalesced {tag}", torch.cat([p.cpu() for p in pair]), reduced("MAX", dt, every, world))
        # async_op: a Work with is_completed(), wait() and a future.
        t = mine.to(DEV)
        work = dist.all_reduce(t, async_op=True)
        assert isinstance(work.is_completed(), bool)
        work.wait()
        assert work.is_completed()
        equal(f"async all_reduce {tag}", t, reduced("SUM", dt, every, world))
        t = mine.to(DEV)
        fut = dist.all_reduce(t, op=dist.ReduceOp.MIN, async_op=True).get_future()
        equal(f"all_reduce future {tag}", fut.wait()[0], reduced("MIN", dt, every, world))
        checked += ["strided", "all_reduce_coalesced", "async", "future"]

        # broadcast from the last rank.
        t = mine.to(DEV)
        dist.broadcast(t, src=world - 1)
        equal(f"broadcast {tag}", t, every[-1])
        # reduce to rank 0: only the root's tensor changes.
        t = mine.to(DEV)
        dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
        equal(f"reduce {tag}", t, reduced("MAX", dt, every, world) if rank == 0 else mine)
        # all_gather, as a list and into one tensor.
        outs = [torch.empty(n * world, dtype=dt, device=DEV) for _ in range(world)]
        dist.all_gather(outs, mine.to(DEV))
        for r in range(world):
            equal(f"all_gather {tag} [{r}]", outs[r], every[r])
        out = torch.empty(world * n * world, dtype=dt, device=DEV)
        dist.all_gather_into_tensor(out, mine.to(DEV))
        equal(f"all_gather_into_tensor {tag}", out, torch.cat(every))
        checked += ["broadcast", "reduce", "all_gather", "all_gather_into_tensor"]
        # reduce_scatter: rank r gets chunk r of the reduction.
        if dt != torch.bool:
            want = reduced("SUM", dt, every, world).chunk(world)[rank]
            out = torch.empty(n, dtype=dt, device=DEV)
            dist.reduce_scatter_tensor(out, mine.to(DEV))
            equal(f"reduce_scatter_tensor {tag}", out, want)
            out = torch.empty(n, dtype=dt, device=DEV)
            dist.reduce_scatter(out, [c.to(DEV) for c in mine.chunk(world)])
            equal(f"reduce_scatter {tag}", out, want)
            checked += ["reduce_scatter_tensor", "reduce_scatter"]
        # all_to_all_single with uneven splits: rank r sends (r + k + 1) elements to rank k.
        send_splits = [rank + k + 1 for k in range(world)]
        recv_splits = [r + rank + 1 for r in range(world)]
        src = contribution(rank, sum(send_splits), dt, offset=1)
        out = torch.empty(sum(recv_splits), dtype=dt, device=DEV)
        dist.all_to_all_single(out, src.to(DEV), output_split_sizes=recv_splits, input_split_sizes=send_splits)
        want = torch.cat([contribution(r, sum(r + k + 1 for k in range(world)), dt, offset=1)
                          .split([r + k + 1 for k in range(world)])[rank] for r in range(world)])
        equal(f"all_to_all_single uneven {tag}", out, want)
        # all_to_all of lists: chunk k of rank r goes to rank k.
        outs = [torch.empty(n, dtype=dt, device=DEV) for _ in range(world)]
        dist.all_to_all(outs, [c.to(DEV) for c in mine.chunk(world)])
        for r in range(world):
            equal(f"all_to_all {tag} [{r}]", outs[r], every[r].chunk(world)[rank])
        # gather to rank 1, scatter from rank 0.
        outs = [torch.empty(n * world, dtype=dt, device=DEV) for _ in range(world)] if rank == 1 else None
        dist.gather(mine.to(DEV), outs, dst=1)
        if rank == 1:
            for r in range(world):
                equal(f"gather {tag} [{r}]", outs[r], every[r])
        out = torch.empty(n * world, dtype=dt, device=DEV)
        dist.scatter(out, [e.to(DEV) for e in every] if rank == 0 else None, src=0)
        equal(f"scatter {tag}", out, every[rank])
        checked += ["all_to_all_single", "all_to_all", "gather", "scatter"]
        # Point to point around the ring: send/recv, isend/irecv, batch_isend_irecv.
        right, left = (rank + 1) % world, (rank - 1) % world
        got = torch.empty(n * world, dtype=dt, device=DEV)
        if rank % 2 == 0:
            dist.send(mine.to(DEV), right)
            dist.recv(got, left)
        else:
            dist.recv(got, left)
            dist.send(mine.to(DEV), right)
        equal(f"send/recv {tag}", got, every[left])
        got = torch.empty(n * world, dtype=dt, device=DEV)
        works = [dist.isend(mine.to(DEV), right), dist.irecv(got, left)]
        for w in works:
            w.wait()
        equal(f"isend/irecv {tag}", got, every[left])
        got = torch.empty(n * world, dtype=dt, device=DEV)
        ops = [dist.P2POp(dist.isend, mine.to(DEV), right), dist.P2POp(dist.irecv, got, left)]
        for w in dist.batch_isend_irecv(ops):
            w.wait()
        equal(f"batch_isend_irecv {tag}", got, every[left])
        checked += ["send/recv", "isend/irecv", "batch_isend_irecv"]
    dist.barrier()
    if dist.get_backend() == "devplug":  # a group made with no backend serves only devplug tensors
        dist.monitored_barrier(timeout=__import__("datetime").timedelta(seconds=30))
        checked.append("monitored_barrier")
    # Objects travel too (pickled into tensors of the group's device).
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    assert objs == [{"rank": r} for r in range(world)], objs
    checked += ["barrier", "all_gather_object"]
    backend = dist.group.WORLD._get_backend(torch.device(DEV))
    return {"dtypes": [str(d) for d in device_dtypes()], "checked": sorted(set(checked)),
            "backend": dist.get_backend(), "devplug_backend": type(backend).__name__,
            "native_devices": list(backend.native_devices)}


def cpu_and_device(rank, world):
    """With init_process_group("cpu:gloo,devplug:devplug"): CPU tensors go to torch's Gloo and
    devplug tensors to devplug's backend, in one group."""
    c = torch.full((3,), float(rank + 1))
    d = torch.full((3,), float(rank + 1), device=DEV)
    dist.all_reduce(c)
    dist.all_reduce(d)
    want = float(sum(range(1, world + 1)))
    assert c.tolist() == [want] * 3 and d.cpu().tolist() == [want] * 3, (c, d)
    return {"backend": dist.get_backend(), "cpu": type(dist.group.WORLD._get_backend(torch.device("cpu"))).__name__,
            "devplug": type(dist.group.WORLD._get_backend(torch.device(DEV))).__name__}


# ---------------------------------------------------------------------------------------------
# Misuse: raises on the surviving ranks within the timeout, never hangs.

def shape_mismatch(rank, world):
    t = torch.ones(4 + rank, device=DEV)
    dist.all_reduce(t)
    torch.devplug.synchronize()
    return {"values": t.cpu().tolist()}


def dtype_mismatch(rank, world):
    t = torch.ones(4, device=DEV, dtype=torch.float32 if rank == 0 else torch.int32)
    dist.all_reduce(t)
    torch.devplug.synchronize()
    return {"values": t.cpu().tolist()}


def recv_mismatch(rank, world):
    """Rank 0 sends 4 floats; rank 1 receives into 3: rank 1 raises, its tensor unchanged, and
    the group still works."""
    outcome = None
    if rank == 0:
        dist.send(torch.arange(4.0, device=DEV), 1)
    elif rank == 1:
        t = torch.full((3,), -1.0, device=DEV)
        try:
            dist.recv(t, 0)
            outcome = "no error"
        except Exception as e:
            outcome = f"{type(e).__name__}: {e}"
        assert t.cpu().tolist() == [-1.0] * 3, t
    t = torch.ones(2, device=DEV)
    dist.all_reduce(t)
    return {"raised": outcome, "after": t.cpu().tolist()}


def dead_peer(rank, world):
    dist.barrier()
    if rank == world - 1:
        os._exit(3)
    t = torch.ones(1 << 16, device=DEV)
    started = time.monotonic()
    try:
        dist.all_reduce(t)
    except Exception as e:
        return {"raised": f"{type(e).__name__}: {e}"[:300], "after_s": time.monotonic() - started,
                "tensor_intact": bool((t.cpu() == 1).all())}
    return {"raised": None}


def dead_peer_after_first(rank, world):
    """A peer that exits after the group's first all_reduce: on a plugin with collectives of
    its own, the communicator exists by then and the plugin's library sees the peer go (run
    with TORCH_DEVPLUG_DIST_CHECK=0, so that no Gloo exchange precedes the collective)."""
    t = torch.ones(1 << 16, device=DEV)
    dist.all_reduce(t)
    native = list(dist.group.WORLD._get_backend(torch.device(DEV)).native_devices)
    dist.barrier()
    if rank == world - 1:
        os._exit(3)
    started = time.monotonic()
    try:
        dist.all_reduce(t)
    except Exception as e:
        return {"raised": f"{type(e).__name__}: {e}"[:400], "after_s": time.monotonic() - started,
                "native_devices": native}
    return {"raised": None, "native_devices": native}


def bad_reduce_op(rank, world):
    errors = {}
    for dt, op in ((torch.float32, "BAND"), (torch.bool, "AVG")):
        try:
            dist.all_reduce(torch.ones(2, device=DEV).to(dt), op=getattr(dist.ReduceOp, op))
            errors[f"{op}"] = None
        except Exception as e:
            errors[f"{op}"] = f"{type(e).__name__}: {e}"
    # The group still works afterwards.
    t = torch.ones(2, device=DEV)
    dist.all_reduce(t)
    return {"errors": errors, "after": t.cpu().tolist()}


# ---------------------------------------------------------------------------------------------
# Training: DDP on the devplug device equals one process on the global batch.

def mlp(unused_branch=False):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32),
                                            torch.nn.Linear(32, 8))
            self.unused = torch.nn.Linear(16, 8) if unused_branch else None

        def forward(self, x):
            return self.body(x)

    return Net()


def transformer():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = torch.nn.Linear(16, 8)

        def forward(self, x):
            return self.head(self.encoder(x.view(x.shape[0], 4, 16)).mean(1))

    return Net()


def data(steps, batch, features):
    g = torch.Generator().manual_seed(7)
    return [(torch.randn(batch, features, generator=g), torch.randint(0, 8, (batch,), generator=g))
            for _ in range(steps)]


def ddp(rank, world, model="mlp", mode="plain", steps=4):
    from torch.nn.parallel import DistributedDataParallel as DDP

    features = 64 if model == "transformer" else 16
    make = transformer if model == "transformer" else (lambda: mlp(unused_branch=mode == "find_unused"))
    batches = data(steps, 8 * world, features)
    loss_fn = torch.nn.CrossEntropyLoss()

    # One process, the global batch.
    torch.manual_seed(0)
    single = make().to(DEV)
    # AdamW for the MLP; SGD for the transformer, whose attention key bias has a gradient of
    # zero up to rounding, which Adam would scale up to full steps of noise.
    optimizer = ((lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)) if model == "transformer" else
                 (lambda p: torch.optim.AdamW(p, lr=1e-2)))
    opt = optimizer(single.parameters())
    for x, y in batches:
        if mode == "no_sync":  # two half-batches accumulated, as the DDP side does
            opt.zero_grad()
            for xs, ys in zip(x.chunk(2), y.chunk(2)):
                (loss_fn(single(xs.to(DEV)), ys.to(DEV)) / 2).backward()
        else:
            opt.zero_grad()
            loss_fn(single(x.to(DEV)), y.to(DEV)).backward()
        opt.step()

    # DDP, each rank its shard of every batch.
    torch.manual_seed(0)
    local = make().to(DEV)
    kwargs = {"find_unused_parameters": mode == "find_unused", "static_graph": mode == "static_graph"}
    wrapped = DDP(local, **kwargs)
    opt = optimizer(wrapped.parameters())
    step_times = []
    for x, y in batches:
        started = time.perf_counter()
        xs, ys = x.chunk(world)[rank], y.chunk(world)[rank]
        opt.zero_grad()
        if mode == "no_sync":
            (x0, x1), (y0, y1) = xs.chunk(2), ys.chunk(2)
            with wrapped.no_sync():
                (loss_fn(wrapped(x0.to(DEV)), y0.to(DEV)) / 2).backward()
            (loss_fn(wrapped(x1.to(DEV)), y1.to(DEV)) / 2).backward()
        else:
            loss_fn(wrapped(xs.to(DEV)), ys.to(DEV)).backward()
        opt.step()
        torch.devplug.synchronize()
        step_times.append(time.perf_counter() - started)

    worst = 0.0
    for (name, p_single), p_ddp in zip(single.named_parameters(), local.parameters()):
        a, b = p_single.detach().cpu(), p_ddp.detach().cpu()
        rel = ((a - b).abs().max() / a.abs().max().clamp_min(1e-12)).item()
        worst = max(worst, rel)
        assert rel <= 1e-5, f"{name}: rank {rank} differs from one process by {rel:.3g} relative"
    # DDP's runtime statistics come from devplug's timer (nanoseconds, sampled every few steps).
    stats = wrapped._get_ddp_logging_data()
    timing = {k: stats.get(k, 0) for k in ("avg_forward_compute_time", "avg_backward_compute_time",
                                           "avg_backward_comm_time")}
    return {"worst_relative": worst, "step_ms": 1e3 * sorted(step_times)[len(step_times) // 2], "timing": timing}


def fsdp(rank, world, steps=3, checkpoint_dir=None):
    """FSDP2 (fully_shard) of the transformer, per layer and whole, on a 1-D device mesh of the
    devplug device: each rank's parameters (gathered back from their shards) equal one process
    on the global batch; torch.distributed.checkpoint saves the sharded state and loads it
    into a fresh sharded model."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    import torch.distributed.checkpoint as dcp

    batches = data(steps, 8 * world, 64)
    loss_fn = torch.nn.CrossEntropyLoss()
    sgd = lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)  # noqa: E731
    torch.manual_seed(0)
    single = transformer().to(DEV)
    opt = sgd(single.parameters())
    for x, y in batches:
        opt.zero_grad()
        loss_fn(single(x.to(DEV)), y.to(DEV)).backward()
        opt.step()

    mesh = init_device_mesh("devplug", (world,))

    def sharded():
        torch.manual_seed(0)
        model = transformer().to(DEV)
        for layer in model.encoder.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        return model

    model = sharded()
    opt = sgd(model.parameters())
    for x, y in batches:
        xs, ys = x.chunk(world)[rank], y.chunk(world)[rank]
        opt.zero_grad()
        loss_fn(model(xs.to(DEV)), ys.to(DEV)).backward()
        opt.step()
    worst = 0.0
    for (name, p_single), p_sharded in zip(single.named_parameters(), model.parameters()):
        a, b = p_single.detach().cpu(), p_sharded.full_tensor().detach().cpu()
        rel = ((a - b).abs().max() / a.abs().max().clamp_min(1e-12)).item()
        worst = max(worst, rel)
        assert rel <= 1e-5, f"{name}: rank {rank} differs from one process by {rel:.3g} relative"
    result = {"worst_relative": worst, "sharded_as": type(next(model.parameters())).__name__}
    if checkpoint_dir:
        dcp.save({"model": model.state_dict()}, checkpoint_id=checkpoint_dir)
        fresh = sharded()
        with torch.no_grad():
            for p in fresh.parameters():
                p.to_local().zero_()
        state = {"model": fresh.state_dict()}
        dcp.load(state, checkpoint_id=checkpoint_dir)
        fresh.load_state_dict(state["model"])
        for (name, p), q in zip(model.named_parameters(), fresh.parameters()):
            assert torch.equal(p.full_tensor().cpu(), q.full_tensor().cpu()), f"{name} after dcp.load"
        result["checkpoint"] = "loaded equal"
    return result


SCENARIOS = {f.__name__: f for f in (collectives, cpu_and_device, shape_mismatch, dtype_mismatch, recv_mismatch, dead_peer,
                                     dead_peer_after_first,
                                       bad_reduce_op, ddp, fsdp)}


if __name__ == "__main__":
    # One rank as a command (test_distributed.py's two-namespace test runs each rank with
    # `ip netns exec`): scenario rank world init_method out_dir [options as JSON].
    scenario_, rank_, world_, init_, out_ = sys.argv[1:6]
    _rank_main(scenario_, int(rank_), int(world_), init_, "devplug", 60, out_,
               json.loads(sys.argv[6]) if len(sys.argv) > 6 else {})
