import torch
from saved_report import report
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(64, 8), torch.randn(64, 1)

# --8<-- [start:fix]
for step in range(2):
    loss = nn.functional.mse_loss(model(x), target)
    # Everything the graph saved is still there: measure it now and
    # keep only the numbers (a kept tensor would stay in memory).
    activation_report = report(loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
    # --8<-- [end:fix]
    print(f"step {step}: loss = {loss.item():.4f}, {activation_report}")
