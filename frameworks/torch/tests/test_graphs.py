# SPDX-License-Identifier: Apache-2.0
"""Graphs on each devplug plugin: torch.devplug.graph and torch.accelerator.Graph capture the
current stream's work once and replay it; every replay gives what the same ops give eagerly,
bit for bit (the same kernels on the same operands), random ops included, and an op that
must wait for the device inside a capture raises and leaves the device usable."""

import pytest
import torch
import torch.nn as nn


@pytest.fixture(autouse=True)
def on_device(device):
    with torch.devplug.device(device):
        yield


def test_replay_of_an_elementwise_chain_follows_its_inputs(device):
    x = torch.zeros(64, 33, device=device)
    w = torch.randn(33, device=device)
    g = torch.devplug.Graph()
    with torch.devplug.graph(g):
        y = ((x * 2 + w).sin() - x.mean(dim=1, keepdim=True)).relu()
    for k in range(4):
        new = torch.randn(64, 33)
        x.copy_(new.to(device))
        g.replay()
        expected = ((x * 2 + w).sin() - x.mean(dim=1, keepdim=True)).relu()
        torch.testing.assert_close(y.cpu(), expected.cpu(), rtol=0, atol=0)


def make_step(model, optimizer, static_x, static_y):
    def step():
        optimizer.zero_grad(set_to_none=False)
        loss = nn.functional.cross_entropy(model(static_x), static_y)
        loss.backward()
        optimizer.step()
        return loss
    return step


def test_a_captured_training_step_trains_as_eager_steps_do(device):
    torch.manual_seed(3)
    make = lambda: nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Dropout(0.25), nn.Linear(32, 5)).to(device)
    eager_model = make()
    graph_model = make()
    graph_model.load_state_dict(eager_model.state_dict())
    data = [(torch.randn(16, 12), torch.randint(0, 5, (16,))) for _ in range(5)]
    static_x = torch.zeros(16, 12, device=device)
    static_y = torch.zeros(16, dtype=torch.int64, device=device)
    eager_opt = torch.optim.SGD(eager_model.parameters(), lr=0.1)
    graph_opt = torch.optim.SGD(graph_model.parameters(), lr=0.1)
    eager_step = make_step(eager_model, eager_opt, static_x, static_y)
    graph_step = make_step(graph_model, graph_opt, static_x, static_y)

    # One warm-up step each (it creates .grad), from the same generator position.
    torch.manual_seed(11)
    eager_step()
    eager_losses = []
    for x, y in data:
        static_x.copy_(x.to(device))
        static_y.copy_(y.to(device))
        eager_losses.append(eager_step().item())

    static_x.zero_()  # the graph model's warm-up sees what the eager one's saw
    static_y.zero_()
    torch.manual_seed(11)
    graph_step()
    g = torch.devplug.Graph()
    with torch.devplug.graph(g):
        static_loss = graph_step()
    graph_losses = []
    for x, y in data:
        static_x.copy_(x.to(device))
        static_y.copy_(y.to(device))
        g.replay()
        graph_losses.append(static_loss.item())
    assert graph_losses == eager_losses
    for a, b in zip(eager_model.parameters(), graph_model.parameters()):
        torch.testing.assert_close(b.cpu(), a.cpu(), rtol=0, atol=0)


def test_random_ops_draw_what_eager_calls_draw(device):
    torch.manual_seed(5)
    eager = [torch.rand(40, device=device).cpu() for _ in range(3)]
    after_eager = torch.rand(7, device=device).cpu()

    torch.manual_seed(5)
    out = torch.empty(40, device=device)
    g = torch.devplug.Graph()
    with torch.devplug.graph(g):
        out.copy_(torch.rand(40, device=device))
    replayed = []
    for _ in range(3):
        g.replay()
        replayed.append(out.cpu())
    for a, b in zip(eager, replayed):
        torch.testing.assert_close(b, a, rtol=0, atol=0)
    # The generator moved past the replays' numbers, as after the eager calls.
    torch.testing.assert_close(torch.rand(7, device=device).cpu(), after_eager, rtol=0, atol=0)


def test_torch_accelerator_graph_captures_the_current_stream(device):
    x = torch.ones(10, device=device)
    s = torch.devplug.Stream()
    g = torch.accelerator.Graph()
    with torch.devplug.stream(s), g:
        x.mul_(3)
    torch.devplug.synchronize()
    assert x.cpu().tolist() == [1.0] * 10  # the capture ran nothing
    g.replay()
    g.replay()
    assert x.cpu().tolist() == [9.0] * 10


def test_a_synchronizing_op_in_a_capture_raises_and_the_device_stays_usable(device):
    x = torch.arange(6.0, device=device)
    g = torch.devplug.Graph()
    with pytest.raises(RuntimeError, match="capturing a graph"):
        with torch.devplug.graph(g):
            (x * 2).sum().item()
    assert (x * 2).sum().item() == 30.0
    g.reset()
    with torch.devplug.graph(g):
        x.add_(1)
    g.replay()
    assert x.cpu().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_replay_before_capture_and_double_capture_raise(device):
    g = torch.devplug.Graph()
    with pytest.raises(RuntimeError, match="before a capture ended"):
        g.replay()
    x = torch.ones(3, device=device)
    with torch.devplug.graph(g):
        x.add_(1)
    with pytest.raises(RuntimeError, match="already holds a capture"):
        g.capture_begin()
    with pytest.raises(TypeError, match="torch.devplug.Graph"):
        torch.devplug.graph(object())
