import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
weight_decay = 1e-3
x, y = torch.randn(32, 8), torch.randn(32, 1)

for step in range(3):
    optimizer.zero_grad()
    data_loss = nn.functional.mse_loss(model(x), y)
    reg = weight_decay * sum(p.pow(2).sum() for p in model.parameters())
    # how large is the data term's gradient? (for the log)
    data_loss.backward()
    data_grad_norm = torch.cat(
        [p.grad.flatten() for p in model.parameters()]
    ).norm()
    print(
        f"step {step}: data loss {data_loss.item():.3f}, "
        f"data grad norm {data_grad_norm.item():.3f}"
    )
    (data_loss + reg).backward()
    optimizer.step()
