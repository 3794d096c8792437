# SPDX-License-Identifier: Apache-2.0
"""Autocast and GradScaler on devplug devices, against torch's CPU.

Autocast: every op of each policy class (the autocast dtype for the matmul and conv family,
float32 for softmax, norms, losses, exp, log, pow, ..., the widest input dtype for cat,
stack, addcmul, index_put) gives the policy's dtype and the values torch's CPU gives for the
same casts. torch's CPU autocast applies the same policy to float32 inputs, so those cases
are compared with torch.autocast("cpu") itself; for lower-precision inputs CPU autocast's
float32 list is narrower than the standard one devplug follows (it keeps softmax,
layer_norm, exp, ... in the input's dtype), so those are compared with the policy applied by
hand on the CPU (the op on the inputs cast to float32).

GradScaler: _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_ give exactly
what torch's CPU kernels give, run on the device (no CPU fallback), and
torch.amp.GradScaler("devplug") scales, unscales, skips steps with inf/nan gradients and
backs off, and grows the scale, step for step as torch.amp.GradScaler("cpu").
"""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

LOW = [torch.bfloat16, torch.float16]

# Tolerances of one op's result in the autocast dtype against torch's CPU: a couple of units
# in the last place of that dtype (bfloat16 has 8 significant bits, float16 11); both sides
# round once, but may accumulate in another order.
TOL = {torch.bfloat16: dict(rtol=2 ** -6, atol=2 ** -6), torch.float16: dict(rtol=2 ** -9, atol=2 ** -9),
       torch.float32: dict(rtol=1e-5, atol=1e-5)}


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def require_amp_dtype(device, dtype):
    if dtype not in torch.devplug.get_amp_supported_dtype(device):
        pytest.skip(f"{device} does not claim {dtype}")


# name -> (policy, fn, input shapes). fn takes tensors only; the policy is what the result's
# dtype must be: "low" (the autocast dtype), "fp32", or "widest" (of the floating inputs).
# log and rsqrt get positive inputs (inputs_of).
TARGET = torch.tensor([0, 3, 5, 1])
CASES = {
    "mm": ("low", lambda a, b: torch.mm(a, b), [(4, 6), (6, 5)]),
    "matmul": ("low", lambda a, b: a @ b, [(2, 4, 6), (6, 5)]),
    "bmm": ("low", torch.bmm, [(2, 4, 6), (2, 6, 3)]),
    "addmm": ("low", torch.addmm, [(4, 5), (4, 6), (6, 5)]),
    "baddbmm": ("low", torch.baddbmm, [(2, 4, 3), (2, 4, 6), (2, 6, 3)]),
    "linear": ("low", F.linear, [(4, 6), (5, 6), (5,)]),
    "conv2d": ("low", lambda x, w, b: F.conv2d(x, w, b, padding=1), [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    "conv1d": ("low", F.conv1d, [(2, 3, 9), (4, 3, 3)]),
    "softmax": ("fp32", lambda a: F.softmax(a, -1), [(4, 6)]),
    "log_softmax": ("fp32", lambda a: F.log_softmax(a, 1), [(4, 6)]),
    "layer_norm": ("fp32", lambda a, w, b: F.layer_norm(a, (6,), w, b), [(4, 6), (6,), (6,)]),
    "group_norm": ("fp32", lambda a: F.group_norm(a, 2), [(2, 4, 5)]),
    "cross_entropy": ("fp32", lambda a: F.cross_entropy(a, TARGET.to(a.device)), [(4, 6)]),
    "nll_loss": ("fp32", lambda a: F.nll_loss(a, TARGET.to(a.device)), [(4, 6)]),
    "mse_loss": ("fp32", F.mse_loss, [(4, 6), (4, 6)]),
    "smooth_l1_loss": ("fp32", F.smooth_l1_loss, [(4, 6), (4, 6)]),
    "exp": ("fp32", torch.exp, [(4, 6)]),
    "log": ("fp32", torch.log, [(4, 6)]),
    "pow": ("fp32", lambda a: torch.pow(a, 2), [(4, 6)]),
    "rsqrt": ("fp32", torch.rsqrt, [(4, 6)]),
    "sum": ("fp32", torch.sum, [(4, 6)]),
    "cumsum": ("fp32", lambda a: torch.cumsum(a, 1), [(4, 6)]),
    "cat": ("widest", lambda a, b: torch.cat([a, b]), [(2, 6), (3, 6)]),
    "stack": ("widest", lambda a, b: torch.stack([a, b]), [(2, 6), (2, 6)]),
    "addcmul": ("widest", lambda a, b, c: torch.addcmul(a, b, c), [(4, 6), (4, 6), (4, 6)]),
}


def inputs_of(name, shapes, seed=0):
    xs = [randn(*s, seed=seed + i) for i, s in enumerate(shapes)]
    return [x.abs() + 0.5 for x in xs] if name in ("log", "rsqrt") else xs


@pytest.mark.parametrize("dtype", LOW, ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_policy_on_float32_inputs_matches_cpu_autocast(name, dtype, device, no_fallback):
    require_amp_dtype(device, dtype)
    policy, fn, shapes = CASES[name]
    xs = inputs_of(name, shapes)
    with torch.autocast("cpu", dtype=dtype):
        want = fn(*xs)
    with torch.autocast("devplug", dtype=dtype):
        got = fn(*[x.to(device) for x in xs])
    assert got.device == torch.device(device)
    assert got.dtype == {"low": dtype, "fp32": torch.float32, "widest": torch.float32}[policy]
    assert got.dtype == want.dtype
    torch.testing.assert_close(got.cpu(), want, **TOL[got.dtype])


@pytest.mark.parametrize("dtype", LOW, ids=str)
@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[0] != "low"])
def test_fp32_and_widest_policies_on_mixed_inputs(name, dtype, device, no_fallback):
    """The first input in the autocast dtype, the others float32: fp32 ops compute in float32
    and widest ops promote to it. Reference: the op on the CPU on the inputs cast by hand."""
    require_amp_dtype(device, dtype)
    policy, fn, shapes = CASES[name]
    xs = inputs_of(name, shapes)
    xs[0] = xs[0].to(dtype)
    want = fn(*[x.float() for x in xs])
    with torch.autocast("devplug", dtype=dtype):
        got = fn(*[x.to(device) for x in xs])
    assert got.dtype == torch.float32
    torch.testing.assert_close(got.cpu(), want, **TOL[torch.float32])


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_low_precision_inputs_stay_low(dtype, device, no_fallback):
    """Ops outside the lists run in their inputs' dtype (the fallthrough), and a low-precision
    op of mixed inputs casts the float32 ones down."""
    require_amp_dtype(device, dtype)
    a, b = randn(4, 6), randn(6, 5, seed=1)
    with torch.autocast("devplug", dtype=dtype):
        h = torch.mm(a.to(device), b.to(device))
        r = torch.relu(h)
        s = h + 1
        mixed = torch.mm(a.to(dtype).to(device), b.to(device))
        i = torch.arange(4, device=device) * 2
        d = torch.mm(a.double().to(device), b.double().to(device))
    assert (h.dtype, r.dtype, s.dtype, mixed.dtype) == (dtype, dtype, dtype, dtype)
    assert i.dtype == torch.int64
    assert d.dtype == torch.float64  # autocast leaves float64 alone
    want = torch.relu(torch.mm(a.to(dtype).float(), b.to(dtype).float()).to(dtype))
    torch.testing.assert_close(r.cpu(), want, **TOL[dtype])


def test_nested_disable_and_dtype_state(device, no_fallback):
    a = randn(4, 6).to(device)
    assert torch.amp.autocast_mode.is_autocast_available("devplug")
    with torch.autocast("devplug", dtype=torch.bfloat16):
        assert torch.is_autocast_enabled("devplug")
        assert torch.get_autocast_dtype("devplug") == torch.bfloat16
        assert torch.mm(a, a.t()).dtype == torch.bfloat16
        with torch.autocast("devplug", enabled=False):
            assert not torch.is_autocast_enabled("devplug")
            assert torch.mm(a, a.t()).dtype == torch.float32
        assert torch.mm(a, a.t()).dtype == torch.bfloat16
        with torch.autocast("cpu", enabled=False):  # another device type's state
            assert torch.mm(a, a.t()).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("devplug")
    assert torch.mm(a, a.t()).dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):  # CPU autocast leaves devplug tensors alone
        assert torch.mm(a, a.t()).dtype == torch.float32


def test_unsupported_autocast_dtype_warns_and_disables(device):
    with pytest.warns(UserWarning, match="not supported"):
        with torch.autocast("devplug", dtype=torch.float32):
            assert not torch.is_autocast_enabled("devplug")


def test_binary_cross_entropy_is_refused_as_on_cuda(device):
    p, t = torch.rand(4, device=device), torch.rand(4, device=device)
    with torch.autocast("devplug", dtype=torch.bfloat16):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, t)
        # the logits form is on the fp32 list
        assert F.binary_cross_entropy_with_logits(p, t).dtype == torch.float32


def test_backward_through_autocast(device, no_fallback):
    """Gradients reach float32 leaves in float32 and match the CPU's for the same casts, done
    by hand (CPU autocast would keep this log_softmax in bfloat16)."""
    dtype = torch.bfloat16
    x, w, b = randn(8, 6), randn(5, 6, seed=1), randn(5, seed=2)
    grads = []
    for dev in ("cpu", device):
        leaves = [t.detach().to(dev, copy=True).requires_grad_() for t in (x, w, b)]
        if dev == "cpu":
            out = F.log_softmax(F.linear(*[t.to(dtype) for t in leaves]).float(), 1).sum()
        else:
            with torch.autocast("devplug", dtype=dtype):
                out = F.log_softmax(F.linear(*leaves), 1).sum()
        out.backward()
        grads.append([t.grad for t in leaves])
    # Within 2 bfloat16 units of the largest gradient (measured: 1 unit, 0.0625 of 11.8, on
    # every plugin). Elementwise tolerances would not do: devplug rounds linear's product
    # before adding the bias, torch's CPU after, and 1 - 5 * softmax cancels.
    for g_cpu, g_dev in zip(*grads):
        assert g_dev.dtype == torch.float32
        torch.testing.assert_close(g_dev.cpu(), g_cpu, rtol=0, atol=2 ** -6 * g_cpu.abs().max().item())


# ---- GradScaler's ops --------------------------------------------------------------------------

GRAD_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]


def grads_with(kind, dtype):
    """Three gradients of `dtype` (one transposed, one 0-dim), with an inf or a nan in one."""
    g = [randn(5, 7, dtype=dtype) * 1000, randn(7, 3, seed=1, dtype=dtype).t(), torch.tensor(3.5, dtype=dtype)]
    if kind != "finite":
        g[1][2, 4] = float(kind)
    return g


@pytest.mark.parametrize("kind", ["finite", "inf", "-inf", "nan"])
@pytest.mark.parametrize("dtype", GRAD_DTYPES, ids=str)
def test_unscale_matches_cpu(kind, dtype, device, no_fallback):
    cpu = grads_with(kind, dtype)
    dev = [g.to(device) for g in cpu]
    for found_inf in (0.0, 1.0):  # found_inf already set stays set
        found = [torch.tensor(found_inf), torch.tensor(found_inf, device=device)]
        inv = torch.tensor(1 / 3)  # not a power of two: the product is rounded
        torch._amp_foreach_non_finite_check_and_unscale_(cpu, found[0], inv)
        torch._amp_foreach_non_finite_check_and_unscale_(dev, found[1], inv.to(device))
        assert found[1].item() == found[0].item() == (0.0 if kind == "finite" and not found_inf else 1.0)
        for c, d in zip(cpu, dev):
            assert d.dtype == dtype and d.device == torch.device(device)
            torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0, equal_nan=True)


def test_unscale_of_mixed_and_empty_lists(device, no_fallback):
    found, inv = torch.zeros((), device=device), torch.full((1,), 0.5, device=device)
    torch._amp_foreach_non_finite_check_and_unscale_([], found, inv)
    empty = torch.empty(0, 3, device=device)
    torch._amp_foreach_non_finite_check_and_unscale_([empty], found, inv)
    assert found.item() == 0.0
    g = [torch.tensor([2.0, float("inf")], device=device), torch.tensor([4.0], device=device, dtype=torch.float16)]
    torch._amp_foreach_non_finite_check_and_unscale_(g, found, inv)
    assert found.item() == 1.0
    assert g[0].tolist() == [1.0, float("inf")] and g[1].tolist() == [2.0]


def test_update_scale_matches_cpu(device, no_fallback):
    """A run of found_inf flags through both kernels: back-off, growth after growth_interval
    clean steps, a tracker reset by an inf, and growth refused when it would overflow."""
    states = []
    for dev in ("cpu", device):
        scale = torch.full((), 2.0 ** 10, device=dev)
        tracker = torch.zeros((), dtype=torch.int32, device=dev)
        seen = []
        for flag in [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]:
            found = torch.full((), float(flag), device=dev)
            out = torch._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 3)
            assert out.data_ptr() == scale.data_ptr()
            seen.append((scale.item(), tracker.item()))
        huge = torch.full((1,), 3e38, device=dev)
        tracker = torch.full((1,), 2, dtype=torch.int32, device=dev)
        torch._amp_update_scale_(huge, tracker, torch.zeros((1,), device=dev), 2.0, 0.5, 3)
        seen.append((huge.item(), tracker.item()))
        states.append(seen)
    assert states[1] == states[0]
    k = 2.0 ** 10
    assert states[1][:-1] == [(k, 1), (k, 2), (2 * k, 0), (k, 0), (k, 1), (k, 2), (k / 2, 0), (k / 4, 0),
                              (k / 4, 1), (k / 4, 2), (k / 2, 0), (k / 2, 1), (k / 2, 2), (k, 0)]
    assert states[1][-1] == (torch.tensor(3e38).item(), 0)  # 6e38 is inf in float32: no growth


def test_amp_ops_are_native():
    rows = {r[0]: r[1] for r in torch.devplug.native_ops()}
    assert rows["_amp_foreach_non_finite_check_and_unscale_"] == "bridge"
    assert rows["_amp_update_scale_"] == "bridge"


def test_amp_ops_reject_bad_input(device):
    g = [torch.ones(3, device=device)]
    found, inv = torch.zeros((), device=device), torch.ones((), device=device)
    unscale = torch._amp_foreach_non_finite_check_and_unscale_
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor"):
        unscale(g, torch.zeros((), dtype=torch.int32, device=device), inv)
    with pytest.raises(RuntimeError, match="inv_scale must be a 1-element tensor"):
        unscale(g, found, torch.ones(2, device=device))
    with pytest.raises(RuntimeError, match="inv_scale must be on devplug"):
        unscale(g, found, torch.ones(()))
    with pytest.raises(RuntimeError, match="must be floating point"):
        unscale([torch.ones(3, dtype=torch.int64, device=device)], found, inv)
    with pytest.raises(RuntimeError, match="found_inf must be on devplug"):
        unscale(g, torch.zeros(()), inv)
    scale, tracker = torch.ones((), device=device), torch.zeros((), dtype=torch.int32, device=device)
    with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor"):
        torch._amp_update_scale_(scale, torch.zeros((), device=device), found, 2.0, 0.5, 3)
    with pytest.raises(RuntimeError, match="current_scale must be a 1-element tensor"):
        torch._amp_update_scale_(torch.ones(2, device=device), tracker, found, 2.0, 0.5, 3)
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor"):
        torch._amp_update_scale_(scale, tracker, torch.zeros((), dtype=torch.float16, device=device), 2.0, 0.5, 3)
    assert scale.item() == 1.0 and tracker.item() == 0 and g[0].tolist() == [1.0, 1.0, 1.0]


# ---- GradScaler ------------------------------------------------------------------------------


def scaler_run(dev, steps, poison, dtype=torch.float16):
    """Trains a small linear model for `steps` with GradScaler and autocast on `dev`; at the
    steps in `poison` the loss is multiplied by inf or nan (so every gradient is non-finite).
    Returns per step (loss, scale after update, whether the weights changed) and the weights."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(torch.device(dev).type, init_scale=2.0 ** 8, growth_interval=2)
    x, y = randn(16, 6).to(dev), torch.arange(16).remainder(3).to(dev)
    record = []
    for step in range(steps):
        before = [p.detach().clone() for p in model.parameters()]
        opt.zero_grad()
        with torch.autocast(torch.device(dev).type, dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        scaled = scaler.scale(loss)
        if step in poison:
            scaled = scaled * poison[step]
        scaled.backward()
        scaler.unscale_(opt)
        grads_finite = all(torch.isfinite(p.grad).all().item() for p in model.parameters())
        scaler.step(opt)
        scaler.update()
        changed = any((b != p.detach()).any().item() for b, p in zip(before, model.parameters()))
        record.append((round(loss.item(), 3), scaler.get_scale(), changed, grads_finite))
    return record, [p.detach().cpu() for p in model.parameters()]


@pytest.mark.parametrize("dtype", LOW, ids=str)
def test_grad_scaler_matches_cpu(dtype, device, no_fallback):
    require_amp_dtype(device, dtype)
    poison = {1: float("inf"), 4: float("nan")}
    want, w_cpu = scaler_run("cpu", 7, poison, dtype)
    got, w_dev = scaler_run(device, 7, poison, dtype)
    # scale: 256 -> 128 (inf at step 1) -> grows after 2 clean steps -> 128 (nan) -> ...
    scales = [r[1] for r in got]
    assert scales == [r[1] for r in want] == [256.0, 128.0, 128.0, 256.0, 128.0, 128.0, 256.0]
    assert [r[2] for r in got] == [r[2] for r in want] == [True, False, True, True, False, True, True]
    assert [r[3] for r in got] == [True, False, True, True, False, True, True]
    for (l_cpu, *_), (l_dev, *_) in zip(want, got):
        assert abs(l_cpu - l_dev) <= TOL[dtype]["rtol"] * 4 * abs(l_cpu) + 1e-3
    for a, b in zip(w_dev, w_cpu):
        torch.testing.assert_close(a, b, rtol=TOL[dtype]["rtol"] * 4, atol=TOL[dtype]["atol"] * 4)


def test_grad_scaler_state_stays_on_device(device, no_fallback):
    scaler = torch.amp.GradScaler("devplug", init_scale=4.0)
    loss = randn(3).to(device).sum()
    assert scaler.scale(loss).device == torch.device(device)
    assert scaler._scale.device == torch.device(device) and scaler._growth_tracker.device == torch.device(device)
    assert scaler.get_scale() == 4.0
