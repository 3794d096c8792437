# SPDX-License-Identifier: Apache-2.0
"""``torch.devplug``: the device module of the devplug device type.

Device management (count, current device, synchronize), random seeds for the devplug
generators, and the bridge's reports (which ops fell back to the CPU, which aten ops are
native). Devices are numbered in devplug's order with the reference backend's device last;
``TORCH_DEVPLUG_PLUGINS=opencl,reference`` keeps and orders devices by plugin.
"""

import contextlib

import torch

from . import _C


def is_available() -> bool:
    """Whether there is at least one devplug device."""
    try:
        return _C._device_count() > 0
    except Exception:
        return False


def is_initialized() -> bool:
    """Whether this process has made its devplug runtime (loaded the plugins) and can use
    it: False before the first devplug use, and in a child forked after it."""
    return _C._runtime_exists() and not _C._in_bad_fork()


def _is_in_bad_fork() -> bool:
    """Whether this process was forked from one that had initialized devplug. Its devices
    then cannot be used (the first use raises; start subprocesses with 'spawn'); torch's
    DataLoader workers and torch.manual_seed consult this, as for CUDA."""
    return _C._in_bad_fork()


def _inductor_backend_init() -> None:
    """torch._inductor's hook for a PrivateUse1 device's code generator, called when inductor
    first initializes its backends: devplug has none, and registers one that says so (see
    _compile.py: use torch.compile(model, backend="devplug"))."""
    from ._compile import register_inductor_refusal

    register_inductor_refusal()


def _lazy_init() -> None:
    """Makes the runtime; raises in a child forked after the parent made it."""
    _C._lazy_init()


def device_count() -> int:
    """The number of devplug devices (0 when no plugin has a device)."""
    return _C._device_count()


def current_device() -> int:
    return _C._current_device()


def set_device(device) -> None:
    """Makes ``device`` (an index, "devplug:1" or a torch.device) current for this thread."""
    index = _index(device)
    if index >= 0:
        _C._set_device(index)


class device:
    """Context manager that makes ``device`` current and restores the previous one."""

    def __init__(self, device):
        self.index = _index(device)
        self.previous = -1

    def __enter__(self):
        self.previous = current_device()
        if self.index >= 0:
            set_device(self.index)

    def __exit__(self, *exc):
        set_device(self.previous)
        return False


def synchronize(device=None) -> None:
    """Waits for all work on every stream of ``device`` (default: the current device)."""
    index = _index(device) if device is not None else current_device()
    _C._synchronize(index if index >= 0 else current_device())


def devices() -> list:
    """Every devplug device torch sees: index, plugin, name, vendor, memory and the dtypes it
    claims (those it runs natively)."""
    return _C._devices()


def get_device_name(device=None) -> str:
    index = _index(device) if device is not None else current_device()
    return devices()[index]["name"]


def current_stream(device=None) -> torch.Stream:
    index = _index(device) if device is not None else current_device()
    return torch.accelerator.current_stream(torch.device(torch._C._get_privateuse1_backend_name(), index))


def Stream(device=None, priority: int = 0) -> torch.Stream:  # noqa: N802  (torch.cuda.Stream's name)
    """A new stream on ``device`` (default: the current device), as ``torch.cuda.Stream()``:
    torch's generic ``torch.Stream``, which FSDP and other device-generic code make through
    ``torch.<device>.Stream``."""
    index = _index(device) if device is not None else current_device()
    return torch.Stream(device=torch.device(torch._C._get_privateuse1_backend_name(), index), priority=priority)


def Event(enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> torch.Event:  # noqa: N802
    """A new event of the devplug device type, as ``torch.cuda.Event()``."""
    if interprocess:
        raise NotImplementedError("devplug events cannot be shared between processes")
    return torch.Event(device=torch._C._get_privateuse1_backend_name(), enable_timing=enable_timing,
                       blocking=blocking)


@contextlib.contextmanager
def stream(s):
    """Makes ``s`` the current stream of its device inside the block, as
    ``torch.cuda.stream()``; ``None`` changes nothing."""
    if s is None:
        yield
        return
    previous = torch.accelerator.current_stream(s.device)
    torch.accelerator.set_stream(s)
    try:
        yield
    finally:
        torch.accelerator.set_stream(previous)


class Graph(torch.accelerator.Graph):
    """A devplug graph, as ``torch.cuda.CUDAGraph``: ``capture_begin()`` records the current
    stream's work (devplug_stream_begin_capture), ``capture_end()`` ends it, ``replay()``
    launches it on the current stream, with random ops drawing what they would draw eagerly
    at that point. Tensors keep their identity: update inputs in place between replays and
    read the outputs the capture wrote. Memory freed during the capture becomes the graph's
    own pool (docs/torch.md, "Graphs")."""


class graph:  # noqa: N801  (torch.cuda.graph's name)
    """Captures the block into ``devplug_graph``, as ``torch.cuda.graph``: synchronizes the
    device, makes ``stream`` current if given, and begins the capture; the block's exit ends
    it. ``pool`` is accepted for torch.cuda.graph's signature; each graph keeps its own pool.
    Anything in the block that must wait for the device or read host memory (``.item()``, a
    print of a tensor, a CPU fallback, a synchronize) ends the capture with a RuntimeError
    and leaves the stream usable."""

    def __init__(self, devplug_graph, pool=None, stream=None, capture_error_mode: str = "default"):
        if not isinstance(devplug_graph, torch.accelerator.Graph):
            raise TypeError(f"torch.devplug.graph takes a torch.devplug.Graph, got {type(devplug_graph).__name__}")
        self.devplug_graph = devplug_graph
        self.devplug_graph.graph_pool = pool
        self.devplug_graph.capture_error_mode = capture_error_mode
        self.stream = stream
        self._stream_ctx = None

    def __enter__(self):
        synchronize()
        self._stream_ctx = stream(self.stream)
        self._stream_ctx.__enter__()
        try:
            self.devplug_graph.capture_begin()
        except BaseException:
            self._stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, *exc_info):
        try:
            self.devplug_graph.capture_end()
        except RuntimeError:
            # An error inside the block may have ended the capture already: that error is
            # the one to see, not capture_end's complaint about it.
            if exc_info[0] is None:
                raise
        finally:
            self._stream_ctx.__exit__(*exc_info)


def get_amp_supported_dtype(device=None) -> list:
    """The autocast dtypes (float16, bfloat16) that ``device`` (default: the current device)
    claims. torch.autocast("devplug", dtype=...) asks this without a device, and warns and
    runs without autocast for a dtype that is not here."""
    if device_count() == 0:
        return []
    index = _index(device) if device is not None else current_device()
    claimed = devices()[index]["dtypes"]
    return [t for t in (torch.float16, torch.bfloat16) if t in claimed]


# ---- random numbers: one Philox generator per device -------------------------------------

def manual_seed(seed: int) -> None:
    """Seeds the current device's generator."""
    _C._default_generator(current_device()).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seeds every device's generator (torch.manual_seed calls this). Before the first use
    of a devplug device the seed is kept and given to the generators when they are made,
    so seeding loads no plugin."""
    _C._manual_seed_all(int(seed))


def seed() -> None:
    _C._default_generator(current_device()).seed()


def seed_all() -> None:
    for i in range(device_count()):
        _C._default_generator(i).seed()


def initial_seed() -> int:
    return _C._default_generator(current_device()).initial_seed()


def get_rng_state(device="devplug") -> torch.Tensor:
    return _C._default_generator(_index(device, current_device())).get_state()


def set_rng_state(new_state: torch.Tensor, device="devplug") -> None:
    """Sets the device's generator state (a uint8 tensor from get_rng_state; one that a
    checkpoint loaded with map_location onto a device is read from there)."""
    _C._default_generator(_index(device, current_device())).set_state(new_state.cpu())


def default_generator(device=None) -> torch.Generator:
    index = _index(device) if device is not None else current_device()
    return _C._default_generator(index)


# ---- memory: devplug's caching allocator, as torch.cuda's memory functions -----------------

def memory_stats(device=None) -> dict:
    """devplug's allocator statistics of ``device`` (default: the current device), with
    torch.cuda.memory_stats()'s keys: ``allocated_bytes.all.current`` (live storages, in the
    bytes taken for them), ``requested_bytes``, ``reserved_bytes`` (held from the plugin:
    live and cached), ``allocation`` and ``segment`` counts, each ``.current``, ``.peak``,
    ``.allocated`` and ``.freed``; ``num_device_alloc``/``num_device_free`` (plugin calls),
    ``num_alloc_retries`` and ``num_ooms``."""
    return dict(sorted(_C._memory_stats(_index(device, current_device())).items()))


def memory_allocated(device=None) -> int:
    """Bytes of live devplug storages on ``device`` (their size classes)."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    """Bytes devplug holds from the device's plugin: live storages and the cache."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None) -> None:
    _C._reset_memory_stats(_index(device, current_device()), _C._memory_reset_peaks())


def reset_accumulated_memory_stats(device=None) -> None:
    _C._reset_memory_stats(_index(device, current_device()), _C._memory_reset_totals())


def reset_max_memory_allocated(device=None) -> None:
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Returns every device's cached (freed, unused) memory to its plugin, after waiting for
    the device's work."""
    _C._empty_cache()


def host_memory_stats() -> dict:
    """Pinned host memory from pin_memory() and DataLoader(pin_memory=True): ``allocations``
    and ``allocated_bytes``, each ``.current``, ``.peak``, ``.allocated`` and ``.freed``."""
    return dict(sorted(_C._host_memory_stats().items()))


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A table of ``memory_stats(device)``, in the manner of torch.cuda.memory_summary."""
    index = _index(device, current_device())
    stats = memory_stats(index)

    def size(n):
        for unit in ("B", "KiB", "MiB", "GiB"):
            if abs(n) < 1024 or unit == "GiB":
                return f"{n} {unit}" if unit == "B" else f"{n:.2f} {unit}"
            n /= 1024

    rows = [("Allocated memory", "allocated_bytes", size), ("Requested memory", "requested_bytes", size),
            ("Reserved memory", "reserved_bytes", size), ("Allocations", "allocation", str),
            ("Segments", "segment", str)]
    width = 78
    lines = ["=" * width, f" devplug memory summary, device {index} ({get_device_name(index)})"[:width], "-" * width,
             f" {'Metric':<22}{'Current':>14}{'Peak':>14}{'Total alloc':>14}{'Total freed':>14}", "-" * width]
    for title, key, fmt in rows:
        values = [fmt(stats[f"{key}.all.{part}"]) for part in ("current", "peak", "allocated", "freed")]
        lines.append(f" {title:<22}" + "".join(f"{v:>14}" for v in values))
    if not abbreviated:
        lines.append("-" * width)
        for key in ("num_device_alloc", "num_device_free", "num_alloc_retries", "num_ooms"):
            lines.append(f" {key:<22}{stats[key]:>14}")
    lines.append("=" * width)
    return "\n".join(lines) + "\n"


# ---- reports -------------------------------------------------------------------------------

def fallback_report() -> dict:
    """What ran on the CPU instead of a devplug device since the last reset:

    ``{"torch": {"aten::op.overload": calls, ...}, "devplug": {"prim": calls, ...}}``.
    "torch" counts aten ops that have no devplug kernel (torch's boxed CPU fallback);
    "devplug" counts prims a plugin lacked, which devplug's dispatcher ran on its reference
    backend. A model with both empty ran on the device entirely."""
    return {"torch": dict(_C._fallback_counts()), "devplug": dict(_C._devplug_fallback_counts())}


def reset_fallback_report() -> None:
    """Clears the torch-level counts (devplug's own counts are per process and only grow)."""
    _C._reset_fallback_counts()


def strict() -> bool:
    return _C._strict()


def set_strict(on: bool = True) -> None:
    """In strict mode an op that would fall back to the CPU raises NotImplementedError."""
    _C._set_strict(bool(on))


@contextlib.contextmanager
def strict_mode(on: bool = True):
    previous = strict()
    set_strict(on)
    try:
        yield
    finally:
        set_strict(previous)


def native_ops() -> list:
    """The aten ops devplug runs itself, as (op, how, devplug ops) tuples; how is "view"
    (metadata only), "prim" (devplug prims that are the op) or "bridge" (composed from
    devplug prims in the bridge)."""
    return [tuple(row) for row in _C._native_ops()]


def _index(device, default=-1) -> int:
    if device is None:
        return default
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != torch._C._get_privateuse1_backend_name() and device.type != "privateuseone":
            raise ValueError(f"expected a devplug device, got {device}")
        return device.index if device.index is not None else default
    raise TypeError(f"expected a device index, a device string or a torch.device, got {type(device).__name__}")
