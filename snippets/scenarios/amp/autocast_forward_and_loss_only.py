import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.3)
x, y = torch.randn(16, 4), torch.randn(16, 1)


def loss_at_current_weights():
    # The same forward pass, casting the weights as they are now
    no_cache = torch.autocast(
        "cpu", dtype=torch.bfloat16, cache_enabled=False
    )
    with torch.no_grad(), no_cache:
        return nn.functional.mse_loss(model(x), y).item()


for step in range(6):
    now = loss_at_current_weights()
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.mse_loss(model(x), y)  # forward and loss
    loss.backward()  # outside autocast, as is the step
    opt.step()
    print(
        f"step {step}: loss {loss.item():.3f}, "
        f"at the current weights {now:.3f}"
    )
