# SPDX-License-Identifier: Apache-2.0
"""``torch.compile`` on devplug devices: the ``"devplug"`` dynamo backend, and inductor's refusal.

Inductor, torch.compile's default backend, generates Triton or C++ kernels; it has no code
generator for devplug devices. Left alone it fails deep inside with ``KeyError: 'devplug'``;
instead, inductor's vendor hook (``torch.devplug._inductor_backend_init``, which inductor
calls once, when it first sets up its backends, whatever the device) registers a code
generator whose construction raises one clear error that names the backend below.

``torch.compile(model, backend="devplug")`` captures the model with dynamo and AOTAutograd
(forward and backward graphs of aten ops, functionalized) and runs each graph on the device
through devplug graphs (`_GraphRunner`): the first call for an input signature runs eagerly
(kernels build, lazy state appears), the second captures the graph's ops into a devplug graph,
and every call replays it, so the bridge, the dispatcher's validation and the host's per-op
work are paid once per signature instead of once per step. Results are those of eager mode, bit
for bit: the same kernels on the same operands. A graph whose capture fails (an op that waits
for the device or falls back to torch's CPU) runs eagerly from then on, with the reason logged
(logger ``torch_devplug.compile``); TORCH_DEVPLUG_COMPILE_GRAPHS=0 runs every graph eagerly.
Dynamo finds the backend through the ``torch_dynamo_backends`` entry point of this package
(lazily: registering it at import would import dynamo, about a second, on every ``import
torch``).
"""

import collections
import logging
import os

import torch

_log = logging.getLogger("torch_devplug.compile")

_NO_INDUCTOR = (
    "devplug: torch.compile's default backend, inductor, has no code generator for devplug devices "
    "(it generates Triton or C++ kernels). Use torch.compile(model, backend=\"devplug\"), which captures "
    "the forward and backward graphs with AOTAutograd and runs their ops on the device, or run the "
    "model without torch.compile"
)


def _signature(args):
    """What a captured graph is specific to: each tensor input's device, dtype, shape, strides
    and storage offset, each other input's value; None when an input is a tensor on another
    device than devplug (CPU scalars, for one), which a graph cannot take."""
    parts = []
    for a in args:
        if isinstance(a, torch.Tensor):
            if a.device.type != "devplug":
                return None
            parts.append((a.device, a.dtype, tuple(a.shape), a.stride(), a.storage_offset()))
        else:
            parts.append(("value", a))
    return tuple(parts)


def _mutated_inputs(gm: torch.fx.GraphModule):
    """Indices of the placeholders the graph writes in place (input mutations kept in the
    graph: `copy_` into an input)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    mutated = set()
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten.copy_.default:
            target = node.args[0]
            if target in placeholders:
                mutated.add(placeholders.index(target))
    return mutated


class _Captured:
    """A devplug graph of one signature: the inputs it reads (the caller's own tensors where
    they stayed put between the first two calls, its own placeholders otherwise) and the
    outputs it writes."""

    def __init__(self, graph, inputs, stable, outputs):
        self.graph = graph
        self.inputs = inputs
        self.stable = stable  # index -> data_ptr of a caller's tensor used in place
        self.outputs = outputs


class _GraphRunner:
    """Runs one AOTAutograd graph (boxed: called with a list of inputs) through devplug graphs,
    one per input signature, at most MAX_GRAPHS (least recently used dropped)."""

    MAX_GRAPHS = 8

    def __init__(self, gm: torch.fx.GraphModule):
        self.gm = gm
        self.mutated = _mutated_inputs(gm)
        self.seen = {}  # signature -> data_ptrs of the first call's tensor inputs
        self.captured = collections.OrderedDict()  # signature -> _Captured
        self.eager = set()  # signatures whose capture failed
        self._boxed_call = True  # make_boxed_func's mark: AOTAutograd passes a list

    def __call__(self, args):
        args = list(args)
        sig = _signature(args)
        if sig is None or sig in self.eager:
            return self.gm(*args)
        entry = self.captured.get(sig)
        if entry is not None and any(args[i].data_ptr() != p for i, p in entry.stable.items()):
            del self.captured[sig]  # a tensor it used in place moved: capture again
            entry = None
        if entry is None:
            if sig not in self.seen:
                self.seen[sig] = [a.data_ptr() if isinstance(a, torch.Tensor) else None for a in args]
                return self.gm(*args)
            entry = self._capture(sig, args)
            if entry is None:
                return self.gm(*args)
        self.captured.move_to_end(sig)
        return self._replay(entry, args)

    def _capture(self, sig, args):
        first = self.seen[sig]
        inputs, stable = [], {}
        for i, a in enumerate(args):
            if not isinstance(a, torch.Tensor):
                inputs.append(a)
            elif a.data_ptr() == first[i]:
                inputs.append(a)
                stable[i] = a.data_ptr()
            else:
                inputs.append(torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device=a.device))
        graph = torch.devplug.Graph()
        try:
            with torch.accelerator.device_index(args[0].device.index if isinstance(args[0], torch.Tensor)
                                                else torch.devplug.current_device()):
                with torch.devplug.graph(graph):
                    outputs = self.gm(*inputs)
        except RuntimeError as e:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            _log.warning("devplug: a compiled graph runs eagerly: its capture failed: %s", reason)
            self.eager.add(sig)
            return None
        entry = _Captured(graph, inputs, stable, list(outputs))
        self.captured[sig] = entry
        while len(self.captured) > self.MAX_GRAPHS:
            self.captured.popitem(last=False)
        return entry

    def _replay(self, entry, args):
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor) and i not in entry.stable:
                entry.inputs[i].copy_(a)
        entry.graph.replay()
        for i in self.mutated:
            if i not in entry.stable:
                args[i].copy_(entry.inputs[i])
        # Outputs are fresh tensors, as eagerly: the next replay overwrites the graph's own.
        by_id = {id(t): i for i, t in enumerate(entry.inputs) if isinstance(t, torch.Tensor)}
        results = []
        for o in entry.outputs:
            if isinstance(o, torch.Tensor) and id(o) in by_id:
                results.append(args[by_id[id(o)]])  # the graph returned one of its inputs
            elif isinstance(o, torch.Tensor):
                results.append(o.clone())
            else:
                results.append(o)
        return results


def _graphs_wanted() -> bool:
    return os.environ.get("TORCH_DEVPLUG_COMPILE_GRAPHS", "1") != "0"


def devplug_backend(gm: torch.fx.GraphModule, example_inputs):
    """The ``"devplug"`` dynamo backend: AOTAutograd, then each forward and backward graph run
    through devplug graphs (eagerly with TORCH_DEVPLUG_COMPILE_GRAPHS=0)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    def compile_graph(graph: torch.fx.GraphModule, _inputs):
        return _GraphRunner(graph) if _graphs_wanted() else make_boxed_func(graph.forward)

    return aot_autograd(fw_compiler=compile_graph, bw_compiler=compile_graph,
                        keep_inference_input_mutations=True)(gm, example_inputs)


class _NoCodegen:
    """Stands in for inductor's scheduling and wrapper code generators of the devplug device
    type: making one (inductor does before it generates any code) raises the clear error."""

    supports_caching = False  # read from the class before any is made

    def __init__(self, *args, **kwargs):
        raise RuntimeError(_NO_INDUCTOR)

    @classmethod
    def create(cls, *args, **kwargs):
        raise RuntimeError(_NO_INDUCTOR)


def register_inductor_refusal() -> None:
    """Registers `_NoCodegen` as inductor's code generator for the devplug device type (and
    no-op device op overrides, which inductor looks up first), so that inductor on a devplug
    graph raises `_NO_INDUCTOR` instead of a KeyError. Inductor on other devices is
    unaffected."""
    from torch._inductor.codegen.common import (
        DeviceOpOverrides,
        register_backend_for_device,
        register_device_op_overrides,
    )

    name = torch._C._get_privateuse1_backend_name()
    register_device_op_overrides(name, DeviceOpOverrides())
    register_backend_for_device(name, _NoCodegen, _NoCodegen, _NoCodegen, _NoCodegen)
