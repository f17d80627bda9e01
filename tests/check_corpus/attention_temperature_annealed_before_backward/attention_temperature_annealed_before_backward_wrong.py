# A set classifier whose attention pooling runs under activation
# checkpointing (use_reentrant=False) and sharpens its softmax with an
# annealed temperature. The schedule call sits with the logging, after
# the loss and before loss.backward(): the recomputation in backward reads
# the next step's temperature, so the gradients are those of attention
# weights the forward never used. Same shapes: nothing raises.
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class AttentionPool(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.temperature = 1.0

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / (math.sqrt(x.shape[-1]) * self.temperature)
        return self.out(torch.softmax(scores, dim=-1) @ v).mean(dim=1)


class SetClassifier(nn.Module):
    def __init__(self, d=24, classes=5):
        super().__init__()
        self.embed = nn.Linear(6, d)
        self.pool = AttentionPool(d)
        self.head = nn.Linear(d, classes)
        self.checkpointing = True

    def forward(self, x):
        h = self.embed(x)
        if self.checkpointing:
            h = checkpoint(self.pool, h, use_reentrant=False)
        else:
            h = self.pool(h)
        return self.head(h)


def temperature_at(step):
    return max(0.1, math.exp(-0.2 * step))


model = SetClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(8, 16, 10, 6)
y = torch.randint(0, 5, (8, 16))
for step in range(8):
    off = copy.deepcopy(model)
    off.checkpointing = False
    loss_off = F.cross_entropy(off(x[step]), y[step])
    want = torch.autograd.grad(loss_off, list(off.parameters()))

    loss = F.cross_entropy(model(x[step]), y[step])
    model.pool.temperature = temperature_at(step + 1)
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in model.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grads = checkpointing off: "
          f"{same}, worst relative error {err:.3f}")
