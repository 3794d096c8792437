# SPDX-License-Identifier: Apache-2.0
"""torch's OpInfo suite (`op_db`) on devplug devices, compared with torch's CPU.

Every OpInfo of torch.testing._internal.common_methods_invocations.op_db runs in each dtype of
DTYPES its CPU kernels support (`op.supported_dtypes("devplug")` is the CPU's list), on the
samples torch makes on the device (`op.sample_inputs(device, dtype)`), and is compared with
torch's CPU the way torch's TestCommon.test_compare_cpu compares CUDA:

- forward: every sample runs on the device and, copied to the CPU with the same strides, on
  the CPU; results must have the CPU's dtypes, shapes and significant strides, and its values
  within torch's tolerance (`tolerance` below);
- backward: the gradients of the first sample (`requires_grad=True`), in the dtypes the OpInfo
  differentiates, for the same random output gradient on both sides;
- inplace and out: the OpInfo's in-place variant on every sample whose input is a tensor, and
  `out=` on every sample (with empty out tensors, which the op resizes), where it has them.

A sample the CPU refuses for a kind (an in-place result that would broadcast its input or change
its dtype) is not run there. Each test records whether the device ran its ops natively or
through a CPU fallback (`torch_devplug.fallback_report()` around the device's runs only).

Excluded by rule (the `excluded` count of the report, per rule):
- `random`: a sample whose CPU result changes with the seed (dropout, bernoulli, rand_like,
  randint, SDPA with dropout, ...). torch's random OpInfos seed 42 before each call
  (`wrapper_set_seed`) so that a device repeats itself; the CPU's reference runs skip that and
  run again under other seeds whenever the first run drew from the CPU's generator;
- `undefined`: OpInfos torch skips in TestCommon.test_compare_cpu because their output is
  undefined (shifts past the bit width, downcasts that overflow, unique with sorted=False), with
  torch's reason;
- `sparse`: the sparse OpInfos (sparse.*, to_sparse) and samples with a sparse tensor;
- `cpu_refuses`: the CPU runs none of the samples (the CUDA-only jiterator OpInfos), or torch
  makes none.
torch's factories of uninitialized memory (empty, empty_like, new_empty_strided, ...) are
compared in dtypes, sizes and strides only. Dense linear algebra (`linalg.*`, and the OpInfos
torch marks as needing LAPACK or cuSOLVER: svd, lu, cholesky_solve, ...) runs like the rest and
is counted apart in the report.

Known failures are in opinfo_xfail.txt, read here: a failure not listed fails the test, and so
does a listed failure that passes (strict). opinfo_report.py regenerates that file and
docs/torch_opinfo.md from the results this suite writes.

Environment (ctest sets it; frameworks/torch/tests/CMakeLists.txt):
- TORCH_DEVPLUG_TEST_PLUGINS: the plugins under test (conftest.py);
- TORCH_DEVPLUG_OPINFO_RESULTS=<file.json>: write every test's outcome there;
- TORCH_DEVPLUG_OPINFO_SHARD=<i>/<n>: only the OpInfos of shard i (0-based) of n;
- TORCH_DEVPLUG_OPINFO_FULL=1: every OpInfo on every plugin, SAMPLED_PLUGINS included.
"""

import contextlib
import json
import os
import re
import time
import warnings
import zlib

import pytest
import torch

try:
    from torch.testing._internal import common_methods_invocations
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_utils import TestCase
except ModuleNotFoundError as e:  # expecttest, which torch's test machinery imports
    raise ImportError(f"{e}: frameworks/torch/setup-venv installs what test_opinfo.py needs") from e

import torch_devplug
from conftest import PLUGIN_DEVICES
import opinfo_report

# Plugins that run a fixed sample of the OpInfos in CI, with the reason: the OpInfos whose
# name's CRC-32 is divisible by N (one in N, spread over every family, and the same sample
# whatever torch adds or removes elsewhere), in every dtype.
SAMPLED_PLUGINS = {
    "opencl": 2,        # PoCL compiles every kernel's first use on CI's two cores (the reference runs all)
    "gpu_emulated": 4,  # each kernel launch is emulated on the CPU, thread block by thread block
    "level_zero": 4,    # every first use of a kernel compiles it through PoCL on CI's two cores
}

# devplug's ten dtypes, and those devplug tensors hold whose ops run on torch's CPU (storage.hpp).
# float8 and bcomplex32 (a handful of OpInfos) are left out.
DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64,
          torch.complex32, torch.complex64, torch.complex128, torch.uint16, torch.uint32, torch.uint64)

_LINALG_DECORATORS = {"skipCPUIfNoLapack", "skipCUDAIfNoMagma", "skipCUDAIfNoCusolver",
                      "skipCUDAIfNoMagmaAndNoCusolver", "skipCUDAIfNoMagmaAndNoLinalgsolver"}
_UNDEFINED = re.compile(r"undefined", re.I)


def full_name(op) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _decorators(op):
    """(DecorateInfo or None, decorator) for each decorator of `op`."""
    for info in op.decorators:
        if hasattr(info, "decorators"):
            for decorator in info.decorators:
                yield info, decorator
        else:
            yield None, info


def is_dense_linalg(op) -> bool:
    return op.name.startswith("linalg.") or any(
        getattr(d, "__name__", "") in _LINALG_DECORATORS for _, d in _decorators(op))


def torch_skip_reason(op, dtype):
    """torch's reason for skipping `op` in TestCommon.test_compare_cpu on this device type,
    when it is that the output is undefined; else None. (Its other reasons are randomness,
    which the `random` rule finds sample by sample, keeping SDPA's samples without dropout,
    and unstated ones: "Skipped!".)"""
    for info, decorator in _decorators(op):
        if info is None or not info.is_active("TestCommon", "test_compare_cpu", "devplug", dtype, {}):
            continue
        if "skip" not in getattr(decorator, "__qualname__", ""):
            continue
        for cell in decorator.__closure__ or ():
            if isinstance(cell.cell_contents, str) and _UNDEFINED.search(cell.cell_contents):
                return cell.cell_contents
    return None


# torch's TestCommon.test_compare_cpu compares CUDA with the CPU at atol=rtol=1e-3. float64 keeps
# assertEqual's own 1e-7, so that a float64 op computed in float32 on a device fails, and the
# integer dtypes and bool compare exactly.
_COMPARE_CPU_TOLERANCE = 1e-3
_COMPARE_CPU_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.complex32, torch.complex64)


def tolerance(op, dtype):
    """(atol, rtol) for `op` in `dtype`, of which torch's assertEqual takes the larger of each
    and its per-dtype default: test_compare_cpu's 1e-3 below float64, raised by the op's
    toleranceOverride and precisionOverride decorators that torch applies to
    TestCommon.test_compare_cpu on every device or on CUDA (devplug's kernels, like CUDA's, sum
    in other orders and use other math libraries than the CPU)."""
    atol = rtol = _COMPARE_CPU_TOLERANCE if dtype in _COMPARE_CPU_DTYPES else 0.0
    for info, decorator in _decorators(op):
        if info is not None and not any(
                info.is_active("TestCommon", "test_compare_cpu", device_type, dtype, {})
                for device_type in ("devplug", "cuda")):
            continue
        if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
            atol = max(atol, decorator.d[dtype].atol)
            rtol = max(rtol, decorator.d[dtype].rtol)
        elif isinstance(decorator, precisionOverride) and dtype in decorator.d:
            atol = max(atol, decorator.d[dtype])
    return atol, rtol


def _plugin_cases():
    """[(plugin, device, op, dtype)] under test: every plugin of conftest.py; the sample of
    SAMPLED_PLUGINS; this process's shard."""
    shard, shards = (int(x) for x in os.environ.get("TORCH_DEVPLUG_OPINFO_SHARD", "0/1").split("/"))
    full = os.environ.get("TORCH_DEVPLUG_OPINFO_FULL") == "1"
    cases = []
    for index, op in enumerate(op_db):
        if index % shards != shard:
            continue
        crc = zlib.crc32(full_name(op).encode())
        for plugin, device in PLUGIN_DEVICES.items():
            if not full and plugin in SAMPLED_PLUGINS and crc % SAMPLED_PLUGINS[plugin]:
                continue
            for dtype in sorted(set(op.supported_dtypes("devplug")) & set(DTYPES), key=str):
                cases.append((plugin, device, op, dtype))
    return cases


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        cases = _plugin_cases()
        metafunc.parametrize(
            "case", cases, ids=[f"{p}-{full_name(op)}-{str(dt).removeprefix('torch.')}" for p, _, op, dt in cases])


# ---------------------------------------------------------------------------------------------
# Moving samples between devices.


def _copy_exact(t, device):
    """`t` on `device` with the same sizes, strides, storage offset and requires_grad: the
    whole storage is copied, so a strided view stays one."""
    if t.layout != torch.strided or t.is_conj() or t.is_neg() or t.is_quantized:
        out = t.detach().to(device, copy=True)
    else:
        storage = t.untyped_storage()
        flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(
            storage, 0, (storage.nbytes() // t.element_size(),), (1,)).detach().to(device, copy=True)
        out = flat.as_strided(t.size(), t.stride(), t.storage_offset())
    return out.requires_grad_(t.requires_grad) if t.requires_grad else out


def _is_device_arg(x):
    return isinstance(x, torch.device) and x.type == "devplug" or isinstance(x, str) and x.startswith("devplug")


def _map(fn, tree):
    """`tree` with `fn` applied to each leaf: lists, tuples and dicts are rebuilt, torch.Size and
    named tuples (torch.return_types) too. (torch.utils._pytree.tree_map took a third of the
    suite's time.)"""
    if isinstance(tree, torch.Size):
        return tree
    if isinstance(tree, (list, tuple)):
        mapped = [_map(fn, x) for x in tree]
        if type(tree) in (list, tuple):
            return type(tree)(mapped)
        return type(tree)(mapped) if not hasattr(tree, "_fields") else type(tree)(*mapped)
    if isinstance(tree, dict):
        return {k: _map(fn, v) for k, v in tree.items()}
    return fn(tree)


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for x in tree for leaf in _leaves(x)]
    if isinstance(tree, dict):
        return [leaf for x in tree.values() for leaf in _leaves(x)]
    return [tree]


def _parts(sample):
    return sample.input, sample.args, sample.kwargs


def _copy(parts, device):
    """(input, args, kwargs) with every tensor copied exactly to `device`; device arguments
    (of factory functions) are left as they are."""
    return _map(lambda x: _copy_exact(x, device) if isinstance(x, torch.Tensor) else x, parts)


def _on_cpu(parts):
    """A fresh CPU copy of (input, args, kwargs), its device arguments pointed at the CPU."""
    return _map(lambda x: "cpu" if _is_device_arg(x) else x, _copy(parts, "cpu"))


def _tensors(tree):
    return [x for x in _leaves(tree) if isinstance(x, torch.Tensor)]


# ---------------------------------------------------------------------------------------------
# Comparison.


class _Comparer(TestCase):
    """torch's TestCase.assertEqual with the op's tolerance overrides, as @ops sets them."""

    def runTest(self):  # noqa: N802 (unittest's name)
        pass


_COMPARER = _Comparer()


class Mismatch(AssertionError):
    """The device's result differs from the CPU's."""


def uninitialized(op) -> bool:
    """torch's factories of uninitialized memory (empty, empty_like, new_empty_strided, ...):
    their values are undefined, their sizes, dtypes and strides are not."""
    return op.name.startswith(("empty", "new_empty"))


def _metadata(tree):
    return _map(lambda t: (t.dtype, tuple(t.shape)) if isinstance(t, torch.Tensor) else t, tree)


def compare(actual, expected, atol, rtol, strides=True, values=True):
    """Raises Mismatch unless `actual` (device) matches `expected` (CPU)."""
    _COMPARER.precision, _COMPARER.rel_tol = atol, rtol
    try:
        if values:
            _COMPARER.assertEqual(actual, expected, exact_dtype=True, exact_device=False)
        else:
            _COMPARER.assertEqual(_metadata(actual), _metadata(expected))
    except AssertionError as e:
        raise Mismatch(str(e)) from None
    if strides:
        for a, e in zip(_tensors(actual), _tensors(expected)):
            if a.layout == torch.strided and e.layout == torch.strided:
                same, dim = torch._prims_common.check_significant_strides(a, e, only_cuda=False)
                if not same:
                    raise Mismatch(f"strides differ from the CPU's: {tuple(a.stride())} against "
                                   f"{tuple(e.stride())} (dim {dim}) for sizes {tuple(e.shape)}")


def _same_on_cpu(a, b):
    try:
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
        return True
    except Exception:  # noqa: BLE001: not close, or not comparable at all
        return False


class NotComparable(Exception):
    """The CPU cannot give a reference for this sample: `rule` says why."""

    def __init__(self, rule):
        super().__init__(rule)
        self.rule = rule


def _seed(seed):
    """torch.manual_seed for the CPU and devplug devices only: torch.manual_seed also queues a
    seed for CUDA, XPU and MTIA, formatting a stack trace each time (a millisecond under
    pytest), which would be a third of this suite's time."""
    torch.default_generator.manual_seed(seed)
    torch.devplug.manual_seed_all(seed)


def sample_inputs(op, device, dtype, requires_grad):
    """op.sample_inputs(device, dtype, requires_grad) without torch's TrackedInputIter around
    it, which walks the Python stack twice per call (tens of milliseconds under pytest) to
    find a unittest test to report the failing sample to, and reseeds before every sample."""
    return op.sample_inputs_func(op, device, dtype, requires_grad)


# Seeds of the CPU's runs: one, and seven more when the run drew from the CPU's generator (a
# result of a few values, such as randint(3, ()), can agree under two seeds by chance).
_SEED = 1234
_MORE_SEEDS = (98765, 5, 6, 7, 8, 9, 10)


@contextlib.contextmanager
def _unseeded():
    """torch's random OpInfos call their op through wrapper_set_seed, which seeds 42 first so
    that a device repeats itself; here they use the seed of cpu_reference's run."""
    saved = common_methods_invocations.wrapper_set_seed
    common_methods_invocations.wrapper_set_seed = lambda op, *args, **kwargs: op(*args, **kwargs)
    try:
        yield
    finally:
        common_methods_invocations.wrapper_set_seed = saved


def cpu_reference(run, uninitialized=False):
    """`run()` on the CPU: its result, or NotComparable("cpu_refuses") when the CPU raises, or
    NotComparable("random") when the run drew from the CPU's generator and runs under other
    seeds give other results (other sizes or dtypes only, when `uninitialized`)."""
    with _unseeded():
        _seed(_SEED)
        seeded = torch.default_generator.get_state()
        try:
            results = [run()]
        except Exception:
            raise NotComparable("cpu_refuses") from None
        drew = not torch.equal(seeded, torch.default_generator.get_state())
        for seed in _MORE_SEEDS if drew else ():
            _seed(seed)
            results.append(run())
    same = (lambda a, b: _metadata(a) == _metadata(b)) if uninitialized else _same_on_cpu
    if not all(same(results[0], r) for r in results[1:]):
        raise NotComparable("random")
    return results[0]


@contextlib.contextmanager
def fallback_counter(record):
    """Adds what fell back to the CPU in the block to record["fallback"] (aten ops, devplug prims)."""
    torch_devplug.reset_fallback_report()
    before = torch_devplug.fallback_report()["devplug"]
    try:
        yield
    finally:
        report = torch_devplug.fallback_report()
        for op, n in report["torch"].items():
            record["fallback"][op] = record["fallback"].get(op, 0) + n
        for op, n in report["devplug"].items():
            if n != before.get(op, 0):
                key = f"devplug::{op}"
                record["fallback"][key] = record["fallback"].get(key, 0) + n - before.get(op, 0)


# ---------------------------------------------------------------------------------------------
# The four kinds. Each returns normally when every sample it could compare matched, raises
# NotComparable when it compared none, and raises anything else on the first failure.


def _has_sparse(sample):
    return any(t.layout != torch.strided for t in _tensors(_parts(sample)))


def _call(fn, moved):
    inp, args, kwargs = moved
    return fn(inp, *args, **kwargs)


def run_forward(op, samples, device, tol, record):
    compared, skipped = 0, set()
    for sample, cpu in samples:
        try:
            expected = cpu_reference(lambda: _call(op, _on_cpu(cpu)), uninitialized(op))
        except NotComparable as e:
            skipped.add(e.rule)
            continue
        with fallback_counter(record):
            actual = _call(op, _parts(sample))
        compare(sample.output_process_fn_grad(actual), sample.output_process_fn_grad(expected), *tol,
                values=not uninitialized(op))
        compared += 1
    if not compared:
        raise NotComparable(sorted(skipped)[0] if skipped else "cpu_refuses")


def run_inplace(op, samples, device, tol, record):
    fn = op.inplace_variant
    compared, skipped = 0, set()
    for _, cpu in samples:
        if not isinstance(cpu[0], torch.Tensor):  # a number has no in-place variant
            continue

        def run_cpu():
            moved = _on_cpu(cpu)
            _call(fn, moved)
            return moved[0]
        try:
            expected_self = cpu_reference(run_cpu)
        except NotComparable as e:
            skipped.add(e.rule)
            continue
        moved = _copy(cpu, device)
        with fallback_counter(record):
            out = _call(fn, moved)
        if out is not moved[0]:
            raise Mismatch("the in-place variant did not return its input")
        compare(moved[0], expected_self, *tol)
        compared += 1
    if not compared:
        raise NotComparable(sorted(skipped)[0] if skipped else "cpu_refuses")


def _empty_outs(template, device):
    """Empty tensors (which the op resizes) of the dtypes of the result `template`."""
    outs = _map(lambda t: torch.empty(0, dtype=t.dtype, device=device) if isinstance(t, torch.Tensor) else t,
                template)
    return tuple(outs) if isinstance(outs, tuple) else outs


def run_out(op, samples, device, tol, record):
    compared, skipped = 0, set()
    for _, cpu in samples:
        def run_cpu():
            inp, args, kwargs = _on_cpu(cpu)
            template = op(inp, *args, **kwargs)
            out = _empty_outs(template, "cpu")
            op(inp, *args, **kwargs, out=out)
            return out
        try:
            expected = cpu_reference(run_cpu, uninitialized(op))
        except NotComparable as e:
            skipped.add(e.rule)
            continue
        inp, args, kwargs = _copy(cpu, device)
        out = _empty_outs(expected, device)
        with fallback_counter(record):
            op(inp, *args, **kwargs, out=out)
        compare(out, expected, *tol, strides=False, values=not uninitialized(op))
        compared += 1
    if not compared:
        raise NotComparable(sorted(skipped)[0] if skipped else "cpu_refuses")


def run_backward(op, device, dtype, tol, record):
    """Gradients of the first sample (requires_grad=True) whose outputs are differentiable."""
    sample = next(iter(sample_inputs(op, device, dtype, requires_grad=True)), None)
    if sample is None or _has_sparse(sample):
        raise NotComparable("sparse" if sample is not None else "cpu_refuses")
    cpu = _copy(_parts(sample), "cpu")

    def grads(moved, process, cotangents=None):
        inputs = [t for t in _tensors(moved) if t.requires_grad]
        outputs = [t for t in _tensors(process(_call(op, moved))) if t.requires_grad]
        if not inputs or not outputs:
            if cotangents is None:  # the CPU's run: nothing to differentiate
                raise NotComparable("cpu_refuses")
            raise Mismatch(f"{len(outputs)} outputs require grad, {len(inputs)} inputs")
        if cotangents is None:
            gen = torch.Generator().manual_seed(7)
            cotangents = [torch.randn(t.shape, generator=gen, dtype=torch.float64).to(t.dtype) for t in outputs]
        cotangents = [c.to(t.device) for c, t in zip(cotangents, outputs)]
        got = torch.autograd.grad(outputs, inputs, cotangents, allow_unused=True)
        return [g if g is not None else torch.zeros_like(i) for g, i in zip(got, inputs)], cotangents

    expected, cotangents = cpu_reference(lambda: grads(_on_cpu(cpu), sample.output_process_fn_grad))
    with fallback_counter(record):
        actual, _ = grads(_parts(sample), sample.output_process_fn_grad, cotangents)
    compare(actual, expected, *tol, strides=False)


# ---------------------------------------------------------------------------------------------
# The test.

_XFAIL = opinfo_report.read_xfail()
_RESULTS = []


@pytest.fixture(scope="module", autouse=True)
def _write_results():
    """Writes every test's record to $TORCH_DEVPLUG_OPINFO_RESULTS at the end, after removing
    the file of an earlier run at the start (a run that crashes leaves none)."""
    path = os.environ.get("TORCH_DEVPLUG_OPINFO_RESULTS")
    if path and os.path.exists(path):
        os.remove(path)
    yield
    if path and _RESULTS:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump({"torch": torch.__version__, "sampled": SAMPLED_PLUGINS,
                       "full": os.environ.get("TORCH_DEVPLUG_OPINFO_FULL") == "1",
                       "shard": os.environ.get("TORCH_DEVPLUG_OPINFO_SHARD", "0/1"),
                       "tests": _RESULTS}, f, indent=0, sort_keys=True)
            f.write("\n")


def _error_text(e):
    text = f"{type(e).__name__}: {e}".strip()
    return text[:1000]


def run_case(plugin, device, op, dtype):
    """Runs every kind of `op` in `dtype` on `device`: {kind: {"outcome", "error", "fallback"}}
    where outcome is pass, fail, or excluded:<rule>; kinds the OpInfo lacks are absent."""
    name = full_name(op)
    kinds = {}
    reason = None if uninitialized(op) else torch_skip_reason(op, dtype)
    if reason is not None:
        return {"forward": {"outcome": "excluded:undefined", "error": reason, "fallback": {}}}
    if op.name.startswith("sparse.") or op.name.startswith("to_sparse"):
        return {"forward": {"outcome": "excluded:sparse", "error": "", "fallback": {}}}
    tol = tolerance(op, dtype)
    seed = zlib.crc32(f"{name}:{dtype}".encode())

    def attempt(kind, fn):
        record = {"outcome": "pass", "error": "", "fallback": {}}
        _seed(seed)
        try:
            fn(record)
        except NotComparable as e:
            record["outcome"] = f"excluded:{e.rule}"
        except Exception as e:  # noqa: BLE001: every failure is recorded and judged below
            record["outcome"] = "fail"
            record["error"] = _error_text(e)
        kinds[kind] = record

    samples = []  # (the sample on the device, a copy of it on the CPU, made before any run)

    def make_samples(record):
        sparse = False
        for sample in sample_inputs(op, device, dtype, requires_grad=False):
            if _has_sparse(sample):
                sparse = True
            else:
                samples.append((sample, _copy(_parts(sample), "cpu")))
        if not samples:
            raise NotComparable("sparse" if sparse else "cpu_refuses")

    attempt("forward", make_samples)
    if kinds["forward"]["outcome"] != "pass":
        if kinds["forward"]["outcome"] == "fail":
            kinds["forward"]["error"] = "making the samples on the device: " + kinds["forward"]["error"]
        return kinds
    del kinds["forward"]
    attempt("forward", lambda r: run_forward(op, samples, device, tol, r))
    if dtype in op.supported_backward_dtypes("devplug"):
        attempt("backward", lambda r: run_backward(op, device, dtype, tol, r))
    if op.inplace_variant is not None:
        attempt("inplace", lambda r: run_inplace(op, samples, device, tol, r))
    if op.supports_out:
        attempt("out", lambda r: run_out(op, samples, device, tol, r))
    return kinds


def test_opinfo(case):
    plugin, device, op, dtype = case
    dtype_name = str(dtype).removeprefix("torch.")
    name = full_name(op)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kinds = run_case(plugin, device, op, dtype)
    problems, expected_failures = [], []
    for kind, record in kinds.items():
        entry = _XFAIL.match(plugin, name, dtype_name, kind)
        if record["outcome"] == "fail":
            if entry is None:
                problems.append(f"{kind} failed: {record['error']}")
            else:
                record["expected"] = entry.reason
                expected_failures.append(f"{kind}: {entry.reason}")
        elif record["outcome"] == "pass" and entry is not None and entry.reason.startswith(
                opinfo_report.HOST_DEPENDENT):
            # Recorded as the failure it is on other machines: the same counts everywhere.
            record.update(outcome="fail", error="passed on this machine's CPU", expected=entry.reason)
            expected_failures.append(f"{kind}: {entry.reason} (passed on this machine)")
        elif record["outcome"] == "pass" and entry is not None:
            problems.append(f"{kind} passed but is listed as failing at opinfo_xfail.txt:{entry.line} "
                            f"({entry.reason}): remove the line")
    _RESULTS.append({"plugin": plugin, "op": name, "dtype": dtype_name, "linalg": is_dense_linalg(op),
                     "seconds": round(time.perf_counter() - start, 3), "kinds": kinds})
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
    if expected_failures:
        pytest.xfail("; ".join(expected_failures))
