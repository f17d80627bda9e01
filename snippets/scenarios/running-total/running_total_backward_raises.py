import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)

total = 0.0
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    total = total + loss  # a tensor, holding every step's graph
    total.backward()  # step 1 reaches step 0's freed graph
    opt.step()
    print(f"step {step}: mean loss {total.item() / (step + 1):.4f}")
