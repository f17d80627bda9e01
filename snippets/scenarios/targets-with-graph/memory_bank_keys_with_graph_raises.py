import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Linear(8, 4)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
# The memory bank: keys of earlier batches, used as negatives.
queue = nn.functional.normalize(torch.randn(16, 4), dim=1)
ptr = 0

for step in range(3):
    x = torch.randn(4, 8)
    q = nn.functional.normalize(encoder(x + 0.1 * torch.randn(4, 8)))
    k = nn.functional.normalize(encoder(x + 0.1 * torch.randn(4, 8)))
    l_pos = (q * k).sum(dim=1, keepdim=True)
    l_neg = q @ queue.T
    logits = torch.cat([l_pos, l_neg], dim=1) / 0.1
    labels = torch.zeros(4, dtype=torch.long)  # the positive: column 0
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: contrastive loss {loss.item():.4f}")
    # Enqueue this batch's keys over the oldest ones.
    queue[ptr : ptr + 4] = k
    ptr = (ptr + 4) % 16
    print(
        f"        queue requires grad: {queue.requires_grad}, "
        f"grad_fn: {queue.grad_fn.name()}"
    )
