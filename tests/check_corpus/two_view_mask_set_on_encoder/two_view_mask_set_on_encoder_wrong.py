# Contrastive training of a sentence encoder on two augmented views of
# each batch (random token masking), its blocks under activation
# checkpointing (use_reentrant=False). The padding mask is handed over the
# way some encoders take it, encoder.set_mask(mask), and each block reads
# self.mask. Both views go forward before the one backward: the first
# view's recomputation reads the second view's mask. Same shapes, no
# error, and the first view's gradients are wrong.
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU())
        self.mask = None

    def forward(self, h):
        a, _ = self.attn(h, h, h, key_padding_mask=self.mask, need_weights=False)
        return h + self.ff(h + a)


class Encoder(nn.Module):
    def __init__(self, vocab=40, d=16, n_blocks=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n_blocks))
        self.checkpointing = True

    def set_mask(self, mask):
        for block in self.blocks:
            block.mask = mask

    def forward(self, ids, mask):
        self.set_mask(mask)
        h = self.embed(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False) if self.checkpointing else block(h)
        keep = (~mask).unsqueeze(-1).float()
        return (h * keep).sum(1) / keep.sum(1)


def info_nce(z1, z2, tau=0.2):
    z1, z2 = F.normalize(z1, dim=-1), F.normalize(z2, dim=-1)
    return F.cross_entropy(z1 @ z2.T / tau, torch.arange(len(z1)))


def views(ids):
    m1 = torch.rand(ids.shape) < 0.3
    m2 = torch.rand(ids.shape) < 0.3
    m1[:, 0] = m2[:, 0] = False
    return m1, m2


encoder = Encoder()
optimizer = torch.optim.Adam(encoder.parameters(), lr=3e-3)
batches = torch.randint(0, 40, (6, 8, 10))
for step in range(6):
    ids = batches[step]
    m1, m2 = views(ids)
    off = copy.deepcopy(encoder)
    off.checkpointing = False
    loss_off = info_nce(off(ids, m1), off(ids, m2))
    want = torch.autograd.grad(loss_off, list(off.parameters()))

    loss = info_nce(encoder(ids, m1), encoder(ids, m2))
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in encoder.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grads = checkpointing off: "
          f"{same}, worst relative error {err:.3f}")
