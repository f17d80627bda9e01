import torch
from freed_graph_report import watch
from torch import nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
features = torch.relu(encoder(x))  # once, before the loop

with watch():
    for step in range(2):
        loss = nn.functional.mse_loss(head(features), y)
        loss.backward()
        for p in [*encoder.parameters(), *head.parameters()]:
            p.data -= 0.1 * p.grad  # .data: no version counted
            p.grad = None
