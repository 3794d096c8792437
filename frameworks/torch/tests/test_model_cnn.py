# SPDX-License-Identifier: Apache-2.0
"""A small CNN trained on scikit-learn's handwritten digits (the data set ships inside
scikit-learn: no network), on each devplug plugin and on torch's CPU from the same weights,
batch by batch: the losses agree to 1e-4 relative at every step, the held-out accuracy
reaches 95%, and nothing runs on a CPU fallback."""

import torch
import torch.nn as nn
from sklearn.datasets import load_digits

from compare import assert_losses_match, train_side_by_side

EPOCHS, BATCH, TRAIN = 5, 50, 1500


def digits():
    data = load_digits()
    x = torch.tensor(data.images, dtype=torch.float32).unsqueeze(1) / 16.0  # [1797, 1, 8, 8]
    y = torch.tensor(data.target, dtype=torch.long)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    return (x[:TRAIN], y[:TRAIN]), (x[TRAIN:], y[TRAIN:])


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


def test_cnn_learns_digits(device):
    (x_train, y_train), (x_test, y_test) = digits()
    order = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(EPOCHS):
        perm = torch.randperm(TRAIN, generator=order)
        batches += [(x_train[perm[i:i + BATCH]], y_train[perm[i:i + BATCH]]) for i in range(0, TRAIN, BATCH)]
    torch.manual_seed(0)
    run = train_side_by_side(cnn(), lambda p: torch.optim.Adam(p, lr=1e-2), batches, nn.CrossEntropyLoss(), device)
    print("\n" + run.summary("CNN on digits", device))

    assert run.fallbacks == {"torch": {}, "devplug": {}}
    assert_losses_match(run)
    cpu_model, dev_model = run.models
    with torch.no_grad():
        dev_accuracy = (dev_model(x_test.to(device)).argmax(1).cpu() == y_test).float().mean().item()
        cpu_accuracy = (cpu_model(x_test).argmax(1) == y_test).float().mean().item()
    print(f"held-out accuracy: devplug {dev_accuracy:.4f}, torch CPU {cpu_accuracy:.4f} ({len(y_test)} images)")
    assert dev_accuracy >= 0.95
    assert abs(dev_accuracy - cpu_accuracy) <= 2 / len(y_test)
