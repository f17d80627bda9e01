# OLMo-core's apply_activation_checkpointing wraps every transformer block
# in checkpoint(..., use_reentrant=False); with a residual dropout in the
# recipe, the RNG state is kept (preserve_rng_state left at its default,
# True), so the recomputation in backward draws the forward's masks.
# https://github.com/allenai/OLMo-core/pull/828
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d, p):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.residual_dropout = nn.Dropout(p)

    def forward(self, x):
        return x + self.residual_dropout(self.ff(self.norm(x)))


class TransformerModel(nn.Module):
    def __init__(self, vocab=64, d=32, n_layers=3, p=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, p) for _ in range(n_layers))
        self.lm_head = nn.Linear(d, vocab)
        self.activation_checkpointing = True

    def forward(self, ids):
        h = self.embed(ids)
        for block in self.blocks:
            if self.activation_checkpointing:
                h = checkpoint(block, h, use_reentrant=False)
            else:
                h = block(h)
        return self.lm_head(h)


model = TransformerModel()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
tokens = torch.randint(0, 64, (6, 8, 17))
for step in range(6):
    ids, labels = tokens[step, :, :-1], tokens[step, :, 1:]
    # what the same step computes with activation checkpointing off
    off = copy.deepcopy(model)
    off.activation_checkpointing = False
    rng = torch.get_rng_state()
    loss_off = F.cross_entropy(off(ids).flatten(0, 1), labels.flatten())
    want = torch.autograd.grad(loss_off, list(off.parameters()))
    torch.set_rng_state(rng)

    logits = model(ids)
    loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in model.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f} (off {loss_off.item():.4f}), "
          f"grads = checkpointing off: {same}, worst relative error {err:.3f}")
