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
    "adaptive_avg": lambda x: F.adaptive_avg_pool2d(x, (3, 2)), "adaptive_avg_1": lambda x: F.adaptive_avg_pool2d(x, 1),
}


@pytest.mark.parametrize("name", list(POOLS))
def test_pooling_and_backward(name, device, no_fallback):
    x = randn(2, 3, 9, 8) if "adaptive" not in name else randn(2, 3, 9, 8)[:, :, :, :]
    if "adaptive" in name:
        x = randn(2, 3, 6, 8)
    check(POOLS[name], x, device=device, grad=True, rtol=1e-5)
    if name == "max":
        check(lambda t: F.max_pool2d(t, 2, return_indices=True), x, device=device)


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
