# An embedding table looked up at the first step, then reused detached
# to save the lookup: the cut comes before the step that changes the
# weights, so every later step reads step 0's values.
import torch
from torch import nn

torch.manual_seed(0)
embed, head = nn.Embedding(10, 8), nn.Linear(8, 1)
opt = torch.optim.Adam([*embed.parameters(), *head.parameters()], 0.1)
ids, cache = torch.arange(10), None
for step in range(3):
    table = embed(ids) if cache is None else cache
    loss = head(table).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    cache = table.detach()
    fresh = torch.equal(table, embed(ids))
    opt.step()
    print(
        f"step {step}: embed.weight.grad is None: "
        f"{embed.weight.grad is None}, table = a lookup now: {fresh}"
    )
