# SPDX-License-Identifier: Apache-2.0
"""The _foreach_* ops on a devplug device against the same ops on torch's CPU.

Every foreach overload the bridge registers (torch_devplug.native_ops()) runs on random lists
of several layouts (contiguous, transposed, sliced with a step, permuted, 0-dim, empty) in
float32, in a list of mixed float dtypes and in a list of mixed integer dtypes: the device
gives the CPU's values, dtypes and shapes, leaves the lists it does not write alone, and raises
the CPU's error where the CPU raises one. Each such call is profiled: it is one aten op, with
no per-tensor aten op under it (the bridge's kernel loops over the list in C++, where torch's
slow path dispatches an op per tensor). Then torch's own errors (lists of different lengths,
empty lists, tensors on the CPU or on another device), the cases the loop hands to torch's slow
path, aliasing between lists, and the optimizers, clip_grad_norm_ and the GradScaler that call
these ops, against the CPU."""

import math

import pytest
import torch
import torch.nn as nn

import torch_devplug

FOREACH = sorted(r[0] for r in torch_devplug.native_ops() if r[0].startswith("_foreach_"))

# (base shape, view): each list of a call has these tensors, index by index.
LAYOUTS = [
    ((3, 4), lambda t: t),
    ((5, 4), lambda t: t.t()),                 # transposed
    ((6, 5), lambda t: t[::2, 1:]),            # sliced with a step: not dense
    ((), lambda t: t),                         # 0-dim
    ((7,), lambda t: t),
    ((2, 3, 4), lambda t: t.permute(2, 0, 1)),
    ((0, 3), lambda t: t),                     # empty
]
FLOATS = [torch.float32]
MIXED_FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
MIXED_INTS = [torch.int64, torch.int32]
# Ops whose inputs are kept in (0.2, 0.9) (log, acos, pow, ...); the rest take normal values.
DOMAIN = {"log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "asin", "acos", "lgamma", "pow"}


def base_op(name: str) -> str:
    """"_foreach_addcmul_.Scalar" -> "addcmul"."""
    return name.split(".")[0][len("_foreach_"):].rstrip("_")


def overload(name: str):
    op, _, ov = name.partition(".")
    return getattr(getattr(torch.ops.aten, op), ov or "default")


class Lists:
    """Random values for one call: `pair` makes a list on the CPU and the same list, in the same
    layouts, on a device."""

    def __init__(self, dtypes, seed):
        self.dtypes, self.gen = dtypes, torch.Generator().manual_seed(seed)

    def values(self, shape, dtype, kind):
        g = self.gen
        if dtype.is_floating_point:
            if kind == "domain":
                return (torch.rand(shape, generator=g) * 0.7 + 0.2).to(dtype)
            if kind == "weight":
                return torch.rand(shape, generator=g).to(dtype)
            if kind == "nonzero":
                sign = torch.randint(0, 2, shape, generator=g) * 2 - 1
                return (sign * (torch.rand(shape, generator=g) + 0.5)).to(dtype)
            return torch.randn(shape, generator=g).to(dtype)
        low, high = {"domain": (1, 4), "weight": (0, 2), "nonzero": (1, 6)}.get(kind, (-5, 6))
        v = torch.randint(low, high, shape, generator=g)
        if kind == "nonzero":
            v = v * (torch.randint(0, 2, shape, generator=g) * 2 - 1)
        return v.to(dtype)

    def pair(self, kind):
        """(cpu list, device-list maker) with LAYOUTS' layouts and the dtypes cycled."""
        bases = [self.values(shape, self.dtypes[i % len(self.dtypes)], kind) for i, (shape, _) in enumerate(LAYOUTS)]
        cpu = [view(b.clone()) for b, (_, view) in zip(bases, LAYOUTS)]
        return cpu, lambda device: [view(b.to(device)) for b, (_, view) in zip(bases, LAYOUTS)]


def arguments(name, dtypes, device, seed=0):
    """((cpu args, kwargs), (device args, kwargs)) for overload `name`, made from its schema."""
    op, ints = base_op(name), not dtypes[0].is_floating_point
    lists = Lists(dtypes, seed)
    n = len(LAYOUTS)
    number = 2 if ints else 0.75
    cpu_args, dev_args, cpu_kwargs, dev_kwargs = [], [], {}, {}
    tensor_lists = 0
    for arg in overload(name)._schema.arguments:
        kind = str(arg.type)
        if kind == "List[Tensor]":
            tensor_lists += 1
            if tensor_lists == 1:
                k = "domain" if op in DOMAIN else "normal"
            elif op in ("div", "addcdiv") and tensor_lists in (2, 3) and (op == "div" or tensor_lists == 3):
                k = "nonzero"
            elif op == "lerp" and tensor_lists == 3:
                k = "weight"
            elif op == "pow":
                k = "weight" if ints else "domain"
            else:
                k = "normal"
            cpu, dev = lists.pair(k)
            cpu_args.append(cpu)
            dev_args.append(dev(device))
        elif kind == "List[number]":
            values = [(i % 3 + 1) * (1 if i % 2 else -1) for i in range(n)]
            if not ints:
                values = [v * 0.75 for v in values]
            if op in ("pow", "lerp"):
                values = [abs(v) / 3 for v in values] if not ints else [abs(v) for v in values]
            cpu_args.append(values)
            dev_args.append(values)
        elif kind == "number":
            value = {"alpha": -0.5 if not ints else 3, "ord": 2}.get(arg.name, number)
            if op == "pow" and arg.name == "self":
                value = 1.5
            elif op == "lerp":
                value = 0.3
            cpu_args.append(value)
            dev_args.append(value)
        elif kind == "Tensor" and arg.name == "scalars":  # addcmul/addcdiv: numbers in a CPU tensor
            t = torch.linspace(-1.5, 1.5, n)
            cpu_args.append(t)
            dev_args.append(t)
        elif kind == "Tensor":  # add/mul/div's one 0-dim operand
            t = torch.tensor(number, dtype=dtypes[0])
            cpu_args.append(t)
            dev_args.append(t.to(device))
        elif kind == "Optional[int]":  # dtype
            cpu_args.append(None)
            dev_args.append(None)
        else:
            raise AssertionError(f"{name}: no values for argument {arg.name} of type {kind}")
        if arg.kwarg_only:  # alpha
            cpu_kwargs[arg.name], dev_kwargs[arg.name] = cpu_args.pop(), dev_args.pop()
    return (cpu_args, cpu_kwargs), (dev_args, dev_kwargs)


def assert_same(got, want, device, what, tol):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, device, f"{what}[{i}]", tol)
        return
    if not isinstance(want, torch.Tensor):
        assert got == want, what
        return
    assert got.device == torch.device(device), f"{what} left the device"
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    rtol, atol = tol.get(want.dtype, (1e-5, 1e-5))
    torch.testing.assert_close(got.cpu(), want, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{what}: {m}")


TOL = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (2e-2, 2e-2), torch.float32: (1e-5, 1e-5)}


def aten_ops_of(fn):
    """(the CPU-side aten ops fn runs, top level first, and the names of those under the first)."""
    with torch.profiler.profile() as prof:
        result = fn()
    events = [e for e in prof.events() if e.name.startswith("aten::") and e.device_type == torch.autograd.DeviceType.CPU]
    return result, [e.name for e in events]


def compare(name, dtypes, device, check_native=True):
    """Runs overload `name` on both sides and compares everything; returns whether the CPU raised."""
    (cpu_args, cpu_kwargs), (dev_args, dev_kwargs) = arguments(name, dtypes, device)
    fn = overload(name)
    try:
        want = fn(*cpu_args, **cpu_kwargs)
    except Exception as e:  # torch's CPU raises: the device raises the same
        with pytest.raises(type(e)) as raised:
            fn(*dev_args, **dev_kwargs)
        assert str(raised.value).splitlines()[0] == str(e).splitlines()[0], name
        return True
    got, ops = aten_ops_of(lambda: fn(*dev_args, **dev_kwargs))
    if check_native:
        assert ops == ["aten::" + name.split(".")[0]], f"{name} ran per-tensor aten ops: {ops}"
    assert_same(got, want, device, f"{name} result", TOL)
    for i, (d, c) in enumerate(zip(dev_args, cpu_args)):  # the lists it does not write are unchanged
        if isinstance(c, torch.Tensor):
            torch.testing.assert_close(d.cpu(), c)
        else:
            assert_same(d, c, device, f"{name} argument {i}", TOL)
    return False


@pytest.mark.parametrize("name", FOREACH)
def test_float32_matches_cpu_natively(name, device, no_fallback):
    assert not compare(name, FLOATS, device), f"{name} raised on float32 lists"


@pytest.mark.parametrize("name", FOREACH)
def test_mixed_float_dtypes_match_cpu(name, device, no_fallback):
    assert not compare(name, MIXED_FLOATS, device), f"{name} raised on mixed float lists"


@pytest.mark.parametrize("name", FOREACH)
def test_integer_lists_match_cpu_or_raise_as_it_does(name, device):
    # Integer lists take torch's promotion rules (div gives floats, sqrt_ of an int64 list
    # raises, ...); the ops that are bool- or integer-only on the CPU fall back like the
    # per-tensor op, so no no_fallback here.
    compare(name, MIXED_INTS, device, check_native=False)


def test_every_overload_the_optimizers_call_is_native():
    # Found by profiling SGD (momentum, nesterov, weight_decay, maximize), Adam and AdamW
    # (amsgrad, weight_decay, capturable), clip_grad_norm_(foreach=True) and the GradScaler.
    used = {"_foreach_add.List", "_foreach_add_.List", "_foreach_add_.Scalar", "_foreach_add_.Tensor",
            "_foreach_addcdiv_.Scalar", "_foreach_addcdiv_.ScalarList", "_foreach_addcmul_.Scalar",
            "_foreach_div_.List", "_foreach_div_.Scalar", "_foreach_div_.ScalarList", "_foreach_lerp_.Scalar",
            "_foreach_maximum_.List", "_foreach_mul_.Scalar", "_foreach_mul_.Tensor", "_foreach_neg",
            "_foreach_neg_", "_foreach_norm.Scalar", "_foreach_pow.ScalarAndTensor", "_foreach_reciprocal_",
            "_foreach_sqrt", "_foreach_sqrt_", "_foreach_sub_.Scalar"}
    assert used <= set(FOREACH), used - set(FOREACH)
    rows = {r[0]: r[1] for r in torch_devplug.native_ops()}
    assert {rows[n] for n in FOREACH} == {"bridge"}


@pytest.mark.parametrize("ord", [1, 2, 3, 0, math.inf, -math.inf])
def test_norm_orders_and_dtype(ord, device, no_fallback):
    xs = [torch.randn(4, 5, generator=torch.Generator().manual_seed(i)) for i in range(3)] + [torch.tensor(-2.5)]
    dev = [x.to(device) for x in xs]
    assert_same(torch._foreach_norm([d.t() for d in dev], ord), torch._foreach_norm([x.t() for x in xs], ord),
                device, "norm", TOL)
    got = torch.ops.aten._foreach_norm.Scalar(dev, ord, torch.float64)
    assert_same(got, torch.ops.aten._foreach_norm.Scalar(xs, ord, torch.float64), device, "norm float64", TOL)


# ---- errors: torch's own, raised as the slow path raises them ------------------------------------


def test_list_errors_are_torchs(device):
    a, b = torch.ones(3, device=device), torch.ones(2, 2, device=device)
    with pytest.raises(RuntimeError, match="^Tensor list must have at least one tensor."):
        torch._foreach_add_([], 1.0)
    with pytest.raises(RuntimeError, match="^Tensor list must have at least one tensor."):
        torch._foreach_sqrt([])
    with pytest.raises(RuntimeError, match="^Tensor lists must have the same number of tensors, got 2 and 1"):
        torch._foreach_add_([a, b], [a])
    with pytest.raises(RuntimeError, match="^Tensor lists must have the same number of tensors, got 2 and 1"):
        torch._foreach_addcmul_([a, b], [a, b], [a], value=2)
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list."):
        torch._foreach_mul_([a, b], [1.0])
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list."):
        torch._foreach_lerp_([a, b], [a, b], [0.5])
    with pytest.raises(RuntimeError, match="^scalar tensor expected to be 0 dim but it has 1 dimensions and 2 elements."):
        torch._foreach_mul_([a, b], torch.ones(2, device=device))
    with pytest.raises(RuntimeError, match="^Expected length of scalars to match input of length 2 but got 3 instead."):
        torch._foreach_addcdiv_([a, b], [a, b], [a, b], torch.ones(3))
    with pytest.raises(RuntimeError, match="^Expected scalars to be on CPU, got devplug"):
        torch._foreach_addcdiv_([a, b], [a, b], [a, b], torch.ones(2, device=device))
    # The same errors on the CPU: the messages above are torch's.
    with pytest.raises(RuntimeError, match="^Tensor lists must have the same number of tensors, got 2 and 1"):
        torch._foreach_add_([a.cpu(), b.cpu()], [a.cpu()])


def test_a_broadcasting_in_place_update_raises_and_keeps_earlier_updates(device):
    # As the slow path: tensor 0 is updated, tensor 1 raises torch's error.
    xs = [torch.zeros(3), torch.zeros(1)]
    ys = [torch.ones(3), torch.ones(3)]
    dev_xs, dev_ys = [x.to(device) for x in xs], [y.to(device) for y in ys]
    with pytest.raises(RuntimeError) as want:
        torch._foreach_add_(xs, ys)
    with pytest.raises(RuntimeError) as got:
        torch._foreach_add_(dev_xs, dev_ys)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)
    assert_same(dev_xs, xs, device, "lists after the error", TOL)


def test_tensors_off_the_device_raise_as_the_per_tensor_op(device):
    a = torch.ones(3, device=device)
    cpu = torch.ones(3)
    # A CPU tensor in another list: the per-tensor op's error (the slow path runs it).
    with pytest.raises(RuntimeError) as per_tensor:
        a.clone().add_(cpu)
    with pytest.raises(RuntimeError) as foreach:
        torch._foreach_add_([a.clone(), a.clone()], [a, cpu])
    assert str(foreach.value) == str(per_tensor.value)
    with pytest.raises(RuntimeError) as per_tensor:
        a.clone().lerp_(cpu, 0.5)
    with pytest.raises(RuntimeError) as foreach:
        torch._foreach_lerp_([a.clone()], [cpu], 0.5)
    assert str(foreach.value) == str(per_tensor.value)


def test_cpu_tensors_mix_where_torch_lets_them(device, no_fallback):
    gen = torch.Generator().manual_seed(3)
    xs = [torch.randn(3, 4, generator=gen), torch.randn(5, generator=gen)]
    scalars = [torch.tensor(1.5), torch.tensor(-2.0, dtype=torch.float64)]  # 0-dim CPU: numbers
    dev = [x.to(device) for x in xs]
    torch._foreach_mul_(xs, scalars)
    _, ops = aten_ops_of(lambda: torch._foreach_mul_(dev, scalars))
    assert ops == ["aten::_foreach_mul_"]
    assert_same(dev, xs, device, "mul_ by 0-dim CPU tensors", TOL)
    cpu_scalar = torch.tensor(0.25)
    assert_same(torch._foreach_add(dev, cpu_scalar, alpha=2), torch._foreach_add(xs, cpu_scalar, alpha=2), device,
                "add of a CPU 0-dim tensor", TOL)
    assert_same(torch._foreach_div(dev, torch.tensor(4.0, device=device)), torch._foreach_div(xs, torch.tensor(4.0)),
                device, "div by a device 0-dim tensor", TOL)


def test_a_cpu_tensor_in_the_written_list_runs_on_the_cpu(device):
    # torch's own CPU step counters (0-dim CPU tensors) next to device tensors: the slow path
    # runs each on its own device, as it does for CUDA.
    xs = [torch.ones(3), torch.tensor(2.0)]
    dev = [xs[0].to(device), xs[1].clone()]
    torch._foreach_add_(xs, 1.5)
    torch._foreach_add_(dev, 1.5)
    assert dev[0].device == torch.device(device) and dev[1].device == torch.device("cpu")
    torch.testing.assert_close(dev[0].cpu(), xs[0])
    torch.testing.assert_close(dev[1], xs[1])


def test_lists_across_two_devplug_devices(devices, no_fallback):
    first, second = list(devices.values())[:2]
    gen = torch.Generator().manual_seed(5)
    xs = [torch.randn(3, 2, generator=gen), torch.randn(4, generator=gen)]
    ys = [torch.randn(3, 2, generator=gen), torch.randn(4, generator=gen)]
    dev_xs = [xs[0].to(first), xs[1].to(second)]
    dev_ys = [ys[0].to(first), ys[1].to(second)]
    torch._foreach_addcmul_(dev_xs, dev_ys, dev_ys, value=0.5)
    torch._foreach_addcmul_(xs, ys, ys, value=0.5)
    assert [t.device for t in dev_xs] == [torch.device(first), torch.device(second)]
    for d, x in zip(dev_xs, xs):
        torch.testing.assert_close(d.cpu(), x)
    # Tensors of one index on two devices: the per-tensor op's error.
    with pytest.raises(RuntimeError) as per_tensor:
        dev_xs[0].add_(ys[0].to(second))
    with pytest.raises(RuntimeError) as foreach:
        torch._foreach_add_([dev_xs[0]], [ys[0].to(second)])
    assert str(foreach.value) == str(per_tensor.value)


# ---- aliasing and the slow path's share -----------------------------------------------------------


def test_aliasing_between_and_within_lists(device, no_fallback):
    gen = torch.Generator().manual_seed(7)
    base = [torch.randn(4, 3, generator=gen), torch.randn(4, 3, generator=gen)]

    def run(a, b):
        torch._foreach_add_([a, b], [a, b], alpha=0.5)        # self in both lists
        torch._foreach_addcmul_([a, b], [a, a], [b, b])
        torch._foreach_mul_([a, b], [b, a])                   # each reads the other, in list order
        torch._foreach_lerp_([a, a], [b, b], 0.25)            # one tensor twice in the written list
        torch._foreach_maximum_([a.t(), b.t()], [b.t(), a.t()])
        return [a, b]

    want = run(*[t.clone() for t in base])
    got = run(*[t.to(device) for t in base])
    assert_same(got, want, device, "aliased updates", TOL)


def test_a_tensor_left_to_the_cpu_hands_the_rest_to_the_slow_path(device):
    # sign of a bool tensor is not a devplug kernel: that tensor and those after it run as
    # torch's slow path does (the bool one on the CPU fallback, counted as aten::sign); the
    # ones before it ran in the loop.
    xs = [torch.randn(3), torch.tensor([True, False]), torch.randn(2, 2)]
    dev = [x.to(device) for x in xs]
    torch_devplug.reset_fallback_report()
    got, ops = aten_ops_of(lambda: torch._foreach_sign(dev))
    assert torch_devplug.fallback_report()["torch"] == {"aten::sign": 1}
    assert ops[0] == "aten::_foreach_sign" and ops.count("aten::sign") == 2, ops
    assert_same(got, torch._foreach_sign(xs), device, "sign", TOL)


# ---- the callers: optimizers, clip_grad_norm_, GradScaler ------------------------------------------

OPTIMIZERS = {  # (class, arguments); capturable is dropped on the CPU, which refuses it (same math)
    "sgd_nesterov_wd": (torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2)),
    "sgd_dampening_maximize": (torch.optim.SGD, dict(lr=0.05, momentum=0.5, dampening=0.1, maximize=True)),
    "adam": (torch.optim.Adam, dict(lr=1e-2)),
    "adam_amsgrad_wd": (torch.optim.Adam, dict(lr=1e-2, amsgrad=True, weight_decay=0.1)),
    "adam_capturable": (torch.optim.Adam, dict(lr=1e-2, capturable=True)),
    "adamw": (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.05)),
    "adamw_amsgrad_capturable": (torch.optim.AdamW, dict(lr=1e-2, amsgrad=True, capturable=True)),
}


def small_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))


def train(device, optimizer, steps=4, clip=False, scaler=False):
    model = small_model().to(device)
    cls, kwargs = OPTIMIZERS[optimizer]
    if device == "cpu":
        kwargs = {k: v for k, v in kwargs.items() if k != "capturable"}
    opt = cls(model.parameters(), foreach=True, **kwargs)
    scale = torch.amp.GradScaler(torch.device(device).type, init_scale=2.0 ** 8) if scaler else None
    gen = torch.Generator().manual_seed(1)
    foreach_calls = []
    for _ in range(steps):
        x = torch.randn(5, 6, generator=gen).to(device)
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        (scale.scale(loss) if scale else loss).backward()
        with torch.profiler.profile() as prof:
            if scale:
                scale.unscale_(opt)
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1, foreach=True)
            if scale:
                scale.step(opt)
                scale.update()
            else:
                opt.step()
        # The foreach calls on devplug tensors: an op whose device work the profiler shows as a
        # device row of the same id, or whose per-tensor ops do (the CPU step counters of the
        # optimizers without capturable are foreach calls on the CPU, not on devplug).
        events = prof.events()
        on_device = {e.id for e in events if e.device_type != torch.autograd.DeviceType.CPU}
        foreach_calls += [e for e in events if e.name.startswith("aten::_foreach")
                          and e.device_type == torch.autograd.DeviceType.CPU
                          and (e.id in on_device or any(c.id in on_device for c in e.cpu_children))]
    return [p.detach().cpu() for p in model.parameters()], foreach_calls


def assert_trains_as_on_cpu(device, optimizer, **kw):
    want, _ = train("cpu", optimizer, **kw)
    got, calls = train(device, optimizer, **kw)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    if device != "cpu":
        assert calls, "no foreach op ran on the device"
    for e in calls:  # one aten op per foreach call, none under it
        nested = [c.name for c in e.cpu_children if c.name.startswith("aten::")]
        assert nested == [], f"{e.name} ran {nested}"


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_optimizer_step_matches_cpu(optimizer, device, no_fallback):
    assert_trains_as_on_cpu(device, optimizer)


def test_clip_grad_norm_matches_cpu(device, no_fallback):
    assert_trains_as_on_cpu(device, "sgd_nesterov_wd", clip=True)


def test_grad_scaler_unscale_clip_and_step_match_cpu(device, no_fallback):
    assert_trains_as_on_cpu(device, "adamw", clip=True, scaler=True)


# ---- fused=True: Adam, AdamW and SGD as one fused program per parameter ------------------------

FUSED = {  # (class, arguments): each step's program differs (frameworks/torch/csrc/ops/fused_optim.cpp)
    "adam": (torch.optim.Adam, dict(lr=1e-2)),
    "adam_amsgrad_wd_maximize": (torch.optim.Adam, dict(lr=1e-2, amsgrad=True, weight_decay=0.1, maximize=True)),
    "adam_unit_decay_high_beta1_weight": (torch.optim.Adam, dict(lr=1e-2, weight_decay=1.0, betas=(0.3, 0.99))),
    "adamw": (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.05)),
    "adamw_amsgrad": (torch.optim.AdamW, dict(lr=1e-2, amsgrad=True)),
    "sgd": (torch.optim.SGD, dict(lr=0.05)),
    "sgd_momentum": (torch.optim.SGD, dict(lr=0.05, momentum=0.9)),  # first buffer: a copy of the gradient
    "sgd_momentum_wd_dampening": (torch.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=1e-2, dampening=0.3)),
    "sgd_nesterov_maximize": (torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    "sgd_unit_numbers": (torch.optim.SGD, dict(lr=0.05, momentum=1.0, weight_decay=1.0, nesterov=True)),
}


def fused_or_foreach_steps(device, optimizer, how, dtype=torch.float32, scaler=False, steps=4):
    model = small_model().to(device=device, dtype=dtype)
    cls, kwargs = FUSED[optimizer]
    opt = cls(model.parameters(), **{how: True}, **kwargs)
    scale = torch.amp.GradScaler("devplug", init_scale=2.0 ** 10, growth_interval=1000) if scaler else None
    gen = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x = torch.randn(5, 6, generator=gen).to(device=device, dtype=dtype)
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        (scale.scale(loss) if scale else loss).backward()
        if scale:
            scale.step(opt)
            scale.update()
        else:
            opt.step()
    return model, opt, scale


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("optimizer", list(FUSED))
def test_fused_step_is_the_foreach_step_bit_for_bit(optimizer, dtype, device, no_fallback):
    """fused=True runs the foreach step's devplug ops as one program per parameter: the same
    parameters and states, bit for bit, after steps that moved them."""
    fused, fused_opt, _ = fused_or_foreach_steps(device, optimizer, "fused", dtype)
    foreach, foreach_opt, _ = fused_or_foreach_steps(device, optimizer, "foreach", dtype)
    start = small_model().to(dtype=dtype)
    for f, e, s in zip(fused.parameters(), foreach.parameters(), start.parameters()):
        assert torch.equal(f.detach().cpu(), e.detach().cpu())
        assert not torch.equal(f.detach().cpu(), s.detach())
    for pf, pe in zip(fused.parameters(), foreach.parameters()):
        for key, value in foreach_opt.state[pe].items():
            if value is None:  # SGD without momentum keeps no buffer
                assert fused_opt.state[pf][key] is None
                continue
            assert torch.equal(fused_opt.state[pf][key].cpu(), value.cpu()), key


@pytest.mark.parametrize("optimizer", ["adamw", "sgd_nesterov_maximize"])
def test_fused_step_with_a_grad_scaler_unscales_and_skips_infinite_steps(optimizer, device, no_fallback):
    """With a GradScaler the fused step divides the gradients by the scale (a power of two:
    exactly what the foreach path's unscale multiplies them to) and writes them back unscaled;
    a step whose gradients hold an infinity changes neither parameters nor states."""
    fused, fused_opt, scaler = fused_or_foreach_steps(device, optimizer, "fused", scaler=True)
    foreach, _, _ = fused_or_foreach_steps(device, optimizer, "foreach", scaler=True)
    for f, e in zip(fused.parameters(), foreach.parameters()):
        assert torch.equal(f.detach().cpu(), e.detach().cpu())
        if optimizer == "adamw":  # (foreach SGD with nesterov adds the buffer into the gradients)
            assert torch.equal(f.grad.cpu(), e.grad.cpu())  # unscaled in place, as the foreach unscale_
    before = [p.detach().cpu().clone() for p in fused.parameters()]
    states = [{k: v.cpu().clone() for k, v in fused_opt.state[p].items()} for p in fused.parameters()]
    fused_opt.zero_grad()
    (scaler.scale((fused(torch.ones(5, 6).to(device)) ** 2).mean())).backward()
    next(iter(fused.parameters())).grad.view(-1)[0] = float("inf")
    scaler.step(fused_opt)
    for p, b, s in zip(fused.parameters(), before, states):
        assert torch.equal(p.detach().cpu(), b)
        for key, value in s.items():
            assert torch.equal(fused_opt.state[p][key].cpu(), value), key


def test_fused_adam_refuses_mismatched_lists(device):
    p = torch.zeros(3, device=device)
    with pytest.raises(RuntimeError, match="as long as the parameters"):
        torch._fused_adam_([p], [p.clone()], [], [p.clone()], [], [torch.ones((), device=device)], lr=0.1,
                           beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    with pytest.raises(RuntimeError, match="dtype"):
        torch._fused_adamw_([p], [p.double()], [p.clone()], [p.clone()], [], [torch.ones((), device=device)],
                            lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False,
                            maximize=False)
