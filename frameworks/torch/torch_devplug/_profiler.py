# SPDX-License-Identifier: Apache-2.0
"""devplug's own trace merged into torch's profiler trace, on one timeline.

torch's profiler (``prof.export_chrome_trace``) writes Chrome trace-event JSON whose ``ts``
is microseconds of the Unix clock (CLOCK_REALTIME) minus the file's ``baseTimeNanoseconds``.
devplug's trace (``DEVPLUG_TRACE=file.json``, one complete event per devplug op call, the
dispatcher's view under torch's aten ops) is microseconds of the steady clock
(``std::chrono::steady_clock``, CLOCK_MONOTONIC on Linux). ``merge_trace`` moves devplug's
events onto torch's clock by the offset between the two clocks, taken from the pair of
readings that torch_devplug's profiler session stores in the trace it exports
(``"devplugClock"``, read at the start of the profile in the profiled process), or else, for
a trace without it, read when merging (valid on the same machine while neither clock was
stepped), and adds them as their own process, one row per devplug thread.

devplug writes its trace when its context is destroyed, and torch_devplug's context lives
as long as the process; ``write_trace()`` writes it at any time, with every op so far.

From a shell: ``python -c "import sys, torch_devplug as t; print(t.merge_trace(*sys.argv[1:]))"
torch.json devplug.json merged.json``.
"""

import gzip
import json
import sys
import time

# devplug's rows get a process id no real process has (Linux pids stay below 2^22) and no
# Kineto device row has (devices are numbered from 0).
_PID_BASE = 10_000_000


def _load(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, list):  # the JSON Array Format
        data = {"traceEvents": data}
    if not isinstance(data.get("traceEvents"), list):
        raise ValueError(f"{path}: not a Chrome trace (no traceEvents array)")
    return data


def measure_clock_offset_ns(samples=9):
    """The Unix clock minus the steady clock, in ns, now: the reading pair with the least
    time between its two steady readings."""
    best = None
    for _ in range(samples):
        before = time.monotonic_ns()
        unix = time.time_ns()
        after = time.monotonic_ns()
        if best is None or after - before < best[0]:
            best = (after - before, unix - (before + after) // 2)
    return best[1]


def merge_trace(torch_trace, devplug_trace, out, *, clock_offset_ns=None):
    """Writes to ``out`` torch's trace ``torch_trace`` with devplug's ``devplug_trace`` added.

    devplug's events keep their names, durations and ``args`` (dtype, shapes, plugin,
    fallback, ``device_us`` where the plugin times events) and gain ``devplug_ts_us`` (their
    time in devplug's file); they are moved onto torch's clock (see the module's doc) and put
    in a process of their own, "devplug ops (pid N)", one thread row per devplug thread.
    ``clock_offset_ns`` (Unix minus steady clock, in ns) overrides the offset. Paths ending
    in ``.gz`` are read and written gzipped. Returns a summary: ``events`` added, the
    ``clock_offset_ns`` used, ``clock`` (how it was found) and the ``pid`` of devplug's rows.
    """
    merged = _load(torch_trace)
    devplug = _load(devplug_trace)
    if clock_offset_ns is not None:
        offset, how = int(clock_offset_ns), "given"
    elif isinstance(merged.get("devplugClock"), dict):
        pair = merged["devplugClock"]
        offset, how = int(pair["unix_ns"]) - int(pair["steady_ns"]), "recorded by the profiled process"
    else:
        offset, how = measure_clock_offset_ns(), "measured when merging"
    base_ns = int(merged.get("baseTimeNanoseconds", 0))

    def to_torch_us(ts_us):
        return (round(float(ts_us) * 1000) + offset - base_ns) / 1000.0

    pids = {e.get("pid") for e in devplug["traceEvents"] if isinstance(e.get("pid"), int)}
    source_pid = min(pids) if pids else 0
    pid = _PID_BASE + source_pid
    added, threads = [], {}
    for event in devplug["traceEvents"]:
        if not isinstance(event, dict) or "ts" not in event:
            continue
        e = dict(event)
        e["ts"] = to_torch_us(event["ts"])
        e["pid"] = pid
        e["args"] = dict(event.get("args", {}), devplug_ts_us=event["ts"])
        if e.get("cat") == "op":
            e["cat"] = "devplug_op"
        threads.setdefault(e.get("tid", 0), len(threads))
        added.append(e)
    start = min((e["ts"] for e in added), default=0.0)
    meta = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": start,
         "args": {"name": f"devplug ops (pid {source_pid})"}},
        {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "ts": start, "args": {"labels": "devplug"}},
        {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "ts": start,
         "args": {"sort_index": pid}},
    ]
    for tid, order in threads.items():
        meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": start,
                     "args": {"name": f"devplug thread {order}"}})
    merged["traceEvents"] = list(merged["traceEvents"]) + meta + added
    summary = {"events": len(added), "clock_offset_ns": offset, "clock": how, "pid": pid}
    merged["devplugMerge"] = dict(summary, devplug_trace=str(devplug_trace))
    opener = gzip.open if str(out).endswith(".gz") else open
    with opener(out, "wt", encoding="utf-8") as f:
        json.dump(merged, f)
    return summary


def write_trace() -> bool:
    """Writes devplug's trace (``DEVPLUG_TRACE=file.json``, set before the first device use)
    now, with every op call so far; the file is rewritten on each call. Returns False when
    DEVPLUG_TRACE was unset. Reading the device times waits for the work they time."""
    from . import _C

    return bool(_C._write_trace())
