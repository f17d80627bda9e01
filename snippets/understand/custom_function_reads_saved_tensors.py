import torch


class ReadsSavedTensors(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x  # saves nothing

    @staticmethod
    def backward(ctx, grad):
        assert ctx.saved_tensors == ()  # nothing was saved
        return 2 * grad


class KeepsANumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.scale = 2.0  # a Python number on ctx, never freed
        return ctx.scale * x

    @staticmethod
    def backward(ctx, grad):
        return ctx.scale * grad


for fn in (ReadsSavedTensors, KeepsANumber):
    x = torch.tensor(3.0, requires_grad=True)
    y = fn.apply(x)
    y.backward()
    try:
        y.backward()
        second = f"second backward runs, x.grad = {x.grad.item()}"
    except RuntimeError as err:
        second = f"second backward raises: {str(err).split(' (')[0]}"
    print(f"{fn.__name__:17} {second}")
