# https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817
from torch import tensor, zeros

x = tensor([1.0], requires_grad=True)
y = [zeros(1) for _ in range(5)]

# Roll the recurrence out one step at a time and read dy[i]/dx at
# each step.
y[0] += x**2
y[0].backward()
print(f"step 0: dy/dx = {x.grad.item():.0f}")
for i in range(1, len(y)):
    x.grad = None
    y[i] += y[i - 1] ** 2
    y[i].backward()
    print(f"step {i}: dy/dx = {x.grad.item():.0f}")
