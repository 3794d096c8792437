# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the bridge itself: the device, copies, views that alias, in-place ops,
dtype promotion, random numbers, errors, strict mode and the fallback report."""

import os
import subprocess
import sys
import warnings

import pytest
import torch

import torch_devplug

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64]


def sample(shape, dtype, seed=0):
    """Deterministic CPU values of `dtype` covering negatives and zeros."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 3).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -100), min(info.max, 100), shape, generator=g).to(dtype)


# ---- the device -------------------------------------------------------------------------------

def test_the_backend_is_named_devplug(device):
    assert torch._C._get_privateuse1_backend_name() == "devplug"
    assert torch.devplug.is_available() and torch.devplug.device_count() >= 1
    x = torch.ones(3, device=device)
    assert x.device == torch.device(device) and x.device.type == "devplug" and x.is_devplug
    assert torch.ones(2).devplug(torch.device(device).index).device == torch.device(device)
    assert torch.nn.Linear(2, 2).to(device).weight.device == torch.device(device)
    index = torch.device(device).index
    assert torch.devplug.devices()[index]["index"] == index
    assert isinstance(torch.devplug.get_device_name(index), str)


def test_current_device_and_device_context(device):
    index = torch.device(device).index
    previous = torch.devplug.current_device()
    with torch.devplug.device(index):
        assert torch.devplug.current_device() == index
        assert torch.empty(1, device="devplug").device.index == index
    assert torch.devplug.current_device() == previous
    torch.devplug.synchronize(index)


def test_streams_and_events(device):
    stream = torch.Stream(device=device)
    x = torch.arange(1000.0, device=device)
    with torch.devplug.device(torch.device(device).index):
        event = torch.Event(device=device)
        event.record()
        stream.wait_event(event)
        event.synchronize()
        assert event.query()
    stream.synchronize()
    assert x.sum().item() == 499500.0


def test_autoload_needs_only_import_torch():
    # The build tree carries the entry point metadata that pip would install.
    code = "import torch; print(torch._C._get_privateuse1_backend_name(), torch.devplug.device_count())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ),
                         check=True).stdout.split()
    assert out[0] == "devplug" and int(out[1]) >= 1
    off = subprocess.run([sys.executable, "-c", "import torch; print(torch._C._get_privateuse1_backend_name())"],
                         capture_output=True, text=True, env=dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0"),
                         check=True).stdout.strip()
    assert off == "privateuseone"


def test_a_script_ending_in_backward_exits_cleanly(device):
    # torch's autograd thread for the device drops the graph task just after backward()
    # returns and needs the GIL for it; torch_devplug's exit handler lets it finish before the
    # interpreter finalizes (without it, most such runs abort).
    code = (f"import torch; x = torch.ones(64, device={device!r}, requires_grad=True); "
            "x.softmax(0).mul(x).sum().backward()")
    for _ in range(2):  # without the handler, 3 runs in 4 aborted
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
        assert run.returncode == 0, f"exit status {run.returncode}: {run.stderr[-2000:]}"


# ---- copies -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_every_dtype(dtype, device, no_fallback):
    x = sample((5, 7), dtype)
    d = x.to(device)
    assert d.dtype == dtype and d.shape == x.shape
    assert torch.equal(d.cpu(), x)
    assert torch.equal(d.t().cpu(), x.t())                 # strided source
    assert torch.equal(x.t().to(device).cpu(), x.t())      # strided host tensor
    assert d[2, 3].item() == x[2, 3].item()


def test_copies_broadcast_convert_and_write_through_views(device, no_fallback):
    d = torch.zeros(4, 6, device=device)
    d.copy_(torch.arange(6.0))                             # broadcast from the CPU
    assert torch.equal(d.cpu(), torch.arange(6.0).expand(4, 6))
    d[:, ::2].copy_(torch.full((4, 3), -1.0, device=device))
    expected = torch.arange(6.0).expand(4, 6).clone()
    expected[:, ::2] = -1
    assert torch.equal(d.cpu(), expected)
    i = torch.empty(4, 6, dtype=torch.int32, device=device)
    i.copy_(d)                                             # float32 -> int32 on the device
    assert torch.equal(i.cpu(), expected.to(torch.int32))
    h = torch.empty(6, 4, dtype=torch.float64)
    h.copy_(d.t())                                         # devplug -> CPU with a cast
    assert torch.equal(h, expected.t().double())
    assert torch.equal(d.to(torch.float16).cpu(), expected.half())


def test_copies_between_plugins(devices):
    a, b = list(devices.values())[:2]
    x = sample((3, 4), torch.float32)
    y = x.to(a).to(b)
    assert y.device == torch.device(b) and torch.equal(y.cpu(), x)
    z = torch.empty(4, 3, dtype=torch.float64, device=a)
    z.copy_(y.t())                                         # across plugins, strided, with a cast
    assert torch.equal(z.cpu(), x.t().double())


def test_empty_and_zero_size_tensors(device, no_fallback):
    e = torch.empty(0, 3, device=device)
    assert e.shape == (0, 3) and e.cpu().shape == (0, 3)
    assert (e + 1).shape == (0, 3) and e.sum().item() == 0.0
    assert torch.cat([e, torch.ones(2, 3, device=device)]).shape == (2, 3)


# ---- views alias ----------------------------------------------------------------------------------

VIEWS = {
    "view": lambda t: t.view(6, 4),
    "reshape": lambda t: t.reshape(2, 12),
    "transpose": lambda t: t.t(),
    "permute": lambda t: t.permute(1, 0),
    "slice_step": lambda t: t[1:, ::2],
    "select": lambda t: t[2],
    "narrow": lambda t: t.narrow(1, 1, 3),
    "unsqueeze_squeeze": lambda t: t.unsqueeze(0).squeeze(0),
    "diagonal": lambda t: t.diagonal(),
    "as_strided": lambda t: t.as_strided((3, 3), (7, 1), 1),
    "unfold": lambda t: t.unfold(1, 2, 2),
    "unfold_overlapping": lambda t: t.unfold(1, 3, 2),
    "expand": lambda t: t[:, :1].expand(4, 6),
    "split": lambda t: t.split(2, dim=1)[1],
    "flatten": lambda t: t.flatten(),
    "unflatten": lambda t: t.unflatten(1, (2, 3)),
    "view_dtype": lambda t: t.view(torch.int32),
}


@pytest.mark.parametrize("make", list(VIEWS), ids=list(VIEWS))
def test_views_alias(make, device, no_fallback):
    base = torch.arange(24.0, device=device).reshape(4, 6)
    view = VIEWS[make](base)
    if make != "view_dtype":                                # torch keeps no _base for view(dtype), on the CPU too
        assert view._base is base or view._base is base._base
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    expected = VIEWS[make](torch.arange(24.0).reshape(4, 6))
    assert torch.equal(view.cpu(), expected)
    base.add_(100)                                          # writes to the base show in the view
    assert torch.equal(view.cpu(), VIEWS[make](torch.arange(24.0).reshape(4, 6) + 100))
    if make in ("expand", "unfold_overlapping"):             # several elements share memory: writes are refused
        with pytest.raises((RuntimeError, ValueError)):
            view.mul_(0)
    elif make != "view_dtype":
        view.mul_(0)                                        # and writes to the view show in the base
        host = torch.arange(24.0).reshape(4, 6) + 100
        VIEWS[make](host).mul_(0)
        assert torch.equal(base.cpu(), host)


def test_view_dtype_reinterprets_bits(device, no_fallback):
    x = torch.tensor([1.0, -2.0, 0.5], device=device)
    assert torch.equal(x.view(torch.int32).cpu(), torch.tensor([1.0, -2.0, 0.5]).view(torch.int32))
    assert torch.equal(x.view(torch.uint8).cpu(), torch.tensor([1.0, -2.0, 0.5]).view(torch.uint8))


def test_data_ptr_arithmetic_follows_torch(device):
    x = torch.empty(10, device=device)
    assert x[3:].data_ptr() == x.data_ptr() + 3 * 4
    y = torch.empty(10, device=device)
    assert abs(y.data_ptr() - x.data_ptr()) >= 40        # distinct storages never share addresses


# ---- in-place ops -------------------------------------------------------------------------------

def test_inplace_ops_on_strided_views(device, no_fallback):
    host = sample((6, 8), torch.float32)
    d = host.to(device)
    d[::2, 1::3].add_(torch.ones(3, device=device), alpha=2)
    host[::2, 1::3].add_(torch.ones(3), alpha=2)
    d.t()[1:4].mul_(d.t()[4:7])
    host.t()[1:4].mul_(host.t()[4:7])
    d.clamp_(-1, 1).neg_()
    host.clamp_(-1, 1).neg_()
    d[d > 0.5] = 7.0
    host[host > 0.5] = 7.0
    d.masked_fill_(d < -0.9, 0)
    host.masked_fill_(host < -0.9, 0)
    torch.testing.assert_close(d.cpu(), host)


def test_inplace_result_type_must_fit(device):
    i = torch.ones(3, dtype=torch.int64, device=device)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(torch.ones(3, device=device))
    with pytest.raises(RuntimeError):
        torch.ones(3, device=device).add_(torch.ones(4, device=device))


def test_inplace_on_overlapping_output_is_refused(device):
    e = torch.ones(1, device=device).expand(4)
    with pytest.raises((RuntimeError, ValueError)):
        e.add_(1)


# ---- type promotion ---------------------------------------------------------------------------------

PROMOTIONS = [
    (torch.int32, torch.int64), (torch.uint8, torch.int8), (torch.bool, torch.bool), (torch.bool, torch.int16),
    (torch.int32, torch.float16), (torch.float16, torch.bfloat16), (torch.float32, torch.float64),
    (torch.int64, torch.float32), (torch.uint8, torch.bool)]


@pytest.mark.parametrize("a,b", PROMOTIONS, ids=[f"{a}-{b}".replace("torch.", "") for a, b in PROMOTIONS])
def test_binary_promotion_matches_cpu(a, b, device, no_fallback):
    x, y = sample((3, 4), a, 1), sample((4,), b, 2)
    for op in (torch.add, torch.mul, torch.maximum, torch.eq, torch.lt):
        got = op(x.to(device), y.to(device))
        want = op(x, y)
        assert got.dtype == want.dtype, op
        torch.testing.assert_close(got.cpu(), want, rtol=1e-2, atol=1e-2)
    if a != torch.bool and b != torch.bool:
        got, want = torch.div(x.to(device), y.to(device)), torch.div(x, y)
        assert got.dtype == want.dtype
        torch.testing.assert_close(got.cpu(), want, rtol=1e-2, atol=1e-2, equal_nan=True)


def test_python_scalars_and_cpu_scalars_promote_like_torch(device, no_fallback):
    i = torch.arange(4, device=device)                         # int64
    h = torch.ones(4, dtype=torch.float16, device=device)
    u = torch.tensor([250, 3], dtype=torch.uint8, device=device)
    cases = [(i + 2.5, torch.arange(4) + 2.5), (h * 3, torch.ones(4, dtype=torch.float16) * 3),
             (i / 2, torch.arange(4) / 2), (u + 10, torch.tensor([250, 3], dtype=torch.uint8) + 10),
             (h + torch.tensor(2.0, dtype=torch.float64), torch.ones(4, dtype=torch.float16) + 2.0),
             (i * torch.tensor(1.5), torch.arange(4) * torch.tensor(1.5)), (i > 1.5, torch.arange(4) > 1.5),
             (2 ** i, 2 ** torch.arange(4)), (i // 3, torch.arange(4) // 3), (-7 % (i + 1), -7 % (torch.arange(4) + 1))]
    for got, want in cases:
        assert got.dtype == want.dtype
        assert torch.equal(got.cpu(), want)


# ---- random numbers ------------------------------------------------------------------------------------

def test_manual_seed_reproduces(device, no_fallback):
    torch.manual_seed(1234)
    a = torch.randn(1000, device=device)
    b = torch.rand(1000, device=device)
    torch.manual_seed(1234)
    assert torch.equal(torch.randn(1000, device=device).cpu(), a.cpu())
    assert torch.equal(torch.rand(1000, device=device).cpu(), b.cpu())
    assert not torch.equal(a.cpu(), torch.randn(1000, device=device).cpu())


def test_random_numbers_are_bit_identical_across_plugins(devices):
    n = 1 << 16
    results = {}
    for plugin, device in devices.items():
        torch.manual_seed(7)
        results[plugin] = [torch.randn(n, device=device).cpu(), torch.rand(n, device=device).cpu(),
                           torch.randn(n, device=device, dtype=torch.float16).cpu(),
                           torch.randint(-5, 9, (n,), device=device).cpu(),
                           torch.bernoulli(torch.full((n,), 0.3, device=device)).cpu(),
                           torch.nn.functional.dropout(torch.ones(n, device=device), 0.25).cpu()]
    first, *others = list(results)
    for other in others:
        for x, y in zip(results[first], results[other]):
            assert torch.equal(x.view(torch.uint8) if x.dtype != torch.int64 else x,
                               y.view(torch.uint8) if y.dtype != torch.int64 else y), (first, other)


def test_generator_object_and_state(device, no_fallback):
    g = torch.Generator(device=device)
    g.manual_seed(99)
    state = g.get_state()
    a = torch.randn(100, device=device, generator=g)
    g.set_state(state)
    assert torch.equal(torch.randn(100, device=device, generator=g).cpu(), a.cpu())
    assert g.initial_seed() == 99
    torch.devplug.manual_seed(5)
    assert torch.devplug.initial_seed() == 5
    saved = torch.devplug.get_rng_state(device)
    x = torch.rand(10, device=device)
    torch.devplug.set_rng_state(saved, device)
    assert torch.equal(torch.rand(10, device=device).cpu(), x.cpu())


def test_distributions_have_the_right_moments(device, no_fallback):
    torch.manual_seed(0)
    n = 200_000
    z = torch.randn(n, device=device, dtype=torch.float64)
    assert abs(z.mean().item()) < 0.01 and abs(z.std().item() - 1) < 0.01
    u = torch.empty(n, device=device).uniform_(-2, 6)
    assert u.min().item() >= -2 and u.max().item() < 6 and abs(u.mean().item() - 2) < 0.03
    b = torch.bernoulli(torch.full((n,), 0.2, device=device))
    assert abs(b.mean().item() - 0.2) < 0.005
    r = torch.randint(3, 10, (n,), device=device)
    assert r.min().item() == 3 and r.max().item() == 9
    e = torch.empty(n, device=device).exponential_(2.0)
    assert e.min().item() >= 0 and abs(e.mean().item() - 0.5) < 0.01
    m = torch.empty(n, device=device).normal_(3.0, 0.5)
    assert abs(m.mean().item() - 3) < 0.01 and abs(m.std().item() - 0.5) < 0.01


def test_dropout_masks_scales_and_backpropagates(device, no_fallback):
    torch.manual_seed(3)
    x = torch.randn(400, 50, device=device, requires_grad=True)
    y = torch.nn.functional.dropout(x, p=0.3, training=True)
    kept = y.detach().cpu() != 0
    assert abs(kept.float().mean().item() - 0.7) < 0.01
    torch.testing.assert_close(y.detach().cpu()[kept], (x.detach().cpu() / 0.7)[kept])
    y.sum().backward()
    torch.testing.assert_close(x.grad.cpu(), kept.float() / 0.7)
    assert torch.equal(torch.nn.functional.dropout(x, p=0.3, training=False).detach().cpu(), x.detach().cpu())


# ---- errors, strict mode, fallback report -------------------------------------------------------------

def test_devplug_errors_surface_with_their_message(device):
    with pytest.raises((torch.OutOfMemoryError, RuntimeError, ValueError), match="devplug"):
        torch.empty(1 << 44, dtype=torch.float32, device=device)   # 64 TiB
    with pytest.raises(IndexError, match="out of range"):
        torch.arange(5.0, device=device)[torch.tensor([7], device=device)].cpu()
    with pytest.raises(IndexError):
        torch.arange(5.0, device=device).index_select(0, torch.tensor([-1], device=device))
    with pytest.raises(TypeError, match="devplug does not have"):
        torch.empty(2, dtype=torch.bits16, device=device)
    with pytest.raises(RuntimeError, match="[Ss]ize|shape"):
        torch.ones(2, 3, device=device) @ torch.ones(2, 3, device=device)
    assert torch.ones(2, device=device).sum().item() == 2     # and the process goes on


# ---- dtypes devplug tensors hold (complex, uint16/32/64, float8) -------------------------------

@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128, torch.uint16,
                                   torch.uint32, torch.uint64, torch.float8_e4m3fn])
def test_held_dtypes_round_trip_and_their_views_alias(device, dtype):
    gen = torch.Generator().manual_seed(3)
    real = torch.randn(4, 6, generator=gen) * 100
    if dtype.is_complex:
        x = torch.complex(real, -real.flip(1)).to(dtype)
    elif dtype.is_floating_point:
        x = (real / 100).to(dtype)
    else:
        x = real.abs().to(torch.int64).to(dtype)
    y = x.to(device)
    assert y.device.type == "devplug" and y.dtype == dtype
    assert torch.equal(y.cpu().view(torch.uint8), x.view(torch.uint8))
    # A strided view copies as torch's CPU copies it, on the device and back.
    assert torch.equal(y.t().contiguous().cpu().view(torch.uint8), x.t().contiguous().view(torch.uint8))
    z = torch.empty(6, 4, dtype=dtype, device=device)
    z.copy_(y.t())
    assert torch.equal(z.cpu().view(torch.uint8), x.t().contiguous().view(torch.uint8))
    assert torch.equal(y[1, 2:3].cpu().view(torch.uint8), x[1, 2:3].view(torch.uint8))
    # Of devplug's largest rank (complex takes a dim for its parts: dims are merged).
    big = x.reshape(2, 2, 3, 1, 1, 1, 1, 2)
    assert torch.equal(big.to(device).cpu().view(torch.uint8), big.view(torch.uint8))
    assert torch.equal(big.to(device).repeat(1, 1, 1, 1, 1, 1, 2, 1).cpu().view(torch.uint8),
                       big.repeat(1, 1, 1, 1, 1, 1, 2, 1).view(torch.uint8))
    if dtype.is_complex:
        # view_as_real aliases: writing its imaginary parts on the device changes the tensor.
        torch.view_as_real(y)[..., 1].zero_()
        assert torch.equal(torch.view_as_real(y.cpu())[..., 1], torch.zeros_like(x.real))
        assert torch.equal(torch.view_as_real(y.cpu())[..., 0], torch.view_as_real(x)[..., 0])


def test_complex_ops_run_on_the_cpu_fallback_counted_and_conj_bits_hold(device):
    x = torch.randn(3, 5, dtype=torch.complex64)
    y = x.to(device)
    torch_devplug.reset_fallback_report()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = (y * (2 - 1j)).exp()
    assert out.device.type == "devplug" and torch.allclose(out.cpu(), (x * (2 - 1j)).exp())
    report = torch_devplug.fallback_report()["torch"]
    assert any(op.startswith("aten::mul") for op in report) and any(op.startswith("aten::exp") for op in report), report
    with torch_devplug._device.strict_mode(True):
        with pytest.raises(NotImplementedError, match="devplug strict mode: aten::mul"):
            y * 2
    # Lazy conj and neg bits: copies apply them, whichever side holds them.
    assert torch.equal(y.conj().cpu(), x.conj().resolve_conj())
    assert torch.equal(y.conj().imag.cpu(), x.conj().imag.resolve_neg())
    c = torch.empty_like(y).conj()
    c.copy_(x)
    assert torch.equal(c.resolve_conj().cpu(), x)
    assert torch.equal(c.conj().cpu(), x.conj().resolve_conj())
    assert y[2, 3].item() == x[2, 3].item()
    assert y.conj()[2, 3].item() == x.conj()[2, 3].item()


def test_mode_with_out_runs_on_the_cpu_fallback(device):
    # torch's own mode.values kernel (for every backend) refuses devices other than CPU, CUDA
    # and XPU; devplug sends it to the CPU fallback, counted.
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 4.0, 4.0]])
    values = torch.empty(2, device=device)
    indices = torch.empty(2, dtype=torch.long, device=device)
    torch_devplug.reset_fallback_report()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.mode(x.to(device), 1, out=(values, indices))
    expected = torch.mode(x, 1)
    assert torch.equal(values.cpu(), expected.values) and torch.equal(indices.cpu(), expected.indices)
    assert torch_devplug.fallback_report()["torch"].get("aten::mode.values") == 1


def test_strict_mode_refuses_a_fallback_and_the_report_counts_it(device):
    x = torch.tensor([3.0, 1.0, 2.0], device=device)
    torch_devplug.reset_fallback_report()
    with torch_devplug._device.strict_mode(True):
        with pytest.raises(NotImplementedError, match="devplug strict mode: aten::sort"):
            torch.sort(x)
    assert torch_devplug.fallback_report()["torch"] == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values, indices = torch.sort(x)
    assert values.device == x.device
    assert torch.equal(values.cpu(), torch.tensor([1.0, 2.0, 3.0])) and torch.equal(indices.cpu(), torch.tensor([1, 2, 0]))
    report = torch_devplug.fallback_report()["torch"]
    assert sum(n for op, n in report.items() if op.startswith("aten::sort")) == 1, report


def test_strict_mode_from_the_environment():
    # TORCH_DEVPLUG_STRICT=1 at start: strict from the first op, for torch's fallback and
    # devplug's own (the context is made strict too).
    code = ("import torch, torch_devplug\n"
            "x = torch.tensor([3.0, 1.0, 2.0], device='devplug')\n"
            "print(torch_devplug.strict())\n"
            "print(torch.equal((x * 2).cpu(), torch.tensor([6.0, 2.0, 4.0])))\n"
            "try:\n"
            "    torch.sort(x)\n"
            "    print('no error')\n"
            "except NotImplementedError as e:\n"
            "    print(str(e).splitlines()[0])\n"
            "print(torch_devplug.fallback_report()['torch'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, TORCH_DEVPLUG_STRICT="1"), check=True).stdout.splitlines()
    assert out[0] == "True" and out[1] == "True", out
    assert out[2].startswith("devplug strict mode: aten::sort"), out
    assert out[3] == "{}", out


def test_native_op_table():
    rows = torch_devplug.native_ops()
    names = [r[0] for r in rows]
    assert len(names) == len(set(names)), "an op is registered twice"
    assert {"add.Tensor", "mm", "_softmax", "convolution_overrideable", "native_layer_norm", "view"} <= set(names)
    assert {r[1] for r in rows} <= {"view", "prim", "composite", "bridge"}
    # Ops devplug has composites for call them (a plugin's native kernel runs), not prims.
    how = {r[0]: r[1] for r in rows}
    for op in ("_softmax", "_log_softmax_backward_data", "native_layer_norm", "native_layer_norm_backward", "gelu",
               "gelu_backward", "native_batch_norm", "convolution_overrideable", "max_pool2d_with_indices",
               "avg_pool2d_backward", "embedding_dense_backward", "nll_loss_forward", "mse_loss", "native_dropout",
               "_scaled_dot_product_fused_attention_overrideable", "mean.dim", "threshold_backward"):
        assert how[op] == "composite", f"{op} is {how[op]}"


def test_docs_op_list_is_current():
    from torch_devplug import oplist
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "torch_ops.md")
    with open(path) as f:
        assert f.read() == oplist.render(), (
            "docs/torch_ops.md is stale: run `PYTHONPATH=build/python .venv/bin/python -m torch_devplug.oplist "
            "> docs/torch_ops.md`")
