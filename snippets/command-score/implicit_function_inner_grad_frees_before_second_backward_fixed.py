"""The fix: the Function's own torch.autograd.grad() keeps the graph its
forward() built, as the outer backward keeps the outer graph.

Source: https://github.com/pytorch/pytorch/issues/65536
The user wanted two backward passes over a loss whose graph holds a
custom Function that differentiates its own forward graph inside its
backward (as deep implicit layers do), the first with
retain_graph=True.
"""

import torch as th

th.manual_seed(0)


class Dummy(th.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        with th.enable_grad():
            y = x**2
        ctx.save_for_backward(y, x)
        return x

    @staticmethod
    def backward(ctx, g):
        y, x = ctx.saved_tensors
        grad_x = th.autograd.grad(
            y,
            x,
            g,
            retain_graph=True,
            create_graph=False,
            only_inputs=True,
            allow_unused=False,
        )
        return grad_x


t = th.rand(5, requires_grad=True)
loss = Dummy.apply(t).sum()
loss.backward(retain_graph=True)
first = t.grad.clone()
print(f"first backward: grad norm {first.norm():.4f}")
print(f"  equals d(x**2)/dx = 2x: {th.allclose(first, 2 * t)}")
loss.backward(retain_graph=False)
print(f"second backward: grad norm {t.grad.norm():.4f}")
print(
    f"  added the same gradient again: {th.allclose(t.grad, 2 * first)}"
)
