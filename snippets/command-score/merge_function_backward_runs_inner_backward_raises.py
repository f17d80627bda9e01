"""A custom Function whose backward() runs torch.autograd.backward()
over a graph its forward() built, checked with gradcheck.

Source: https://github.com/pytorch/pytorch/issues/74802
The user wanted one custom op that runs two functions together in the
forward and in the backward, taking each one's gradient from autograd,
with gradients that torch.autograd.gradcheck accepts.
"""

import torch

torch.manual_seed(0)


class Merge(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_0, x_1, fn_0, fn_1):
        ctx.x_0 = x_0.detach().requires_grad_()
        ctx.x_1 = x_1.detach().requires_grad_()
        with torch.enable_grad():
            ctx.y_0, ctx.y_1 = fn_0(ctx.x_0), fn_1(ctx.x_1)
        return ctx.y_0.detach(), ctx.y_1.detach()

    @staticmethod
    def backward(ctx, dy_0, dy_1):
        torch.autograd.backward((ctx.y_0, ctx.y_1), (dy_0, dy_1))
        return ctx.x_0.grad, ctx.x_1.grad, None, None


inp = (
    torch.randn(3, dtype=torch.double, requires_grad=True),
    torch.randn(3, dtype=torch.double, requires_grad=True),
)
y_0, y_1 = Merge.apply(*inp, torch.exp, torch.exp)
print(f"forward: {y_0.sum().item():.4f} {y_1.sum().item():.4f}")
ok = torch.autograd.gradcheck(Merge.apply, (*inp, torch.exp, torch.exp))
print(f"gradcheck: {ok}")
