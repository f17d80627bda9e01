# Item embeddings are looked up from a cache keyed by item id, so the
# item tower runs once per item instead of once per batch.
import torch
from torch import nn

torch.manual_seed(0)

item_tower = nn.Sequential(nn.Linear(12, 16), nn.ReLU())
user_tower = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
opt = torch.optim.Adam(
    [*item_tower.parameters(), *user_tower.parameters()], lr=1e-2
)
item_feats = torch.randn(10, 12)
cache = {}


def item_embedding(ids):
    out = []
    for i in ids.tolist():
        if i not in cache:
            with torch.no_grad():
                cache[i] = item_tower(item_feats[i])
        out.append(cache[i])
    return torch.stack(out)


for step in range(4):
    users = torch.randn(8, 6)
    items = torch.randint(0, 10, (8,))
    clicks = torch.randint(0, 2, (8,)).float()
    score = (user_tower(users) * item_embedding(items)).sum(1)
    loss = nn.functional.binary_cross_entropy_with_logits(score, clicks)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}")
