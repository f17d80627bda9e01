import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward()  # one pass; from here on the gradient is a plain tensor you can reuse
grad = x.grad

print(f"logged:  |dy/dx| = {grad.abs().item()}")
with torch.no_grad():
    x -= 0.1 * grad
print(f"applied: x = {x.item():.2f}")
