import copy

import torch
from freed_graph_report import watch
from torch import nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
ema = copy.deepcopy(encoder)  # needs a gradient; no optimizer owns it
opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()])
x, y = torch.randn(16, 4), torch.randn(16, 1)
# once, before the loop: from the encoder and from its average
features = torch.relu(encoder(x)) + torch.relu(ema(x))

with watch():
    for step in range(2):
        loss = nn.functional.mse_loss(head(features), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        with torch.no_grad():
            for e, p in zip(ema.parameters(), encoder.parameters()):
                e.lerp_(p, 0.1)  # the average: changed, not counted
            encoder.bias.add_(0.01)  # outside step(): counted
