# https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817
import torch
from torch import tensor, zeros


def fresh_grad(i):
    """dy[i]/dx from a rollout built from scratch up to step i."""
    x_new = tensor([1.0], requires_grad=True)
    y_new = x_new**2
    for _ in range(i):
        y_new = y_new**2
    return torch.autograd.grad(y_new, x_new)[0].item()


x = tensor([1.0], requires_grad=True)
y = [zeros(1) for _ in range(5)]
last = len(y) - 1

# Roll the recurrence out one step at a time and read dy[i]/dx at
# each step. Every backward walks back through all earlier steps, so
# all but the last one keep the graph.
y[0] += x**2
y[0].backward(retain_graph=True)
print(f"step 0: dy/dx = {x.grad.item():.0f}")
grads = [x.grad.item()]
for i in range(1, len(y)):
    x.grad = None
    y[i] += y[i - 1] ** 2
    y[i].backward(retain_graph=i < last)
    print(f"step {i}: dy/dx = {x.grad.item():.0f}")
    grads.append(x.grad.item())
fresh = [fresh_grad(i) for i in range(len(y))]
print(f"equal to fresh rollouts: {grads == fresh}")
