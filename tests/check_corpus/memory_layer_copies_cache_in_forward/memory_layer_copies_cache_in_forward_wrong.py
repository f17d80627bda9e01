# A segment-recurrent encoder (Transformer-XL style) trained on a long
# sequence one segment at a time, its layers under activation
# checkpointing (use_reentrant=False). Each layer attends over its memory
# and the segment, then writes the segment's last rows into its memory
# buffer in place, inside forward. The recomputation in backward runs that
# forward again and reads the memory it has just overwritten: same shape,
# other values, no error. (The cache replay problem of
# https://github.com/huggingface/transformers/pull/46572)
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
MEM = 4


class MemoryLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(d, 2 * d)
        self.ff = nn.Linear(d, d)
        self.register_buffer("memory", torch.zeros(MEM, d))

    def forward(self, x):
        context = torch.cat([self.memory, x], dim=0)
        k, v = self.kv(context).chunk(2, dim=-1)
        attn = torch.softmax(self.q(x) @ k.T / x.shape[-1] ** 0.5, dim=-1)
        out = x + torch.tanh(self.ff(attn @ v))
        self.memory.copy_(out[-MEM:].detach())
        return out


class SegmentEncoder(nn.Module):
    def __init__(self, d=16, n_layers=2):
        super().__init__()
        self.inp = nn.Linear(3, d)
        self.layers = nn.ModuleList(MemoryLayer(d) for _ in range(n_layers))
        self.out = nn.Linear(d, 1)
        self.checkpointing = True

    def forward(self, x):
        h = self.inp(x)
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=False) if self.checkpointing else layer(h)
        return self.out(h).squeeze(-1)


model = SegmentEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
signal = torch.randn(8 * 12, 3)
target = signal[:, 0].cumsum(0).tanh()
for seg in range(8):
    x, y = signal[seg * 12:(seg + 1) * 12], target[seg * 12:(seg + 1) * 12]
    off = copy.deepcopy(model)
    off.checkpointing = False
    loss_off = F.mse_loss(off(x), y)
    want = torch.autograd.grad(loss_off, list(off.parameters()))

    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in model.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"segment {seg}: loss {loss.item():.4f}, grads = checkpointing off: "
          f"{same}, worst relative error {err:.3f}")
