import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_out


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Square.apply(x).sum()
node = y.grad_fn.next_functions[0][0]  # the Square node
print(f"before backward: {node.name()} saved {len(node.saved_tensors)}")
y.backward()
print(node.saved_tensors)
