import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

total = 0.0
for step in range(2):
    x, target = torch.randn(16, 4), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), target)
    total = total + loss  # meant for logging, keeps every graph
    print(f"step {step}:")
    report_freed(total)
    opt.zero_grad()
    total.backward()
    opt.step()
