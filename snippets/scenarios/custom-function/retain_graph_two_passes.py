import torch
from smooth_l1 import SmoothL1Loss
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

loss = SmoothL1Loss.apply(model(x), target)
loss.backward(retain_graph=True)  # ctx.saved_tensors survive
first = model.weight.grad.clone()
loss.backward()  # the last pass may free them
print(
    "second pass added the same gradient again:",
    torch.allclose(model.weight.grad, 2 * first),
)
