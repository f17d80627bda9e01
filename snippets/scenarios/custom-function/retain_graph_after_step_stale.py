import torch
from smooth_l1 import SmoothL1Loss
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

loss = SmoothL1Loss.apply(model(x), target)
loss.backward(retain_graph=True)
before_step = model.weight.grad.clone()
opt.step()

opt.zero_grad()
loss.backward()  # runs: this loss still belongs to the old weights
stale = model.weight.grad.clone()

opt.zero_grad()
SmoothL1Loss.apply(model(x), target).backward()
print(
    "second backward = gradient before the step:",
    torch.equal(stale, before_step),
)
print(
    "second backward = gradient at the new weights:",
    torch.allclose(stale, model.weight.grad),
)
