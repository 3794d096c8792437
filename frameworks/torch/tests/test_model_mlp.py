# SPDX-License-Identifier: Apache-2.0
"""An MLP on the digits (as 64 features), trained with SGD (with and without foreach, with
momentum, Nesterov and weight decay) and with Adam and AdamW (with and without foreach), on
each devplug plugin and on torch's CPU from the same weights: the losses agree to 1e-4
relative at every step and nothing runs on a CPU fallback. foreach matters: the optimizers'
_foreach_* ops update lists of tensors in place. Compiled with torch.compile(backend="devplug")
the model trains as it does eagerly on the same device, every step's loss within 1e-5."""

import pytest
import torch
import torch.nn as nn
from sklearn.datasets import load_digits

from compare import (BESIDE_EAGER, assert_compiled_matches_eager, assert_losses_match, train_compiled_and_eager,
                     train_side_by_side)

STEPS, BATCH = 40, 64

OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05, foreach=False),
    "sgd_momentum_foreach": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-4, foreach=True),
    "sgd_nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, foreach=False),
    "adam": lambda p: torch.optim.Adam(p, lr=3e-3, foreach=False),
    "adam_foreach": lambda p: torch.optim.Adam(p, lr=3e-3, foreach=True),
    "adamw_foreach": lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.05, foreach=True),
}


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.LayerNorm(128), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def digit_batches():
    data = load_digits()
    x = torch.tensor(data.data, dtype=torch.float32) / 16.0
    y = torch.tensor(data.target, dtype=torch.long)
    pick = torch.Generator().manual_seed(2)
    batches = []
    for _ in range(STEPS):
        rows = torch.randint(0, len(x), (BATCH,), generator=pick)
        batches.append((x[rows], y[rows]))
    return batches


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_mlp_trains_with(optimizer, device):
    batches = digit_batches()
    torch.manual_seed(0)
    run = train_side_by_side(mlp(), OPTIMIZERS[optimizer], batches, nn.CrossEntropyLoss(), device)
    print("\n" + run.summary(f"MLP with {optimizer}", device))

    assert run.fallbacks == {"torch": {}, "devplug": {}}
    assert_losses_match(run)
    assert run.devplug_losses[-1] < 0.5 * run.devplug_losses[0]
    cpu_model, dev_model = run.models
    for p_cpu, p_dev in zip(cpu_model.parameters(), dev_model.parameters()):
        torch.testing.assert_close(p_dev.detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5)


# Compiled, AdamW with foreach runs on every plugin, the other optimizers BESIDE_EAGER.
@pytest.mark.parametrize("optimizer", [
    pytest.param(name, marks=() if name == "adamw_foreach" else BESIDE_EAGER) for name in OPTIMIZERS])
def test_mlp_trains_compiled_with(optimizer, device):
    torch.manual_seed(0)
    run = train_compiled_and_eager(mlp(), OPTIMIZERS[optimizer], digit_batches(), nn.CrossEntropyLoss(), device)
    print("\n" + run.summary(f"MLP with {optimizer}", device))
    assert_compiled_matches_eager(run)
