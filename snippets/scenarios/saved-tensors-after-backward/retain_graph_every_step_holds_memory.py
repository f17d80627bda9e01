import weakref

import torch
from saved_report import report
from torch import nn


class Packed:
    """What a graph holds in place of one saved tensor."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


held = weakref.WeakSet()  # every Packed that some graph still holds
most = {"bytes": 0}


def held_bytes():
    storages = {
        p.tensor.untyped_storage().data_ptr(): (
            p.tensor.untyped_storage().nbytes()
        )
        for p in held
    }
    return sum(storages.values())


def pack(tensor):  # called for every tensor the forward pass saves
    packed = Packed(tensor.detach())
    held.add(packed)
    most["bytes"] = max(most["bytes"], held_bytes())
    return packed


def unpack(packed):
    return packed.tensor


for retain in (False, True):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, target = torch.randn(64, 8), torch.randn(64, 1)
    most["bytes"], after_step = 0, []
    for step in range(3):
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            loss = nn.functional.mse_loss(model(x), target)
        opt.zero_grad()
        loss.backward(retain_graph=retain)  # the "fix" when True
        if retain:
            activation_report = report(loss)  # the logging tool
        opt.step()
        after_step.append(held_bytes())
    print(f"retain_graph={retain}:")
    print(f"  saved bytes held after each step: {after_step}")
    print(f"  most held at once: {most['bytes']} bytes")
