# SPDX-License-Identifier: Apache-2.0
"""``torch.compile`` on devplug devices: the ``"devplug"`` dynamo backend, and inductor's refusal.

Inductor, torch.compile's default backend, generates Triton or C++ kernels; it has no code
generator for devplug devices. Left alone it fails deep inside with ``KeyError: 'devplug'``;
instead, inductor's vendor hook (``torch.devplug._inductor_backend_init``, which inductor
calls once, when it first sets up its backends, whatever the device) registers a code
generator whose construction raises one clear error that names the backend below.

``torch.compile(model, backend="devplug")`` captures the model with dynamo and AOTAutograd
(forward and backward graphs of aten ops, functionalized) and runs each graph's ops eagerly on
the device, through the same kernels as eager mode: no fusion and no generated code, so no
speedup; it is there so that code written for torch.compile runs on devplug devices, and as
the place a fusing code generator would go. Dynamo finds the backend through the
``torch_dynamo_backends`` entry point of this package (lazily: registering it at import would
import dynamo, about a second, on every ``import torch``).
"""

import torch

_NO_INDUCTOR = (
    "devplug: torch.compile's default backend, inductor, has no code generator for devplug devices "
    "(it generates Triton or C++ kernels). Use torch.compile(model, backend=\"devplug\"), which captures "
    "the forward and backward graphs with AOTAutograd and runs their ops on the device, or run the "
    "model without torch.compile"
)


def devplug_backend(gm: torch.fx.GraphModule, example_inputs):
    """The ``"devplug"`` dynamo backend: AOTAutograd, then each graph's forward run eagerly."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    def run_eagerly(graph: torch.fx.GraphModule, _inputs):
        return make_boxed_func(graph.forward)

    return aot_autograd(fw_compiler=run_eagerly, bw_compiler=run_eagerly,
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
