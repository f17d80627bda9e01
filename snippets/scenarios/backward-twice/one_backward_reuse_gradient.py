import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

# One pass; from here on the gradient is a plain tensor to reuse.
y.backward()
grad = x.grad

print(f"logged:  |dy/dx| = {grad.abs().item()}")
with torch.no_grad():
    x -= 0.1 * grad
print(f"applied: x = {x.item():.2f}")
