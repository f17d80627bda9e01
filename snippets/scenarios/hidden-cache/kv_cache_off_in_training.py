import torch
from torch import nn


class CachedAttention(nn.Module):
    """Attention that keeps past keys and values only when asked."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.k_cache = self.v_cache = None

    def forward(self, x, use_cache=False):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if use_cache:
            if self.k_cache is not None:
                k = torch.cat([self.k_cache, k], dim=1)
                v = torch.cat([self.v_cache, v], dim=1)
            self.k_cache, self.v_cache = k, v
        weights = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        return weights @ v

    def reset_cache(self):
        self.k_cache = self.v_cache = None


torch.manual_seed(0)
attn = CachedAttention(8)
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(2, 5, 8)
    loss = attn(x).pow(2).mean()  # training: no cache
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}")

# Generation: one token at a time, cache on, no graph recorded.
attn.reset_cache()
with torch.no_grad():
    token = torch.randn(1, 1, 8)
    for _ in range(4):
        token = attn(token, use_cache=True)[:, -1:]
print(
    f"cached {attn.k_cache.shape[1]} keys, "
    f"requires_grad={attn.k_cache.requires_grad}"
)
