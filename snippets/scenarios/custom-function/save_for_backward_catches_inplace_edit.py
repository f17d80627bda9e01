import torch
from smooth_l1 import SmoothL1Loss
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

pred = model(x)
loss = SmoothL1Loss.apply(pred, target)
pred.clamp_(min=0)  # the same in-place edit after the forward pass
# save_for_backward recorded pred's version: the edit is caught.
loss.backward()
