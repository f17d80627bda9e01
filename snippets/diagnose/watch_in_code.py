import torch
from freed_graph_report import watch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
baseline = torch.zeros(())  # a moving average of the loss

with watch():  # around the code to watch: a loop, a notebook cell
    for step in range(3):
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        loss = nn.functional.mse_loss(model(x), y)
        baseline = 0.9 * baseline + 0.1 * loss
        opt.zero_grad()
        (loss - baseline).backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
