import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
head = nn.Linear(8, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

features = encoder(x)  # computed once, before the loop
for step in range(2):
    loss = nn.functional.mse_loss(head(features), target)
    print(f"step {step}:")
    report_freed(loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
