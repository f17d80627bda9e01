import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)

# --8<-- [start:fix]
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()  # the only backward of this step
    # Read the norm from .grad, where backward put the gradients.
    grads = [p.grad.flatten() for p in model.parameters()]
    norm = torch.cat(grads).norm().item()
    opt.step()
    # --8<-- [end:fix]
    print(f"step {step}: loss {loss.item():.4f}, |grad| {norm:.4f}")
