import torch
from freed_graph_report import report_freed, watch
from torch import nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)

with watch():
    features = torch.relu(encoder(x))  # once, before the loop
    for step in range(3):
        loss = nn.functional.mse_loss(head(features), y)
        if report_freed(loss):  # the nodes already run; [] if none
            print(f"step {step}: stopped before a backward that fails")
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
