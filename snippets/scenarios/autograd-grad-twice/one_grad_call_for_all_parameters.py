import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)

# --8<-- [start:fix]
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    # One call, one backward pass: a gradient for every parameter.
    params = list(model.parameters())
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        for p, g in zip(params, grads):
            p -= 0.1 * g
            # --8<-- [end:fix]
    print(f"step {step}: loss {loss.item():.4f}")
