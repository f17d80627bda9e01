import torch
from smooth_l1 import SmoothL1Loss
from torch import nn
from torch.autograd.function import once_differentiable


class OnceSmoothL1Loss(SmoothL1Loss):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        return SmoothL1Loss.backward(ctx, grad_out)


torch.manual_seed(0)
model = nn.Linear(4, 1)
x, target = torch.randn(16, 4), torch.randn(16, 1)

for loss_fn in (SmoothL1Loss, OnceSmoothL1Loss):
    pred = model(x)
    loss = loss_fn.apply(pred, target)
    (grad_pred,) = torch.autograd.grad(loss, pred, create_graph=True)
    print(
        f"{loss_fn.__name__}: gradient differentiable: "
        f"{grad_pred.requires_grad}"
    )
