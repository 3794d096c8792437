# SPDX-License-Identifier: Apache-2.0
"""torch.compile on each devplug plugin: inductor (the default backend) refuses devplug graphs
with one clear error that names backend="devplug", and that backend trains an MLP and a causal
transformer (attention on devplug's composite) exactly as eager mode does on the same device,
with every op on the device."""

import pytest
import torch
import torch.nn as nn

STEPS = 4


@pytest.fixture(autouse=True)
def fresh_dynamo():
    """Each test compiles from scratch (dynamo caches compiled frames per code object)."""
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def mlp(device):
    torch.manual_seed(7)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 4)).to(device)


def test_inductor_says_to_use_the_devplug_backend(device):
    compiled = torch.compile(mlp(device))
    with pytest.raises(Exception) as info:
        compiled(torch.randn(8, 16, device=device))
    message = str(info.value)
    assert "inductor, has no code generator for devplug devices" in message, message
    assert 'torch.compile(model, backend="devplug")' in message, message
    assert "KeyError" not in message, message


def test_inductor_still_registers_the_cpu():
    from torch._inductor.codegen.common import get_scheduling_for_device, init_backend_registration

    init_backend_registration()  # calls torch.devplug._inductor_backend_init
    assert get_scheduling_for_device("cpu") is not None
    assert get_scheduling_for_device("devplug") is not None


def test_devplug_backend_is_listed():
    assert "devplug" in torch._dynamo.list_backends()


def train(model, forward, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(forward(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().cpu() for p in model.parameters()]


def test_devplug_backend_trains_like_eager(device, no_fallback):
    torch.manual_seed(3)
    x, y = torch.randn(16, 16).to(device), torch.randint(0, 4, (16,)).to(device)
    eager = mlp(device)
    eager_losses, eager_params = train(eager, eager, x, y)
    model = mlp(device)
    torch._dynamo.utils.counters.clear()
    losses, params = train(model, torch.compile(model, backend="devplug"), x, y)
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] >= 1, "dynamo captured no graph"
    assert losses == pytest.approx(eager_losses, rel=1e-5)
    assert losses[-1] < losses[0]
    for p, q in zip(params, eager_params):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)


def encoder(device):
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=True)
    return nn.Sequential(nn.TransformerEncoder(layer, 1, enable_nested_tensor=False), nn.Flatten(),
                         nn.Linear(8 * 16, 4)).to(device)


def test_devplug_backend_trains_a_transformer_like_eager(device, no_fallback):
    """The graphs are traced with torch's meta functions: attention's outputs (its result in
    the query's layout, the log-sum-exp, the RNG state) and its gradients must have the shapes
    and strides those give, or the compiled graph's reshapes fail at run time."""
    torch.manual_seed(4)
    x, y = torch.randn(6, 8, 16).to(device), torch.randint(0, 4, (6,)).to(device)
    eager = encoder(device)
    eager_losses, eager_params = train(eager, eager, x, y)
    model = encoder(device)
    losses, params = train(model, torch.compile(model, backend="devplug"), x, y)
    assert losses == pytest.approx(eager_losses, rel=1e-5)
    for p, q in zip(params, eager_params):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)


def test_devplug_backend_inference(device, no_fallback):
    model = mlp(device).eval()
    x = torch.randn(8, 16).to(device)
    with torch.no_grad():
        expected = model(x).cpu()
        got = torch.compile(model, backend="devplug")(x).cpu()
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
