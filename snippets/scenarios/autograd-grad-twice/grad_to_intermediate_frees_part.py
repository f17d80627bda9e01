import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
head = nn.Linear(8, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss_fn = nn.functional.mse_loss

# Reference: the trunk's gradient from one full backward pass.
(expected,) = torch.autograd.grad(
    loss_fn(head(trunk(x)), y), trunk[0].weight
)

h = trunk(x)
loss = loss_fn(head(h), y)
(dh,) = torch.autograd.grad(loss, h)  # runs, and frees, loss -> h

# The trunk's nodes did not run, so their saved tensors are intact.
h.backward(dh)
same = torch.allclose(trunk[0].weight.grad, expected)
print(f"trunk gradient as from one full pass: {same}")

loss.backward()  # the head's part of the graph is gone
