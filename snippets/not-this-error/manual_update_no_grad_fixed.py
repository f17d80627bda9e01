import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x, target = torch.randn(8, 3), torch.randn(8)

for step in range(2):
    loss = ((x @ w - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():  # the update itself is not part of the model
        w -= 0.1 * w.grad
    w.grad = None
    print(f"step {step}: loss = {loss.item():.4f}")
