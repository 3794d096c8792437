# SPDX-License-Identifier: Apache-2.0
"""Checkpoints of devplug tensors: torch.save / torch.load with and without map_location,
views sharing one storage, modules, optimizers, the generator's state, weights_only (torch's
default), a checkpoint saved on CUDA, and training resumed in a fresh process matching an
uninterrupted run bit for bit."""

import io
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_devplug


def roundtrip(obj, **load_args):
    f = io.BytesIO()
    torch.save(obj, f)
    f.seek(0)
    return torch.load(f, **load_args)


def other_device(device):
    """Another devplug device than `device` (of any plugin), or None."""
    index = torch.device(device).index
    others = [d["index"] for d in torch_devplug.devices() if d["index"] != index]
    return f"devplug:{others[0]}" if others else None


def test_tensors_and_views_keep_device_values_and_sharing(device):
    base = torch.arange(24, dtype=torch.float32, device=device).reshape(4, 6)
    saved = {"base": base, "row": base[1], "col": base[:, 2], "t": base.t(), "ints": base.long() * 3}
    loaded = roundtrip(saved)
    for key, value in saved.items():
        assert loaded[key].device == torch.device(device), key
        assert loaded[key].dtype == value.dtype and loaded[key].stride() == value.stride(), key
        torch.testing.assert_close(loaded[key].cpu(), value.cpu(), rtol=0, atol=0)
    storage = loaded["base"].untyped_storage().data_ptr()
    for key in ("row", "col", "t"):
        assert loaded[key].untyped_storage().data_ptr() == storage, f"{key} lost its sharing"
    loaded["row"][0] = -1.0  # still one storage: the write shows through every view
    assert loaded["base"][1, 0].item() == -1.0 and loaded["t"][0, 1].item() == -1.0


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_every_dtype(device, dtype):
    x = (torch.arange(-8, 8) * 3).to(dtype).to(device)
    torch.testing.assert_close(roundtrip(x).cpu(), x.cpu(), rtol=0, atol=0)


def test_map_location_forms(device):
    cpu_x = torch.randn(5, 3)
    on_device = cpu_x.to(device)
    assert roundtrip(cpu_x, map_location="devplug").device == torch.device("devplug", 0)
    assert roundtrip(cpu_x, map_location=device).device == torch.device(device)
    assert roundtrip(cpu_x, map_location=torch.device(device)).device == torch.device(device)
    assert roundtrip(on_device, map_location="cpu").device.type == "cpu"
    torch.testing.assert_close(roundtrip(on_device, map_location="cpu"), cpu_x, rtol=0, atol=0)
    mapped = roundtrip(cpu_x, map_location={"cpu": device})
    assert mapped.device == torch.device(device)
    called = []

    def to_device(storage, location):
        called.append(location)
        return storage.to(device=device)

    mapped = roundtrip(cpu_x, map_location=to_device)
    assert called == ["cpu"] and mapped.device == torch.device(device)
    torch.testing.assert_close(mapped.cpu(), cpu_x, rtol=0, atol=0)
    other = other_device(device)
    if other is not None:
        moved = roundtrip(on_device, map_location={device: other})
        assert moved.device == torch.device(other)
        torch.testing.assert_close(moved.cpu(), cpu_x, rtol=0, atol=0)


def test_state_dicts_of_module_optimizer_and_generator(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(4, 6, device=device)).sum().backward()
    opt.step()
    saved = {"model": model.state_dict(), "opt": opt.state_dict(),
             "rng": torch.devplug.get_rng_state(device)}
    loaded = roundtrip(saved, weights_only=True)
    for key, value in saved["model"].items():
        assert loaded["model"][key].device == torch.device(device)
        assert torch.equal(loaded["model"][key].cpu(), value.cpu())
    for index, state in saved["opt"]["state"].items():
        for key, value in state.items():
            assert torch.equal(torch.as_tensor(loaded["opt"]["state"][index][key]).cpu(), torch.as_tensor(value).cpu())
    fresh = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to(device)
    fresh.load_state_dict(loaded["model"])
    fresh_opt = torch.optim.Adam(fresh.parameters(), lr=0.01)
    fresh_opt.load_state_dict(loaded["opt"])
    torch.devplug.set_rng_state(loaded["rng"], device)
    a = torch.randn(3, device=device)
    torch.devplug.set_rng_state(saved["rng"], device)
    assert torch.equal(a.cpu(), torch.randn(3, device=device).cpu())


def test_a_checkpoint_saved_on_cuda_loads_on_devplug(device):
    """torch.save on CUDA tags storages "cuda:0"; this machine has no CUDA device, so the tag
    is given to CPU storages the way CUDA's tagger gives it."""
    registry = torch.serialization._package_registry
    cuda_tagger = (-1, lambda obj: "cuda:0" if obj.device.type == "cpu" else None, lambda obj, location: None)
    registry.insert(0, cuda_tagger)
    try:
        f = io.BytesIO()
        torch.save({"w": torch.arange(4.0)}, f)
    finally:
        registry.remove(cuda_tagger)
    f.seek(0)
    loaded = torch.load(f, map_location="devplug")
    assert loaded["w"].device == torch.device("devplug", 0)
    assert loaded["w"].cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    f.seek(0)
    loaded = torch.load(f, map_location={"cuda:0": device})
    assert loaded["w"].device == torch.device(device)


RESUME = textwrap.dedent("""
    import sys, torch, torch_devplug
    device, path, phase = sys.argv[1], sys.argv[2], sys.argv[3]

    def batch(step):
        g = torch.Generator().manual_seed(step)
        return torch.randn(16, 10, generator=g).to(device), torch.randint(0, 3, (16,), generator=g).to(device)

    def train(model, opt, steps):
        for step in steps:
            x, y = batch(step)
            opt.zero_grad()
            out = torch.nn.functional.dropout(model(x), 0.1)  # uses the device generator
            torch.nn.functional.cross_entropy(out, y).backward()
            opt.step()

    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.GELU(), torch.nn.Linear(32, 3)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    if phase == "whole":
        train(model, opt, range(8))
    elif phase == "first":
        train(model, opt, range(4))
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "rng": torch.devplug.get_rng_state(device)}, path)
        sys.exit(0)
    else:
        ckpt = torch.load(path, map_location=device)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        torch.devplug.set_rng_state(ckpt["rng"], device)
        train(model, opt, range(4, 8))
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path + "." + phase)
""")


def run_phase(device, path, phase):
    env = dict(os.environ)
    env["TORCH_DEVPLUG_PLUGINS"] = torch_devplug.devices()[torch.device(device).index]["plugin"]
    result = subprocess.run([sys.executable, "-c", RESUME, "devplug:0", path, phase], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


def test_training_resumed_in_a_fresh_process_matches_bit_for_bit(device, tmp_path):
    path = str(tmp_path / "ckpt.pt")
    run_phase(device, path, "whole")
    run_phase(device, path, "first")
    run_phase(device, path, "resume")
    whole = torch.load(path + ".whole")
    resumed = torch.load(path + ".resume")
    for key in whole:
        assert torch.equal(whole[key], resumed[key]), f"{key} differs after resuming"
