import torch
from smooth_l1 import SmoothL1Loss
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

# --8<-- [start:fix]
for update in range(2):
    # A new forward pass: a new ctx with its own saved tensors,
    # computed with the weights as they are now.
    loss = SmoothL1Loss.apply(model(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    # --8<-- [end:fix]
    print(f"update {update}: loss = {loss.item():.4f}")
