import torch
from torch import nn


class PreallocatedCache(nn.Module):
    def __init__(self, dim, batch, max_len):
        super().__init__()
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.cache_k = torch.zeros(batch, max_len, dim)
        self.cache_v = torch.zeros(batch, max_len, dim)

    def cut_history(self):
        # A new tensor object without the old writes' graph; the
        # values stay, and new writes are recorded from here on.
        self.cache_k = self.cache_k.detach()
        self.cache_v = self.cache_v.detach()

    def forward(self, x, start=0, use_cache=True):
        end = start + x.shape[1]
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        if use_cache:
            self.cache_k[:, start:end] = k
            self.cache_v[:, start:end] = v
            k, v = self.cache_k[:, :end], self.cache_v[:, :end]
        weights = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        return weights @ v


def train(use_cache):
    torch.manual_seed(0)
    attn = PreallocatedCache(8, batch=2, max_len=10)
    opt = torch.optim.SGD(attn.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        attn.cut_history()  # once per step, before any write
        x = torch.randn(2, 5, 8)
        loss = attn(x, use_cache=use_cache).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    return attn, losses


cached, cached_losses = train(use_cache=True)
plain, plain_losses = train(use_cache=False)
print(f"losses with the cache:    {cached_losses}")
print(f"losses without the cache: {plain_losses}")
same = all(
    torch.equal(a, b)
    for a, b in zip(cached.parameters(), plain.parameters())
)
print(f"same weights after training: {same}")
print(f"wk got a gradient: {cached.wk.weight.grad is not None}")
