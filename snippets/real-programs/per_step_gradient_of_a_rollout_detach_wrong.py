# https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817
from torch import tensor, zeros

x = tensor([1.0], requires_grad=True)
y = [zeros(1) for _ in range(5)]

# Truncated-BPTT style: detach the previous step before using it.
y[0] += x**2
y[0].backward()
print(f"step 0: dy/dx = {x.grad.item():.0f}")
for i in range(1, len(y)):
    y[i] += y[i - 1].detach() ** 2
    print(f"step {i}: y[{i}] still depends on x: {y[i].requires_grad}")
