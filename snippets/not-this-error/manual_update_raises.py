import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x, target = torch.randn(8, 3), torch.randn(8)

loss = ((x @ w - target) ** 2).mean()
loss.backward()
w -= 0.1 * w.grad  # recorded by autograd, on a leaf: not allowed
