import torch
from torch import nn


class MemoryAttention(nn.Module):
    """Attends to the previous segment's keys and values too."""

    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.k_cache = self.v_cache = None

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        new_k, new_v = k, v
        if self.k_cache is not None:
            k = torch.cat([self.k_cache, k], dim=1)
            v = torch.cat([self.v_cache, v], dim=1)
        # Stored without history: the next step's graph stops here.
        self.k_cache, self.v_cache = new_k.detach(), new_v.detach()
        weights = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        return weights @ v


torch.manual_seed(0)
attn = MemoryAttention(8)
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(2, 5, 8)  # the next segment
    loss = attn(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}")

# What the detach costs: a loss sees the cached keys of segment a,
# but sends no gradient back to where they came from.
a = torch.randn(2, 5, 8, requires_grad=True)
b = torch.randn(2, 5, 8, requires_grad=True)
attn(a)  # fills the cache
attn(b).pow(2).mean().backward()  # attends to a's keys as well
print(f"gradient reached b: {b.grad is not None}")
print(f"gradient reached a through the cache: {a.grad is not None}")
