# A segment-recurrent encoder (Transformer-XL style) trained on a long
# sequence one segment at a time, its layers under activation
# checkpointing (use_reentrant=False). Each layer is handed its memory as
# an argument, so checkpoint keeps the tensor the forward read; the new
# memory is a new tensor bound to the layer after the call (before the
# backward), never written into the old one. (The cache replay problem of
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

    def forward(self, x, memory):
        context = torch.cat([memory, x], dim=0)
        k, v = self.kv(context).chunk(2, dim=-1)
        attn = torch.softmax(self.q(x) @ k.T / x.shape[-1] ** 0.5, dim=-1)
        return x + torch.tanh(self.ff(attn @ v))


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
            if self.checkpointing:
                h = checkpoint(layer, h, layer.memory, use_reentrant=False)
            else:
                h = layer(h, layer.memory)
            layer.memory = h[-MEM:].detach()
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
