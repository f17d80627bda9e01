import torch
from smooth_l1 import SmoothL1Loss
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

loss = SmoothL1Loss.apply(model(x), target)
loss.backward()
opt.step()
print(f"first update done, loss = {loss.item():.4f}")

# A second update on the same batch, without a new forward pass:
# the backward reads ctx.saved_tensors, which the first one freed.
opt.zero_grad()
loss.backward()
