import torch
from torch import nn
from torch.autograd.function import once_differentiable


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x > 0)  # plain torch ops: differentiable


class OnceReLU(MyReLU):
    @staticmethod
    @once_differentiable  # "my backward cannot be differentiated"
    def backward(ctx, grad_out):
        return MyReLU.backward(ctx, grad_out)


torch.manual_seed(0)
layer1, layer2 = nn.Linear(2, 8), nn.Linear(8, 1)
real = torch.randn(16, 2).requires_grad_()

for relu in (MyReLU, OnceReLU):
    out_real = layer2(relu.apply(layer1(real)))
    # An R1 gradient penalty: its backward differentiates backward.
    (grad_real,) = torch.autograd.grad(
        out_real.sum(), real, create_graph=True
    )
    loss = -out_real.mean() + 5.0 * grad_real.pow(2).sum(dim=1).mean()
    loss.backward()
    print(f"{relu.__name__}: double backward works")
