# SPDX-License-Identifier: Apache-2.0
"""Ops on a devplug device against the same ops on torch's CPU: elementwise math on
strided and broadcast operands, reductions, indexing, shape ops, the matmul family and the
nn composites with their backward ops (through autograd). Every case must run without a CPU
fallback (the `no_fallback` fixture)."""

import pytest
import torch
import torch.nn.functional as F


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def check(fn, *inputs, device, grad=False, rtol=1e-5, atol=1e-5, seed=11):
    """fn(*inputs) on the CPU and on `device` give the same values, and with `grad` the same
    gradients for every floating input (upstream gradient random)."""
    cpu_in = [x.detach().clone().requires_grad_(grad and x.is_floating_point()) if isinstance(x, torch.Tensor) else x
              for x in inputs]
    dev_in = [x.detach().to(device).requires_grad_(grad and x.is_floating_point()) if isinstance(x, torch.Tensor) else x
              for x in inputs]
    want, got = fn(*cpu_in), fn(*dev_in)
    wants = want if isinstance(want, (tuple, list)) else [want]
    gots = got if isinstance(got, (tuple, list)) else [got]
    for w, g in zip(wants, gots):
        assert g.device == torch.device(device), "result left the device"
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g.detach().cpu(), w.detach(), rtol=rtol, atol=atol, equal_nan=True)
    if grad:
        outs = [(w, g) for w, g in zip(wants, gots) if w.requires_grad]
        ups = [randn(*w.shape, seed=seed + i) for i, (w, _) in enumerate(outs)]
        torch.autograd.backward([w for w, _ in outs], ups)
        torch.autograd.backward([g for _, g in outs], [u.to(device) for u in ups])
        for c, d in zip(cpu_in, dev_in):
            if isinstance(c, torch.Tensor) and c.requires_grad:
                torch.testing.assert_close(d.grad.cpu(), c.grad, rtol=rtol * 10, atol=atol * 10)


# ---- elementwise ------------------------------------------------------------------------------

UNARY = ["abs", "neg", "sign", "ceil", "floor", "round", "trunc", "exp", "exp2", "expm1", "sqrt", "rsqrt",
         "reciprocal", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh", "erf", "erfc", "sigmoid",
         "relu", "isnan", "isinf", "isfinite", "signbit", "logical_not", "sgn"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name, device, no_fallback):
    x = randn(5, 6) * 2
    x[0, 0], x[1, 1] = float("nan"), float("-inf")
    fn = getattr(torch, name)
    check(fn, x.t(), device=device)                      # a transposed operand
    check(lambda t: fn(t), x[::2, 1:], device=device)    # sliced with a step


@pytest.mark.parametrize("name", ["log", "log2", "log10", "log1p", "asin", "acos", "atanh", "acosh", "erfinv",
                                  "lgamma", "digamma"])
def test_unary_on_their_domain(name, device, no_fallback):
    x = randn(4, 5).abs() * 0.9 + (1.05 if name == "acosh" else 0.01)
    check(getattr(torch, name), x, device=device, rtol=1e-4)


def test_unary_on_integers_follows_torch(device, no_fallback):
    i = torch.tensor([[-3, 0, 5], [7, -1, 2]])
    for fn in (torch.abs, torch.neg, torch.sign, torch.exp, torch.sqrt, torch.floor, torch.bitwise_not):
        check(fn, i, device=device, rtol=1e-6)


BINARY = [torch.add, torch.sub, torch.mul, torch.div, torch.maximum, torch.minimum, torch.fmax, torch.fmin,
          torch.remainder, torch.fmod, torch.atan2, torch.hypot, torch.copysign, torch.eq, torch.ne, torch.lt,
          torch.le, torch.gt, torch.ge, torch.logical_and, torch.logical_or, torch.logical_xor, torch.pow,
          torch.floor_divide, torch.nextafter]


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_broadcast(fn, device, no_fallback):
    a, b = randn(4, 1, 6), randn(3, 1, seed=1)
    if fn is torch.pow:
        a = a.abs()
    check(fn, a, b, device=device, rtol=1e-5)
    check(fn, a.transpose(0, 2), randn(6, 1, 1, seed=2), device=device)


def test_binary_with_scalars_and_modes(device, no_fallback):
    a, b = randn(5, 4), randn(5, 4, seed=1)
    check(lambda x: x + 2.5, a, device=device)
    check(lambda x: 3 - x, a, device=device)
    check(lambda x: x ** 2, a, device=device)
    check(lambda x: 2 ** x, a, device=device)
    check(lambda x, y: torch.add(x, y, alpha=-0.5), a, b, device=device)
    check(lambda x, y: torch.div(x, y, rounding_mode="trunc"), a, b, device=device)
    check(lambda x, y: torch.div(x, y, rounding_mode="floor"), a, b, device=device)
    i, j = torch.tensor([-7, 7, -8, 9]), torch.tensor([2, -3, -2, 4])
    check(lambda x, y: torch.div(x, y, rounding_mode="floor"), i, j, device=device)
    check(lambda x, y: torch.div(x, y, rounding_mode="trunc"), i, j, device=device)
    check(lambda x, y: x % y, i, j, device=device)
    check(lambda x, y: x & y, i, j, device=device)
    check(lambda x, y: x << 2, i, j, device=device)
    check(lambda x, y: x >> 1, i, j, device=device)
    check(lambda x, y: (x << y.abs()) >> 1, i, j, device=device)

    def shift_in_place(x, y):
        x = x.clone()
        x <<= 3
        x >>= y.abs()
        return x
    check(shift_in_place, i, j, device=device)


def test_ternary_and_friends(device, no_fallback):
    a, b, c = randn(4, 5), randn(4, 5, seed=1), randn(4, 5, seed=2)
    check(lambda x, y: torch.where(x > 0, x, y), a, b, device=device, grad=True)
    check(lambda x: torch.where(x > 0, x, 0.0), a, device=device)
    check(lambda x: x.clamp(-0.5, 0.5), a, device=device, grad=True)
    check(lambda x, y, z: x.clamp(min=y, max=z + 1), a, b, c, device=device)
    check(lambda x: x.clamp(min=0), a, device=device)
    check(lambda x, y: torch.lerp(x, y, 0.3), a, b, device=device, grad=True)
    check(lambda x, y, w: torch.lerp(x, y, w), a, b, c.sigmoid(), device=device)
    check(lambda x, y, z: torch.addcmul(x, y, z, value=0.5), a, b, c, device=device, grad=True)
    check(lambda x, y, z: torch.addcdiv(x, y, z.abs() + 1, value=-2), a, b, c, device=device, grad=True)
    check(lambda x: x.masked_fill(x > 0.5, -1.0), a, device=device)


# ---- reductions ----------------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda x: x.sum(), "sum_dim": lambda x: x.sum(1), "sum_dims_keepdim": lambda x: x.sum((0, 2), keepdim=True),
    "mean": lambda x: x.mean(-1), "prod": lambda x: x.prod(1), "amax": lambda x: x.amax((1, 2)),
    "amin": lambda x: x.amin(0), "max_dim": lambda x: x.max(1), "min_dim": lambda x: x.min(2, keepdim=True),
    "max": lambda x: x.max(), "argmax": lambda x: x.argmax(), "argmin_dim": lambda x: x.argmin(1),
    "var": lambda x: x.var(1), "std_unbiased0": lambda x: x.std(2, correction=0), "var_mean": lambda x: torch.var_mean(x, 0),
    # torch divides by max(0, N - correction): a negative correction too, on the device.
    "var_negative_correction": lambda x: x.var(1, correction=-1),
    "std_mean_negative_correction": lambda x: torch.std_mean(x, (0, 2), correction=-5, keepdim=True),
    "var_correction_past_n": lambda x: x.var(0, correction=7),
    "norm": lambda x: x.norm(), "norm_1": lambda x: torch.linalg.vector_norm(x, 1, dim=1),
    "norm_inf": lambda x: torch.linalg.vector_norm(x, float("inf")), "logsumexp": lambda x: x.logsumexp(1),
    "cumsum": lambda x: x.cumsum(1), "cumprod": lambda x: x.cumprod(2), "all": lambda x: (x > -3).all(1),
    "any": lambda x: (x > 2).any(), "count_nonzero": lambda x: torch.count_nonzero(x > 0, dim=1),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions(name, device, no_fallback):
    x = randn(3, 4, 5)
    grad = name not in ("argmax", "argmin_dim", "all", "any", "count_nonzero")
    check(REDUCTIONS[name], x.transpose(0, 1), device=device, grad=grad, rtol=1e-5)


def test_negative_variance_corrections_in_16_bits(device, no_fallback):
    x = randn(6, 7)
    check(lambda t: t.to(torch.float16).var(1, correction=-2), x, device=device, rtol=1e-3, atol=1e-3)
    check(lambda t: t.to(torch.bfloat16).std(correction=-1.5), x, device=device, rtol=1e-2, atol=1e-2)


def test_dropout_backward_of_integer_and_bool_gradients_is_float(device, no_fallback):
    # torch computes grad * mask * scale: the double scale makes an integer or bool gradient the
    # default float dtype.
    mask = torch.tensor([[True, False, True], [False, True, True]])
    for grad in (torch.tensor([[3, -2, 7], [1, 0, -4]]), torch.tensor([[3, -2, 7], [1, 0, -4]], dtype=torch.int8),
                 mask.logical_not(), torch.randn(2, 3, dtype=torch.float16)):
        check(lambda g: torch.ops.aten.native_dropout_backward(g, mask.to(g.device), 2.5), grad, device=device)


def test_integer_sums_widen(device, no_fallback):
    i = torch.arange(-6, 6, dtype=torch.int8).reshape(3, 4)
    check(lambda x: x.sum(), i, device=device)
    check(lambda x: x.sum(0, dtype=torch.int16), i, device=device)
    check(lambda x: x.cumsum(1), i, device=device)
    check(lambda x: torch.tensor([True, False, True]).to(x.device).sum(), i, device=device)


# ---- indexing ---------------------------------------------------------------------------------------

def test_indexing(device, no_fallback):
    x = randn(5, 6, 4)
    i = torch.tensor([4, 0, 2, 2])
    check(lambda t: t.index_select(1, i.to(t.device)), x, device=device, grad=True)
    check(lambda t: t[i.to(t.device)], x, device=device, grad=True)
    check(lambda t: t[:, i.to(t.device), 1:3], x, device=device, grad=True)
    j = torch.tensor([3, 0, 1, 1])
    check(lambda t: t[i.to(t.device), :, j.to(t.device)], x, device=device, grad=True)          # non-adjacent
    check(lambda t: t[torch.tensor([-1, 0]).to(t.device)], x, device=device)
    check(lambda t: t[t > 0.5], x, device=device, grad=True)                                     # boolean mask
    # CPU index tensors index a device tensor, as on CUDA (moved to the device).
    check(lambda t: t[i, :, j], x, device=device, grad=True)
    check(lambda t: t[:, torch.tensor([True, False, True, False, False, True])], x, device=device)
    check(lambda t: t.index_put((i, j), torch.tensor(7.0).to(t.device)), x.clone()[:, 0], device=device)
    check(lambda t: t.index_put((i,), torch.ones(4).to(t.device), accumulate=True), x[:, 0, 0], device=device)
    check(lambda t: t.nonzero(), x > 1, device=device)
    check(lambda t: torch.masked_select(t, t < 0), x, device=device)
    g = torch.randint(0, 6, (5, 3, 4), generator=torch.Generator().manual_seed(3))
    check(lambda t: t.gather(1, g.to(t.device)), x, device=device, grad=True)


def test_index_writes(device, no_fallback):
    x, v = randn(5, 6), randn(3, 6, seed=1)
    i = torch.tensor([4, 0, 2])
    def put(t, val):
        t = t.clone()
        t[i.to(t.device)] = val
        return t
    check(put, x, v, device=device, grad=True)
    def accumulate(t, val):
        return t.index_put((torch.tensor([1, 1, 3]).to(t.device),), val, accumulate=True)
    check(accumulate, x, v, device=device, grad=True)
    s = torch.tensor([[0, 1, 2, 0, 1, 2]] * 3)
    check(lambda t, src: t.scatter(0, s.to(t.device), src), x, v, device=device)
    check(lambda t, src: t.scatter_add(0, s.to(t.device), src), x, v, device=device, grad=True)
    check(lambda t: t.scatter(1, s[:, :2].to(t.device), 9.0), x, device=device)
    check(lambda t, src: t.index_add(0, i.to(t.device), src, alpha=2), x, v, device=device, grad=True)
    def masked(t):
        t = t.clone()
        t[t > 0] = 0.25
        return t
    check(masked, x, device=device)


# ---- shape ops and factories -------------------------------------------------------------------------

def test_shape_ops(device, no_fallback):
    a, b = randn(2, 3, 4), randn(2, 5, 4, seed=1)
    check(lambda x, y: torch.cat([x, y], 1), a, b, device=device, grad=True)
    check(lambda x: torch.stack([x, x * 2], 0), a, device=device, grad=True)
    check(lambda x: x.flip(0, 2), a, device=device, grad=True)
    check(lambda x: x.roll(2, 1), a, device=device, grad=True)
    check(lambda x: x.roll((1, -1), (0, 2)), a, device=device)
    check(lambda x: x.tril(), randn(4, 5), device=device, grad=True)
    check(lambda x: x.triu(1), randn(2, 4, 5), device=device, grad=True)
    check(lambda x: x.repeat(2, 1, 3), a, device=device, grad=True)
    check(lambda x: F.pad(x, (1, 2, 0, 1), value=-1.0), a, device=device, grad=True)
    check(lambda x: torch.cat([x.int(), x.long()], 0), a, device=device)


def test_factories(device, no_fallback):
    assert torch.equal(torch.arange(10, device=device).cpu(), torch.arange(10))
    assert torch.equal(torch.arange(1, 4, 0.5, device=device).cpu(), torch.arange(1, 4, 0.5))
    assert torch.equal(torch.arange(5, -5, -3, device=device).cpu(), torch.arange(5, -5, -3))
    torch.testing.assert_close(torch.linspace(-1, 2, 7, device=device).cpu(), torch.linspace(-1, 2, 7))
    assert torch.equal(torch.full((2, 3), 7, device=device).cpu(), torch.full((2, 3), 7))
    assert torch.equal(torch.eye(3, device=device).cpu(), torch.eye(3))
    assert torch.equal(torch.eye(2, 4, dtype=torch.int64, device=device).cpu(), torch.eye(2, 4, dtype=torch.int64))
    assert torch.equal(torch.eye(0, 3, device=device).cpu(), torch.eye(0, 3))
    assert torch.equal(torch.zeros_like(torch.empty(3, 2, device=device)).cpu(), torch.zeros(3, 2))
    assert torch.equal(torch.ones(2, 2, dtype=torch.bool, device=device).cpu(), torch.ones(2, 2, dtype=torch.bool))


# ---- matmul family ----------------------------------------------------------------------------------

def test_matmul_family(device, no_fallback):
    a, b, c = randn(4, 3), randn(3, 5, seed=1), randn(4, 5, seed=2)
    check(torch.mm, a, b, device=device, grad=True)
    check(lambda x, y: x.t() @ y.t(), randn(3, 4), randn(5, 3), device=device, grad=True)  # transposed operands
    check(lambda z, x, y: torch.addmm(z, x, y, beta=0.5, alpha=2), c, a, b, device=device, grad=True)
    check(lambda z, x, y: torch.addmm(z, x, y), randn(5), a, b, device=device, grad=True)  # broadcast bias
    check(torch.bmm, randn(2, 4, 3), randn(2, 3, 5), device=device, grad=True)
    check(torch.matmul, randn(2, 1, 4, 3), randn(3, 3, 2), device=device, grad=True)       # broadcast batch
    check(torch.matmul, randn(2, 4, 3), randn(3), device=device, grad=True)
    check(torch.dot, randn(7), randn(7, seed=1), device=device, grad=True)
    check(torch.mv, a, randn(3), device=device, grad=True)
    check(lambda z, x, y: torch.baddbmm(z, x, y, alpha=0.5), randn(2, 4, 5), randn(2, 4, 3), randn(2, 3, 5),
          device=device, grad=True)
    check(F.linear, randn(2, 6, 3), randn(4, 3), randn(4), device=device, grad=True)


# ---- nn composites and their backward ops -------------------------------------------------------------

ACTIVATIONS = {
    "softmax": lambda x: x.softmax(-1), "log_softmax": lambda x: F.log_softmax(x, 1),
    "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
    "sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": F.relu, "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "softplus": lambda x: F.softplus(x, beta=2, threshold=3), "hardtanh": F.hardtanh, "relu6": F.relu6,
    "elu_free_threshold": lambda x: F.threshold(x, 0.1, -2.0),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations_and_backward(name, device, no_fallback):
    check(ACTIVATIONS[name], randn(3, 7, 5) * 3, device=device, grad=True)


def test_layer_norm_and_backward(device, no_fallback):
    x = randn(4, 3, 8) * 2 + 1
    check(lambda t, w, b: F.layer_norm(t, (8,), w, b), x, randn(8, seed=1), randn(8, seed=2), device=device,
          grad=True, rtol=1e-4)
    check(lambda t: F.layer_norm(t, (3, 8)), x, device=device, grad=True, rtol=1e-4)


def test_attention(device, no_fallback):
    q, k, v = randn(2, 4, 6, 8), randn(2, 4, 6, 8, seed=1), randn(2, 4, 6, 8, seed=2)
    check(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), q, k, v, device=device,
          grad=True, rtol=1e-4)
    mask = torch.randn(6, 6).tril()
    check(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m), q, k, v, mask, device=device,
          grad=True, rtol=1e-4)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    dev_mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).to(device)
    dev_mha.load_state_dict(mha.state_dict())
    x = randn(3, 5, 8)
    want = mha(x, x, x, need_weights=False)[0]
    got = dev_mha(x.to(device), x.to(device), x.to(device), need_weights=False)[0]
    torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-5)


def test_attention_takes_the_composite_where_it_covers_the_call(device, no_fallback):
    # 4 is torch's SDPBackend.overrideable (the composite), 0 its math decomposition.
    q, k, v = (randn(2, 3, 5, 4, seed=s).to(device) for s in range(3))
    choice = torch.ops.aten._fused_sdp_choice
    assert choice(q, k, v, is_causal=True) == 4
    assert choice(q, k, v, attn_mask=torch.ones(5, 5, dtype=torch.bool, device=device)) == 4
    assert choice(q, k, v, dropout_p=0.5) == 0
    assert choice(q, k, v, enable_gqa=True) == 0
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)  # the math route, on the device
    assert out.shape == q.shape and out.device == q.device


CONVS = {
    "plain": dict(), "stride_pad": dict(stride=2, padding=1), "dilation": dict(dilation=2, padding=2),
    "groups": dict(groups=2, padding=1), "asymmetric": dict(stride=(1, 2), padding=(2, 0)),
}


@pytest.mark.parametrize("name", list(CONVS))
def test_conv2d_and_backward(name, device, no_fallback):
    kw = CONVS[name]
    groups = kw.get("groups", 1)
    x, w, b = randn(2, 4, 9, 8), randn(6, 4 // groups, 3, 3, seed=1), randn(6, seed=2)
    check(lambda t, ww, bb: F.conv2d(t, ww, bb, **kw), x, w, b, device=device, grad=True, rtol=1e-4)


def test_conv1d_and_no_bias(device, no_fallback):
    check(lambda t, w: F.conv1d(t, w, stride=2, padding=1), randn(2, 3, 11), randn(5, 3, 4, seed=1),
          device=device, grad=True, rtol=1e-4)


def test_transposed_conv_runs_on_the_cpu_and_says_so(device):
    import torch_devplug
    torch_devplug.reset_fallback_report()
    check(lambda t, w: F.conv_transpose2d(t, w, stride=2), randn(1, 2, 4, 4), randn(2, 3, 3, 3, seed=1),
          device=device, rtol=1e-4)
    assert any("convolution" in op for op in torch_devplug.fallback_report()["torch"])


POOLS = {
    "max": lambda x: F.max_pool2d(x, 2), "max_pad_stride": lambda x: F.max_pool2d(x, 3, 2, 1),
    "max_ceil_dilation": lambda x: F.max_pool2d(x, 2, 2, 0, 2, ceil_mode=True),
    "avg": lambda x: F.avg_pool2d(x, 2), "avg_pad": lambda x: F.avg_pool2d(x, 3, 2, 1),
    "avg_pad_exclude": lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_ceil": lambda x: F.avg_pool2d(x, 2, ceil_mode=True), "avg_divisor": lambda x: F.avg_pool2d(x, 2, divisor_override=3),
    "avg_divisor_negative": lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=-2),
    "adaptive_avg": lambda x: F.adaptive_avg_pool2d(x, (3, 2)), "adaptive_avg_1": lambda x: F.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_uneven": lambda x: F.adaptive_avg_pool2d(x, (4, 5)),
    "adaptive_avg_grows": lambda x: F.adaptive_avg_pool2d(x, (7, 3)),  # more outputs than inputs along H
}


@pytest.mark.parametrize("name", list(POOLS))
def test_pooling_and_backward(name, device, no_fallback):
    x = randn(2, 3, 9, 8) if "adaptive" not in name else randn(2, 3, 9, 8)[:, :, :, :]
    if "adaptive" in name:
        x = randn(2, 3, 6, 8)
    check(POOLS[name], x, device=device, grad=True, rtol=1e-5)
    if name == "max":
        check(lambda t: F.max_pool2d(t, 2, return_indices=True), x, device=device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_uneven_and_3d_adaptive_average_pooling_on_the_device(dtype, device, no_fallback):
    x = randn(2, 3, 7, 10, dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype in (torch.float32, torch.float64) else dict(rtol=1e-2, atol=1e-2)
    check(lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x, device=device, grad=True, **tol)
    check(lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x.contiguous(memory_format=torch.channels_last), device=device,
          grad=True, **tol)
    check(lambda t: F.adaptive_avg_pool2d(t, (5, 3)), x[0], device=device, grad=True, **tol)           # [C, H, W]
    check(lambda t: F.adaptive_avg_pool1d(t, 4), x[:, :, 0], device=device, grad=True, **tol)
    check(lambda t: F.interpolate(t, size=(5, 6), mode="area"), x, device=device, **tol)
    if dtype in (torch.float32, torch.float64):  # torch's CPU sums 16-bit 3-d pooling in 16 bits: on the CPU
        v = randn(2, 2, 5, 7, 6, dtype=dtype)
        check(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4)), v, device=device, grad=True, **tol)
        check(lambda t: F.adaptive_avg_pool3d(t, (3, 7, 1)), v[0], device=device, grad=True, **tol)   # [C, D, H, W]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
def test_linear_and_cubic_upsampling_on_the_device(dtype, device, no_fallback):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype != torch.float16 else dict(rtol=1e-3, atol=1e-3)
    grad = dtype != torch.float16
    x1, x2, x3 = randn(2, 3, 7, dtype=dtype), randn(2, 3, 5, 6, dtype=dtype), randn(1, 2, 3, 4, 5, dtype=dtype)
    for align in (False, True):
        check(lambda t: F.interpolate(t, size=12, mode="linear", align_corners=align), x1, device=device, grad=grad,
              **tol)
        check(lambda t: F.interpolate(t, size=4, mode="linear", align_corners=align), x1, device=device, **tol)  # down
        check(lambda t: F.interpolate(t, size=(9, 4), mode="bicubic", align_corners=align), x2, device=device,
              grad=grad, **tol)
        check(lambda t: F.interpolate(t, size=(5, 7, 3), mode="trilinear", align_corners=align), x3, device=device,
              grad=grad, **tol)
        if dtype != torch.float16:  # bilinear 16-bit floats run on the CPU (torch rounds each step to 16 bits)
            check(lambda t: F.interpolate(t, size=(8, 11), mode="bilinear", align_corners=align), x2, device=device,
                  grad=grad, **tol)
            check(lambda t: F.interpolate(t, size=(8, 11), mode="bilinear", align_corners=align),
                  x2.contiguous(memory_format=torch.channels_last), device=device, grad=grad, **tol)
    # A scale factor the output size does not recompute, and a size-1 output with align_corners.
    check(lambda t: F.interpolate(t, scale_factor=1.7, mode="linear", recompute_scale_factor=False), x1, device=device,
          grad=grad, **tol)
    check(lambda t: F.interpolate(t, scale_factor=(0.6, 2.5), mode="bicubic", recompute_scale_factor=False), x2,
          device=device, **tol)
    check(lambda t: F.interpolate(t, size=(1, 3), mode="bicubic", align_corners=True), x2, device=device, **tol)


def test_upsampling_leaves_integers_and_16_bit_bilinear_to_the_cpu(device):
    import torch_devplug
    torch_devplug.reset_fallback_report()
    check(lambda t: F.interpolate(t, size=(6, 9), mode="bilinear"), (randn(1, 2, 4, 5) * 50).to(torch.uint8),
          device=device, atol=0, rtol=0)
    check(lambda t: F.interpolate(t, size=(6, 9), mode="bilinear"), randn(1, 2, 4, 5, dtype=torch.float16),
          device=device, atol=0, rtol=0)
    with pytest.raises(RuntimeError, match="should be greater than 0"):
        torch.ops.aten.upsample_bilinear2d(randn(1, 2, 4, 5).to(device), [0, 3], False)
    assert set(torch_devplug.fallback_report()["torch"]) == {"aten::upsample_bilinear2d"}


def test_adaptive_average_pooling_leaves_what_it_cannot_run_to_the_cpu(device):
    import torch_devplug
    torch_devplug.reset_fallback_report()
    v = randn(1, 2, 5, 7, 6, dtype=torch.float16)
    check(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4)), v, device=device, rtol=1e-3, atol=1e-3)
    with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
        F.adaptive_avg_pool2d(torch.ones(2, 3, 0, 5, device=device), (3, 2))
    assert set(torch_devplug.fallback_report()["torch"]) == {"aten::_adaptive_avg_pool3d",
                                                              "aten::_adaptive_avg_pool2d (integer or empty)"}


def test_integer_max_pool_runs_on_the_cpu_and_says_so(device):
    import torch_devplug
    torch_devplug.reset_fallback_report()
    x = torch.arange(2 * 3 * 6 * 4).reshape(2, 3, 6, 4) % 7
    check(lambda t: F.max_pool2d(t, 2, return_indices=True), x, device=device)
    assert any("max_pool2d" in op for op in torch_devplug.fallback_report()["torch"])


def test_inplace_activation_on_a_view_writes_through(device, no_fallback):
    x = randn(4, 6).to(device)
    base = x.clone()
    F.gelu(x[1:3], approximate="tanh").sum()  # out of place leaves x alone
    torch.testing.assert_close(x.cpu(), base.cpu())
    F.relu(x[:, ::2], inplace=True)
    want = base.cpu().clone()
    want[:, ::2] = want[:, ::2].relu()
    torch.testing.assert_close(x.cpu(), want)


def test_embedding_and_backward(device, no_fallback):
    w = randn(10, 4)
    idx = torch.tensor([[1, 3, 3], [0, 9, 1]])
    check(lambda ww: F.embedding(idx.to(ww.device), ww), w, device=device, grad=True)
    check(lambda ww: F.embedding(idx.to(ww.device), ww, padding_idx=3), w, device=device, grad=True)
    check(lambda ww: F.embedding(idx.to(ww.device), ww, scale_grad_by_freq=True), w, device=device, grad=True)


LOSSES = {
    "cross_entropy": lambda x, t: F.cross_entropy(x, t),
    "cross_entropy_weight_ignore": lambda x, t: F.cross_entropy(x, t, weight=torch.arange(1.0, 6.0).to(x.device),
                                                                ignore_index=2),
    "cross_entropy_sum": lambda x, t: F.cross_entropy(x, t, reduction="sum"),
    "cross_entropy_none": lambda x, t: F.cross_entropy(x, t, reduction="none"),
    "cross_entropy_smoothing": lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
    "nll": lambda x, t: F.nll_loss(F.log_softmax(x, 1), t),
    "mse": lambda x, t: F.mse_loss(x, t.float().unsqueeze(1).expand_as(x)),
    "mse_sum": lambda x, t: F.mse_loss(x, torch.zeros_like(x), reduction="sum"),
    "bce": lambda x, t: F.binary_cross_entropy(x.sigmoid(), (t % 2).float().unsqueeze(1).expand_as(x)),
    "l1": lambda x, t: F.l1_loss(x, torch.ones_like(x)),
    "smooth_l1": lambda x, t: F.smooth_l1_loss(x, torch.ones_like(x)),
    "smooth_l1_beta_sum": lambda x, t: F.smooth_l1_loss(x, t.float().unsqueeze(1).expand_as(x), beta=2.5,
                                                        reduction="sum"),
    "smooth_l1_none": lambda x, t: F.smooth_l1_loss(x, torch.zeros_like(x), beta=0.3, reduction="none"),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_losses_and_backward(name, device, no_fallback):
    x = randn(6, 5) * 2
    t = torch.tensor([0, 4, 2, 1, 2, 3])
    check(LOSSES[name], x, t, device=device, grad=True, rtol=1e-5)


def test_cross_entropy_over_spatial_dims(device, no_fallback):
    # 4-d input: nll_loss2d; 3-d: torch views it as 4-d.
    t4 = torch.tensor([[[0, 4], [2, 1]], [[3, 3], [1, 0]]])
    check(lambda x, t: F.cross_entropy(x, t, ignore_index=1), randn(2, 5, 2, 2), t4, device=device, grad=True)
    t3 = torch.tensor([[0, 4, 2], [1, 3, 3]])
    check(lambda x, t: F.cross_entropy(x, t, reduction="none"), randn(2, 5, 3), t3, device=device, grad=True)


def test_nll_rejects_bad_targets(device):
    with pytest.raises(IndexError, match="Target out of bounds"):
        F.cross_entropy(randn(2, 3).to(device), torch.tensor([0, 5]).to(device))


def test_batch_norm_training_eval_and_backward(device, no_fallback):
    import copy
    x = randn(4, 3, 5, 5) * 2 + 1
    check(lambda t, w, b: F.batch_norm(t, None, None, w, b, training=True), x, randn(3, seed=1), randn(3, seed=2),
          device=device, grad=True, rtol=1e-4)
    bn = torch.nn.BatchNorm2d(3)
    dev_bn = copy.deepcopy(bn).to(device)
    for step in range(3):
        xs = randn(4, 3, 5, 5, seed=step) + step
        torch.testing.assert_close(dev_bn(xs.to(device)).detach().cpu(), bn(xs).detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(dev_bn.running_mean.cpu(), bn.running_mean, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(dev_bn.running_var.cpu(), bn.running_var, rtol=1e-5, atol=1e-6)
    bn.eval()
    dev_bn.eval()
    check(lambda t: (dev_bn if t.device.type == "devplug" else bn)(t), x, device=device, grad=True, rtol=1e-4)
    check(lambda t: F.batch_norm(t, torch.zeros(3).to(t.device), torch.ones(3).to(t.device), training=False),
          randn(2, 3, 7), device=device, grad=True)


# ---- cases torch's OpInfo suite found ------------------------------------------------------------------

# torch takes dim 0 and -1 (with or without keepdim) of a 0-dim tensor as the tensor itself.
ZERO_DIM_REDUCTIONS = {
    "sum": lambda x, d, k: x.sum(d, keepdim=k), "mean": lambda x, d, k: x.mean(d, keepdim=k),
    "prod": lambda x, d, k: x.prod(d, keepdim=k),
    "amax": lambda x, d, k: x.amax(d, keepdim=k), "amin": lambda x, d, k: x.amin(d, keepdim=k),
    "argmax": lambda x, d, k: x.argmax(d, keepdim=k), "argmin": lambda x, d, k: x.argmin(d, keepdim=k),
    "max_dim": lambda x, d, k: x.max(d, keepdim=k), "min_dim": lambda x, d, k: x.min(d, keepdim=k),
    "all": lambda x, d, k: (x > 0).all(d, keepdim=k), "any": lambda x, d, k: (x > 0).any(d, keepdim=k),
    "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k), "var": lambda x, d, k: x.var(d, keepdim=k),
    "std": lambda x, d, k: x.std(d, keepdim=k, correction=0),
    "vector_norm": lambda x, d, k: torch.linalg.vector_norm(x, 3, dim=d, keepdim=k),
    "count_nonzero": lambda x, d, k: torch.count_nonzero(x, d),
    "cosine_similarity": lambda x, d, k: F.cosine_similarity(x, x * -2, dim=d),
    "masked_sum": lambda x, d, k: torch.masked.sum(x, d, keepdim=k, mask=x > 0),
    "masked_amax": lambda x, d, k: torch.masked.amax(x, d, keepdim=k, mask=x > 0),
    "masked_mean": lambda x, d, k: torch.masked.mean(x, d, keepdim=k, mask=x > 0),
    "masked_norm": lambda x, d, k: torch.masked.norm(x, 2.0, d, keepdim=k, mask=x > 0),
    "masked_logsumexp": lambda x, d, k: torch.masked.logsumexp(x, d, keepdim=k, mask=x > 0),
}


@pytest.mark.parametrize("name", list(ZERO_DIM_REDUCTIONS))
def test_reductions_over_the_dims_of_a_0_dim_tensor(name, device, no_fallback):
    fn = ZERO_DIM_REDUCTIONS[name]
    grad = name not in ("argmax", "argmin", "all", "any", "count_nonzero", "var", "std")  # var: NaN gradient
    for dim in (0, -1, (0,), (-1,)):
        if isinstance(dim, tuple) and name in ("prod", "argmax", "argmin", "max_dim", "min_dim", "count_nonzero",
                                               "cosine_similarity"):
            continue  # ops of one int dim
        for keepdim in (False, True):
            check(lambda t: fn(t, dim, keepdim), torch.tensor(1.75), device=device, grad=grad)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fn(torch.tensor(1.75).to(device), 1, False)


def special_values(*shape, seed=0, scale=3.0):
    x = randn(*shape, seed=seed) * scale
    x.view(-1)[:5] = torch.tensor([0.0, float("nan"), float("inf"), -float("inf"), -0.0])
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16], ids=str)
def test_pointwise_formulas_on_the_device(dtype, device, no_fallback):
    # torch's CPU formulas composed from prims: zeros, NaN and infinities included.
    x, y = special_values(4, 5).to(dtype), special_values(4, 5, seed=1).to(dtype)
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype in (torch.bfloat16, torch.float16) else {}
    check(torch.sinc, x, device=device, **tol)
    check(torch.special.entr, x, device=device, **tol)
    check(torch.special.xlog1py, x, y.abs(), device=device, **tol)
    check(torch.special.xlog1py, x, y, device=device, **tol)                # y < -1: NaN
    check(torch.nan_to_num, x, device=device)
    check(lambda t: torch.nan_to_num(t, nan=1.5, posinf=2.0, neginf=-3.0), x, device=device)
    check(lambda t: t.clone().nan_to_num_(posinf=7.0), x.t(), device=device)
    check(lambda t: torch.mvlgamma(t, 3), x.abs() + 1.5, device=device, **tol)
    check(lambda t: torch.mvlgamma(t, 2, out=torch.empty(0, dtype=t.dtype, device=t.device)), x.abs() + 1, device=device,
          **tol)


def test_pointwise_formulas_of_integers_and_their_errors(device, no_fallback):
    i = torch.arange(-4, 8).reshape(3, 4)
    check(torch.sinc, i, device=device)                                    # promoted to float32
    check(torch.special.entr, i, device=device)
    check(torch.nan_to_num, i, device=device)                              # a copy
    with pytest.raises(RuntimeError, match="nan_to_num: dtype of out"):
        torch.nan_to_num(torch.ones(3, device=device), out=torch.empty(3, dtype=torch.float64, device=device))
    check(lambda t: torch.mvlgamma(t, 2), torch.zeros(3), device=device)  # below (p - 1) / 2: Inf, as torch


def test_aminmax_narrow_copy_and_channel_shuffle_on_the_device(device, no_fallback):
    x = randn(3, 4, 5)
    check(torch.aminmax, x, device=device)
    check(lambda t: torch.aminmax(t, dim=1), x, device=device)
    check(lambda t: torch.aminmax(t, dim=-1, keepdim=True), x.transpose(0, 2), device=device)
    check(lambda t: torch.aminmax(t, keepdim=True), x, device=device)
    check(lambda t: torch.aminmax(t, dim=0), torch.tensor(2.5), device=device)  # a 0-dim tensor
    check(lambda t: torch.aminmax(t, dim=1), torch.arange(12, dtype=torch.int16).reshape(3, 4), device=device)
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        torch.aminmax(torch.ones(0, 3, device=device))
    for out in ({}, {"out": (torch.empty(0, device=device), torch.empty(0, device=device))}):
        with pytest.raises(IndexError, match=r"aminmax: Expected reduction dim 0 to have non-zero size"):
            torch.aminmax(torch.ones(0, 3, device=device), dim=0, **out)
    check(lambda t: torch.narrow_copy(t, 1, 1, 2), x, device=device)
    check(lambda t: torch.narrow_copy(t, -1, -3, 3), x.transpose(1, 2), device=device)
    with pytest.raises(IndexError, match="start out of range"):
        torch.narrow_copy(x.to(device), 0, 7, 1)
    check(lambda t: torch.nn.functional.channel_shuffle(t, 2), randn(2, 6, 3, 2), device=device)
    check(lambda t: torch.nn.functional.channel_shuffle(t, 3), randn(2, 6, 4).transpose(1, 2).transpose(1, 2),
          device=device)
    with pytest.raises(RuntimeError, match="divisible by groups"):
        torch.nn.functional.channel_shuffle(randn(2, 6, 3).to(device), 4)


def test_index_fill_on_the_device(device, no_fallback):
    x = randn(3, 4, 5)
    at = lambda t, *i: torch.tensor(i if len(i) != 1 else i[0]).to(t.device)  # noqa: E731
    check(lambda t: t.clone().index_fill_(1, at(t, 0, -1, 2), -2.5), x, device=device)
    check(lambda t: t.index_fill(0, at(t, 2), torch.tensor(7.0)), x, device=device)  # 0-dim index and value
    check(lambda t: t.index_fill(2, at(t, 4, 4, 0), torch.tensor(1.5).to(t.device)), x, device=device)
    check(lambda t: t.index_fill(-1, at(t, 1), True), torch.zeros(2, 3, dtype=torch.bool), device=device)
    check(lambda t: t.index_fill(0, at(t, -1), 4), torch.tensor(1), device=device)  # a 0-dim self

    def through_a_view(t):
        t = t.clone()
        t.t()[1:].index_fill_(0, at(t, 0, 2), -1.0)
        return t
    check(through_a_view, randn(4, 5), device=device)
    d = x.to(device)
    with pytest.raises(IndexError, match="index out of range"):
        d.index_fill(1, at(d, 4), 0.0)
    with pytest.raises(IndexError, match="index out of range"):
        d.index_fill(1, at(d, -5), 0.0)
    with pytest.raises(IndexError, match="Expected dtype int64 for index"):
        d.index_fill(1, at(d, 1).int(), 0.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        d.index_fill(1, at(d, 1), torch.ones(2, device=device))


def test_masked_scatter_and_linalg_cross_on_the_device(device, no_fallback):
    x, source = randn(3, 4), randn(2, 7, seed=1)
    mask = randn(3, 4, seed=2) > 0
    check(lambda t, m, s: t.clone().masked_scatter_(m, s), x, mask, source, device=device)
    check(lambda t, m, s: t.masked_scatter(m, s), x.t(), mask.t(), source, device=device)     # strided
    check(lambda t, m, s: t.masked_scatter(m, s), x, mask[1], source, device=device)         # a broadcast mask
    check(lambda t, m, s: t.masked_scatter(m, s), x.int(), torch.zeros(3, 4, dtype=torch.bool),
          torch.arange(3, dtype=torch.int32), device=device)                                 # no element set
    d = x.to(device)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        d.masked_scatter(torch.ones(3, 4, dtype=torch.bool, device=device), torch.ones(11, device=device))
    with pytest.raises(RuntimeError, match="same dtypes"):
        d.masked_scatter(mask.to(device), source.double().to(device))

    a, b = randn(4, 3, seed=3), randn(4, 3, seed=4)
    check(torch.linalg.cross, a, b, device=device, grad=True)
    check(lambda u, v: torch.linalg.cross(u, v, dim=0), a.t(), b.t(), device=device)
    check(torch.linalg.cross, a[:1], b, device=device)                                       # broadcast
    check(torch.linalg.cross, torch.arange(12).reshape(4, 3), torch.arange(12).reshape(4, 3).flip(0),
          device=device)
    check(lambda u, v: torch.cross(u, v, dim=1), a, b, device=device)
    with pytest.raises(RuntimeError, match="must have length 3"):
        torch.linalg.cross(randn(4, 2).to(device), randn(4, 2).to(device))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int16, torch.uint8], ids=str)
def test_logspace_on_the_device(dtype, device, no_fallback):
    # torch's CPU formula: start and end in the dtype, exponents rounded as torch rounds them.
    for start, end, steps, base in ((-2, 3, 7, 2.5), (1.7, 3.2, 5, 10.0), (0, 3, 4, 2.0), (2, -1, 6, 0.5),
                                    (0.5, 2.25, 2, 3.0), (1, 2, 1, 10.0), (0, 1, 0, 10.0)):
        if dtype == torch.uint8 and start < 0:
            continue                            # a wrapped start overflows uint8: undefined in C++
        want = torch.logspace(start, end, steps, base=base, dtype=dtype)
        got = torch.logspace(start, end, steps, base=base, dtype=dtype, device=device)
        assert got.device == torch.device(device) and got.dtype == want.dtype
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=0, equal_nan=True)
    out = torch.empty(3, 2, dtype=dtype, device=device)
    torch.logspace(0, 2, 6, base=2.0, out=out)                                    # torch keeps out's shape
    torch.testing.assert_close(out.cpu(), torch.logspace(0, 2, 6, base=2.0, dtype=dtype).view(3, 2))


def test_logspace_refuses_as_torch_does(device):
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        torch.logspace(0, 1, -1, device=device)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        torch.logspace(0, 1000, 3, dtype=torch.int8, device=device)


def test_nonzero_static_on_the_device(device, no_fallback):
    x = randn(3, 4, 5)
    x[x.abs() < 0.5] = 0
    n = int((x != 0).sum())
    for size, fill in ((n, -1), (n + 7, -9), (n - 5, 0), (0, 3)):
        check(lambda t: torch.nonzero_static(t, size=size, fill_value=fill), x, device=device)
    check(lambda t: torch.nonzero_static(t, size=4), x.transpose(0, 2)[1], device=device)             # strided
    check(lambda t: torch.nonzero_static(t, size=5), torch.tensor([True, False, True]), device=device)
    check(lambda t: torch.nonzero_static(t, size=2), torch.zeros(0, 3), device=device)               # empty input
    check(lambda t: torch.nonzero_static(t, size=2), torch.tensor(3.0), device=device)               # 0-dim
    check(lambda t: torch.nonzero_static(t, size=3, fill_value=7, out=torch.empty(0, dtype=torch.long,
                                                                                 device=t.device)),
          torch.tensor([[0, 2], [5, 0]]), device=device)
    d = x.to(device)
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        torch.nonzero_static(d, size=-1)
    with pytest.raises(RuntimeError, match="Expected out tensor to have scalar type Long"):
        torch.nonzero_static(d, size=2, out=torch.empty(2, 3, dtype=torch.int32, device=device))


def test_repeat_interleave_on_the_device(device, no_fallback):
    r = torch.tensor([2, 0, 3, 1, 0])
    check(torch.repeat_interleave, r, device=device)
    check(torch.repeat_interleave, r.int(), device=device)
    check(lambda t: torch.repeat_interleave(t, output_size=6), r, device=device)
    check(torch.repeat_interleave, torch.zeros(4, dtype=torch.long), device=device)
    check(torch.repeat_interleave, torch.zeros(0, dtype=torch.long), device=device)
    x = randn(4, 3)
    check(lambda t, k: torch.repeat_interleave(t, k, dim=0), x, torch.tensor([1, 0, 2, 3]), device=device)
    check(lambda t, k: t.repeat_interleave(k, dim=1), x, torch.tensor([3, 1, 2]), device=device)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        torch.repeat_interleave(torch.tensor([1, -1, 2], device=device))
    with pytest.raises(RuntimeError, match="only accept 1D vector"):
        torch.repeat_interleave(torch.ones(2, 2, dtype=torch.long, device=device))


def test_repeat_interleave_leaves_other_dtypes_to_the_cpu(device):
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        torch.repeat_interleave(torch.tensor([1.0, 2.0], device=device))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_polygamma_on_the_device(dtype, device, no_fallback):
    # n = 1 is torch's trigamma series, n >= 2 its Hurwitz zeta, computed as torch computes them:
    # poles, infinities, NaN and negative arguments (more rounds of the zeta's sum) included.
    x = (randn(6, 7) * 5).to(dtype)
    x.view(-1)[:8] = torch.tensor([0.0, -0.0, -2.0, 0.5, float("inf"), float("nan"), -float("inf"), -8.75])
    tol = {"rtol": 1e-2, "atol": 1e-2} if dtype in (torch.float16, torch.bfloat16) else {"rtol": 1e-5, "atol": 1e-5}
    for n in (0, 1, 2, 3, 4, 5):
        check(lambda t: torch.polygamma(n, t), x, device=device, **tol)
        check(lambda t: torch.special.polygamma(n, t.t()), x, device=device, **tol)
    check(lambda t: t.clone().polygamma_(3), x, device=device, **tol)
    check(lambda t: torch.polygamma(2, t), torch.arange(-3, 5), device=device)                       # promoted
    check(lambda t: torch.polygamma(1, t), randn(5, 3).abs() + 0.1, device=device, grad=True)
    check(lambda t: torch.polygamma(2, t, out=torch.empty(0, dtype=torch.float64, device=t.device)), x.float(),
          device=device)


def test_polygamma_refuses_and_leaves_far_negative_arguments_to_the_cpu(device):
    d = randn(5).to(device)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        torch.polygamma(-1, d)
    import torch_devplug
    far = torch.tensor([-100.25, 1.5], device=device)                                          # > 64 rounds
    torch_devplug.reset_fallback_report()
    torch.testing.assert_close(torch.polygamma(3, far).cpu(), torch.polygamma(3, far.cpu()))
    assert torch_devplug.fallback_report()["torch"] == {"aten::polygamma.out": 1}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8, torch.bool], ids=str)
def test_cummax_cummin_on_the_device(dtype, device, no_fallback):
    # Ties and NaN take the later index, as torch's CPU; no read back.
    x = (randn(4, 9, 5) * 3).round().to(dtype)
    if dtype.is_floating_point:
        x[1, 3, :2] = float("nan")
        x[2, :, 0] = torch.tensor([-0.0, 0.0, 1.0, 1.0, float("nan"), 2.0, float("nan"), -1.0, 1.0])
    for fn in (torch.cummax, torch.cummin):
        check(lambda t: fn(t, 1), x, device=device, grad=dtype.is_floating_point and dtype != torch.float16)
        check(lambda t: fn(t, -1), x.transpose(0, 2), device=device)
        check(lambda t: fn(t, 0), x[:, ::2, 1], device=device)
        check(lambda t: fn(t, 0), torch.tensor(3).to(dtype), device=device)                         # 0-dim
        check(lambda t: fn(t, 1), x[:, :0], device=device)                                           # empty
        check(lambda t: fn(t, 2, out=(torch.empty(0, dtype=t.dtype, device=t.device),
                                      torch.empty(0, dtype=torch.long, device=t.device))), x, device=device)
        check(lambda t: fn(t, 1), (randn(3, 100) * 2).round().to(dtype), device=device)        # 7 passes, ties


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
def test_max_unpool_on_the_device(dtype, device, no_fallback):
    x, x3 = randn(2, 3, 6, 8).to(dtype), randn(2, 2, 4, 6, 4).to(dtype)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    y3, i3 = F.max_pool3d(x3, 2, return_indices=True)
    y_overlap, i_overlap = F.max_pool2d(x, 3, stride=1, return_indices=True)                     # duplicates
    grad = dtype != torch.float16
    check(lambda t, k: F.max_unpool2d(t, k, 2), y, i, device=device, grad=grad)
    check(lambda t, k: F.max_unpool2d(t, k, 2, output_size=(7, 9)), y, i, device=device)
    check(lambda t, k: F.max_unpool2d(t, k, 3, stride=1), y_overlap, i_overlap, device=device, grad=grad)
    check(lambda t, k: F.max_unpool2d(t, k, 2), y[0], i[0], device=device)                          # unbatched
    check(lambda t, k: F.max_unpool2d(t, k, 2), y.to(memory_format=torch.channels_last),
          i.to(memory_format=torch.channels_last), device=device)
    check(lambda t, k: F.max_unpool3d(t, k, 2), y3, i3, device=device, grad=grad)
    check(lambda t, k: F.max_unpool3d(t, k, 2), y3[1], i3[1], device=device)
    check(lambda t, k: torch.ops.aten.max_unpool2d.out(t, k, [6, 8], out=torch.empty(5, dtype=t.dtype,
                                                                                      device=t.device)),
          y, i, device=device)
    check(lambda t, k: F.max_unpool2d(t, k, 2), y[:0], i[:0], device=device)                       # empty batch


def test_max_unpool_refuses_as_torch_does(device):
    y, i = F.max_pool2d(randn(1, 2, 4, 4), 2, return_indices=True)
    y3, i3 = F.max_pool3d(randn(1, 2, 4, 4, 4), 2, return_indices=True)
    y, i, y3, i3 = y.to(device), i.to(device), y3.to(device), i3.to(device)
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 1\d\d \(output volumes are of size 4x4\)"):
        torch.ops.aten.max_unpool2d(y, i + 100, [4, 4])
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: -\d+ \(output volumes are of size 4x4x4\)"):
        torch.ops.aten.max_unpool3d(y3, i3 - 100, [4, 4, 4], [2, 2, 2], [0, 0, 0])
    with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
        torch.ops.aten.max_unpool2d(y, i.int(), [4, 4])
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same"):
        torch.ops.aten.max_unpool2d(y, i[0], [4, 4])
    with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
        torch.ops.aten.max_unpool2d(y[:, :0], i[:, :0], [4, 4])
    with pytest.raises(RuntimeError, match="strides should be greater than zero"):
        torch.ops.aten.max_unpool3d(y3, i3, [4, 4, 4], [0, 2, 2], [0, 0, 0])
    with pytest.raises(RuntimeError, match="exactly three elements"):
        torch.ops.aten.max_unpool3d(y3, i3, [4, 4], [2, 2, 2], [0, 0, 0])
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        torch.ops.aten.max_unpool2d(y.int(), i, [4, 4])                                          # on the CPU


def test_nanmean_over_the_dims_of_a_0_dim_tensor(device):
    # nanmean is nansum (no devplug kernel: the CPU fallback) divided by a device count.
    for dim in (0, -1):
        check(lambda t: t.nanmean(dim, keepdim=True), torch.tensor(float("nan")), device=device)
        check(lambda t: t.nanmean(dim), torch.tensor(1.75), device=device)


def ran_on_the_cpu(op, fn, *inputs, device):
    """fn(*inputs) on `device` gives torch's CPU results through the CPU fallback: counted under
    an aten op whose name contains `op`, and refused in strict mode."""
    import torch_devplug
    torch_devplug.reset_fallback_report()
    check(fn, *inputs, device=device)
    report = torch_devplug.fallback_report()
    assert any(op in name for name in report["torch"]), report
    with torch.devplug.strict_mode():
        with pytest.raises(NotImplementedError, match="devplug strict mode: aten::"):
            fn(*[x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs])


B_23 = torch.tensor([[True, False, True], [False, False, True]])
INDEX_23 = torch.tensor([[0, 1, 0], [1, 0, 1]])

# A dtype the device op does not allow (ops.def's dtype set): torch's CPU runs the call.
CPU_DTYPES = {
    "conv2d_int": ("convolution", lambda x, w: F.conv2d(x, w, padding=1),
                   torch.arange(32).reshape(1, 2, 4, 4) % 5, torch.arange(24).reshape(3, 2, 2, 2) % 3 - 1),
    "conv1d_int": ("convolution", F.conv1d, torch.arange(16).reshape(1, 2, 8), torch.ones(3, 2, 2, dtype=torch.long)),
    "avg_pool2d_int": ("avg_pool2d", lambda x: F.avg_pool2d(x, 2), torch.arange(32).reshape(1, 2, 4, 4)),
    "avg_pool1d_int": ("avg_pool2d", lambda x: F.avg_pool1d(x, 2), torch.arange(16).reshape(1, 2, 8)),
    "scatter_add_bool": ("scatter_add", lambda x, s: x.scatter_add(0, INDEX_23.to(x.device), s), B_23, ~B_23),
    "index_add_bool": ("index_add", lambda x, s: x.index_add(0, torch.tensor([1, 0]).to(x.device), s), B_23, B_23),
    "index_put_accumulate_bool": (
        "index_put", lambda x, v: x.index_put((torch.tensor([1, 1]).to(x.device),), v, accumulate=True), B_23, B_23),
    "sign_bool": ("sign", torch.sign, B_23),
    "sgn_bool": ("sgn", torch.sgn, B_23),
    "signbit_bool": ("signbit", torch.signbit, B_23),
    "fmax_bool": ("fmax", torch.fmax, B_23, B_23.flip(0)),
    "fmin_bool": ("fmin", torch.fmin, B_23, B_23.flip(1)),
    "max_dim_bool": ("max.dim", lambda x: x.max(1), B_23),
    "min_dim_bool": ("min.dim", lambda x: x.min(0, keepdim=True), B_23),
}


@pytest.mark.parametrize("name", list(CPU_DTYPES))
def test_dtypes_the_device_op_does_not_allow_run_on_the_cpu(name, device):
    op, fn, *inputs = CPU_DTYPES[name]
    ran_on_the_cpu(op, fn, *inputs, device=device)


INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_integer_matmul_family_on_the_device(dtype, device, no_fallback):
    # The matmul prim takes no integers: products summed on the device, wrapping in the dtype
    # exactly as torch's CPU does (values near the dtype's range make the 8- and 16-bit ones wrap).
    def ints(*shape, seed):
        return torch.randint(-100, 100, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)
    a, b = ints(3, 4, seed=1), ints(4, 5, seed=2)
    check(torch.mm, a, b, device=device)
    check(torch.matmul, a.t(), ints(3, 2, seed=3)[:, ::1], device=device)        # a transposed operand
    check(torch.bmm, ints(2, 3, 4, seed=4), ints(2, 4, 5, seed=5), device=device)
    check(torch.matmul, ints(2, 3, 4, seed=6), ints(4, 5, seed=7), device=device)  # broadcast batch
    check(torch.mv, a, ints(4, seed=8), device=device)
    check(torch.matmul, ints(2, 3, 4, seed=9), ints(4, seed=10), device=device)
    check(torch.dot, ints(7, seed=11), ints(7, seed=12), device=device)
    check(lambda z, x, y: torch.addmv(z, x, y, beta=2, alpha=3), ints(3, seed=13), a, ints(4, seed=14), device=device)
    check(lambda z, x, y: torch.addmm(z, x, y, beta=2, alpha=3), ints(5, seed=15), a, b, device=device)
    check(torch.baddbmm, ints(2, 3, 5, seed=16), ints(2, 3, 4, seed=17), ints(2, 4, 5, seed=18), device=device)
    check(torch.mm, ints(0, 4, seed=19), ints(4, 5, seed=20), device=device)      # empty
    check(torch.mm, ints(3, 0, seed=21), ints(0, 5, seed=22), device=device)      # k = 0: zeros

    def addmm_(z, x, y):
        z = z.clone()
        z[:, 1:].addmm_(x, y)
        return z
    check(addmm_, ints(3, 6, seed=23), a, b, device=device)


def test_integer_matmul_in_blocks_of_rows(device, no_fallback):
    # [300, 200] x [200, 300]: 18M products, summed in two blocks of rows.
    g = torch.Generator().manual_seed(0)
    a = torch.randint(-128, 128, (300, 200), generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (200, 300), generator=g, dtype=torch.int8)
    check(torch.mm, a, b, device=device)


def test_in_place_calls_on_the_cpu_write_through_views(device):
    def index_add_(x, s):
        x = x.clone()
        x[1:].index_add_(1, torch.tensor([2, 0]).to(x.device), s)
        return x
    ran_on_the_cpu("index_add_", index_add_, torch.zeros(3, 4, dtype=torch.bool), B_23[:, :2], device=device)
    def scatter_add_(x, s):
        x = x.clone()
        x.t()[1:, :3].scatter_add_(0, INDEX_23.to(x.device), s)
        return x
    ran_on_the_cpu("scatter_add_", scatter_add_, torch.zeros(4, 5, dtype=torch.bool), B_23, device=device)


def test_a_dtype_torch_refuses_gives_torchs_error(device):
    # The CPU fallback raises what torch's CPU raises, instead of devplug's dtype error.
    for fn, message in ((lambda x: x.argmax(), "argmax"), (torch.neg, "Negation"),
                        (lambda x: x - x, "Subtraction"), (lambda x: F.leaky_relu(x.long()), "leaky_relu")):
        with pytest.raises(NotImplementedError, match=message):
            fn(B_23.to(device))


def test_hardtanh_keeps_integer_dtypes(device, no_fallback):
    # torch's hardtanh truncates the bounds of an integer tensor to integers: no promotion.
    i = torch.tensor([[-3, 0, 2, 5], [7, -1, 1, 6]])
    for dtype in (torch.int64, torch.int32, torch.int16, torch.int8):
        x = i.to(dtype)
        check(F.hardtanh, x, device=device)
        check(F.relu6, x, device=device)
        check(lambda t: F.hardtanh(t, -1.5, 2.5), x, device=device)

        def in_place(t):
            t = t.clone()
            F.hardtanh(t[:, ::2], 0, 3, inplace=True)
            return t
        check(in_place, x, device=device)
    check(lambda t: F.hardtanh(t, 0, 3), i.abs().to(torch.uint8), device=device)
    check(F.hardtanh, i.to(torch.float16) / 3, device=device)
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(i.abs().to(torch.uint8).to(device))
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.hardtanh(B_23.to(device))
    check(lambda t: t.clamp(-1.5, 2.5), i, device=device)  # clamp does promote
    check(lambda t: F.threshold(t, 1, 9), i, device=device)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16_bit_norms_and_losses_accumulate_in_float32(dtype, device, no_fallback):
    # Sums of 1000 squares of up to 30 pass float16's 65504: torch accumulates them in float32
    # and rounds the result once.
    a = (torch.arange(1000) / 1000 * 30).to(dtype)
    b = torch.linspace(-1, 1, 1000).to(dtype)
    tol = dict(rtol=2e-3, atol=1e-3) if dtype == torch.float16 else dict(rtol=1.6e-2, atol=1e-2)
    check(torch.dist, a, b, device=device, **tol)
    check(lambda x, y: torch.dist(x, y, 3), a, b, device=device, **tol)
    for ord in (2, 1, 3, 0.5, float("inf")):
        check(lambda x: torch.linalg.vector_norm(x, ord), a, device=device, **tol)
    check(lambda x: x.reshape(10, 100).norm(dim=1), a, device=device, **tol)
    check(lambda x: torch.linalg.vector_norm(x, dtype=torch.float32), a, device=device, **tol)
    check(lambda x, y: F.cosine_similarity(x, y, dim=0), a, b, device=device, **tol)
    check(lambda x: F.normalize(x, dim=0), a, device=device, **tol)
    check(lambda x, y: F.pairwise_distance(x.reshape(10, 100), y.reshape(10, 100)), a, b, device=device, **tol)
    # The losses' own reductions (target broadcast: not the composite), mean and sum.
    z = torch.zeros(1, dtype=dtype)
    check(lambda x, t: torch.ops.aten.mse_loss(x, t, 1), a, z, device=device, **tol)
    check(lambda x, t: F.smooth_l1_loss(x, t.expand_as(x), beta=0.5), a, z, device=device, **tol)
    check(lambda x: F.binary_cross_entropy(x / 31, torch.ones_like(x), reduction="sum"), a, device=device, **tol)


def test_layer_norm_with_a_negative_eps_computes_as_torch(device, no_fallback):
    # torch takes any eps: rstd = 1 / sqrt(var + eps) is NaN where var + eps < 0.
    x = randn(4, 3, 8)
    x[0, 1] = 0.25  # a row of variance 0
    w, b = randn(8, seed=1), randn(8, seed=2)
    for eps in (-0.5, -1e-5, float("inf")):
        check(lambda t: torch.native_layer_norm(t, (8,), None, None, eps), x, device=device, rtol=1e-4)
        check(lambda t, ww, bb: F.layer_norm(t, (3, 8), ww.expand(3, 8), bb.expand(3, 8), eps=eps), x, w, b,
              device=device, rtol=1e-4)
    check(lambda t: F.layer_norm(t, (8,), eps=-0.5), x.to(torch.float16), device=device, rtol=2e-3, atol=2e-3)
    check(lambda t, ww, bb: F.layer_norm(t, (8,), ww, bb, eps=-1e-3), randn(4, 3, 8, seed=3) * 2 + 1, w, b,
          device=device, grad=True, rtol=1e-4)


def test_batch_norm_with_a_negative_eps_runs_on_the_cpu(device):
    # F.batch_norm refuses a negative eps; torch's aten ops take it.
    def training(t):
        mean, var = torch.zeros(3).to(t.device), torch.ones(3).to(t.device)
        return torch.ops.aten._native_batch_norm_legit(t, None, None, mean, var, True, 0.5, -1e-3) + (mean, var)
    ran_on_the_cpu("batch_norm", training, randn(4, 3, 5) * 2, device=device)
    ran_on_the_cpu("batch_norm", lambda t, v: torch.batch_norm(t, None, None, v * 0, v, False, 0.1, -0.5, False),
                   randn(4, 3, 5), torch.tensor([1.0, 0.25, 0.75]), device=device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.float16])
def test_as_strided_of_a_partial_view_addresses_the_whole_storage(dtype, device, no_fallback):
    # As torch's OpInfo samples: as_strided on base[5:15] of a 20-element base, with the view's
    # storage offset, 0 and 10. The offset counts from the start of the storage, so these read
    # elements outside the view: compared with the same view of a CPU base, not with a CPU
    # copy of the view (whose storage holds the 10 elements alone; torch's OpInfo entry marks
    # test_compare_cpu an expected failure for this reason).
    values = randn(20) * 5
    base = values > 0 if dtype == torch.bool else values.to(dtype)
    on_device = base.to(device)
    for kwargs in ({}, {"storage_offset": 0}, {"storage_offset": 10}):
        want = torch.as_strided(base[5:15], (2, 2), (1, 2), **kwargs)
        got = torch.as_strided(on_device[5:15], (2, 2), (1, 2), **kwargs)
        assert (got.storage_offset(), got.stride()) == (want.storage_offset(), want.stride())
        assert torch.equal(got.cpu(), want)
        if dtype == torch.float32:
            leaf_cpu = base.clone()[5:15].requires_grad_()
            leaf_dev = on_device.clone()[5:15].requires_grad_()
            up = randn(2, 2, seed=4)
            torch.as_strided(leaf_cpu, (2, 2), (1, 2), **kwargs).backward(up)
            torch.as_strided(leaf_dev, (2, 2), (1, 2), **kwargs).backward(up.to(device))
            torch.testing.assert_close(leaf_dev.grad.cpu(), leaf_cpu.grad)


# Every pair of these values, edge cases included: signed zeros, halves (round-half-even),
# infinities, NaN, a tiny and a large magnitude.
EDGE_VALUES = [0.0, -0.0, 1.5, -2.5, 0.5, 2.5, float("inf"), float("-inf"), float("nan"), 1e-30, 3.3e4, -7.25,
               1234.5678]
POINTWISE_FORMULAS = {
    "logaddexp": lambda a, b: torch.logaddexp(a, b),
    "logaddexp2": lambda a, b: torch.logaddexp2(a, b),
    "xlogy": lambda a, b: torch.xlogy(a, b),
    "xlogy_scalar": lambda a, b: torch.xlogy(a, 2.0),
    "xlogy_": lambda a, b: a.clone().xlogy_(b),
    "heaviside": lambda a, b: torch.heaviside(a, b),
    "frac": lambda a, b: torch.frac(a),
    "round_decimals_0": lambda a, b: torch.round(a * 37.123, decimals=0),
    "round_decimals_3": lambda a, b: torch.round(a * 37.123, decimals=3),
    "round_decimals_neg_2": lambda a, b: torch.round(a * 37.123, decimals=-2),
    "round_decimals_": lambda a, b: (a * 37.123).round_(decimals=1),
    "rsub": lambda a, b: torch.rsub(a, b, alpha=2),
    "logaddexp_broadcast": lambda a, b: torch.logaddexp(a.reshape(13, 13)[:, :1], b.reshape(13, 13)[0]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", list(POINTWISE_FORMULAS))
def test_pointwise_formulas_match_the_cpu_on_edge_values(name, dtype, device, no_fallback):
    """torch's CPU formulas, step for step on the device (in float32 for the 16-bit floats):
    every pair of EDGE_VALUES within torch's tolerance of the dtype, NaN where the CPU has NaN."""
    if dtype not in torch.devplug.devices()[torch.device(device).index]["dtypes"]:
        pytest.skip(f"{device} does not claim {dtype}")
    values = torch.tensor(EDGE_VALUES)
    a = values.repeat_interleave(len(values)).to(dtype)
    b = values.repeat(len(values)).to(dtype)
    fn = POINTWISE_FORMULAS[name]
    if name == "rsub" and dtype in (torch.float16, torch.bfloat16):
        # torch's CPU rounds alpha * a to the dtype in its scalar loop (small tensors, tails) but
        # not in its vector loop; devplug rounds it always (3.3e4 * 2 is inf in float16).
        a, b = a[:10], b[:10]
    torch.testing.assert_close(fn(a.to(device), b.to(device)).cpu(), fn(a, b), equal_nan=True)


def test_pointwise_formulas_refuse_as_torch_does(device):
    x = torch.randn(5, 7, device=device)
    with pytest.raises(RuntimeError, match=r"output with shape \[5, 1\] doesn't match the broadcast shape \[5, 7\]"):
        x[:, :1].clone().xlogy_(x)
    ints = torch.arange(3, device=device)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.xlogy(ints, ints, out=torch.empty(3, dtype=torch.long, device=device))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        torch.heaviside(x, torch.ones(1, dtype=torch.float64, device=device))
    assert torch.xlogy(ints, ints).cpu().tolist() == pytest.approx(torch.xlogy(ints.cpu(), ints.cpu()).tolist())
    signs = torch.tensor([-1, 0, 2], device=device)
    assert torch.heaviside(signs, torch.tensor([5], device=device)).cpu().tolist() == [0, 5, 1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool], ids=str)
def test_nansum_and_max_min_into_out(dtype, device, no_fallback):
    x = torch.tensor([[1.5, float("nan"), -2.0], [float("nan"), 4.0, 0.5]]).to(dtype)
    d = x.to(device)
    for kwargs in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": 0, "dtype": torch.float64}):
        torch.testing.assert_close(torch.nansum(d, **kwargs).cpu(), torch.nansum(x, **kwargs), equal_nan=True)
        out = torch.empty(0, dtype=kwargs.get("dtype", torch.nansum(x).dtype), device=device)
        torch.nansum(d, **kwargs, out=out)
        torch.testing.assert_close(out.cpu(), torch.nansum(x, **kwargs), equal_nan=True)
    for fn in (torch.max, torch.min):
        for out_dtype in (dtype, torch.float64):
            out = torch.empty(0, dtype=out_dtype, device=device)
            fn(d, out=out)
            torch.testing.assert_close(out.cpu(), fn(x, out=torch.empty(0, dtype=out_dtype)), equal_nan=True)


def test_max_into_out_refuses_as_torch_does(device):
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        torch.max(torch.empty(0, device=device), out=torch.empty((), device=device))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.min(torch.ones(3, device=device), out=torch.empty((), dtype=torch.long, device=device))


def test_equal_vdot_and_conj_physical_of_real_tensors(device, no_fallback):
    x = torch.tensor([1.0, float("nan"), 3.0])
    d = x.to(device)
    for a, b in ((torch.ones(2), torch.ones(2, dtype=torch.int32)), (x, x), (torch.ones(2, 3), torch.ones(3, 2)),
                 (torch.arange(4), torch.arange(4)), (torch.arange(4), torch.arange(4).flip(0)),
                 (torch.empty(0), torch.empty(0))):
        assert torch.equal(a.to(device), b.to(device)) == torch.equal(a, b), (a, b)
    v, w = torch.randn(7), torch.randn(7)
    torch.testing.assert_close(torch.vdot(v.to(device), w.to(device)).cpu(), torch.vdot(v, w))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 2D tensors"):
        torch.vdot(torch.ones(2, 2, device=device), torch.ones(2, 2, device=device))
    out = torch.empty(0, device=device)
    torch.conj_physical(d, out=out)
    torch.testing.assert_close(out.cpu(), torch.conj_physical(x, out=torch.empty(0)), equal_nan=True)
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        torch.conj_physical(d, out=torch.empty(0, dtype=torch.float64, device=device))



ELU_FAMILY = {
    "elu": lambda x: torch.nn.functional.elu(x, alpha=0.7),
    "elu_": lambda x: torch.nn.functional.elu(x.clone(), alpha=1.3, inplace=True),
    "celu": lambda x: torch.nn.functional.celu(x, alpha=1.5),
    "selu": lambda x: torch.nn.functional.selu(x),
    "logsigmoid": lambda x: torch.nn.functional.logsigmoid(x),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", list(ELU_FAMILY))
def test_elu_family_and_logsigmoid_with_backward(name, dtype, device, no_fallback):
    """Forward on EDGE_VALUES (infinities and NaN included) and the gradient of random inputs,
    against torch's CPU."""
    if dtype not in torch.devplug.devices()[torch.device(device).index]["dtypes"]:
        pytest.skip(f"{device} does not claim {dtype}")
    fn = ELU_FAMILY[name]
    edge = torch.tensor(EDGE_VALUES).to(dtype)
    torch.testing.assert_close(fn(edge.to(device)).cpu(), fn(edge), equal_nan=True)
    torch.manual_seed(0)
    x = (torch.randn(4, 6) * 3).to(dtype)
    grad = torch.randn(4, 6).to(dtype)
    cpu = x.clone().requires_grad_()
    dev = x.to(device).requires_grad_()
    fn(cpu).backward(grad)
    fn(dev).backward(grad.to(device))
    torch.testing.assert_close(dev.grad.cpu(), cpu.grad)


# ---- take, put_, index_copy, addbmm, logit, angle ------------------------------------------------

def test_take_put_and_index_copy_on_the_device(device, no_fallback):
    x = randn(3, 4, 5)
    idx = lambda *i: torch.tensor(i)  # noqa: E731
    check(lambda t, i: torch.take(t, i), x, idx([[0, -1], [59, 7]]), device=device)
    check(lambda t, i: torch.take(t, i), x.transpose(0, 2), idx(3, -60, 17), device=device)  # strided self
    check(lambda t, i: torch.take(t, i), torch.tensor(2.5), idx(0, -1, 0), device=device)    # 0-dim self
    check(lambda t, i, s: t.clone().put_(i, s), x, idx(0, 59, -2), randn(3, seed=1), device=device)
    check(lambda t, i, s: t.clone().put_(i, s, accumulate=True), x, idx([4, 4], [-1, 4]), randn(2, 2, seed=2),
          device=device)  # repeated indices add up
    check(lambda t, i, s: torch.put(t, i, s, accumulate=True), torch.arange(12).reshape(3, 4).int(),
          idx(1, 1, 11), torch.tensor([5, 6, 7]).int(), device=device)

    def put_through_a_view(t, i, s):
        t = t.clone()
        t.t()[1:].put_(i, s)
        return t
    check(put_through_a_view, randn(4, 5), idx(0, 6, 14), randn(3, seed=3), device=device)
    check(lambda t, i, s: t.index_copy(1, i, s), x, idx(3, 0), randn(3, 2, 5, seed=4), device=device)
    check(lambda t, i, s: t.clone().index_copy_(-1, i, s), x, idx(4), randn(3, 4, 1, seed=5), device=device)
    check(lambda t, i, s: t.index_copy(0, i, s), torch.tensor(1.0), idx(0), torch.tensor(3.0), device=device)

    d = x.to(device)
    with pytest.raises(IndexError, match="index out of range"):
        torch.take(d, idx(60).to(device))
    with pytest.raises(IndexError, match="index out of range"):
        d.clone().put_(idx(-61).to(device), torch.ones(1, device=device))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
        torch.take(d, idx(1).int().to(device))
    with pytest.raises(RuntimeError, match="same number of elements"):
        d.clone().put_(idx(1, 2).to(device), torch.ones(3, device=device))
    with pytest.raises(IndexError, match="index out of range"):
        d.index_copy(1, idx(4).to(device), torch.ones(3, 1, 5, device=device))
    with pytest.raises(IndexError, match="should be equal to source.size"):
        d.index_copy(1, idx(0, 1).to(device), torch.ones(3, 1, 5, device=device))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8], ids=str)
def test_scatter_reduce_sum_mean_and_index_reduce_mean_on_the_device(dtype, device, no_fallback):
    # Repeated indices, places nothing lands on, include_self both ways; integer means round down.
    x = (randn(5, 4, 3) * 4).round().to(dtype)
    src = (randn(6, 4, 3, seed=1) * 4).round().to(dtype)
    index = torch.tensor([[[0, 0, 4], [2, 2, 2], [0, 1, 0], [4, 4, 4]],
                          [[0, 0, 0], [2, 3, 2], [1, 1, 0], [4, 0, 4]]])
    grad = dtype.is_floating_point and dtype != torch.float16
    for reduce in ("sum", "mean"):
        for include_self in (True, False):
            check(lambda t, i, s: t.scatter_reduce(0, i, s, reduce, include_self=include_self), x, index, src,
                  device=device)
            check(lambda t, i, s: t.scatter_reduce(0, i, s, reduce, include_self=include_self), x, index, src[:2],
                  device=device, grad=grad)  # torch's gradient needs src shaped as the index
            check(lambda t, i, s: t.clone().scatter_reduce_(-1, i % 3, s, reduce, include_self=include_self),
                  x, index, src, device=device)
            check(lambda t, i, s: torch.scatter_reduce(t.transpose(0, 1), 1, i.transpose(0, 1), s.transpose(0, 1),
                                                       reduce, include_self=include_self,
                                                       out=torch.empty(0, dtype=t.dtype, device=t.device)),
                  x, index, src, device=device)  # strided operands, an out tensor resized
    rows = torch.tensor([0, 4, 0, 2, 0, 2, 1])
    for include_self in (True, False):
        check(lambda t, i, s: t.index_reduce(0, i, s, "mean", include_self=include_self), x, rows,
              (randn(7, 4, 3, seed=2) * 4).round().to(dtype), device=device, grad=grad)
        check(lambda t, i, s: t.clone().index_reduce_(1, i % 4, s, "mean", include_self=include_self), x, rows,
              (randn(5, 7, 3, seed=3) * 4).round().to(dtype), device=device)
    check(lambda t, i, s: t.scatter_reduce(0, i, s, "mean"), x, index[:, :0], src, device=device)  # no index
    zero_dim = torch.tensor(3).to(dtype), torch.tensor(0), torch.tensor(6).to(dtype)
    for include_self in (True, False):
        check(lambda t, i, s: t.scatter_reduce(0, i, s, "mean", include_self=include_self), *zero_dim, device=device)
        check(lambda t, i, s: t.index_reduce(-1, i.reshape(1), s, "mean", include_self=include_self), *zero_dim,
              device=device)


def test_scatter_reduce_and_index_reduce_leave_the_rest_to_the_cpu(device):
    import torch_devplug
    x, src = randn(5, 4), randn(3, 4, seed=1)
    index = torch.tensor([[0, 4, 4, 1], [0, 0, 2, 1], [3, 4, 4, 1]])
    d = lambda t: t.to(device)  # noqa: E731
    torch_devplug.reset_fallback_report()
    for reduce in ("prod", "amax", "amin"):  # counted fallbacks, torch's values
        torch.testing.assert_close(d(x).scatter_reduce(0, d(index), d(src), reduce).cpu(),
                                   x.scatter_reduce(0, index, src, reduce))
        torch.testing.assert_close(d(x).index_reduce(0, d(index[:, 0]), d(src), reduce).cpu(),
                                   x.index_reduce(0, index[:, 0], src, reduce))
    assert torch_devplug.fallback_report()["torch"] == {"aten::scatter_reduce.two": 3, "aten::index_reduce": 3}
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin"):
        d(x).scatter_reduce(0, d(index), d(src), "maximum")
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        d(x).scatter_reduce(0, d(index), d(src).double(), "sum")
    with pytest.raises(IndexError, match="index out of range"):
        d(x).scatter_reduce(0, d(index + 1), d(src), "mean")
    with pytest.raises(IndexError, match="index out of range"):
        d(x).index_reduce(0, d(torch.tensor([0, 5, 1])), d(src), "mean")
    with pytest.raises(RuntimeError, match="dtype"):
        torch.scatter_reduce(d(x), 0, d(index), d(src), "sum", out=d(torch.empty(5, 4, dtype=torch.float64)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.bfloat16], ids=str)
def test_addbmm_on_the_device(dtype, device, no_fallback):
    if dtype not in torch.devplug.devices()[torch.device(device).index]["dtypes"]:
        pytest.skip(f"{device} does not claim {dtype}")
    g = torch.Generator().manual_seed(3)
    make = lambda *s: (torch.randint(-9, 9, s, generator=g) if not dtype.is_floating_point  # noqa: E731
                       else torch.randn(s, generator=g)).to(dtype)
    # bfloat16: one rounding per batch as on the CPU, so within an ulp (float32 sums in another order)
    tol = dict(rtol=8e-3, atol=0) if dtype == torch.bfloat16 else {}
    check(lambda z, a, b: torch.addbmm(z, a, b, beta=2, alpha=3), make(3, 5), make(4, 3, 6), make(4, 6, 5),
          device=device, **tol)
    check(torch.addbmm, make(5), make(2, 3, 4), make(2, 4, 5), device=device, **tol)  # broadcast self
    check(torch.addbmm, make(3, 5), make(0, 3, 4), make(0, 4, 5), device=device)      # no batches

    def in_place(z, a, b):
        return z.clone().addbmm_(a.transpose(1, 2), b, alpha=2)
    check(in_place, make(3, 5), make(2, 4, 3), make(2, 4, 5), device=device, **tol)
    check(in_place, make(1), make(2, 4, 3), make(2, 4, 5), device=device, **tol)  # self takes the product's shape


def test_reflection_replication_padding_and_nearest_upsampling_on_the_device(device, no_fallback):
    import torch.nn.functional as F
    x2, x3 = randn(2, 3, 5, 6), randn(1, 2, 3, 4, 5, seed=1)
    for mode in ("reflect", "replicate"):
        check(lambda t: F.pad(t, (2, 1), mode=mode), randn(2, 3, 5), device=device, grad=True)
        check(lambda t: F.pad(t, (2, 1, 0, 3), mode=mode), x2, device=device, grad=True)
        check(lambda t: F.pad(t, (1, 2, 2, 0, 1, 1), mode=mode), x3, device=device, grad=True)
        check(lambda t: F.pad(t, (-1, 2, 1, -2), mode=mode), x2, device=device, grad=True)  # crops too
        check(lambda t: F.pad(t, (1, 1, 1, 1), mode=mode), x2.transpose(2, 3), device=device, grad=True)
    check(lambda t: F.pad(t, (-3, 4), mode="replicate"), randn(4, 3), device=device, grad=True)
    for mode in ("nearest", "nearest-exact"):
        check(lambda t: F.interpolate(t, scale_factor=2.5, mode=mode), randn(2, 3, 7), device=device, grad=True)
        check(lambda t: F.interpolate(t, size=(7, 4), mode=mode), x2, device=device, grad=True)
        check(lambda t: F.interpolate(t, scale_factor=2, mode=mode), x2, device=device, grad=True)
        check(lambda t: F.interpolate(t, size=(5, 3, 9), mode=mode), x3, device=device, grad=True)
        check(lambda t: F.interpolate(t, scale_factor=(0.7, 1.3), mode=mode, recompute_scale_factor=False),
              x2.to(memory_format=torch.channels_last), device=device, grad=True)
    got = F.interpolate(x2.to(device).to(memory_format=torch.channels_last), scale_factor=3)
    assert got.is_contiguous(memory_format=torch.channels_last)  # as torch's CPU lays it out
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(x2.to(device), (6, 0, 0, 0), mode="reflect")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_logit_and_angle_on_the_device(dtype, device, no_fallback):
    if dtype not in torch.devplug.devices()[torch.device(device).index]["dtypes"]:
        pytest.skip(f"{device} does not claim {dtype}")
    x = torch.tensor([-0.5, 0.0, 1e-4, 0.25, 0.5, 0.9, 1.0, 1.5, float("nan"), float("inf"), -3.0]).to(dtype)
    for eps in (None, 0.0, 0.1, -2.0, float("nan")):
        check(lambda t: torch.logit(t, eps=eps), x, device=device, rtol=0, atol=0)
    check(lambda t: t.clone().logit_(0.05), x, device=device, rtol=0, atol=0)
    check(lambda t: torch.logit(t, 0.2), x.reshape(1, 11).expand(2, 11)[:, ::2], device=device, rtol=0, atol=0)
    check(lambda t: torch.logit(t, eps=1e-6), randn(4, 5).sigmoid().to(dtype), device=device, grad=True,
          rtol=1e-3 if dtype.itemsize == 2 else 1e-5)
    check(torch.angle, x, device=device, rtol=0, atol=0)
    check(lambda t: torch.angle(t, out=torch.empty(0, dtype=dtype, device=t.device)), x, device=device)


def test_logit_and_angle_of_integers(device, no_fallback):
    ints = torch.tensor([-2, 0, 1, 3])
    check(torch.logit, ints, device=device)
    check(lambda t: torch.logit(t, 0.25), ints, device=device)
    check(torch.angle, ints, device=device)
    check(torch.angle, torch.tensor([True, False]), device=device)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.logit(ints.to(device), out=torch.empty(4, dtype=torch.long, device=device))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_modified_bessel_functions_on_the_device(name, dtype, device, no_fallback):
    """torch's Cephes Chebyshev series on the device: both tables (|x| <= 8 and above), the
    switch at 8, the signs of i1 and i1e, overflow to inf, NaN; within torch's tolerance of the
    dtype (the CPU may fuse a multiply and an add where the device rounds both)."""
    if dtype not in torch.devplug.devices()[torch.device(device).index]["dtypes"]:
        pytest.skip(f"{device} does not claim {dtype}")
    fn = getattr(torch.special, name)
    x = torch.cat([torch.linspace(-20, 20, 161), torch.tensor(
        [0.0, -0.0, 8.0, -8.0, 7.999, 8.001, 1e-30, 700.0, -700.0, float("inf"), -float("inf"), float("nan")])])
    check(fn, x.to(dtype), device=device, **({} if dtype.itemsize > 2 else dict(rtol=1.6e-2, atol=1e-5)))
    check(fn, torch.arange(-5, 6), device=device)                      # integers compute in float32
    check(lambda t: fn(t.t(), out=torch.empty(0, dtype=dtype, device=t.device)), randn(3, 4).to(dtype) * 6,
          device=device, **({} if dtype.itemsize > 2 else dict(rtol=1.6e-2, atol=1e-5)))
