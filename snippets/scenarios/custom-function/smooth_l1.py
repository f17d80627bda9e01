import torch
from torch.nn import functional as F


class SmoothL1Loss(torch.autograd.Function):
    """Smooth L1 (Huber) loss, mean over all elements."""

    @staticmethod
    def forward(ctx, pred, target):
        ctx.save_for_backward(pred, target)
        diff = pred - target
        small = diff.abs() < 1
        loss = torch.where(small, 0.5 * diff**2, diff.abs() - 0.5)
        return loss.mean()

    @staticmethod
    def backward(ctx, grad_out):
        pred, target = ctx.saved_tensors  # freed by the first backward
        grad = (pred - target).clamp(-1, 1) / pred.numel()
        return grad_out * grad, None


if __name__ == "__main__":
    torch.manual_seed(0)
    pred = torch.randn(8, 1, dtype=torch.double, requires_grad=True)
    target = torch.randn(8, 1, dtype=torch.double)
    print(
        "gradcheck:",
        torch.autograd.gradcheck(SmoothL1Loss.apply, (pred, target)),
    )
    ours = torch.autograd.grad(SmoothL1Loss.apply(pred, target), pred)
    ref = torch.autograd.grad(F.smooth_l1_loss(pred, target), pred)
    print(
        "same gradient as F.smooth_l1_loss:",
        torch.allclose(ours[0], ref[0]),
    )
