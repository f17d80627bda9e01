import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)

# --8<-- [start:fix]
total = 0.0  # a Python float: no graph
total_t = torch.zeros(())  # or a tensor, without a graph
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # only this step's graph
    opt.step()
    total += loss.item()
    total_t += loss.detach()  # a tensor again, but no graph
    # --8<-- [end:fix]
    print(f"step {step}: mean loss {total / (step + 1):.4f}")

print(
    f"tensor total has a graph: {total_t.requires_grad}, "
    f"same value: {abs(total_t.item() - total) < 1e-5}"
)
