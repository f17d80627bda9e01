import torch
from torch import nn


class CachedAttention(nn.Module):
    """Attention that keeps past keys and values, for generation."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.k_cache = self.v_cache = None

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if self.k_cache is not None:  # prepend what earlier calls saw
            k = torch.cat([self.k_cache, k], dim=1)
            v = torch.cat([self.v_cache, v], dim=1)
        self.k_cache, self.v_cache = k, v  # kept for the next call
        weights = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        return weights @ v


torch.manual_seed(0)
attn = CachedAttention(8)
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(2):
    x = torch.randn(2, 5, 8)  # a new batch of sequences
    loss = attn(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}")
