import torch
from torch.utils.checkpoint import checkpoint


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors  # read once, reuse the local
        return 3 * x * x * grad_out


class CubeReadsTwice(Cube):
    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        (x_again,) = ctx.saved_tensors
        return 3 * x * x_again * grad_out


x = torch.tensor([1.0, 2.0], requires_grad=True)
for fn in (Cube, CubeReadsTwice):
    for checkpointed in (False, True):
        x.grad = None
        if checkpointed:
            y = checkpoint(fn.apply, x, use_reentrant=False)
        else:
            y = fn.apply(x)
        y.sum().backward()
        print(
            f"{fn.__name__}, checkpoint={checkpointed}: "
            f"x.grad = {x.grad.tolist()}"
        )
