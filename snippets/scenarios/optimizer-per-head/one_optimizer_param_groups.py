import copy

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
depth_head = nn.Linear(16, 1)  # task A: regression
class_head = nn.Linear(16, 3)  # task B: classification
x = torch.randn(32, 8)
depth, label = torch.randn(32, 1), torch.randint(0, 3, (32,))


def train(make_optimizers):
    enc, d_head, c_head = (
        copy.deepcopy(m) for m in (encoder, depth_head, class_head)
    )
    optimizers = make_optimizers(enc, d_head, c_head)
    for step in range(3):
        for opt in optimizers:
            opt.zero_grad()
        features = enc(x)
        loss_depth = F.mse_loss(d_head(features), depth)
        loss_class = F.cross_entropy(c_head(features), label)
        (loss_depth + loss_class).backward()
        for opt in optimizers:
            opt.step()
    return [p for m in (enc, d_head, c_head) for p in m.parameters()]


def one_per_module(enc, d_head, c_head):
    return [
        torch.optim.Adam(enc.parameters(), lr=1e-3),
        torch.optim.Adam(d_head.parameters(), lr=1e-2),
        torch.optim.Adam(c_head.parameters(), lr=1e-4),
    ]


def param_groups(enc, d_head, c_head):
    return [
        torch.optim.Adam(
            [
                {"params": enc.parameters(), "lr": 1e-3},
                {"params": d_head.parameters(), "lr": 1e-2},
                {"params": c_head.parameters(), "lr": 1e-4},
            ]
        )
    ]


a, b = train(one_per_module), train(param_groups)
moved = max((p - q).abs().max().item() for p, q in zip(a, b))
print(f"after 3 steps, largest difference in any weight: {moved}")
